"""The one write path for users' memory files
(docs/architecture.md#the-safety-model-as-implemented).

Every change memtui makes is a :class:`Proposal`: a list of :class:`FileChange`, each stating the
sha256 of the bytes it was planned against. :func:`apply` then

1. checks, before touching anything: every path stays inside the proposal's ``root``, no
   directory on the way to the root or to a file is a symlink (:mod:`memtui.core.dirfd`: each is
   opened without following links, and every write is made relative to those descriptors), no
   file is a symlink or a directory, every file still has the planned bytes, and no live Claude
   Code ``.consolidate-lock`` (pid alive, under 60 minutes old) holds ``lock_dir``;
2. journals the operation (:mod:`memtui.core.journal`): old and new bytes, modes, mtimes;
3. takes ``.consolidate-lock`` (its own pid, written atomically), creates missing directories
   (0o700), writes each file atomically (temp file in the same directory, fsync, ``os.replace``,
   fsync of the directory; existing files keep their mode, new ones get 0o600), deletes files.
   Right before each replace or delete the file is read once more and must still hold the bytes
   the journal holds; the replaced inode is kept open, and when the writing is done (at least
   :data:`LATE_WRITE_GRACE` after the last replace) it must still hold them: a process that
   appended to it meanwhile (Claude Code appends to ``MEMORY.md``) would lose its bytes, so the
   operation is rolled back with those bytes put back (also saved in the journal) and refused;
4. puts the lock back exactly as it was (bytes, mode and mtime, which Claude Code reads as the
   last consolidation time), or removes it when there was none, and marks the operation done.

An operation that fails or is cancelled halfway is rolled back at once; one killed halfway is
found by :meth:`Journal.incomplete` and rolled back (:func:`rollback_operation`) or finished
(:func:`complete_operation`). :func:`undo_operation` restores a finished operation byte for byte
as a new, itself undoable, operation. Recovery and undo confine the journal's paths again (each
file strictly inside the record's root, normalized; the root still free of symlinks) before
they write anything.

Test-only hook: when the environment variable ``MEMTUI_TEST_CRASH_AFTER`` holds a number ``k``,
the process exits at once (``os._exit``, no cleanup) after the ``k``-th step of an apply, to
prove that an operation killed at any point can be recovered. Never set it outside tests.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import hashlib
import os
import re
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memtui.core.dirfd import (
    DirTree,
    EditRefused,
    read_all,
    read_capped,
    relative_parts,
    store_target,
)
from memtui.core.journal import (
    INCOMPLETE_STATES,
    RUNNING,
    FileRecord,
    Journal,
    LockRecord,
    OpRecord,
    pid_alive,
)

__all__ = [
    "CRASH_ENV",
    "LATE_WRITE_GRACE",
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
    "read_regular",
    "rollback_operation",
    "sha256_hex",
    "target_text",
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
LATE_WRITE_GRACE = 0.005
"""Seconds between the last replace or delete of an existing file and the check that nobody
wrote to the replaced inode meanwhile (a writer that opened the file just before the replace)."""
LATE_WRITE_ATTEMPTS = 5
"""How often putting late bytes back is retried while the writer keeps writing."""


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
        """Each change against the file as it is on disk now (read without following a link:
        a store behind a link previews nothing of what lies behind it)."""
        with DirTree() as tree:
            return [file_diff(self.root, change, tree) for change in self.changes]

    def target(self) -> tuple[str, str | None]:
        """The real directory the writes land in, and why memtui refuses to write there
        (None: it does not; a symlink on the way is named with its real target)."""
        return store_target(self.root)

    def target_text(self) -> str:
        """One preview line: the real target directory, or the refusal."""
        return target_text(self.root)


def target_text(root: Path) -> str:
    """One preview line for writes into ``root``: the real directory they land in, or why
    memtui refuses to write there (a symlink on the way, with its real target)."""
    real, problem = store_target(root)
    if problem is not None:
        return f"refused: {problem}; nothing will be written"
    return f"writes into {real}"


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
    data, _st = read_regular(path)
    return None if data is None else sha256_hex(data)


def read_regular(path: Path) -> tuple[bytes | None, os.stat_result | None]:
    """(bytes, stat) of a regular file, (None, None) when absent; EditRefused otherwise (a
    link, a FIFO: the open never blocks). For plans and previews; writes read by descriptor."""
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
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise EditRefused(f"{path} is not a regular file", path)
        return read_capped(fd, path), st
    finally:
        os.close(fd)


def _current_hash(tree: DirTree, path: Path) -> tuple[str | None, os.stat_result | None, bool]:
    """(hash, stat, readable as a plain file or absent) without raising."""
    try:
        data, st = tree.read(path)
    except (EditRefused, OSError):
        return None, None, False
    return (None if data is None else sha256_hex(data)), st, True


# --- previews -----------------------------------------------------------------------------


def file_diff(root: Path, change: FileChange, tree: DirTree | None = None) -> FileDiff:
    """Preview one change: status and a unified diff (no text for binary files)."""
    try:
        if tree is None:
            old, _st = read_regular(change.path)
        else:
            old, _st = tree.read(_absolute(change.path))
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


def _strictly_under(path: Path, root: Path) -> bool:
    return path != root and path.is_relative_to(root)


def _on_the_way(path: Path, root: Path) -> bool:
    """``path`` is ``root``, one of its ancestors, or inside it."""
    return path.is_relative_to(root) or root.is_relative_to(path)


def _confine(path: Path, root: Path) -> Path:
    """``path`` (relative paths are taken from ``root``) normalized; refused when it leaves.
    Links are no concern here: every directory is opened without following one."""
    candidate = _absolute(path if path.is_absolute() else root / path)
    if not _strictly_under(candidate, root):
        raise EditRefused(f"{path} is outside {root}; memtui only writes inside it", path)
    relative_parts(candidate.relative_to(root).as_posix())
    return candidate


def _record_path(record: OpRecord, raw: str) -> Path:
    """A path from a journal record: absolute and already normalized, or refused."""
    if not raw.startswith("/") or os.path.normpath(raw) != raw:
        raise EditRefused(
            f"the journal record of operation {record.id} names {raw!r}, which is not a plain "
            "absolute path; nothing was written",
            Path(raw),
        )
    return Path(raw)


def _confine_record(record: OpRecord) -> Path:
    """Check every path a journal record names before recovery or undo writes it: files
    strictly inside the record's root, created/removed directories and the lock dir on the
    way to it or inside it, the lock file in the lock dir. Returns the root."""
    root = _record_path(record, record.root)

    def outside(raw: str) -> EditRefused:
        return EditRefused(
            f"the journal record of operation {record.id} names {raw}, outside its store "
            f"{root}; nothing was written",
            Path(raw),
        )

    for item in record.files:
        path = _record_path(record, item.path)
        if not _strictly_under(path, root):
            raise outside(item.path)
        relative_parts(path.relative_to(root).as_posix())
    dirs = [*record.created_dirs, *(d for d, _mode in record.removed_dirs)]
    if record.lock_dir is not None:
        dirs.append(record.lock_dir)
    for raw in dirs:
        if not _on_the_way(_record_path(record, raw), root):
            raise outside(raw)
    if record.lock is not None:
        lock_dir = record.lock_dir or ""
        if record.lock.path != os.path.join(lock_dir, LOCK_NAME):
            raise outside(record.lock.path)
    return root


# --- the consolidation lock ---------------------------------------------------------------


def live_lock(lock_dir: Path, now: float | None = None) -> LockHolder | None:
    """The holder of ``lock_dir/.consolidate-lock`` when it blocks writes: a pid that is alive
    and a lock under 60 minutes old (Claude Code's rule; a dead pid or an older lock is stale).
    """
    path = lock_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        body = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
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


def _lock_plan(tree: DirTree, lock_dir: Path | None) -> tuple[LockRecord | None, bytes | None]:
    """What the lock looks like now, to take it and put it back; None when the dir is missing."""
    if lock_dir is None or tree.fd(_absolute(lock_dir)) is None:
        return None, None
    path = _absolute(lock_dir) / LOCK_NAME
    data, st = tree.read(path)
    record = LockRecord(
        path=str(path),
        existed=data is not None,
        sha256=None if data is None else sha256_hex(data),
        mtime_ns=None if st is None else st.st_mtime_ns,
        mode=None if st is None else stat.S_IMODE(st.st_mode),
        pid=os.getpid(),
    )
    return record, data


def _take_lock(tree: DirTree, lock: LockRecord, op_id: str) -> None:
    path = Path(lock.path)
    body = str(lock.pid).encode()
    mode = lock.mode if lock.mode is not None else NEW_FILE_MODE
    tree.write_atomic(path, body, mode, _temp(op_id, "lock"))
    if tree.read(path)[0] != body:
        raise EditRefused(f"another process took {path} at the same moment; nothing was written")


def _restore_lock(tree: DirTree, journal: Journal, record: OpRecord) -> None:
    """Put the lock back as it was, if it still holds the pid this operation wrote."""
    lock = record.lock
    if lock is None:
        return
    path = Path(lock.path)
    current, _st = tree.read(path)
    if current is None or current != str(lock.pid).encode():
        return
    old = journal.lock_old_bytes(record)
    if lock.existed and old is not None:
        mode = lock.mode if lock.mode is not None else NEW_FILE_MODE
        tree.write_atomic(path, old, mode, _temp(record.id, "lock"), lock.mtime_ns)
    else:
        tree.unlink(path)


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


def _temp(op_id: str, tag: str | int) -> str:
    """The name of an operation's temp file, in the directory of the file it replaces."""
    return f".memtui-{op_id}-{tag}.tmp"


@dataclass
class _Held:
    """The inode a write replaced or a delete removed, kept open until the operation is done:
    it must still hold ``expected`` then, or another process wrote to it meanwhile."""

    index: int
    path: Path
    fd: int
    expected: bytes


class _LateWrite(EditRefused):
    """Another process wrote to a file while memtui replaced or removed it; ``late`` holds the
    bytes each such file (by index) had then, to be put back."""

    def __init__(self, reason: str, path: Path, late: dict[int, bytes]) -> None:
        super().__init__(reason, path)
        self.late = late


def _hold(tree: DirTree, index: int, path: Path, old: bytes | None) -> _Held | None:
    """Open the file about to be replaced or removed; it must hold ``old`` right now."""
    fd = tree.open_file(path)
    data = None if fd is None else read_all(fd)
    if data != old:
        if fd is not None:
            os.close(fd)
        found = None if data is None else sha256_hex(data)
        expected = None if old is None else sha256_hex(old)
        raise EditRefused(_changed_reason(path, expected, found), path)
    return None if fd is None or old is None else _Held(index, path, fd, old)


def _link_new(tree: DirTree, parent: int, tmp: str, path: Path) -> None:
    """Put the temp file in place of a file that must not exist: a hard link, which fails
    when another process created the file meanwhile (replace where links are unsupported)."""
    try:
        os.link(tmp, path.name, src_dir_fd=parent, dst_dir_fd=parent, follow_symlinks=False)
    except FileExistsError as exc:
        raise EditRefused(_changed_reason(path, None, "?"), path) from exc
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK):
            raise
        tree.swap(parent, tmp, path.name)
        return
    os.unlink(tmp, dir_fd=parent)
    os.fsync(parent)


