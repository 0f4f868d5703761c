"""The one write path for users' memory files (design.md, "Safety model").

Every change memtui makes is a :class:`Proposal`: a list of :class:`FileChange`, each stating the
sha256 of the bytes it was planned against. :func:`apply` then

1. checks, before touching anything: every path stays inside the proposal's ``root`` (also after
   resolving the real path of its deepest existing ancestor, so no symlink leads out), no file is
   a symlink or a directory, every file still has the planned bytes, and no live Claude Code
   ``.consolidate-lock`` (pid alive, under 60 minutes old) holds ``lock_dir``;
2. journals the operation (:mod:`memtui.core.journal`): old and new bytes, modes, mtimes;
3. takes ``.consolidate-lock`` (its own pid, written atomically), creates missing directories
   (0o700), writes each file atomically (temp file in the same directory, fsync, ``os.replace``,
   fsync of the directory; existing files keep their mode, new ones get 0o600), deletes files;
4. puts the lock back exactly as it was (bytes, mode and mtime, which Claude Code reads as the
   last consolidation time), or removes it when there was none, and marks the operation done.

An operation that fails or is cancelled halfway is rolled back at once; one killed halfway is
found by :meth:`Journal.incomplete` and rolled back (:func:`rollback_operation`) or finished
(:func:`complete_operation`). :func:`undo_operation` restores a finished operation byte for byte
as a new, itself undoable, operation.

Test-only hook: when the environment variable ``MEMTUI_TEST_CRASH_AFTER`` holds a number ``k``,
the process exits at once (``os._exit``, no cleanup) after the ``k``-th step of an apply, to
prove that an operation killed at any point can be recovered. Never set it outside tests.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import re
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memtui.core.journal import (
    INCOMPLETE_STATES,
    RUNNING,
    FileRecord,
    Journal,
    LockRecord,
    OpRecord,
    fsync_dir,
    pid_alive,
    write_synced,
)

__all__ = [
    "CRASH_ENV",
    "LOCK_NAME",
    "LOCK_STALE_SECONDS",
    "NEW_DIR_MODE",
    "NEW_FILE_MODE",
    "AppliedOp",
    "EditCancelled",
    "EditRefused",
    "FileChange",
    "FileDiff",
    "LockHolder",
    "Proposal",
    "apply",
    "complete_operation",
    "file_sha256",
    "live_lock",
    "rollback_operation",
    "sha256_hex",
    "undo_operation",
]

ChangeAction = Literal["write", "delete"]
DiffStatus = Literal["added", "changed", "deleted", "unchanged"]
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]

LOCK_NAME = ".consolidate-lock"
LOCK_STALE_SECONDS = 60 * 60
NEW_FILE_MODE = 0o600
NEW_DIR_MODE = 0o700
CRASH_ENV = "MEMTUI_TEST_CRASH_AFTER"
"""Test-only: exit the process after this many apply steps (see the module docstring)."""
CRASH_EXIT_CODE = 86
BINARY_NOTE = "binary file: no text diff"


class EditRefused(Exception):
    """An edit memtui will not make; ``reason`` says why in words a user understands."""

    def __init__(self, reason: str, path: Path | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path


class EditCancelled(EditRefused):
    """The user cancelled an operation while it ran; every file was put back."""


@dataclass(frozen=True)
class FileChange:
    """Write ``new_bytes`` to ``path`` or delete it.

    ``expected`` is the sha256 (hex) of the bytes the plan saw, or None when the file must not
    exist. ``mode`` forces the file's mode (default: an existing file keeps its mode, a new one
    gets 0o600); ``mtime_ns`` sets the mtime after writing (undo restores the original one).
    """

    path: Path
    action: ChangeAction
    new_bytes: bytes | None = None
    expected: str | None = None
    mode: int | None = None
    mtime_ns: int | None = None

    def __post_init__(self) -> None:
        if self.action == "write" and self.new_bytes is None:
            raise ValueError("a write needs new_bytes")
        if self.action == "delete" and self.new_bytes is not None:
            raise ValueError("a delete has no new_bytes")


@dataclass
class FileDiff:
    """One file of a proposal as a user previews it (texts are UTF-8 with replacement)."""

    path: Path
    rel: str
    status: DiffStatus
    old_text: str | None
    new_text: str | None
    unified: str
    binary: bool = False


@dataclass
class Proposal:
    """A planned operation: nothing outside ``root`` is touched; ``lock_dir`` is the memory
    dir whose ``.consolidate-lock`` applies (None: no lock). ``remove_dirs`` are directories to
    remove afterwards when empty (undo of an operation that created them)."""

    kind: str
    title: str
    root: Path
    lock_dir: Path | None
    changes: list[FileChange]
    notes: list[str] = field(default_factory=list)
    remove_dirs: list[Path] = field(default_factory=list)

    def diff(self) -> list[FileDiff]:
        """Each change against the file as it is on disk now."""
        return [file_diff(self.root, change) for change in self.changes]


@dataclass
class AppliedOp:
    op_id: str
    kind: str
    title: str
    files: list[Path]
    record: OpRecord


@dataclass
class LockHolder:
    """A live ``.consolidate-lock``: who holds it and since when (the lock's mtime)."""

    path: Path
    pid: int
    since: float


# --- hashing and reading ------------------------------------------------------------------


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str | None:
    """The sha256 of a regular file's bytes, or None when there is no such file."""
    data, _st = _read_regular(path)
    return None if data is None else sha256_hex(data)


def _read_regular(path: Path) -> tuple[bytes | None, os.stat_result | None]:
    """(bytes, stat) of a regular file, (None, None) when absent; EditRefused otherwise."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, None
    except NotADirectoryError as exc:
        raise EditRefused(f"{path} cannot exist: a parent is not a directory", path) from exc
    if stat.S_ISLNK(st.st_mode):
        raise EditRefused(f"{path} is a symbolic link; memtui does not write through links", path)
    if not stat.S_ISREG(st.st_mode):
        raise EditRefused(f"{path} is not a regular file", path)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks), os.fstat(fd)
    finally:
        os.close(fd)


def _current_hash(path: Path) -> tuple[str | None, os.stat_result | None, bool]:
    """(hash, stat, readable as a plain file or absent) without raising."""
    try:
        data, st = _read_regular(path)
    except (EditRefused, OSError):
        return None, None, False
    return (None if data is None else sha256_hex(data)), st, True


# --- previews -----------------------------------------------------------------------------


def file_diff(root: Path, change: FileChange) -> FileDiff:
    """Preview one change: status and a unified diff (no text for binary files)."""
    try:
        old, _st = _read_regular(change.path)
    except (EditRefused, OSError):
        old = None
    new = change.new_bytes if change.action == "write" else None
    rel = _rel(root, change.path)
    status = _diff_status(change.action, old, new)
    binary = any(data is not None and b"\0" in data for data in (old, new))
    if binary:
        return FileDiff(change.path, rel, status, None, None, BINARY_NOTE, binary=True)
    old_text = None if old is None else old.decode("utf-8", errors="replace")
    new_text = None if new is None else new.decode("utf-8", errors="replace")
    unified = unified_diff(rel, old_text, new_text) if status != "unchanged" else ""
    return FileDiff(change.path, rel, status, old_text, new_text, unified)


def _diff_status(action: ChangeAction, old: bytes | None, new: bytes | None) -> DiffStatus:
    if action == "delete":
        return "unchanged" if old is None else "deleted"
    if old is None:
        return "added"
    return "unchanged" if old == new else "changed"


def unified_diff(rel: str, old: str | None, new: str | None) -> str:
    """A ``diff -u`` style text, ``/dev/null`` for a missing side."""
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=f"a/{rel}" if old is not None else "/dev/null",
        tofile=f"b/{rel}" if new is not None else "/dev/null",
    )
    out: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# --- confinement --------------------------------------------------------------------------


def _absolute(path: Path) -> Path:
    return Path(os.path.normpath(os.path.abspath(path)))


def _real_path(path: Path) -> Path:
    """The real path of the deepest existing ancestor, joined with the parts that don't exist."""
    missing: list[str] = []
    probe = path
    while not os.path.lexists(probe) and probe.parent != probe:
        missing.append(probe.name)
        probe = probe.parent
    return Path(os.path.realpath(probe)).joinpath(*reversed(missing))


def _strictly_under(path: Path, root: Path) -> bool:
    return path != root and path.is_relative_to(root)


def _confine(path: Path, root: Path, root_real: Path) -> Path:
    """``path`` (relative paths are taken from ``root``) normalized; refused when it leaves."""
    candidate = _absolute(path if path.is_absolute() else root / path)
    if not _strictly_under(candidate, root):
        raise EditRefused(f"{path} is outside {root}; memtui only writes inside it", path)
    if not _strictly_under(_real_path(candidate), root_real):
        raise EditRefused(
            f"{candidate} leads outside {root} through a symbolic link; nothing was written",
            candidate,
        )
    return candidate


# --- the consolidation lock ---------------------------------------------------------------


def live_lock(lock_dir: Path, now: float | None = None) -> LockHolder | None:
    """The holder of ``lock_dir/.consolidate-lock`` when it blocks writes: a pid that is alive
    and a lock under 60 minutes old (Claude Code's rule; a dead pid or an older lock is stale).
    """
    path = lock_dir / LOCK_NAME
    try:
        st = os.stat(path)
        body = path.read_bytes()
    except OSError:
        return None
    pid = _parse_pid(body)
    age = (time.time() if now is None else now) - st.st_mtime
    if pid is None or age >= LOCK_STALE_SECONDS or not pid_alive(pid):
        return None
    return LockHolder(path, pid, st.st_mtime)


def _parse_pid(body: bytes) -> int | None:
    """``parseInt(body.trim())``: leading digits count, anything else is no pid."""
    match = re.match(rb"\s*\+?(\d+)", body)
    return int(match.group(1)) if match else None


def _lock_refusal(holder: LockHolder, lock_dir: Path) -> EditRefused:
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(holder.since))
    return EditRefused(
        f"Claude Code is consolidating memory in {lock_dir} (pid {holder.pid}, since {since}); "
        "nothing was written, try again when it is done",
        holder.path,
    )


