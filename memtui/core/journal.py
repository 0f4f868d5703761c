"""The edit journal: what every memtui operation changed, so it can be undone or recovered.

Lives in ``$XDG_STATE_HOME/memtui/journal/`` (default ``~/.local/state/memtui/journal``), one
directory per operation (0o700), files 0o600:

- ``op.json``: id, time, kind, title, confinement root, lock dir, state, progress, the pid of the
  process that ran it, and per file: path, action, whether it existed, its mode and mtime, the
  sha256 before and after (``null`` = no file);
- ``<n>.old``: the bytes file ``n`` had before (only when it existed);
- ``<n>.new``: the bytes the operation writes to file ``n`` (only for writes);
- ``lock.old``: the bytes ``.consolidate-lock`` had before memtui took it.

``op.json`` is written last during preparation (atomically), so an operation directory without
one holds no promise and nothing was touched. States: ``prepared`` → ``applying`` → ``done``,
or ``rolled-back`` after a rollback. Writing users' files is :mod:`memtui.core.edits`' job: the
undo/rollback/complete methods here delegate to it.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from memtui.core.edits import AppliedOp

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "FileRecord",
    "Journal",
    "LockRecord",
    "OpRecord",
    "OpState",
    "default_journal_dir",
    "fsync_dir",
    "pid_alive",
    "write_private",
    "write_synced",
]

OpState = Literal["prepared", "applying", "done", "rolled-back"]
INCOMPLETE_STATES: tuple[str, ...] = ("prepared", "applying")
DIR_MODE = 0o700
FILE_MODE = 0o600
OP_FILE = "op.json"
LOCK_OLD = "lock.old"


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

    @property
    def incomplete(self) -> bool:
        return self.state in INCOMPLETE_STATES

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OpRecord:
        values = dict(data)
        values["files"] = [FileRecord(**item) for item in values.get("files", [])]
        values["removed_dirs"] = [(str(p), int(m)) for p, m in values.get("removed_dirs", [])]
        lock = values.get("lock")
        values["lock"] = LockRecord(**lock) if lock else None
        return cls(**values)


def default_journal_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/memtui/journal``; a relative ``XDG_STATE_HOME`` is ignored (XDG spec)."""
    environ = os.environ if env is None else env
    state = environ.get("XDG_STATE_HOME", "")
    if not state or not os.path.isabs(state):
        home = environ.get("HOME") or os.path.expanduser("~")
        state = os.path.join(home, ".local", "state")
    return Path(state) / "memtui" / "journal"


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (``kill(pid, 0)``; EPERM means it exists)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, OverflowError):
        return False
    return True


