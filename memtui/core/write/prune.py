"""Keeping the journal small: operations past an age or a total size are removed, oldest first.

Limits come from memtui's config (:mod:`memtui.core.config`, loaded once by the shell and
handed over: :meth:`JournalLimits.from_config`; this module reads no file of it), the
``[journal]`` section of its file under the environment variables:

- ``max_age_days`` / ``MEMTUI_JOURNAL_MAX_AGE_DAYS`` (default 30): operations older than this go;
- ``max_mb`` / ``MEMTUI_JOURNAL_MAX_MB`` (default 100): while the journal holds more than this,
  the oldest operations go; the newest operation always stays, so the last change can be undone.

``0`` turns a limit off; a value that is not a number of 0 or more is ignored (the file's value
or the default applies) and reported. Operations are pruned by *undo chain*: an operation, the
undo of it, the undo of that undo, ... go together, timed by their newest member, so no undo is
left without its target (and no target believes itself not undone). A chain with an
interrupted operation (``prepared`` or ``applying``) is never pruned: its recovery needs every
byte. Directories without an ``op.json`` (a preparation a crash or a full disk cut short) are
removed once they are an hour old; a directory whose ``op.json`` cannot be read (or has no
readable time) is left alone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memtui.core.config import Config, JournalConfig
from memtui.core.write.records import INCOMPLETE_STATES, OP_FILE, OpRecord, fsync_dir, read_record

__all__ = [
    "DEFAULT_MAX_AGE_DAYS",
    "DEFAULT_MAX_MB",
    "MAX_AGE_ENV",
    "MAX_MB_ENV",
    "JournalLimits",
    "PruneReport",
    "PrunedOp",
    "human_size",
    "prune_journal",
]

MAX_AGE_ENV = "MEMTUI_JOURNAL_MAX_AGE_DAYS"
MAX_MB_ENV = "MEMTUI_JOURNAL_MAX_MB"
DEFAULT_MAX_AGE_DAYS = JournalConfig.max_age_days
DEFAULT_MAX_MB = JournalConfig.max_mb
MB = 1024 * 1024
PARTIAL_GRACE = timedelta(hours=1)
"""A directory without op.json younger than this may be a preparation still being written."""
TRASH_PREFIX = ".pruning-"


@dataclass(frozen=True)
class JournalLimits:
    """How old (days) and how large (bytes) the journal may grow; None: no limit."""

    max_age_days: float | None = DEFAULT_MAX_AGE_DAYS
    max_bytes: int | None = int(DEFAULT_MAX_MB * MB)
    problems: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, config: Config) -> JournalLimits:
        age, size = config.journal.max_age_days, config.journal.max_mb
        return cls(
            max_age_days=age or None,
            max_bytes=int(size * MB) if size else None,
            problems=tuple(config.problems_of("journal")),
        )

    def describe(self) -> str:
        age = "no age limit" if self.max_age_days is None else f"{self.max_age_days:g} days"
        size = "no size limit" if self.max_bytes is None else human_size(self.max_bytes)
        return f"{age}, {size}"


@dataclass(frozen=True)
class PrunedOp:
    """One directory pruning removed: an operation, or a half-prepared one (``record`` None)."""

    name: str
    record: OpRecord | None
    size: int
    reason: str


@dataclass
class PruneReport:
    limits: JournalLimits
    removed: list[PrunedOp] = field(default_factory=list)
    kept: int = 0
    kept_bytes: int = 0
    protected: list[str] = field(default_factory=list)
    """Ids of interrupted operations (and their chains) kept whatever the limits."""
    failures: list[str] = field(default_factory=list)

    @property
    def freed(self) -> int:
        return sum(item.size for item in self.removed)


@dataclass
class _Entry:
    name: str
    path: Path
    record: OpRecord | None
    has_op_file: bool
    size: int
    mtime: float


@dataclass
class _Chain:
    """Operations linked by undo (``undoes`` / ``undone_by``): pruned together or not at all."""

    entries: list[_Entry]

    @property
    def time(self) -> datetime:
        """When its newest operation started."""
        return max(_parse_time(e.record.time) for e in self.entries if e.record is not None)

    @property
    def size(self) -> int:
        return sum(e.size for e in self.entries)

    @property
    def interrupted(self) -> bool:
        states = [e.record.state for e in self.entries if e.record is not None]
        return any(state in INCOMPLETE_STATES for state in states)


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < MB:
        return f"{size / 1024:.1f} KB"
    return f"{size / MB:.1f} MB"


def prune_journal(directory: Path, limits: JournalLimits, now: datetime) -> PruneReport:
    """Apply ``limits`` to the journal in ``directory`` (see the module docstring)."""
    report = PruneReport(limits)
    entries = _read_entries(directory)
    _remove_partials(directory, entries, now, report)
    chains = _chains([e for e in entries if e.record is not None])
    kept_bytes = sum(e.size for e in entries if e.record is not None or e.has_op_file)
    for chain, reason in _doomed(chains, limits, now, kept_bytes, report):
        if _remove_chain(directory, chain, reason, report):
            kept_bytes -= chain.size
    report.kept = sum(1 for e in entries if e.record is not None) - sum(
        1 for item in report.removed if item.record is not None
    )
    report.kept_bytes = kept_bytes
    return report


def _doomed(
    chains: list[_Chain], limits: JournalLimits, now: datetime, total: int, report: PruneReport
) -> list[tuple[_Chain, str]]:
    """The chains to remove, oldest first, with why."""
    oldest_first = sorted(chains, key=lambda c: c.time)
    newest = oldest_first[-1] if oldest_first else None
    cutoff = None if limits.max_age_days is None else now - timedelta(days=limits.max_age_days)
    doomed: list[tuple[_Chain, str]] = []
    for chain in oldest_first:
        if chain.interrupted:
            report.protected.extend(e.name for e in chain.entries)
            continue
        if cutoff is not None and chain.time < cutoff:
            doomed.append((chain, f"older than {limits.max_age_days:g} days"))
            total -= chain.size
        elif limits.max_bytes is not None and total > limits.max_bytes and chain is not newest:
            doomed.append((chain, f"journal over {human_size(limits.max_bytes)}"))
            total -= chain.size
    return doomed


def _parse_time(stamp: object) -> datetime:
    """The record's start time; an unreadable one is never "too old" (see _readable)."""
    try:
        return datetime.strptime(str(stamp), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)