def _check_lock(lock_dir: Path | None, allowed_pid: int | None = None) -> None:
    if lock_dir is None:
        return
    holder = live_lock(lock_dir)
    if holder is not None and holder.pid != allowed_pid:
        raise _lock_refusal(holder, lock_dir)


def _lock_plan(lock_dir: Path | None) -> tuple[LockRecord | None, bytes | None]:
    """What the lock looks like now, to take it and put it back; None when the dir is missing."""
    if lock_dir is None or not lock_dir.is_dir():
        return None, None
    path = _absolute(lock_dir) / LOCK_NAME
    data, st = _read_regular(path)
    record = LockRecord(
        path=str(path),
        existed=data is not None,
        sha256=None if data is None else sha256_hex(data),
        mtime_ns=None if st is None else st.st_mtime_ns,
        mode=None if st is None else stat.S_IMODE(st.st_mode),
        pid=os.getpid(),
    )
    return record, data


def _take_lock(lock: LockRecord, tmp: Path) -> None:
    path = Path(lock.path)
    body = str(lock.pid).encode()
    _write_atomic(path, body, lock.mode if lock.mode is not None else NEW_FILE_MODE, tmp)
    if path.read_bytes() != body:
        raise EditRefused(f"another process took {path} at the same moment; nothing was written")


