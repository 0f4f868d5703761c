"""Which stores go in which pane, and how each pane titles itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text

from memtui.core.contents import ScanResult, Store
from memtui.core.model import StoreKind
from memtui.core.plaintext import counted
from memtui.tui.labels import agent_label, session_label, snapshot_label


@dataclass(frozen=True)
class PaneSpec:
    id: str
    title: str
    kinds: tuple[StoreKind, ...]
    single: bool
    labeler: Callable[[Store], Text] | None
    empty_text: str
    optional: bool = False


PANES: tuple[PaneSpec, ...] = (
    PaneSpec("auto", "Auto", (StoreKind.AUTO,), True, None, "no auto memory"),
    PaneSpec("team", "Team", (StoreKind.TEAM,), True, None, "no team memory"),
    PaneSpec("sessions", "Sessions", (StoreKind.SESSION,), False, session_label,
             "no session memory for this cwd"),
    PaneSpec("agents", "Agents", (StoreKind.AGENT,), False, agent_label, "no agent memory"),
    PaneSpec("snapshots", "Snapshots", (StoreKind.SNAPSHOT,), False, snapshot_label,
             "no snapshots shipped"),
    PaneSpec("agentmemory", "agentmemory", (StoreKind.AGENTMEMORY,), True, None,
             "no agentmemory home", optional=True),
)


def spec_for(store: Store) -> PaneSpec | None:
    """The pane that shows ``store``."""
    return next((spec for spec in PANES if store.kind in spec.kinds), None)


def stores_for(spec: PaneSpec, result: ScanResult) -> list[Store]:
    return [s for s in result.stores if s.kind in spec.kinds]


def pane_subtitle(spec: PaneSpec, stores: list[Store]) -> str:
    """The pane's border subtitle: its store path (one store) or how many stores it holds."""
    if spec.single and stores:
        store = stores[0]
        state = "" if store.location.enabled else " · disabled"
        return f"{counted(len(store.memories), 'file')}{state}"
    return counted(len(stores), "store")


def pane_visible(spec: PaneSpec, stores: list[Store]) -> bool:
    return not spec.optional or any(s.exists for s in stores)
