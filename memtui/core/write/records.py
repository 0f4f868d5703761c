"""What the journal stores: an operation's record (its files, roots and locks) and how one is
read back from its directory. :mod:`memtui.core.write.journal` keeps them; the pruning
(:mod:`memtui.core.write.prune`) reads them without the journal, so neither imports the other's
user."""

from __future__ import annotations

import builtins
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

OpState = Literal["prepared", "applying", "done", "rolled-back"]
INCOMPLETE_STATES: tuple[str, ...] = ("prepared", "applying")
DIR_MODE = 0o700
FILE_MODE = 0o600
OP_FILE = "op.json"
LOCK_OLD = "lock.old"
STATE_DIR_ENV = "MEMTUI_STATE_DIR"
FINISHED_STATES: tuple[str, ...] = ("done", "rolled-back")


@dataclass
class FileRecord:
    """One file an operation touches. ``sha256_after`` None: the file is gone afterwards."""

    path: str
    action: str
    existed: bool
    mode: int | None
    mtime_ns: int | None
    sha256_before: str | None
    sha256_after: str | None
    mode_after: int | None
    restore_mtime_ns: int | None = None
    """The mtime the operation sets after writing (undo restores the original mtime)."""
    root: str | None = None
    """The store root the file is confined to (None: the record's ``root``, an older record
    or one of a single root)."""


@dataclass
class LockRecord:
    """The ``.consolidate-lock`` as it was before memtui took it, and the pid memtui wrote."""

    path: str
    existed: bool
    sha256: str | None
    mtime_ns: int | None
    mode: int | None
    pid: int


@dataclass
class RootRecord:
    """One store root of an operation: its confinement root, the memory dir whose
    ``.consolidate-lock`` applies, and that lock as it was before memtui took it."""

    root: str
    lock_dir: str | None
    lock: LockRecord | None = None


@dataclass
class OpRecord:
    id: str
    time: str
    kind: str
    title: str
    root: str
    lock_dir: str | None
    state: str
    pid: int
    files: list[FileRecord]
    created_dirs: list[str] = field(default_factory=list)
    removed_dirs: list[tuple[str, int]] = field(default_factory=list)
    progress: int = 0
    lock: LockRecord | None = None
    notes: list[str] = field(default_factory=list)
    undoes: str | None = None
    undone_by: str | None = None
    home: str | None = None
    """The Claude Code home the operation was made in; None: unknown (an older record)."""
    more_roots: list[RootRecord] = field(default_factory=list)
    """The operation's other store roots, each with its own lock (``root``, ``lock_dir`` and
    ``lock`` are the first); empty for an operation of one root (and every older record)."""
    state_files: list[str] = field(default_factory=list)
    """Paths (relative to the state dir) of memtui's own files written once the changes are
    made, their bytes in ``state-<n>`` (:class:`memtui.core.write.proposal.StateFile`)."""

    @property
    def incomplete(self) -> bool:
        return self.state in INCOMPLETE_STATES

    def roots(self) -> builtins.list[RootRecord]:
        """Every store root of the operation, the first one (``root``) first. The first entry
        shares ``lock`` with the record, so a change to its pid is the record's."""
        return [RootRecord(self.root, self.lock_dir, self.lock), *self.more_roots]

    def where(self) -> str:
        """Every store root of the operation, joined by " and " (as its preview named them)."""
        return " and ".join(r.root for r in self.roots())

    def locks(self) -> builtins.list[tuple[int, LockRecord]]:
        """``(n, lock)`` of every root that has a lock (``n``: its index in :meth:`roots`), in
        the order memtui takes them: sorted by the lock's path, so two operations never wait
        on each other's locks."""
        found = [(n, r.lock) for n, r in enumerate(self.roots()) if r.lock is not None]
        return sorted(found, key=lambda item: item[1].path)

    def file_root(self, item: FileRecord) -> str:
        """The store root ``item`` is confined to."""
        return item.root if item.root is not None else self.root

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OpRecord:
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        values["files"] = [FileRecord(**item) for item in values.get("files", [])]
        values["removed_dirs"] = [(str(p), int(m)) for p, m in values.get("removed_dirs", [])]
        lock = values.get("lock")
        values["lock"] = LockRecord(**lock) if lock else None
        values["more_roots"] = [
            RootRecord(
                str(item["root"]),
                None if item.get("lock_dir") is None else str(item["lock_dir"]),
                LockRecord(**item["lock"]) if item.get("lock") else None,
            )
            for item in values.get("more_roots", [])
        ]
        return cls(**values)


def fsync_dir(directory: Path) -> None:
    """Make a rename, creation or removal in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_record(op_dir: Path) -> OpRecord | None:
    """The record in ``op_dir/op.json``; None when it is missing or unreadable."""
    try:
        data = json.loads((op_dir / OP_FILE).read_bytes())
        return OpRecord.from_json(data)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
