"""What the scan cache keeps of a store's load report and its health (plain values: marshal
holds nothing else), and the digest it is kept under."""

from __future__ import annotations

import marshal
import os
from dataclasses import dataclass, fields

from memtui.core.cache import RACY_SECONDS, StatKey, stat_key
from memtui.core.contents import (
    BrokenLink,
    DroppedEntry,
    IndexEntry,
    IndexHealth,
    LoadReport,
    LongEntry,
    Store,
    TopicDangling,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.contents import Binds

INDEX_PAYLOAD_VERSION = 5
"""Part of every report's digest, so a report kept in an older shape is never found: 3:
health.listed; 4: health.topic_dangling; 5: a ``CachedReport`` (a dict by field name) in place
of a positional tuple."""


EntryValues = tuple[int, str, str | None, str, str]
"""An ``IndexEntry``'s fields: line, title, target, hook, raw."""


@dataclass
class CachedReport:
    """A ``LoadReport`` and its ``IndexHealth`` as plain values, one field each (kept in the
    cache as a dict by field name: ``to_plain``, ``from_plain``)."""

    path: str
    lines: int
    units: int
    bytes: int
    line_truncated: bool
    byte_truncated: bool
    binds: Binds
    cut_line: int | None
    dropped: list[tuple[int, str, str | None]]
    warning: str | None
    loaded: str
    agent: bool
    entries: list[EntryValues]
    problems: list[str]
    cut_partial: bool
    dangling: list[int | EntryValues]
    """Each dangling entry: its position in ``entries`` (the same object, as when computed), or
    its fields when it is none of them."""
    orphans: list[str]
    listed: dict[str, str]
    topic_dangling: list[tuple[str, int, str, str]]
    long_entries: list[tuple[int, int, int, str]]
    broken_wikilinks: list[tuple[str, str]]

    @classmethod
    def of(cls, report: LoadReport) -> CachedReport:
        positions = {id(entry): i for i, entry in enumerate(report.entries)}
        health = report.health
        return cls(
            path=report.path,
            lines=report.lines,
            units=report.units,
            bytes=report.bytes,
            line_truncated=report.line_truncated,
            byte_truncated=report.byte_truncated,
            binds=report.binds,
            cut_line=report.cut_line,
            dropped=[(d.line, d.title, d.target) for d in report.dropped],
            warning=report.warning,
            loaded=report.loaded,
            agent=report.agent,
            entries=[(e.line, e.title, e.target, e.hook, e.raw) for e in report.entries],
            problems=report.problems,
            cut_partial=report.cut_partial,
            dangling=[positions.get(id(e), (e.line, e.title, e.target, e.hook, e.raw))
                      for e in health.dangling],
            orphans=health.orphans,
            listed=health.listed,
            topic_dangling=[(t.file, t.line, t.title, t.target) for t in health.topic_dangling],
            long_entries=[(e.line, e.length, e.limit, e.title) for e in health.long_entries],
            broken_wikilinks=[(b.source, b.link) for b in health.broken_wikilinks],
        )

    def to_plain(self) -> dict[str, Any]:
        return dict(vars(self))  # shallow: the values are plain already

    @classmethod
    def from_plain(cls, plain: Any) -> CachedReport | None:
        """The report ``to_plain`` gave; None for anything else (a cache file is read from
        disk: a foreign or older value is a miss, never an error)."""
        if not isinstance(plain, dict) or plain.keys() != _FIELD_NAMES:
            return None
        return cls(**plain)

    def report(self) -> LoadReport:
        """The ``LoadReport`` this was made of (dangling entries are the same objects as the
        report's entries, as when computed)."""
        index_entries = [IndexEntry(*entry) for entry in self.entries]
        return LoadReport(
            path=self.path,
            lines=self.lines,
            units=self.units,
            bytes=self.bytes,
            line_truncated=self.line_truncated,
            byte_truncated=self.byte_truncated,
            binds=self.binds,
            cut_line=self.cut_line,
            dropped=[DroppedEntry(*d) for d in self.dropped],
            warning=self.warning,
            loaded=self.loaded,
            agent=self.agent,
            entries=index_entries,
            health=IndexHealth(
                dangling=[index_entries[d] if isinstance(d, int) else IndexEntry(*d)
                          for d in self.dangling],
                orphans=list(self.orphans),
                listed=dict(self.listed),
                topic_dangling=[TopicDangling(*t) for t in self.topic_dangling],
                long_entries=[LongEntry(*e) for e in self.long_entries],
                broken_wikilinks=[BrokenLink(*b) for b in self.broken_wikilinks],
            ),
            problems=list(self.problems),
            cut_partial=self.cut_partial,
        )


_FIELD_NAMES = frozenset(field.name for field in fields(CachedReport))


def store_digest(store: Store, stats: list[os.stat_result | None], now: float) -> str | None:
    """A digest of what a store's index report depends on: the store kind, whether the unit
    cut applies, and the path and
    stat key of every file (MEMORY.md included). None when it cannot be trusted: a file that
    is not regular (a symlink's target may change unseen) or one changed racily recently."""
    keys: list[tuple[str, StatKey]] = []
    for memory, st in zip(store.memories, stats, strict=True):
        if st is None or now - max(st.st_mtime, st.st_ctime) < RACY_SECONDS:
            return None
        keys.append((memory.rel_path, stat_key(st)))
    import hashlib  # only with a cache: not on ``memtui index``'s path

    # the 25,000-unit cut holds from Claude Code 2.1.83 only: a report of either rule
    blob = marshal.dumps((INDEX_PAYLOAD_VERSION, store.kind.value, store.location.unit_cap, keys))
    return hashlib.sha256(blob).hexdigest()
