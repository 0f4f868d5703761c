"""Which stores go in which pane, and how each pane titles itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text

from memtui.core.contents import ScanResult, Store
from memtui.core.model import StoreKind
from memtui.core.plaintext import counted
from memtui.tui.labels import INDEX_MARK, Label, agent_label, session_label, snapshot_label


@dataclass(frozen=True)
class PaneSpec:
    id: str
    title: str
    kinds: tuple[StoreKind, ...]
    single: bool
    labeler: Callable[[Store], Label] | None
    empty_text: str
    optional: bool = False
    max_weight: int = 36
    """The most cells of its widest label a pane asks for (pane_weight)."""


PANES: tuple[PaneSpec, ...] = (
    PaneSpec("auto", "Auto", (StoreKind.AUTO,), True, None, "no auto memory"),
    PaneSpec("team", "Team", (StoreKind.TEAM,), True, None, "no team memory"),
    PaneSpec("sessions", "Sessions", (StoreKind.SESSION,), False, session_label,
             "no session memory for this cwd", max_weight=30),  # the titles may be cut
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


MIN_PANE = 16
"""The least share of the width a pane gets, in cells of its widest label (pane_weight)."""


def pane_weight(
    spec: PaneSpec, stores: list[Store], labeler: Callable[[Store], Label] | None = None
) -> int:
    """How wide a pane wants to be: its widest label (bounded), so panes of short labels
    leave their width to those whose names and badges would be cut. A single store's width
    is read from its memories' names (its labels are made as the tree fills)."""
    if spec.single:
        names = [len(m.rel_path.rsplit("/", 1)[-1]) for s in stores for m in s.memories]
        widest = max(names, default=len(spec.empty_text)) + 5  # type letter and a mark
    else:
        labeler = labeler or spec.labeler
        widths = [(labeler(s).text().cell_len if labeler else len(s.title)) + 2 for s in stores]
        widest = max(widths, default=len(spec.empty_text))
    return max(MIN_PANE, min(spec.max_weight, widest + 2))


def pane_visible(spec: PaneSpec, stores: list[Store]) -> bool:
    return not spec.optional or any(s.exists for s in stores)


def worst_mark(stores: list[Store]) -> Text:
    """The gravest mark of a pane's stores, for its tab (the tab bar of a narrow terminal shows
    one pane at a time): ``✕`` an unusable snapshot or a store that cannot be read, ``▲`` a
    MEMORY.md past its limit, ``⚠`` a memory with a problem; empty when all is well."""
    if any(s.problems or (s.snapshot is not None and s.snapshot.problem) for s in stores):
        return Text("✕", style="bold red")
    if any(s.index is not None and s.index.binds != "none" for s in stores):
        return Text(INDEX_MARK[0], style="bold red")
    if any(m.problems for s in stores for m in s.memories):
        return Text("⚠", style="bold yellow")
    return Text("")


def tab_title(spec: PaneSpec, stores: list[Store]) -> Text:
    title = Text(spec.title)
    mark = worst_mark(stores)
    if mark.plain:
        title.append(" ")
        title.append_text(mark)
    return title
