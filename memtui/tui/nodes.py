"""What a tree node stands for, and the marks shown beside memories (UI-side view model)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from memtui.core.contents import Memory, Store


@dataclass(frozen=True)
class NodeRef:
    """A tree node: a store (``memory`` None), a folder in it, or one memory file."""

    store: Store
    memory: Memory | None = None
    folder: str | None = None

    @property
    def key(self) -> str:
        """Stable identity across refreshes: store path plus the item inside it."""
        inner = self.memory.rel_path if self.memory else (self.folder or "")
        return f"{self.store.path}::{inner}"


@dataclass
class MemoryBadges:
    """Why a memory deserves attention in a tree."""

    past_cut: bool = False
    orphan: bool = False
    problems: bool = False
    """A problem or a secret (both ⚠, red)."""
    dangling_target: bool = False
    secrets: bool = False
    """The file holds a secret (the detail pane names its rule and line)."""

    def glyphs(self) -> str:
        out = []
        if self.past_cut:
            out.append("✂")
        if self.orphan:
            out.append("◌")
        if self.problems:
            out.append("⚠")
        return " ".join(out)


def badges_for_store(store: Store) -> dict[str, MemoryBadges]:
    """The badges of every memory of ``store``, keyed by relative path."""
    marks = {
        m.rel_path: MemoryBadges(problems=bool(m.problems or m.secrets), secrets=bool(m.secrets))
        for m in store.memories
    }
    report = store.index
    if report is not None:
        dropped_lines = {d.line for d in report.dropped}
        loaded = {normalize(e.target) for e in report.entries if e.line not in dropped_lines}
        for dropped in report.dropped:
            rel = normalize(dropped.target)
            if rel in marks and rel not in loaded:
                marks[rel].past_cut = True
        for orphan in report.health.orphans:
            if orphan in marks:
                marks[orphan].orphan = True
    return marks


def normalize(target: str | None) -> str:
    """An index link target as a store-relative path (``./a.md`` → ``a.md``)."""
    if not target:
        return ""
    return posixpath.normpath(target.split("#", 1)[0])