def _verify_held(held: list[_Held], last_change: float) -> None:
    """Every replaced or removed inode still holds the bytes memtui saw (see
    :data:`LATE_WRITE_GRACE`); _LateWrite naming what another process wrote meanwhile."""
    if not held:
        return
    wait = LATE_WRITE_GRACE - (time.monotonic() - last_change)
    if wait > 0:
        time.sleep(wait)
    late = {h.index: data for h in held if (data := read_all(h.fd)) != h.expected}
    if late:
        first = next(h.path for h in held if h.index in late)
        raise _LateWrite(
            f"{first} was written by another process while memtui changed it; its bytes were "
            "kept and nothing was changed, try again",
            first,
            late,
        )


def _close_held(held: list[_Held]) -> None:
    for item in held:
        with contextlib.suppress(OSError):
            os.close(item.fd)
    held.clear()


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


def _check_target(
    tree: DirTree, change: FileChange, root: Path, lock: Path | None
) -> _Target:
    path = _confine(change.path, root)
    if lock is not None and path == lock:
        raise EditRefused(
            f"{path} is Claude Code's consolidation lock; memtui never edits it", path
        )
    old, st = tree.read(path)
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


def _dirs_to_create(tree: DirTree, targets: Sequence[_Target]) -> list[Path]:
    missing: set[Path] = set()
    for target in targets:
        if target.change.action != "write":
            continue
        probe = target.path.parent
        while tree.fd(probe) is None:
            missing.add(probe)
            probe = probe.parent
    return sorted(missing, key=lambda p: (len(p.parts), str(p)))


