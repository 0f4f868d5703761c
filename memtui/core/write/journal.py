"""The edit journal: what every memtui operation changed, so it can be undone or recovered.

Lives in ``$XDG_STATE_HOME/memtui/journal/`` (default ``~/.local/state/memtui/journal``;
``$MEMTUI_STATE_DIR/journal`` when that is set, as ``--demo`` does), one directory per operation
(0o700), files 0o600:

- ``op.json``: id, time, kind, title, the Claude Code home the operation was made in (``null``:
  unknown, recorded before memtui noted homes), confinement root, lock dir, state, progress, the
  pid of the process that ran it, and per file: path, its root, action, whether it existed, its
  mode and mtime, the sha256 before and after (``null`` = no file); an operation across stores
  also lists its further roots (``more_roots``: root, lock dir, lock);
- ``<n>.old``: the bytes file ``n`` had before (only when it existed);
- ``<n>.new``: the bytes the operation writes to file ``n`` (only for writes);
- ``lock.old``: the bytes ``.consolidate-lock`` had before memtui took it (``lock-<n>.old``:
  that of the operation's root ``n``, across stores);
- ``<n>.late``: the bytes another process wrote to file ``n`` while the operation changed it
  (the operation was then rolled back with them put back, see :mod:`memtui.core.write.apply`).

``op.json`` is written last during preparation (atomically), so an operation directory without
one holds no promise and nothing was touched; a preparation that fails (a full disk) removes
its directory again. States: ``prepared`` → ``applying`` → ``done``, or ``rolled-back`` after a
rollback. The journal only stores: writing users' files is :mod:`memtui.core.write.apply`'s job,
undo and recovery are :mod:`memtui.core.write.recovery`'s, and neither is imported here.

A journal made with a ``home`` belongs to that Claude Code home: it stamps the home on every
operation it prepares, and its undo, latest-undoable and interrupted-operation views only see
that home's operations (:meth:`Journal.of_home`); operations of other homes stay listed by
:meth:`Journal.list`. After each finished operation the journal is pruned by age and size
(:mod:`memtui.core.write.prune`).
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import secrets
import shutil
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from memtui.core.write.dirfd import EditRefused, write_all
from memtui.core.write.records import (
    DIR_MODE,
    FILE_MODE,
    FINISHED_STATES,
    INCOMPLETE_STATES,
    LOCK_OLD,
    OP_FILE,
    STATE_DIR_ENV,
    FileRecord,
    LockRecord,
    OpRecord,
    OpState,
    RootRecord,
    fsync_dir,
    read_record,
)

if TYPE_CHECKING:
    from memtui.core.config import Config
    from memtui.core.write.prune import JournalLimits, PruneReport

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "INCOMPLETE_STATES",
    "OP_FILE",
    "FileRecord",
    "Journal",
    "LockRecord",
    "OpRecord",
    "OpState",
    "RootRecord",
    "default_journal_dir",
    "fsync_dir",
    "home_key",
    "journal_for",
    "lock_blob",
    "lock_tag",
    "pid_alive",
    "read_record",
    "undo_verb",
    "write_private",
    "write_synced",
]

def lock_blob(n: int) -> str:
    """The journal file holding the bytes root ``n``'s lock had before memtui took it."""
    return LOCK_OLD if n == 0 else f"lock-{n}.old"


def lock_tag(n: int) -> str:
    """The temp-file tag of root ``n``'s lock (see :func:`temp_name`)."""
    return "lock" if n == 0 else f"lock{n}"


