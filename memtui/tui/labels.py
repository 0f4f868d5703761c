"""Short labels and badges for stores, shared by the panes and the detail views, the legend
of the letters and marks the trees show, and fitting a label to the width of its pane.

A tree label is a :class:`Label`: a name, which is shortened first when the row is too narrow,
and a tail (scope, badges, marks) that is kept whole as long as any of the name is left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.text import Text
from textual.widgets import Static

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
    ("⚠", "problem or secret"),
    ("≠", "conflict: J"),
    ("●", "marked"),
    ("⊘", "never recalled"),
)
"""The marks beside a memory's name (:meth:`memtui.tui.nodes.MemoryBadges.glyphs`, the judge's
``≠``, the ``●`` of a memory marked with space, the ``⊘`` of a memory past the 200 newest that
recall is never offered)."""

INDEX_MARK = ("▲", "over the limit")
"""After a MEMORY.md (and an agent whose MEMORY.md is past its limit)."""

SNAPSHOT_BADGES = {
    "prompt-update": ("● update", "bold yellow"),
    "initialize": ("○ init", "bold cyan"),
    "none": ("· synced", "dim"),
}


INVALID_BADGE = ("✕ invalid", "bold red")

MIN_NAME = 6
"""Cells of a name (a tree's ``▶`` and the ellipsis included) kept before its tail is cut."""
MIN_BADGE_NAME = 4
"""Cells of a name kept beside a badge when even the tail is gone (``▶ d…``)."""


@dataclass(frozen=True)
class Label:
    """A tree label: ``name`` is shortened first, then ``tail`` (scope, state, marks), and
    ``badge`` (a snapshot's status) is kept whole."""

    name: Text
    tail: Text = field(default_factory=Text)
    badge: Text = field(default_factory=Text)

    def text(self) -> Text:
        return Text("").join([self.name, self.tail, self.badge])

    @property
    def kept(self) -> tuple[int, int]:
        """The characters of tail and badge, and of the badge alone (see :func:`fit`)."""
        return len(self.tail) + len(self.badge), len(self.badge)


def fit(text: Text, tail: int, width: int, badge: int = 0) -> Text:
    """``text`` cut to ``width`` cells. Its last ``tail`` characters are a tail whose last
    ``badge`` characters are a badge: the part before the tail is shortened (with ``…``) while
    at least :data:`MIN_NAME` cells of it remain; then the tail before the badge (down to
    nothing), the badge kept whole (the name down to :data:`MIN_BADGE_NAME` cells); only then
    is the whole cut."""
    if text.cell_len <= width:
        return text
    cut = len(text) - tail
    head, rest = text[:cut], text[cut:]
    keep = min(MIN_NAME, head.cell_len)
    if tail and width - rest.cell_len >= keep:
        head.truncate(width - rest.cell_len, overflow="ellipsis")
        return Text("").join([head, rest])
    if badge:
        detail, end = rest[: len(rest) - badge], rest[len(rest) - badge :]
        room = width - keep - end.cell_len
        if room >= 2:
            head.truncate(keep, overflow="ellipsis")
            detail.truncate(room, overflow="ellipsis")
            return Text("").join([head, detail, end])
        spaces = len(end.plain) - len(end.plain.lstrip(" "))
        end = end[max(0, spaces - 1) :]  # one space before the badge
        left = width - end.cell_len
        if left >= min(MIN_BADGE_NAME, head.cell_len):
            head.truncate(left, overflow="ellipsis")
            return Text("").join([head, end])
    out = text.copy()
    out.truncate(width, overflow="ellipsis")
    return out


SHORT_MEANINGS = {
    "✂": "cut", "◌": "orphan", "⚠": "problem", "≠": "conflict", "●": "marked",
    "⊘": "unrecalled", "▲": "over limit",
}  # fmt: skip
"""What a narrow legend line says of each mark (the help says it in full)."""


def legend(*, lines: bool = False, width: int | None = None) -> Text:
    """The type letters, the memory marks and the index mark, the snapshot badges: on one
    line (the legend under the trees), or a line each (``lines``: the help). With ``width``
    the line fits it: the marks' meanings shortened, then without the snapshot badges (the
    trees show them in words), then single spaces, then the marks alone, then cut with ``…``
    (the help, ``?``, has it all)."""
    if lines or width is None:
        return _legend(lines=lines)
    for short, gap, badges, types in ((False, 2, True, True), (True, 2, True, True),
                                      (True, 2, False, True), (True, 1, False, True),
                                      (True, 2, False, False), (True, 1, False, False)):
        text = _legend(short=short, gap=gap, badges=badges, types=types)
        if text.cell_len <= width:
            return text
    text.truncate(max(0, width), overflow="ellipsis")
    return text


def _legend(*, lines: bool = False, short: bool = False, gap: int = 2,
            badges: bool = True, types: bool = True) -> Text:
    parts: list[Text] = []
    marks = [(glyph, "bold", SHORT_MEANINGS[glyph] if short else meaning)
             for glyph, meaning in (*MEMORY_MARKS, INDEX_MARK)]
    groups = [[(kind[0], style, kind) for kind, style in TYPE_STYLE.items()]] if types else []
    groups.append(marks)
    if badges:
        groups.append([(badge, style, "") for badge, style in (*SNAPSHOT_BADGES.values(),
                                                                INVALID_BADGE)])
    space = " " * gap
    for group in groups:
        part = Text()
        for glyph, style, meaning in group:
            part.append(glyph, style=style)
            part.append(f" {meaning}{space}" if meaning else space, style="dim")
        part.rstrip()
        parts.append(part)
    return Text("\n" if lines else f"{space}│ ", style="dim").join(parts)


class LegendLine(Static):
    """The legend line under the trees, fitted to its width at every render (a resize
    renders it again)."""

    def render(self) -> Text:
        return legend(width=self.content_size.width or None)


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
        return Label(plain.name, plain.tail, Text("  ").append_text(badge))

    return label


def snapshot_label(store: Store) -> Label:
    badge = Text("  ").append_text(snapshot_badge(store))
    return Label(Text(line(store.location.agent or "?"), style="bold"), badge=badge)


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