def _dirs_to_remove(tree: DirTree, root: Path, paths: Sequence[Path]) -> list[tuple[Path, int]]:
    found: list[tuple[Path, int]] = []
    for raw in paths:
        path = _absolute(raw)
        if not _on_the_way(path, root):
            raise EditRefused(f"{raw} is outside {root}; memtui only writes inside it", raw)
        parent = tree.fd(path.parent)
        if parent is None:
            continue
        try:
            st = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            found.append((path, stat.S_IMODE(st.st_mode)))
    return sorted(found, key=lambda item: len(item[0].parts), reverse=True)


def _plan(tree: DirTree, proposal: Proposal) -> list[_Target]:
    if not proposal.changes:
        raise EditRefused("nothing to change")
    root = _absolute(proposal.root)
    tree.fd(root)  # refused when a directory on the way is a symlink
    lock_path = None
    if proposal.lock_dir is not None:
        lock_path = _absolute(proposal.lock_dir) / LOCK_NAME
        tree.fd(lock_path.parent)
    targets = [_check_target(tree, c, root, lock_path) for c in proposal.changes]
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
    with DirTree() as tree:
        try:
            targets = _plan(tree, proposal)
            _check_lock(proposal.lock_dir)
            created = _dirs_to_create(tree, targets)
            removed = _dirs_to_remove(tree, _absolute(proposal.root), proposal.remove_dirs)
            lock, lock_old = _lock_plan(tree, proposal.lock_dir)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise EditRefused(
                f"cannot check the files to change: {exc.strerror or exc}{where}; "
                "nothing was written"
            ) from exc
        try:
            record = _prepare(journal, proposal, targets, created, removed, lock, lock_old, undoes)
        except OSError as exc:
            raise EditRefused(
                f"cannot write the undo journal in {journal.directory}: {exc.strerror or exc}; "
                "nothing was written"
            ) from exc
        RUNNING.add(record.id)
        try:
            _run(tree, journal, record, targets, progress, cancelled)
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
    tree: DirTree,
    journal: Journal,
    record: OpRecord,
    targets: Sequence[_Target],
    progress: Progress | None,
    cancelled: Cancelled | None,
) -> None:
    steps = _Steps()
    steps()
    held: list[_Held] = []
    try:
        journal.set_state(record, "applying")
        steps()
        if record.lock is not None:
            _take_lock(tree, record.lock, record.id)
            steps()
        for directory in record.created_dirs:
            tree.mkdir(Path(directory), NEW_DIR_MODE)
            steps()
        total = len(targets)
        if progress:
            progress(0, total)
        last_change = time.monotonic()
        for index, target in enumerate(targets):
            if cancelled is not None and cancelled():
                raise EditCancelled("cancelled; every file was put back as it was")
            _recheck(tree, target)
            _carry_out(tree, record, index, target.change.new_bytes, target.old, held, steps)
            last_change = time.monotonic()
            journal.set_progress(record, index + 1)
            steps()
            if progress:
                progress(index + 1, total)
        _verify_held(held, last_change)
        _finish(tree, journal, record, steps)
    # Each rollback below first closes the held inodes: a removed file's blocks are freed
    # only then, and a rollback on a full disk needs that space to put the old files back.
    except _LateWrite as exc:
        _close_held(held)
        failure = _after_failure(tree, journal, record, exc.reason, exc.path, EditRefused, exc.late)
        raise failure from exc
    except EditRefused as exc:
        _close_held(held)
        raise _after_failure(tree, journal, record, exc.reason, exc.path, type(exc)) from exc
    except OSError as exc:
        _close_held(held)
        reason = f"writing failed: {exc.strerror or exc}"
        path = Path(exc.filename) if isinstance(exc.filename, str) else None
        raise _after_failure(tree, journal, record, reason, path, EditRefused) from exc
    except BaseException:  # KeyboardInterrupt or a bug: put the files back, then let it go on
        _close_held(held)
        with contextlib.suppress(Exception):
            _after_failure(tree, journal, record, "interrupted", None, EditRefused)
        raise
    finally:
        _close_held(held)