def default_journal_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$MEMTUI_STATE_DIR/journal`` when that is an absolute path, else
    ``$XDG_STATE_HOME/memtui/journal``; a relative ``XDG_STATE_HOME`` is ignored (XDG spec)."""
    environ = os.environ if env is None else env
    own = environ.get(STATE_DIR_ENV, "")
    if own and os.path.isabs(own):
        return Path(own) / "journal"
    state = environ.get("XDG_STATE_HOME", "")
    if not state or not os.path.isabs(state):
        home = environ.get("HOME") or os.path.expanduser("~")
        state = os.path.join(home, ".local", "state")
    return Path(state) / "memtui" / "journal"


def home_key(home: Path | str) -> str:
    """How a Claude Code home is recorded and compared: its real, absolute path."""
    return os.path.realpath(os.path.abspath(home))


def undo_verb(item: FileRecord) -> str:
    """What undoing the operation does to this file: ``remove`` (the operation created it),
    ``restore`` (it deleted it) or ``revert`` (it rewrote it)."""
    if not item.existed:
        return "remove"
    return "restore" if item.action == "delete" else "revert"


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


def write_synced(tmp: Path, data: bytes, mode: int, *, flags: int = 0) -> None:
    """Create ``tmp`` (it must not exist) with ``mode``, write all of ``data`` and fsync it.
    ``flags`` adds open flags (``os.O_NOFOLLOW`` for files in a user's store)."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | flags, mode)
    try:
        os.fchmod(fd, mode)
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes) -> None:
    """Write a journal file atomically (temp file, fsync, replace, fsync dir), mode 0o600."""
    tmp = path.with_name(f".{path.name}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    try:
        write_synced(tmp, data, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:  # a full disk: no half-written temp file is left behind
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
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


def new_op_id() -> str:
    """A fresh operation id, for a plan whose state files must name its operation
    (:attr:`memtui.core.write.proposal.Proposal.op_id`)."""
    return _new_op_id(datetime.now(UTC))


def _new_op_id(now: datetime) -> str:
    return now.strftime("%Y%m%d-%H%M%S-%f") + "-" + secrets.token_hex(2)


def _iso(now: datetime) -> str:
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Journal:
    """The operations memtui has run, persisted under ``directory``. With a ``home`` (a Claude
    Code home), the journal belongs to that home: operations it prepares record it, and undo,
    :meth:`latest_undoable` and :meth:`incomplete` only see that home's operations. ``limits``
    bound its age and size (default: :class:`memtui.core.write.prune.JournalLimits`' defaults;
    the settings' limits come through :func:`journal_for`)."""

    def __init__(
        self,
        directory: Path,
        *,
        home: Path | str | None = None,
        limits: JournalLimits | None = None,
    ) -> None:
        self.directory = directory
        self.home = None if home is None else home_key(home)
        self.limits = limits

    @classmethod
    def default(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        home: Path | str | None = None,
        limits: JournalLimits | None = None,
    ) -> Journal:
        """The journal of ``env``'s state dir. It reads no config: ``limits`` come from the
        caller's settings (:func:`journal_for`); without them the defaults apply."""
        environ = os.environ if env is None else env
        return cls(default_journal_dir(environ), home=home, limits=limits)

    # --- reading ------------------------------------------------------------------------

    def list(self) -> builtins.list[OpRecord]:
        """Every recorded operation of every home, newest first (unreadable records are
        skipped)."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        loaded = (self._load(name) for name in names if not name.startswith("."))
        records = [r for r in loaded if r is not None]
        return sorted(records, key=lambda r: (r.time, r.id), reverse=True)

    def of_home(self, record: OpRecord) -> bool:
        """Whether ``record`` was made in this journal's home (every record, without a home;
        a record of unknown home belongs to no home)."""
        return self.home is None or record.home == self.home

    def mine(self) -> builtins.list[OpRecord]:
        """The operations of this journal's home, newest first."""
        return [r for r in self.list() if self.of_home(r)]

    def get(self, op_id: str) -> OpRecord:
        """The record of ``op_id`` (of any home); KeyError when there is none."""
        if not op_id or "/" in op_id or op_id.startswith("."):
            raise KeyError(op_id)
        record = self._load(op_id)
        if record is None:
            raise KeyError(op_id)
        return record

    def incomplete(self) -> builtins.list[OpRecord]:
        """This home's operations left ``prepared`` or ``applying`` by a process that is
        gone."""
        return [r for r in self._interrupted() if self.of_home(r)]

    def incomplete_elsewhere(self) -> builtins.list[OpRecord]:
        """Interrupted operations of other homes (or of an unknown one): never recovered from
        this home without naming them, see :meth:`home_problem`."""
        return [r for r in self._interrupted() if not self.of_home(r)]

    def home_problem(self, record: OpRecord) -> str | None:
        """Why this journal's home must not act on ``record`` (it belongs to another home), in
        words; None when it may. A record of unknown home may be acted on when named."""
        if self.home is None or record.home is None or record.home == self.home:
            return None
        return (
            f"operation {record.id} was made in Claude Code home {record.home}, not in "
            f"{self.home}; run memtui with --claude-home {record.home} to act on it"
        )

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
        """This home's newest finished operation (not an undo) whose effect is still in
        place."""
        for record in self.mine():
            if record.state == "done" and record.undoes is None and not self.is_undone(record):
                return record
        return None

    def old_bytes(self, record: OpRecord, index: int) -> bytes | None:
        return self._read_blob(record, f"{index}.old")

    def new_bytes(self, record: OpRecord, index: int) -> bytes | None:
        return self._read_blob(record, f"{index}.new")

    def lock_old_bytes(self, record: OpRecord, n: int = 0) -> bytes | None:
        """The bytes root ``n``'s lock had before the operation took it."""
        return self._read_blob(record, lock_blob(n))

    # --- pruning ------------------------------------------------------------------------

    def prune(self, now: datetime | None = None) -> PruneReport:
        """Remove operations past the age or size limit, oldest first (never an interrupted
        one, never part of an undo chain alone). OSError when the journal cannot be read."""
        from memtui.core.write.prune import JournalLimits, prune_journal

        limits = self.limits if self.limits is not None else JournalLimits()
        return prune_journal(self.directory, limits, now or datetime.now(UTC))

    def _prune_quietly(self) -> None:
        """The automatic prune after an operation. Nothing it meets (an unreadable journal, an
        odd record) may fail the operation: the caller would roll back a finished change."""
        with contextlib.suppress(Exception):
            self.prune()

    # --- writing (used by memtui.core.write.apply) --------------------------------------------

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
        more_roots: builtins.list[RootRecord] | None = None,
        more_lock_old: builtins.list[bytes | None] | None = None,
        state_files: builtins.list[tuple[str, bytes]] | None = None,
        op_id: str | None = None,
    ) -> OpRecord:
        """Save the old and new bytes, then ``op.json`` in state ``prepared``. When any of it
        fails (a full disk), the operation's directory is removed again and the error raised:
        nothing was touched yet. ``more_roots`` are the operation's other store roots,
        ``more_lock_old`` the bytes of each one's lock (by position); ``state_files`` the
        files of memtui's state dir to write once the changes are made (relative path, bytes),
        checked here: each must name a file inside the state dir. ``op_id``: the id chosen
        by the plan (:func:`new_op_id`), else a new one."""
        if op_id is not None and (not op_id or "/" in op_id or op_id.startswith(".")):
            raise _refusal(f"{op_id!r} is not an operation id")
        states = list(state_files or [])
        for rel, _data in states:
            self.state_path(rel)
        now = datetime.now(UTC)
        record = OpRecord(
            id=op_id or _new_op_id(now),
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
            home=self.home,
            more_roots=list(more_roots or []),
            state_files=[rel for rel, _data in states],
        )
        op_dir = self.directory / record.id
        _make_private_dirs(self.directory)
        os.mkdir(op_dir, DIR_MODE)
        try:
            os.chmod(op_dir, DIR_MODE)
            self._write_blobs(op_dir, old, new, [lock_old, *(more_lock_old or [])])
            for n, (_rel, data) in enumerate(states):
                write_private(op_dir / f"state-{n}", data)
            self.save(record)
            fsync_dir(self.directory)
        except BaseException:
            self._discard(op_dir)
            raise
        return record

    def save(self, record: OpRecord) -> None:
        """Rewrite ``op.json`` atomically."""
        data = json.dumps(record.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
        write_private(self.directory / record.id / OP_FILE, data)

    def set_state(self, record: OpRecord, state: OpState) -> None:
        """Record ``state``; once an operation is finished (done or rolled back), prune."""
        record.state = state
        self.save(record)
        if state in FINISHED_STATES:
            self._prune_quietly()

    def save_late(self, record: OpRecord, index: int, data: bytes) -> None:
        """Keep ``<index>.late``: the bytes another process wrote to file ``index`` while
        the operation changed it (put back by the rollback; kept here in case that fails)."""
        write_private(self.directory / record.id / f"{index}.late", data)

    def set_progress(self, record: OpRecord, progress: int) -> None:
        record.progress = progress
        self.save(record)

    def discard(self, record: OpRecord) -> None:
        """Remove an operation that changed nothing (its rollback is done) from the journal."""
        self._discard(self.directory / record.id)

    # --- memtui's own files written with an operation -----------------------------------

    @property
    def state_dir(self) -> Path:
        """memtui's state dir: the journal's parent (the archive and the judge's ledger)."""
        return self.directory.parent

    def state_path(self, rel: str) -> Path:
        """Where the state file ``rel`` lives; EditRefused for a path that would leave the
        state dir (absolute, ``..``, not normalized: a record from disk is hostile input)."""
        parts = rel.split("/")
        if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or (
            "\0" in rel
        ):
            raise _refusal(f"{rel!r} is not a file of memtui's state dir")
        return self.state_dir.joinpath(*parts)

    def write_state_files(self, record: OpRecord) -> None:
        """Write the operation's state files (once its changes are made): each file that
        does not hold its bytes yet, in its 0o700 directories. OSError when the disk is full."""
        for n, rel in enumerate(record.state_files):
            path = self.state_path(rel)
            data = self._read_blob(record, f"state-{n}")
            if data is None:
                raise _refusal(f"the journal lost the bytes of {path}")
            try:
                if path.read_bytes() == data:
                    continue
            except OSError:
                pass
            _make_private_dirs(path.parent)
            write_private(path, data)

    def remove_state_files(self, record: OpRecord) -> None:
        """Remove the operation's state files (its rollback), and the directories that held
        only them."""
        for rel in record.state_files:
            path = self.state_path(rel)
            for each in (path, path.with_name(f".{path.name}.tmp")):  # a write cut short too
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(each)
            parent = path.parent
            while parent != self.state_dir and parent.is_relative_to(self.state_dir):
                try:
                    os.rmdir(parent)
                except OSError:
                    break
                parent = parent.parent

    # --- internals ----------------------------------------------------------------------

    def _interrupted(self) -> builtins.list[OpRecord]:
        return [r for r in self.list() if r.incomplete and not _still_running(r)]

    def own(self, op_id: str) -> OpRecord:
        """The record of ``op_id``; EditRefused when it belongs to another home (KeyError when
        there is no such operation)."""
        record = self.get(op_id)
        problem = self.home_problem(record)
        if problem is not None:
            raise _refusal(problem)
        return record

    def _write_blobs(
        self,
        op_dir: Path,
        old: builtins.list[bytes | None],
        new: builtins.list[bytes | None],
        locks_old: builtins.list[bytes | None],
    ) -> None:
        for index, data in enumerate(old):
            if data is not None:
                write_private(op_dir / f"{index}.old", data)
        for index, data in enumerate(new):
            if data is not None:
                write_private(op_dir / f"{index}.new", data)
        for n, data in enumerate(locks_old):
            if data is not None:
                write_private(op_dir / lock_blob(n), data)

    def _discard(self, op_dir: Path) -> None:
        """Remove a half-prepared operation directory (best effort: the disk may be full)."""
        shutil.rmtree(op_dir, ignore_errors=True)
        with contextlib.suppress(OSError):
            fsync_dir(self.directory)

    def _load(self, name: str) -> OpRecord | None:
        return read_record(self.directory / name)

    def _read_blob(self, record: OpRecord, name: str) -> bytes | None:
        try:
            return (self.directory / record.id / name).read_bytes()
        except FileNotFoundError:
            return None


def _refusal(reason: str) -> EditRefused:
    return EditRefused(reason)


def temp_name(op_id: str, tag: str | int) -> str:
    """The name of an operation's temp file, in the directory of the file it replaces."""
    return f".memtui-{op_id}-{tag}.tmp"


class HomeContext(Protocol):
    """What :func:`journal_for` needs of a ``memtui.core.stores.locations.Context`` (the write
    layer imports no store code)."""

    @property
    def env(self) -> Mapping[str, str]: ...

    @property
    def claude_home(self) -> Path: ...


def journal_for(context: HomeContext, settings: Config | None = None) -> Journal:
    """The journal (``$MEMTUI_STATE_DIR`` or the XDG state dir) of the context's CC home, its
    limits from ``settings`` (the config the process loaded once); without settings, the
    default limits."""
    from memtui.core.write.prune import JournalLimits

    limits = None if settings is None else JournalLimits.from_config(settings)
    return Journal.default(context.env, home=context.claude_home, limits=limits)
