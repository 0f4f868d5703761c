"""What Claude Code attaches of a memory recall chose: exactly the block the main model reads
([the rule](../../../docs/claude-code-rules.md#the-recall-preview)).

Each chosen file is read up to 200 lines or 4096 UTF-8 bytes of whole lines
(:func:`memtui.core.recall.readrange.read_range`); a cut file gets a note naming the limit and
the path; the block starts with a header: ``Memory (saved today): PATH:`` (``yesterday``), or
for an older file the staleness text ``This memory is N days old. …`` and ``Memory: PATH:``;
header and content are joined by a blank line and wrapped in ``<system-reminder>`` tags."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from memtui.core.fileread import read_full
from memtui.core.recall.readrange import read_range

MAX_MEMORY_LINES = 200
MAX_MEMORY_BYTES = 4096
MAX_SELECTED = 5
"""Memories recall attaches for one prompt at most."""
MAX_SESSION_BYTES = 60 * 1024
"""Once the memories attached in a session add up to this many characters, recall stops."""
DAY_MS = 86_400_000
READ_TOOL = "Read"
"""The name of CC's file read tool, which the truncation note points to."""


def age_days(mtime_ms: float, now_ms: float) -> int:
    """Whole days since the file changed, floor, never negative (CC's ``memoryAgeDays``)."""
    return max(0, math.floor((now_ms - mtime_ms) / DAY_MS))


def age_words(mtime_ms: float, now_ms: float) -> str:
    days = age_days(mtime_ms, now_ms)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


def freshness_text(mtime_ms: float, now_ms: float) -> str:
    """The staleness caveat of a memory over a day old ('' otherwise)."""
    days = age_days(mtime_ms, now_ms)
    if days <= 1:
        return ""
    return (
        f"This memory is {days} days old. "
        "Memories are point-in-time observations, not live state — "
        "claims about code behavior or file:line citations may be outdated. "
        "Verify against current code before asserting as fact."
    )


def memory_header(path: str, mtime_ms: float, now_ms: float) -> str:
    staleness = freshness_text(mtime_ms, now_ms)
    if staleness:
        return f"{staleness}\n\nMemory: {path}:"
    return f"Memory (saved {age_words(mtime_ms, now_ms)}): {path}:"


@dataclass(frozen=True)
class Attachment:
    """One memory as recall attaches it."""

    path: str
    """The file's absolute path, as CC names it in the block."""
    header: str
    content: str
    truncated: bool
    line_count: int

    @property
    def text(self) -> str:
        """The block the main model reads."""
        return f"<system-reminder>\n{self.header}\n\n{self.content}\n</system-reminder>"


def attachment_of(text: str, path: str, mtime_ms: float, now_ms: float) -> Attachment:
    """The attachment of a file whose text is ``text``."""
    read = read_range(text, MAX_MEMORY_LINES, MAX_MEMORY_BYTES)
    truncated = read.total_lines > MAX_MEMORY_LINES or read.truncated_by_bytes
    content = read.content
    if truncated:
        limit = (f"{MAX_MEMORY_BYTES} byte limit" if read.truncated_by_bytes
                 else f"first {MAX_MEMORY_LINES} lines")
        content += (f"\n\n> This memory file was truncated ({limit}). Use the {READ_TOOL} tool "
                    f"to view the complete file at: {path}")
    return Attachment(path, memory_header(path, mtime_ms, now_ms), content, truncated,
                      read.line_count)


def read_attachment(root: Path, rel_path: str, mtime_ms: float, now_ms: float
                    ) -> Attachment | None:
    """The attachment of ``root/rel_path``, read with the bounded reader; None when it cannot
    be read (CC drops a file it fails to read)."""
    path = root / rel_path
    read = read_full(path, root)
    if not read.readable:
        return None
    return attachment_of(read.data.decode("utf-8", errors="replace"), str(path), mtime_ms,
                         now_ms)
