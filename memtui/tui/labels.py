"""Short labels and badges for stores, shared by the panes and the detail views."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from memtui.core.contents import Store
from memtui.tui.plain import line

SNAPSHOT_BADGES = {
    "prompt-update": ("● update", "bold yellow"),
    "initialize": ("○ init", "bold cyan"),
    "none": ("· synced", "dim"),
}


def snapshot_badge(store: Store) -> Text:
    snap = store.snapshot
    if snap is None:
        return Text("")
    if snap.problem:
        return Text("✕ invalid", style="bold red")
    text, style = SNAPSHOT_BADGES[snap.primary.status]
    return Text(text, style=style)


def agent_label(store: Store) -> Text:
    loc = store.location
    label = Text(line(loc.agent or "?"), style="bold")
    label.append(f" ({loc.scope.value if loc.scope else '?'})", style="dim")
    if not store.exists:  # as the snapshot review says: "the local memory dir does not exist"
        label.append(" no dir", style="dim italic")
    elif not store.memories:
        label.append(" empty", style="dim italic")
    if store.index and store.index.binds != "none":
        label.append(" ▲", style="bold red")
    return label


def agent_labeler(stores: list[Store]) -> Callable[[Store], Text]:
    """An agent label that also carries the snapshot badge of the scope Claude Code acts on."""
    badges: dict[tuple[str, str], Text] = {}
    for store in stores:
        snap = store.snapshot
        if snap is not None:
            key = (snap.agent.replace(":", "-"), snap.acted_scope.value)
            badges[key] = snapshot_badge(store)

    def label(store: Store) -> Text:
        text = agent_label(store)
        loc = store.location
        badge = badges.get((loc.agent or "", loc.scope.value if loc.scope else ""))
        if badge is not None and badge.plain:
            text.append("  ")
            text.append_text(badge)
        return text

    return label


def snapshot_label(store: Store) -> Text:
    label = Text(line(store.location.agent or "?"), style="bold")
    label.append("  ")
    label.append_text(snapshot_badge(store))
    return label


def session_label(store: Store) -> Text:
    info = store.session_info
    sid = line((store.location.session or "")[:8])
    if info is None:
        return Text(sid)
    date = line((info.started or "")[:10]) or "????-??-??"
    label = Text(f"{date} {sid}", style="bold")
    if info.empty:
        label.append(" (empty)", style="dim italic")
    elif info.title:
        label.append(f" {line(info.title)}")
    return label


def agentmemory_label(store: Store) -> Text:
    return Text("agentmemory", style="bold")