def _finish(tree: DirTree, journal: Journal, record: OpRecord, steps: Callable[[], None]) -> None:
    _restore_lock(tree, journal, record)
    steps()
    for directory, _mode in record.removed_dirs:
        tree.rmdir_if_empty(Path(directory))
        steps()
    journal.set_state(record, "done")
    steps()


def _recheck(tree: DirTree, target: _Target) -> None:
    """The file must still hold the bytes checked before the journal was written."""
    data, _st = tree.read(target.path)
    if data != target.old:
        found = None if data is None else sha256_hex(data)
        raise EditRefused(_changed_reason(target.path, target.change.expected, found), target.path)


def _carry_out(
    tree: DirTree,
    record: OpRecord,
    index: int,
    data: bytes | None,
    old: bytes | None,
    held: list[_Held],
    steps: Callable[[], None],
) -> None:
    """Make file ``index`` what the record says, relative to its directory's descriptor. The
    file must hold ``old`` right before; the inode replaced or removed goes to ``held``."""
    item = record.files[index]
    path = Path(item.path)
    if item.action == "delete":
        if tree.fd(path.parent) is None:
            return
        kept = _hold(tree, index, path, old)
        if kept is not None:
            held.append(kept)
        tree.unlink(path)
        return
    if data is None:
        raise EditRefused(f"no new bytes for {path}", path)
    mode = item.mode_after if item.mode_after is not None else NEW_FILE_MODE
    parent = tree.parent_fd(path)
    tmp = _temp(record.id, index)
    tree.write_temp(parent, tmp, data, mode, item.restore_mtime_ns)
    steps()
    kept = _hold(tree, index, path, old)
    if old is None:
        _link_new(tree, parent, tmp, path)
    else:
        if kept is not None:
            held.append(kept)
        tree.swap(parent, tmp, path.name)
    steps()


