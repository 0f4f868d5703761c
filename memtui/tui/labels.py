"""Short labels and badges for stores, shared by the panes and the detail views, the legend
of the letters and marks the trees show, and fitting a label to the width of its pane.

A tree label is a :class:`Label`: a name, which is shortened first when the row is too narrow,
and a tail (scope, badges, marks) that is kept whole as long as any of the name is left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.text import Text

from memtui.core.contents import Store
from memtui.tui.plain import line

TYPE_STYLE = {
    "user": "bold magenta",
    "feedback": "bold yellow",
    "project": "bold cyan",
    "reference": "bold green",
}
"""A memory's ``type`` (its first letter shows in the trees) and its style."""

MEMORY_MARKS = (
    ("✂", "cut: never loaded"),
    ("◌", "orphan: no entry"),
    ("⚠", "problem"),
)
"""The marks after a memory's name (:meth:`memtui.tui.nodes.MemoryMarks.glyphs`)."""

INDEX_MARK = ("▲", "over limit")
"""After a MEMORY.md (and an agent whose MEMORY.md is past its limit)."""

SNAPSHOT_BADGES = {
    "prompt-update": ("● update", "bold yellow"),
    "initialize": ("○ init", "bold cyan"),
    "none": ("· synced", "dim"),
}


INVALID_BADGE = ("✕ invalid", "bold red")

MIN_NAME = 4
"""Cells of a name (its ellipsis included) kept before a tail is cut too."""


@dataclass(frozen=True)
class Label:
    """A tree label: ``name`` is shortened first, ``tail`` kept whole."""

    name: Text
    tail: Text = field(default_factory=Text)

    def text(self) -> Text:
        out = self.name.copy()
        out.append_text(self.tail)
        return out


def fit(text: Text, tail: int, width: int) -> Text:
    """``text`` cut to ``width`` cells: the part before its last ``tail`` characters is
    shortened (with ``…``) while at least :data:`MIN_NAME` cells of it remain, then the rest."""
    if text.cell_len <= width:
        return text
    cut = len(text) - tail
    head, end = text[:cut], text[cut:]
    room = width - end.cell_len
    if tail and room >= min(MIN_NAME, head.cell_len):
        head.truncate(room, overflow="ellipsis")
        head.append_text(end)
        return head
    out = text.copy()
    out.truncate(width, overflow="ellipsis")
    return out


def legend() -> Text:
    """One line: the type letters, the memory marks, the index mark, the snapshot badges."""
    text = Text()
    for kind, style in TYPE_STYLE.items():
        text.append(kind[0], style=style)
        text.append(f" {kind}  ", style="dim")
    text.append("│ ", style="dim")
    for glyph, meaning in (*MEMORY_MARKS, INDEX_MARK):
        text.append(glyph, style="bold")
        text.append(f" {meaning}  ", style="dim")
    text.append("│ ", style="dim")
    badges = [*SNAPSHOT_BADGES.values(), INVALID_BADGE]
    for number, (badge, style) in enumerate(badges):
        text.append(badge, style=style)
        if number < len(badges) - 1:
            text.append("  ")
    return text


def snapshot_badge(store: Store) -> Text:
    snap = store.snapshot
    if snap is None:
        return Text("")
    if snap.problem:
        return Text(*INVALID_BADGE)
    text, style = SNAPSHOT_BADGES[snap.primary.status]
    return Text(text, style=style)


def agent_label(store: Store) -> Label:
    loc = store.location
    tail = Text(f" ({loc.scope.value if loc.scope else '?'})", style="dim")
    if not store.exists:  # as the snapshot review says: "the local memory dir does not exist"
        tail.append(" no dir", style="dim italic")
    elif not store.memories:
        tail.append(" empty", style="dim italic")
    if store.index and store.index.binds != "none":
        tail.append(f" {INDEX_MARK[0]}", style="bold red")
    return Label(Text(line(loc.agent or "?"), style="bold"), tail)


def agent_labeler(stores: list[Store]) -> Callable[[Store], Label]:
    """An agent label that also carries the snapshot badge of the scope Claude Code acts on."""
    badges: dict[tuple[str, str], Text] = {}
    for store in stores:
        snap = store.snapshot
        if snap is not None:
            key = (snap.agent.replace(":", "-"), snap.acted_scope.value)
            badges[key] = snapshot_badge(store)

    def label(store: Store) -> Label:
        plain = agent_label(store)
        loc = store.location
        badge = badges.get((loc.agent or "", loc.scope.value if loc.scope else ""))
        if badge is None or not badge.plain:
            return plain
        tail = plain.tail.copy()
        tail.append("  ")
        tail.append_text(badge)
        return Label(plain.name, tail)

    return label


def snapshot_label(store: Store) -> Label:
    tail = Text("  ")
    tail.append_text(snapshot_badge(store))
    return Label(Text(line(store.location.agent or "?"), style="bold"), tail)


def session_label(store: Store) -> Label:
    """Date and id, then the title (shortened first) or ``(empty)`` (kept whole)."""
    info = store.session_info
    sid = line((store.location.session or "")[:8])
    if info is None:
        return Label(Text(sid))
    date = line((info.started or "")[:10]) or "????-??-??"
    label = Text(f"{date} {sid}", style="bold")
    if info.empty:
        return Label(label, Text(" (empty)", style="dim italic"))
    if info.title:
        label.append(f" {line(info.title)}")
    return Label(label)