def _readable(record: OpRecord | None) -> OpRecord | None:
    """A record pruning can reason about: one with a start time (others are left alone)."""
    if record is None or _parse_time(record.time) == datetime.max.replace(tzinfo=UTC):
        return None
    return record


def _read_entries(directory: Path) -> list[_Entry]:
    """Every operation directory (and leftover of an interrupted prune) with its size."""
    entries: list[_Entry] = []
    try:
        listing = list(os.scandir(directory))
    except FileNotFoundError:
        return entries
    for item in listing:
        if not item.is_dir(follow_symlinks=False):
            continue
        path = Path(item.path)
        trash = item.name.startswith(TRASH_PREFIX)
        if item.name.startswith(".") and not trash:
            continue
        record = None if trash else _readable(read_record(path))
        has_op_file = not trash and os.path.lexists(path / OP_FILE)
        size = _dir_size(path)
        entries.append(_Entry(item.name, path, record, has_op_file, size, item.stat().st_mtime))
    return entries


def _dir_size(path: Path) -> int:
    total = 0
    with contextlib.suppress(OSError):
        for item in os.scandir(path):
            with contextlib.suppress(OSError):
                st = item.stat(follow_symlinks=False)
                total += st.st_size if not stat.S_ISDIR(st.st_mode) else _dir_size(Path(item.path))
    return total


def _chains(entries: list[_Entry]) -> list[_Chain]:
    """Group operations linked by undo into chains (union-find over ``undoes``/``undone_by``)."""
    by_id = {e.name: e for e in entries if e.record is not None}
    parent = {name: name for name in by_id}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for name, entry in by_id.items():
        assert entry.record is not None
        for other in (entry.record.undoes, entry.record.undone_by):
            if other in by_id:
                parent[root(name)] = root(other)
    groups: dict[str, list[_Entry]] = {}
    for name, entry in by_id.items():
        groups.setdefault(root(name), []).append(entry)
    return [_Chain(group) for group in groups.values()]


def _remove_partials(
    directory: Path, entries: list[_Entry], now: datetime, report: PruneReport
) -> None:
    """Half-prepared operation directories (no op.json) and leftovers of an earlier prune."""
    limit = (now - PARTIAL_GRACE).timestamp()
    for entry in entries:
        if entry.record is not None or entry.has_op_file:
            continue
        trash = entry.name.startswith(TRASH_PREFIX)
        if not trash and entry.mtime > limit:
            continue
        reason = "left by an earlier prune" if trash else "half-prepared operation (no op.json)"
        if _remove_dir(directory, entry.path, report):
            report.removed.append(PrunedOp(entry.name, None, entry.size, reason))


def _remove_chain(directory: Path, chain: _Chain, reason: str, report: PruneReport) -> bool:
    """Move every operation of the chain out of sight first (one rename each), then delete."""
    moved: list[tuple[_Entry, Path]] = []
    for entry in chain.entries:
        trash = directory / f"{TRASH_PREFIX}{entry.name}"
        try:
            os.rename(entry.path, trash)
        except OSError as exc:
            report.failures.append(f"cannot remove {entry.path}: {exc.strerror or exc}")
            _put_back(moved)
            return False
        moved.append((entry, trash))
    with contextlib.suppress(OSError):
        fsync_dir(directory)
    for entry, trash in moved:
        if _remove_dir(directory, trash, report):
            report.removed.append(PrunedOp(entry.name, entry.record, entry.size, reason))
        else:
            report.failures[-1] += "; it is out of the journal; `memtui undo --gc` tries again"
    return True


def _put_back(moved: list[tuple[_Entry, Path]]) -> None:
    for entry, trash in moved:
        with contextlib.suppress(OSError):
            os.rename(trash, entry.path)


def _remove_dir(directory: Path, path: Path, report: PruneReport) -> bool:
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return True  # another memtui pruned it at the same time
    except OSError as exc:
        report.failures.append(f"cannot remove {path}: {exc.strerror or exc}")
        return False
    with contextlib.suppress(OSError):
        fsync_dir(directory)
    return True