def _restore_lock(journal: Journal, record: OpRecord) -> None:
    """Put the lock back as it was, if it still holds the pid this operation wrote."""
    lock = record.lock
    if lock is None:
        return
    path = Path(lock.path)
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        return
    if current != str(lock.pid).encode():
        return
    old = journal.lock_old_bytes(record)
    if lock.existed and old is not None:
        mode = lock.mode if lock.mode is not None else NEW_FILE_MODE
        _write_atomic(path, old, mode, _temp(path.parent, record.id, "lock"), lock.mtime_ns)
    else:
        _unlink(path)


# --- low-level writes ---------------------------------------------------------------------


class _Steps:
    """Counts apply steps; exits the process after step ``$MEMTUI_TEST_CRASH_AFTER`` (tests)."""

    def __init__(self) -> None:
        raw = os.environ.get(CRASH_ENV, "")
        self.crash_after = int(raw) if raw.isdigit() else None
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
        if self.count == self.crash_after:
            os._exit(CRASH_EXIT_CODE)


def _no_steps() -> None:
    return None


def _temp(directory: Path, op_id: str, tag: str | int) -> Path:
    return directory / f".memtui-{op_id}-{tag}.tmp"


def _write_atomic(
    path: Path,
    data: bytes,
    mode: int,
    tmp: Path,
    mtime_ns: int | None = None,
    after_temp: Callable[[], None] = _no_steps,
) -> None:
    """Temp file beside ``path`` (mode set, fsynced, mtime set), ``os.replace``, fsync dir."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    write_synced(tmp, data, mode, flags=os.O_NOFOLLOW)
    if mtime_ns is not None:
        os.utime(tmp, ns=(mtime_ns, mtime_ns))
    after_temp()
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
        fsync_dir(path.parent)


def _make_dir(path: Path, mode: int = NEW_DIR_MODE) -> None:
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, mode)
        os.chmod(path, mode)
        fsync_dir(path.parent)


def _remove_dir_if_empty(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(path)
        fsync_dir(path.parent)


# --- planning an apply --------------------------------------------------------------------


@dataclass
class _Target:
    path: Path
    change: FileChange
    old: bytes | None
    st: os.stat_result | None

    def record(self) -> FileRecord:
        existed = self.old is not None
        mode = stat.S_IMODE(self.st.st_mode) if self.st is not None else None
        writes = self.change.action == "write"
        new = self.change.new_bytes
        return FileRecord(
            path=str(self.path),
            action=self.change.action,
            existed=existed,
            mode=mode,
            mtime_ns=self.st.st_mtime_ns if self.st is not None else None,
            sha256_before=None if self.old is None else sha256_hex(self.old),
            sha256_after=sha256_hex(new) if writes and new is not None else None,
            mode_after=_mode_after(self.change.mode, mode) if writes else None,
            restore_mtime_ns=self.change.mtime_ns if writes else None,
        )


def _mode_after(forced: int | None, existing: int | None) -> int:
    if forced is not None:
        return forced
    return existing if existing is not None else NEW_FILE_MODE


def _check_target(change: FileChange, root: Path, root_real: Path, lock: Path | None) -> _Target:
    path = _confine(change.path, root, root_real)
    if lock is not None and path == lock:
        raise EditRefused(
            f"{path} is Claude Code's consolidation lock; memtui never edits it", path
        )
    old, st = _read_regular(path)
    found = None if old is None else sha256_hex(old)
    if found != change.expected:
        raise EditRefused(_changed_reason(path, change.expected, found), path)
    return _Target(path, change, old, st)


def _changed_reason(path: Path, expected: str | None, found: str | None) -> str:
    if expected is None:
        what = "was created"
    elif found is None:
        what = "was deleted"
    else:
        what = "changed"
    return (
        f"{path} {what} on disk since the preview (another process wrote it); nothing was written"
    )


def _dirs_to_create(targets: Sequence[_Target]) -> list[Path]:
    missing: set[Path] = set()
    for target in targets:
        if target.change.action != "write":
            continue
        probe = target.path.parent
        while not os.path.lexists(probe):
            missing.add(probe)
            probe = probe.parent
        if not probe.is_dir():
            raise EditRefused(f"{probe} is not a directory", probe)
    return sorted(missing, key=lambda p: (len(p.parts), str(p)))


def _dirs_to_remove(paths: Sequence[Path]) -> list[tuple[Path, int]]:
    found: list[tuple[Path, int]] = []
    for path in paths:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            found.append((_absolute(path), stat.S_IMODE(st.st_mode)))
    return sorted(found, key=lambda item: len(item[0].parts), reverse=True)


def _plan(proposal: Proposal) -> list[_Target]:
    if not proposal.changes:
        raise EditRefused("nothing to change")
    root = _absolute(proposal.root)
    root_real = _real_path(root)
    lock_path = _absolute(proposal.lock_dir) / LOCK_NAME if proposal.lock_dir else None
    targets = [_check_target(c, root, root_real, lock_path) for c in proposal.changes]
    seen: set[Path] = set()
    for target in targets:
        if target.path in seen:
            raise EditRefused(f"{target.path} appears twice in one operation", target.path)
        seen.add(target.path)
    return targets


# --- apply --------------------------------------------------------------------------------


def apply(
    proposal: Proposal,
    journal: Journal,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> AppliedOp:
    """Check, journal and carry out ``proposal``; EditRefused (nothing changed) when unsafe."""
    return _apply(proposal, journal, progress=progress, cancelled=cancelled)


def _apply(
    proposal: Proposal,
    journal: Journal,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    undoes: str | None = None,
) -> AppliedOp:
    targets = _plan(proposal)
    _check_lock(proposal.lock_dir)
    created = _dirs_to_create(targets)
    removed = _dirs_to_remove(proposal.remove_dirs)
    lock, lock_old = _lock_plan(proposal.lock_dir)
    try:
        record = _prepare(journal, proposal, targets, created, removed, lock, lock_old, undoes)
    except OSError as exc:
        raise EditRefused(
            f"cannot write the undo journal in {journal.directory}: {exc.strerror or exc}; "
            "nothing was written"
        ) from exc
    RUNNING.add(record.id)
    try:
        _run(journal, record, targets, progress, cancelled)
    finally:
        RUNNING.discard(record.id)
    return AppliedOp(record.id, record.kind, record.title, [t.path for t in targets], record)


def _prepare(
    journal: Journal,
    proposal: Proposal,
    targets: Sequence[_Target],
    created: list[Path],
    removed: list[tuple[Path, int]],
    lock: LockRecord | None,
    lock_old: bytes | None,
    undoes: str | None,
) -> OpRecord:
    return journal.prepare(
        kind=proposal.kind,
        title=proposal.title,
        root=_absolute(proposal.root),
        lock_dir=_absolute(proposal.lock_dir) if proposal.lock_dir else None,
        files=[t.record() for t in targets],
        old=[t.old for t in targets],
        new=[t.change.new_bytes for t in targets],
        created_dirs=created,
        removed_dirs=removed,
        lock=lock,
        lock_old=lock_old,
        notes=proposal.notes,
        undoes=undoes,
    )


def _run(
    journal: Journal,
    record: OpRecord,
    targets: Sequence[_Target],
    progress: Progress | None,
    cancelled: Cancelled | None,
) -> None:
    steps = _Steps()
    steps()
    try:
        journal.set_state(record, "applying")
        steps()
        if record.lock is not None:
            _take_lock(record.lock, _temp(Path(record.lock.path).parent, record.id, "lock"))
            steps()
        for directory in record.created_dirs:
            _make_dir(Path(directory))
            steps()
        total = len(targets)
        if progress:
            progress(0, total)
        for index, target in enumerate(targets):
            if cancelled is not None and cancelled():
                raise EditCancelled("cancelled; every file was put back as it was")
            _recheck(target)
            _carry_out(record, index, target.change.new_bytes, steps)
            journal.set_progress(record, index + 1)
            steps()
            if progress:
                progress(index + 1, total)
        _finish(journal, record, steps)
    except EditRefused as exc:
        raise _after_failure(journal, record, exc.reason, exc.path, type(exc)) from exc
    except OSError as exc:
        reason = f"writing failed: {exc}"
        path = Path(exc.filename) if isinstance(exc.filename, str) else None
        raise _after_failure(journal, record, reason, path, EditRefused) from exc
    except BaseException:  # KeyboardInterrupt or a bug: put the files back, then let it go on
        with contextlib.suppress(Exception):
            _after_failure(journal, record, "interrupted", None, EditRefused)
        raise


def _finish(journal: Journal, record: OpRecord, steps: Callable[[], None]) -> None:
    _restore_lock(journal, record)
    steps()
    for directory, _mode in record.removed_dirs:
        _remove_dir_if_empty(Path(directory))
        steps()
    journal.set_state(record, "done")
    steps()


def _recheck(target: _Target) -> None:
    """The file must still hold the bytes checked before the journal was written."""
    data, _st = _read_regular(target.path)
    if data != target.old:
        found = None if data is None else sha256_hex(data)
        raise EditRefused(_changed_reason(target.path, target.change.expected, found), target.path)


def _carry_out(record: OpRecord, index: int, data: bytes | None, steps: Callable[[], None]) -> None:
    item = record.files[index]
    path = Path(item.path)
    if item.action == "delete":
        _unlink(path)
        return
    if data is None:
        raise EditRefused(f"no new bytes for {path}", path)
    mode = item.mode_after if item.mode_after is not None else NEW_FILE_MODE
    tmp = _temp(path.parent, record.id, index)
    _write_atomic(path, data, mode, tmp, item.restore_mtime_ns, after_temp=steps)
    steps()


def _after_failure(
    journal: Journal,
    record: OpRecord,
    reason: str,
    path: Path | None,
    kind: type[EditRefused],
) -> EditRefused:
    """Roll back what was done; the error to raise says whether that worked."""
    try:
        _restore_before(journal, record, force=False, own=True)
        journal.set_state(record, "rolled-back")
    except (EditRefused, OSError) as exc:
        return EditRefused(
            f"{reason}; putting files back also failed ({exc}): run "
            f"`memtui undo --rollback {record.id}` to finish",
            path,
        )
    if kind is EditRefused and "nothing was written" not in reason:
        reason += "; every file was put back as it was"
    return kind(reason, path)


# --- recovery -----------------------------------------------------------------------------


def _matches_before(item: FileRecord, digest: str | None, st: os.stat_result | None) -> bool:
    if digest != item.sha256_before:
        return False
    if st is None:
        return True
    same_mode = item.mode is None or stat.S_IMODE(st.st_mode) == item.mode
    return same_mode and (item.mtime_ns is None or st.st_mtime_ns == item.mtime_ns)


def _remove_temps(record: OpRecord) -> None:
    for index, item in enumerate(record.files):
        with contextlib.suppress(OSError):
            os.unlink(_temp(Path(item.path).parent, record.id, index))
    if record.lock is not None:
        with contextlib.suppress(OSError):
            os.unlink(_temp(Path(record.lock.path).parent, record.id, "lock"))


def _check_recovery_lock(record: OpRecord, own: bool) -> None:
    """No live lock but the one this very process took for ``record``."""
    if record.lock_dir is None:
        return
    allowed = record.lock.pid if own and record.lock is not None else None
    _check_lock(Path(record.lock_dir), allowed)


def _restore_before(journal: Journal, record: OpRecord, *, force: bool, own: bool) -> None:
    """Every file as before the operation. A file holding neither its before nor its after
    bytes was written by someone else: an explicit rollback is refused unless ``force``; the
    rollback of this process's own failed apply (``own``) leaves that file alone."""
    _check_recovery_lock(record, own)
    states = [_current_hash(Path(item.path)) for item in record.files]
    conflicts = [
        item.path
        for item, (digest, _st, plain) in zip(record.files, states, strict=True)
        if not plain or digest not in (item.sha256_before, item.sha256_after)
    ]
    if conflicts and not force and not own:
        raise EditRefused(
            "changed by another process since the operation: "
            + ", ".join(conflicts)
            + "; nothing was restored (force to overwrite)",
            Path(conflicts[0]),
        )
    _remove_temps(record)
    for directory, mode in sorted(record.removed_dirs, key=lambda d: len(Path(d[0]).parts)):
        _make_dir(Path(directory), mode)
    for index, item in enumerate(record.files):
        digest, st, _plain = states[index]
        if _matches_before(item, digest, st) or (own and item.path in conflicts):
            continue
        _put_back(journal, record, index, item)
    for directory in reversed(record.created_dirs):
        _remove_dir_if_empty(Path(directory))
    _restore_lock(journal, record)