def _after_failure(
    tree: DirTree,
    journal: Journal,
    record: OpRecord,
    reason: str,
    path: Path | None,
    kind: type[EditRefused],
    late: dict[int, bytes] | None = None,
) -> EditRefused:
    """Roll back what was done; the error to raise says whether that worked."""
    try:
        _restore_before(tree, journal, record, force=False, own=True, late=late or {})
        journal.set_state(record, "rolled-back")
    except (EditRefused, OSError) as exc:
        return EditRefused(
            f"{reason}; putting files back also failed ({exc}): run "
            f"`memtui undo --rollback {record.id}` to finish",
            path,
        )
    if kind is EditRefused and "nothing was written" not in reason and not late:
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


def _remove_temps(tree: DirTree, record: OpRecord) -> None:
    temps = [(Path(item.path).parent, _temp(record.id, i)) for i, item in enumerate(record.files)]
    if record.lock is not None:
        temps.append((Path(record.lock.path).parent, _temp(record.id, "lock")))
    for directory, name in temps:
        with contextlib.suppress(EditRefused, OSError):
            tree.unlink(directory / name)


def _check_recovery_lock(record: OpRecord, own: bool) -> None:
    """No live lock but the one this very process took for ``record``."""
    if record.lock_dir is None:
        return
    allowed = record.lock.pid if own and record.lock is not None else None
    _check_lock(Path(record.lock_dir), allowed)