def fsync_dir(directory: Path) -> None:
    """Make a rename, creation or removal in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_synced(tmp: Path, data: bytes, mode: int, *, flags: int = 0) -> None:
    """Create ``tmp`` (it must not exist) with ``mode``, write all of ``data`` and fsync it.
    ``flags`` adds open flags (``os.O_NOFOLLOW`` for files in a user's store)."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | flags, mode)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes) -> None:
    """Write a journal file atomically (temp file, fsync, replace, fsync dir), mode 0o600."""
    tmp = path.with_name(f".{path.name}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    write_synced(tmp, data, FILE_MODE)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _make_private_dirs(path: Path) -> None:
    missing: builtins.list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, DIR_MODE)
            os.chmod(directory, DIR_MODE)


RUNNING: set[str] = set()
"""Ids of operations this process is applying right now (not "incomplete" while they run)."""


def _still_running(record: OpRecord) -> bool:
    if record.pid == os.getpid():
        return record.id in RUNNING
    return pid_alive(record.pid)


def _new_op_id(now: datetime) -> str:
    return now.strftime("%Y%m%d-%H%M%S-%f") + "-" + secrets.token_hex(2)


def _iso(now: datetime) -> str:
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Journal:
    """The operations memtui has run, persisted under ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def default(cls, env: Mapping[str, str] | None = None) -> Journal:
        return cls(default_journal_dir(env))

    # --- reading ------------------------------------------------------------------------

    def list(self) -> builtins.list[OpRecord]:
        """Every recorded operation, newest first (unreadable records are skipped)."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        records = [r for r in (self._load(name) for name in names) if r is not None]
        return sorted(records, key=lambda r: (r.time, r.id), reverse=True)

    def get(self, op_id: str) -> OpRecord:
        """The record of ``op_id``; KeyError when there is none."""
        if not op_id or "/" in op_id or op_id in (".", ".."):
            raise KeyError(op_id)
        record = self._load(op_id)
        if record is None:
            raise KeyError(op_id)
        return record

    def incomplete(self) -> builtins.list[OpRecord]:
        """Operations left ``prepared`` or ``applying`` by a process that is gone."""
        return [r for r in self.list() if r.incomplete and not _still_running(r)]

    def is_undone(self, record: OpRecord) -> bool:
        """Undone by an undo that is itself still in effect."""
        seen: set[str] = set()
        current = record
        undone = False
        while current.undone_by and current.undone_by not in seen:
            seen.add(current.undone_by)
            try:
                current = self.get(current.undone_by)
            except KeyError:
                return undone
            if current.state != "done":
                return undone
            undone = not undone
        return undone

    def latest_undoable(self) -> OpRecord | None:
        """The newest finished operation (not an undo) whose effect is still in place."""
        for record in self.list():
            if record.state == "done" and record.undoes is None and not self.is_undone(record):
                return record
        return None

    def old_bytes(self, record: OpRecord, index: int) -> bytes | None:
        return self._read_blob(record, f"{index}.old")

    def new_bytes(self, record: OpRecord, index: int) -> bytes | None:
        return self._read_blob(record, f"{index}.new")

    def lock_old_bytes(self, record: OpRecord) -> bytes | None:
        return self._read_blob(record, LOCK_OLD)

    # --- recovery (the writing happens in memtui.core.edits) -------------------------------

    def undo(
        self,
        op_id: str,
        *,
        force: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> AppliedOp:
        """Restore every file ``op_id`` touched, byte for byte; itself a journaled operation."""
        from memtui.core.edits import undo_operation

        return undo_operation(self, self.get(op_id), force=force, progress=progress)

    def rollback(self, op_id: str, *, force: bool = False) -> OpRecord:
        """Put back the tree an interrupted operation started from."""
        from memtui.core.edits import rollback_operation

        return rollback_operation(self, self.get(op_id), force=force)

    def complete(self, op_id: str) -> OpRecord:
        """Finish an interrupted operation from its recorded new bytes."""
        from memtui.core.edits import complete_operation

        return complete_operation(self, self.get(op_id))

    # --- writing (used by memtui.core.edits) --------------------------------------------

    def prepare(
        self,
        *,
        kind: str,
        title: str,
        root: Path,
        lock_dir: Path | None,
        files: builtins.list[FileRecord],
        old: builtins.list[bytes | None],
        new: builtins.list[bytes | None],
        created_dirs: builtins.list[Path],
        removed_dirs: builtins.list[tuple[Path, int]],
        lock: LockRecord | None,
        lock_old: bytes | None,
        notes: builtins.list[str],
        undoes: str | None = None,
    ) -> OpRecord:
        """Save the old and new bytes, then ``op.json`` in state ``prepared``."""
        now = datetime.now(UTC)
        record = OpRecord(
            id=_new_op_id(now),
            time=_iso(now),
            kind=kind,
            title=title,
            root=str(root),
            lock_dir=str(lock_dir) if lock_dir is not None else None,
            state="prepared",
            pid=os.getpid(),
            files=files,
            created_dirs=[str(d) for d in created_dirs],
            removed_dirs=[(str(d), mode) for d, mode in removed_dirs],
            lock=lock,
            notes=list(notes),
            undoes=undoes,
        )
        op_dir = self.directory / record.id
        _make_private_dirs(self.directory)
        os.mkdir(op_dir, DIR_MODE)
        os.chmod(op_dir, DIR_MODE)
        for index, data in enumerate(old):
            if data is not None:
                write_private(op_dir / f"{index}.old", data)
        for index, data in enumerate(new):
            if data is not None:
                write_private(op_dir / f"{index}.new", data)
        if lock_old is not None:
            write_private(op_dir / LOCK_OLD, lock_old)
        self.save(record)
        fsync_dir(self.directory)
        return record

    def save(self, record: OpRecord) -> None:
        """Rewrite ``op.json`` atomically."""
        data = json.dumps(record.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
        write_private(self.directory / record.id / OP_FILE, data)

    def set_state(self, record: OpRecord, state: OpState) -> None:
        record.state = state
        self.save(record)

    def set_progress(self, record: OpRecord, progress: int) -> None:
        record.progress = progress
        self.save(record)

    # --- internals ----------------------------------------------------------------------

    def _load(self, name: str) -> OpRecord | None:
        try:
            data = json.loads((self.directory / name / OP_FILE).read_bytes())
            return OpRecord.from_json(data)
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def _read_blob(self, record: OpRecord, name: str) -> bytes | None:
        try:
            return (self.directory / record.id / name).read_bytes()
        except FileNotFoundError:
            return None