def _put_back(journal: Journal, record: OpRecord, index: int, item: FileRecord) -> None:
    path = Path(item.path)
    if not item.existed:
        _unlink(path)
        return
    old = journal.old_bytes(record, index)
    if old is None:
        raise EditRefused(f"the journal lost the old bytes of {path}", path)
    mode = item.mode if item.mode is not None else NEW_FILE_MODE
    _make_dir(path.parent)
    _write_atomic(path, old, mode, _temp(path.parent, record.id, index), item.mtime_ns)


def _require_interrupted(record: OpRecord) -> None:
    if record.state not in INCOMPLETE_STATES:
        raise EditRefused(
            f"operation {record.id} is {record.state}, not interrupted; use undo instead"
        )
    if record.id in RUNNING or (record.pid != os.getpid() and pid_alive(record.pid)):
        raise EditRefused(f"operation {record.id} is still running (pid {record.pid})")


def rollback_operation(journal: Journal, record: OpRecord, *, force: bool = False) -> OpRecord:
    """Restore the tree an interrupted operation started from: old bytes, modes and mtimes,
    files it created removed, directories it created removed when empty, the lock as it was."""
    _require_interrupted(record)
    _restore_before(journal, record, force=force, own=False)
    journal.set_state(record, "rolled-back")
    return record


