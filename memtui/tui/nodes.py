"""What a tree node stands for, and the marks shown beside memories (UI-side view model)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, replace

from memtui.core.contents import LoadReport, Memory, Store


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


def badges_updated(
    old: Store, marks: dict[str, MemoryBadges], new: Store
) -> dict[str, MemoryBadges] | None:
    """``badges_for_store(new)`` made from ``marks`` (``old``'s badges) when ``new`` is ``old``
    after a live refresh whose index report has the same entries (the same MEMORY.md): only
    the memories that came or changed, and those that became or stopped being orphans, are
    looked at (a new file in a store of 3,000 costs a few badges, not 3,000). None when the
    entries differ: the caller makes them all."""
    a, b = old.index, new.index
    if (a is None) != (b is None) or (
        a is not None and b is not None and (a.entries is not b.entries
                                             or a.dropped is not b.dropped)
    ):
        return None
    before = {m.rel_path: m for m in old.memories}
    fresh = [m for m in new.memories if before.get(m.rel_path) is not m]
    orphans_before = set(a.health.orphans) if a is not None else set()
    orphans_now = set(b.health.orphans) if b is not None else set()
    if len(new.memories) - len(fresh) < len(old.memories):  # some went
        kept = {m.rel_path for m in new.memories}
        out = {rel: badge for rel, badge in marks.items() if rel in kept}
    else:
        out = dict(marks)
    by_rel = {m.rel_path: m for m in fresh}
    for rel in orphans_before ^ orphans_now:
        if rel in out and rel not in by_rel:
            out[rel] = replace(out[rel], orphan=rel in orphans_now)
    came = {rel for rel in by_rel if rel not in marks}
    cut = _past_cut(b, came) if b is not None and b.dropped and came else set()
    for memory in fresh:
        rel = memory.rel_path
        badge = MemoryBadges(problems=bool(memory.problems or memory.secrets),
                             secrets=bool(memory.secrets), orphan=rel in orphans_now)
        previous = marks.get(rel)
        # the same path, the same entries: the same side of the cut
        badge.past_cut = previous.past_cut if previous is not None else rel in cut
        out[rel] = badge
    return out


FEW_PATHS = 8
"""Up to this many paths, :func:`_past_cut` looks at each entry that may name one (a name
test first); more, and every entry's target is made a path once."""


def _past_cut(report: LoadReport, rels: set[str]) -> set[str]:
    """Of ``rels``, the paths only entries past the cut point to (``badges_for_store``'s
    rule)."""
    dropped_lines = {d.line for d in report.dropped}
    if len(rels) > FEW_PATHS:
        loaded = {normalize(e.target) for e in report.entries if e.line not in dropped_lines}
        return {normalize(d.target) for d in report.dropped} & rels - loaded
    found: set[str] = set()
    for rel in rels:
        name = rel.rsplit("/", 1)[-1]
        if any(d.target and name in d.target and normalize(d.target) == rel
               for d in report.dropped) and not any(
            e.target and name in e.target and e.line not in dropped_lines
            and normalize(e.target) == rel for e in report.entries
        ):
            found.add(rel)
    return found


def normalize(target: str | None) -> str:
    """An index link target as a store-relative path (``./a.md`` → ``a.md``)."""
    if not target:
        return ""
    return posixpath.normpath(target.split("#", 1)[0])