def _open_record_root(tree: DirTree, record: OpRecord) -> None:
    """Confine the record's paths and open its root (and lock dir) without following links."""
    root = _confine_record(record)
    tree.fd(root)
    if record.lock_dir is not None:
        tree.fd(Path(record.lock_dir))


def _restore_before(
    tree: DirTree,
    journal: Journal,
    record: OpRecord,
    *,
    force: bool,
    own: bool,
    late: dict[int, bytes] | None = None,
) -> None:
    """Every file as before the operation. A file holding neither its before nor its after
    bytes was written by someone else: an explicit rollback is refused unless ``force``; the
    rollback of this process's own failed apply (``own``) leaves that file alone. ``late``:
    files another process wrote while this process changed them, put back with those bytes."""
    late = late or {}
    _open_record_root(tree, record)
    _check_recovery_lock(record, own)
    states = [_current_hash(tree, Path(item.path)) for item in record.files]
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
    _remove_temps(tree, record)
    for directory, mode in sorted(record.removed_dirs, key=lambda d: len(Path(d[0]).parts)):
        tree.mkdir(Path(directory), mode)
    for index in _space_freeing_order(record, states):
        item = record.files[index]
        if index in late:
            _put_back_late(tree, journal, record, index, late[index])
            continue
        digest, st, _plain = states[index]
        if _matches_before(item, digest, st) or (own and item.path in conflicts):
            continue
        _put_back(tree, journal, record, index, item)
    for directory in reversed(record.created_dirs):
        tree.rmdir_if_empty(Path(directory))
    _restore_lock(tree, journal, record)


def _space_freeing_order(
    record: OpRecord, states: Sequence[tuple[str | None, os.stat_result | None, bool]]
) -> list[int]:
    """The files of ``record`` in the order that frees disk space first, so that a rollback on
    a full disk can finish: files the operation created are removed, then files it rewrote
    are put back, and last the files it deleted are recreated."""

    def rank(index: int) -> int:
        if not record.files[index].existed:
            return 0
        return 1 if states[index][1] is not None else 2

    return sorted(range(len(record.files)), key=rank)


def _put_back(
    tree: DirTree, journal: Journal, record: OpRecord, index: int, item: FileRecord
) -> None:
    path = Path(item.path)
    if not item.existed:
        tree.unlink(path)
        return
    old = journal.old_bytes(record, index)
    if old is None:
        raise EditRefused(f"the journal lost the old bytes of {path}", path)
    mode = item.mode if item.mode is not None else NEW_FILE_MODE
    if tree.fd(path.parent) is None:
        tree.mkdir(path.parent, NEW_DIR_MODE)
    tree.write_atomic(path, old, mode, _temp(record.id, index), item.mtime_ns)