def complete_operation(journal: Journal, record: OpRecord) -> OpRecord:
    """Finish an interrupted operation from its recorded new bytes."""
    _require_interrupted(record)
    _check_recovery_lock(record, own=False)
    states = [_current_hash(Path(item.path)) for item in record.files]
    conflicts = [
        item.path
        for item, (digest, _st, plain) in zip(record.files, states, strict=True)
        if not plain or digest not in (item.sha256_before, item.sha256_after)
    ]
    if conflicts:
        raise EditRefused(
            "changed by another process since the operation: "
            + ", ".join(conflicts)
            + "; nothing was written",
            Path(conflicts[0]),
        )
    _remove_temps(record)
    if record.lock is not None:
        record.lock.pid = os.getpid()
        journal.save(record)
        _take_lock(record.lock, _temp(Path(record.lock.path).parent, record.id, "lock"))
    for directory in record.created_dirs:
        _make_dir(Path(directory))
    for index, item in enumerate(record.files):
        digest, st, _plain = states[index]
        if digest == item.sha256_after and _mode_is(st, item.mode_after):
            continue
        data = journal.new_bytes(record, index)
        if item.action == "write" and data is None:
            raise EditRefused(f"the journal lost the new bytes of {item.path}", Path(item.path))
        _carry_out(record, index, data, _no_steps)
    _finish(journal, record, _no_steps)
    return record


def _mode_is(st: os.stat_result | None, mode: int | None) -> bool:
    return st is None or mode is None or stat.S_IMODE(st.st_mode) == mode


def undo_operation(
    journal: Journal,
    record: OpRecord,
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> AppliedOp:
    """Restore every file ``record`` touched, byte for byte with its mode and mtime, as a new
    journaled operation. Refused when a file changed since (unless ``force``)."""
    if record.state != "done":
        raise EditRefused(
            f"operation {record.id} is {record.state}; only a finished operation can be undone "
            "(an interrupted one is rolled back)"
        )
    changes = [_undo_change(journal, record, i, item, force) for i, item in enumerate(record.files)]
    proposal = Proposal(
        kind="undo",
        title=f"undo {record.kind}: {record.title}",
        root=Path(record.root),
        lock_dir=Path(record.lock_dir) if record.lock_dir else None,
        changes=[c for c in changes if c is not None],
        notes=[f"undoes operation {record.id}"],
        remove_dirs=[Path(d) for d in reversed(record.created_dirs)],
    )
    if not proposal.changes:
        raise EditRefused(f"operation {record.id} changed no file; nothing to undo")
    applied = _apply(proposal, journal, progress=progress, undoes=record.id)
    record.undone_by = applied.op_id
    journal.save(record)
    return applied


def _undo_change(
    journal: Journal, record: OpRecord, index: int, item: FileRecord, force: bool
) -> FileChange | None:
    path = Path(item.path)
    expected = item.sha256_after
    if force:
        digest, _st, _plain = _current_hash(path)
        expected = digest
    if not item.existed:
        if item.sha256_after is None and expected is None:
            return None
        return FileChange(path, "delete", None, expected)
    old = journal.old_bytes(record, index)
    if old is None:
        raise EditRefused(f"the journal lost the old bytes of {path}; cannot undo", path)
    return FileChange(path, "write", old, expected, mode=item.mode, mtime_ns=item.mtime_ns)