def _put_back_late(
    tree: DirTree, journal: Journal, record: OpRecord, index: int, late: bytes
) -> None:
    """Put file ``index`` back as the bytes it had when memtui replaced or removed it while
    another process wrote to it (``late``, saved in the journal first), followed by whatever
    that process appended to the file memtui put there; retried while it keeps writing."""
    item = record.files[index]
    path = Path(item.path)
    journal.save_late(record, index, late)
    mode = item.mode if item.mode is not None else NEW_FILE_MODE
    prefix = journal.new_bytes(record, index) or b""
    base = late
    for _attempt in range(LATE_WRITE_ATTEMPTS):
        fd = tree.open_file(path)
        try:
            current = b"" if fd is None else read_all(fd)
            tail = current[len(prefix) :] if current.startswith(prefix) else current
            content = base + tail
            tree.write_atomic(path, content, mode, _temp(record.id, index))
            time.sleep(LATE_WRITE_GRACE)
            again = current if fd is None else read_all(fd)
        finally:
            if fd is not None:
                os.close(fd)
        if again == current:
            return
        prefix = content
        base = content + (again[len(current) :] if again.startswith(current) else again)
    raise EditRefused(
        f"another process keeps writing {path}; the bytes it wrote are kept in the journal "
        f"({journal.directory / record.id / f'{index}.late'})",
        path,
    )


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
    with DirTree() as tree:
        _restore_before(tree, journal, record, force=force, own=False)
    journal.set_state(record, "rolled-back")
    return record


def complete_operation(journal: Journal, record: OpRecord) -> OpRecord:
    """Finish an interrupted operation from its recorded new bytes."""
    _require_interrupted(record)
    with DirTree() as tree:
        _open_record_root(tree, record)
        _check_recovery_lock(record, own=False)
        _complete(tree, journal, record)
    return record


def _complete(tree: DirTree, journal: Journal, record: OpRecord) -> None:
    states = [_current_hash(tree, Path(item.path)) for item in record.files]
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
    _remove_temps(tree, record)
    if record.lock is not None:
        record.lock.pid = os.getpid()
        journal.save(record)
        _take_lock(tree, record.lock, record.id)
    for directory in record.created_dirs:
        tree.mkdir(Path(directory), NEW_DIR_MODE)
    held: list[_Held] = []
    try:
        for index, item in enumerate(record.files):
            digest, st, _plain = states[index]
            if digest == item.sha256_after and _mode_is(st, item.mode_after):
                continue
            data = journal.new_bytes(record, index)
            if item.action == "write" and data is None:
                raise EditRefused(
                    f"the journal lost the new bytes of {item.path}", Path(item.path)
                )
            current, _st = tree.read(Path(item.path))
            _carry_out(tree, record, index, data, current, held, _no_steps)
    finally:
        _close_held(held)
    _finish(tree, journal, record, _no_steps)


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
    journaled operation. Refused when a file changed since (unless ``force``), when the record
    names a path outside its store, or when a directory on the way to the store is a symlink."""
    if record.state != "done":
        raise EditRefused(
            f"operation {record.id} is {record.state}; only a finished operation can be undone "
            "(an interrupted one is rolled back)"
        )
    _confine_record(record)
    with DirTree() as tree:
        tree.fd(Path(record.root))
        changes = [
            _undo_change(tree, journal, record, i, item, force)
            for i, item in enumerate(record.files)
        ]
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
    tree: DirTree, journal: Journal, record: OpRecord, index: int, item: FileRecord, force: bool
) -> FileChange | None:
    path = Path(item.path)
    expected = item.sha256_after
    if force:
        digest, _st, _plain = _current_hash(tree, path)
        expected = digest
    if not item.existed:
        if item.sha256_after is None and expected is None:
            return None
        return FileChange(path, "delete", None, expected)
    old = journal.old_bytes(record, index)
    if old is None:
        raise EditRefused(f"the journal lost the old bytes of {path}; cannot undo", path)
    return FileChange(path, "write", old, expected, mode=item.mode, mtime_ns=item.mtime_ns)
