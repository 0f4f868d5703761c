"""Carrying out a :class:`~memtui.core.write.proposal.Proposal`: the one write path for users'
memory files (docs/architecture.md#the-safety-model-as-implemented).

:func:`apply`

1. checks, before touching anything: every path stays inside its root (the proposal's
   ``root``, or across stores the innermost of its roots that holds it), no
   directory on the way to the root or to a file is a symlink (:mod:`memtui.core.write.dirfd`:
   each is opened without following links, and every write is made relative to those
   descriptors), no file is a symlink or a directory, every file still has the planned bytes,
   no live Claude Code ``.consolidate-lock`` holds any root's ``lock_dir``
   (:mod:`memtui.core.write.lock`), and no other process holds a file to replace or delete
   open for writing (:mod:`memtui.core.write.writers`: it would write into the replaced inode
   after memtui's last look);
2. journals the operation (:mod:`memtui.core.write.journal`): old and new bytes, modes, mtimes;
3. takes every root's ``.consolidate-lock`` (in the order of their paths), creates missing
   directories (0o700), writes each file atomically (temp file in the same directory, fsync,
   ``os.replace``, fsync of the directory; existing files keep their mode, new ones get
   0o600), deletes files. Right before each replace
   or delete the file is read once more and must still hold the bytes the journal holds; the
   replaced inode is kept open, and when the writing is done (at least
   :data:`~memtui.core.write.restore.LATE_WRITE_GRACE` after the last replace, and once no
   other process holds it open for writing) it must still hold them: a process that appended
   to it meanwhile (Claude Code appends to ``MEMORY.md``) would lose its bytes, so the
   operation is rolled back with those bytes put back (also saved in the journal) and refused;
4. puts each lock back exactly as it was, or removes it when there was none, and marks the
   operation done.

An operation that fails or is cancelled halfway is rolled back at once
(:mod:`memtui.core.write.restore`); one killed halfway is recovered by
:mod:`memtui.core.write.recovery`.

Test-only hook: when the environment variable ``MEMTUI_TEST_CRASH_AFTER`` holds a number ``k``,
the process exits at once (``os._exit``, no cleanup) after the ``k``-th step of an apply, to
prove that an operation killed at any point can be recovered. Never set it outside tests.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memtui.core.write.confine import confine, on_the_way
from memtui.core.write.dirfd import (
    DirTree,
    EditRefused,
    absolute,
    read_all,
)
from memtui.core.write.journal import (
    RUNNING,
    FileRecord,
    Journal,
    LockRecord,
    OpRecord,
    RootRecord,
    temp_name,
)
from memtui.core.write.lock import LOCK_NAME, check_lock, lock_plan, restore_lock, take_locks
from memtui.core.write.observers import notify
from memtui.core.write.proposal import (
    NEW_DIR_MODE,
    NEW_FILE_MODE,
    AppliedOp,
    DirListing,
    FileChange,
    FileRead,
    Proposal,
    StoreRoot,
    root_of,
    sha256_hex,
)
from memtui.core.write.restore import LATE_WRITE_GRACE, restore_before
from memtui.core.write.writers import Inode, Writer, inode_of, wait_until_closed, writers_of

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
CRASH_ENV = "MEMTUI_TEST_CRASH_AFTER"
"""Test-only: exit the process after this many apply steps (see the module docstring)."""


CRASH_EXIT_CODE = 86


class EditCancelled(EditRefused):
    """The user cancelled an operation while it ran; every file was put back."""


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


def no_steps() -> None:
    return None


@dataclass
class Held:
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


def _hold(tree: DirTree, index: int, path: Path, old: bytes | None) -> Held | None:
    """Open the file about to be replaced or removed; it must hold ``old`` right now."""
    fd = tree.open_file(path)
    data = None if fd is None else read_all(fd)
    if data != old:
        if fd is not None:
            os.close(fd)
        found = None if data is None else sha256_hex(data)
        expected = None if old is None else sha256_hex(old)
        raise EditRefused(_changed_reason(path, expected, found), path)
    return None if fd is None or old is None else Held(index, path, fd, old)


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


def _verify_held(held: list[Held], last_change: float) -> None:
    """Every replaced or removed inode still holds the bytes memtui saw, once no other process
    holds it open for writing (waited for, :data:`~memtui.core.write.writers.WRITER_WAIT` at
    most, after :data:`LATE_WRITE_GRACE`); _LateWrite naming what another process wrote
    meanwhile, or who still holds such an inode open (its bytes so far are put back)."""
    if not held:
        return
    wait = LATE_WRITE_GRACE - (time.monotonic() - last_change)
    if wait > 0:
        time.sleep(wait)
    inodes = {h.index: inode_of(os.fstat(h.fd)) for h in held}
    still = wait_until_closed(set(inodes.values()))
    late = {
        h.index: data
        for h in held
        if (data := read_all(h.fd)) != h.expected or inodes[h.index] in still
    }
    if not late:
        return
    first = next(h for h in held if h.index in late)
    who = still.get(inodes[first.index])
    if who:
        reason = (
            f"{first.path} was opened for writing by another process ({_names(who)}) while "
            "memtui changed it, and that process still holds it open; the bytes it wrote so "
            "far were kept and nothing was changed, try again once it is done"
        )
    else:
        reason = (
            f"{first.path} was written by another process while memtui changed it; its bytes "
            "were kept and nothing was changed, try again"
        )
    raise _LateWrite(reason, first.path, late)


def _names(writers: list[Writer]) -> str:
    return "; ".join(str(w) for w in writers)


def _check_writers(targets: Sequence[_Target]) -> None:
    """Refused, nothing written, while another process holds a file to replace or delete open
    for writing: it would write into the inode memtui replaced, after memtui's last look."""
    inodes: dict[Inode, Path] = {}
    for target in targets:
        if target.st is not None:
            inodes.setdefault(inode_of(target.st), target.path)
    held = writers_of(inodes)
    if not held:
        return
    inode, path = next((i, p) for i, p in inodes.items() if i in held)
    raise EditRefused(
        f"{path} is open for writing by another process ({_names(held[inode])}); nothing was "
        "written, try again once it is done",
        path,
    )


def close_held(held: list[Held]) -> None:
    for item in held:
        with contextlib.suppress(OSError):
            os.close(item.fd)
    held.clear()


@dataclass
class _Target:
    path: Path
    change: FileChange
    old: bytes | None
    st: os.stat_result | None
    root: Path

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
            root=str(self.root),
        )


def _mode_after(forced: int | None, existing: int | None) -> int:
    if forced is not None:
        return forced
    return existing if existing is not None else NEW_FILE_MODE


def _check_target(
    tree: DirTree, change: FileChange, root: Path, locks: set[Path]
) -> _Target:
    path = confine(change.path, root)
    if path in locks:
        raise EditRefused(
            f"{path} is Claude Code's consolidation lock; memtui never edits it", path
        )
    old, st = tree.read(path)
    found = None if old is None else sha256_hex(old)
    if found != change.expected:
        raise EditRefused(_changed_reason(path, change.expected, found), path)
    return _Target(path, change, old, st, root)


def _check_read(tree: DirTree, read: FileRead, root: Path) -> None:
    """A file the plan read (and does not change) must still hold what the plan saw."""
    path = confine(read.path, root)
    data, _st = tree.read(path)
    if not read.matches(data):
        found = None if data is None else "?"
        raise EditRefused(_changed_reason(path, read.expected, found), path)


def _check_listing(tree: DirTree, listing: DirListing, root: Path) -> None:
    """A directory the plan listed must still hold the names the plan saw (a file added there
    would have been read)."""
    path = root if absolute(listing.path) == root else confine(listing.path, root)
    fd = tree.fd(path)
    added, gone = listing.difference([] if fd is None else os.listdir(fd))
    if added or gone:
        what = "; ".join(
            f"{verb} {', '.join(names)}" for verb, names in (("added", added), ("gone", gone))
            if names)
        raise EditRefused(
            f"{path} changed on disk since the preview ({what}); nothing was written", path)


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


def _dirs_to_remove(
    tree: DirTree, roots: Sequence[Path], paths: Sequence[Path]
) -> list[tuple[Path, int]]:
    found: list[tuple[Path, int]] = []
    for raw in paths:
        path = absolute(raw)
        if not any(on_the_way(path, root) for root in roots):
            where = " or ".join(str(root) for root in roots)
            raise EditRefused(f"{raw} is outside {where}; memtui only writes inside it", raw)
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


def _roots(proposal: Proposal) -> list[StoreRoot]:
    """The proposal's roots, absolute; refused when two share a root or a lock dir (one
    operation takes each lock once)."""
    roots = [
        StoreRoot(absolute(r.path), None if r.lock_dir is None else absolute(r.lock_dir))
        for r in proposal.roots()
    ]
    for kind, values in (
        ("store root", [r.path for r in roots]),
        ("lock dir", [r.lock_dir for r in roots if r.lock_dir is not None]),
    ):
        twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
        if twice is not None:
            raise EditRefused(f"{twice} is named twice as a {kind} of one operation", twice)
    return roots


def _plan(tree: DirTree, proposal: Proposal) -> list[_Target]:
    if not proposal.changes:
        raise EditRefused("nothing to change")
    roots = _roots(proposal)
    locks: set[Path] = set()
    for each in roots:
        tree.fd(each.path)  # refused when a directory on the way is a symlink
        if each.lock_dir is not None:
            locks.add(each.lock_dir / LOCK_NAME)
            tree.fd(each.lock_dir)
    targets = [
        _check_target(tree, c, root_of(roots, c.path).path, locks) for c in proposal.changes
    ]
    for read in proposal.reads:
        _check_read(tree, read, root_of(roots, read.path).path)
    for listing in proposal.listings:
        _check_listing(tree, listing, root_of(roots, listing.path).path)
    seen: set[Path] = set()
    for target in targets:
        if target.path in seen:
            raise EditRefused(f"{target.path} appears twice in one operation", target.path)
        seen.add(target.path)
    return targets


def apply(
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
            roots = proposal.roots()
            for each in roots:
                check_lock(each.lock_dir)
            created = _dirs_to_create(tree, targets)
            removed = _dirs_to_remove(
                tree, [absolute(r.path) for r in roots], proposal.remove_dirs
            )
            locks = [lock_plan(tree, r.lock_dir) for r in roots]
            _check_writers(targets)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise EditRefused(
                f"cannot check the files to change: {exc.strerror or exc}{where}; "
                "nothing was written"
            ) from exc
        notify("before", proposal)
        try:
            record = _prepare(journal, proposal, targets, created, removed, locks, undoes)
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
    applied = AppliedOp(record.id, record.kind, record.title, [t.path for t in targets], record)
    notify("after", proposal, applied)
    return applied


def _prepare(
    journal: Journal,
    proposal: Proposal,
    targets: Sequence[_Target],
    created: list[Path],
    removed: list[tuple[Path, int]],
    locks: list[tuple[LockRecord | None, bytes | None]],
    undoes: str | None,
) -> OpRecord:
    (lock, lock_old), *more_locks = locks
    more_roots = [
        RootRecord(str(absolute(r.path)), str(absolute(r.lock_dir)) if r.lock_dir else None, lk)
        for r, (lk, _old) in zip(proposal.more_roots, more_locks, strict=True)
    ]
    return journal.prepare(
        kind=proposal.kind,
        title=proposal.title,
        root=absolute(proposal.root),
        lock_dir=absolute(proposal.lock_dir) if proposal.lock_dir else None,
        files=[t.record() for t in targets],
        old=[t.old for t in targets],
        new=[t.change.new_bytes for t in targets],
        created_dirs=created,
        removed_dirs=removed,
        lock=lock,
        lock_old=lock_old,
        notes=proposal.notes,
        undoes=undoes,
        more_roots=more_roots,
        more_lock_old=[old for _lk, old in more_locks],
        state_files=[(f.rel, f.data) for f in proposal.state_files],
        op_id=proposal.op_id,
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
    held: list[Held] = []
    try:
        journal.set_state(record, "applying")
        steps()
        take_locks(tree, record, steps)
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
            carry_out(tree, record, index, target.change.new_bytes, target.old, held, steps)
            last_change = time.monotonic()
            journal.set_progress(record, index + 1)
            steps()
            if progress:
                progress(index + 1, total)
        _verify_held(held, last_change)
        finish(tree, journal, record, steps)
    # Each rollback below first closes the held inodes: a removed file's blocks are freed
    # only then, and a rollback on a full disk needs that space to put the old files back.
    except _LateWrite as exc:
        close_held(held)
        failure = _after_failure(tree, journal, record, exc.reason, exc.path, EditRefused, exc.late)
        raise failure from exc
    except EditRefused as exc:
        close_held(held)
        raise _after_failure(tree, journal, record, exc.reason, exc.path, type(exc)) from exc
    except OSError as exc:
        close_held(held)
        reason = f"writing failed: {exc.strerror or exc}"
        path = Path(exc.filename) if isinstance(exc.filename, str) else None
        raise _after_failure(tree, journal, record, reason, path, EditRefused) from exc
    except BaseException:  # KeyboardInterrupt or a bug: put the files back, then let it go on
        close_held(held)
        with contextlib.suppress(Exception):
            _after_failure(tree, journal, record, "interrupted", None, EditRefused)
        raise
    finally:
        close_held(held)


def finish(tree: DirTree, journal: Journal, record: OpRecord, steps: Callable[[], None]) -> None:
    """The end of an operation whose files are changed: its state files (an archive entry, a
    decision: part of the operation, so a crash cannot leave the change without its record),
    the locks put back, emptied directories removed, ``done``."""
    if record.state_files:
        journal.write_state_files(record)
        steps()
    restore_lock(tree, journal, record, steps)
    if not record.locks():
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


def carry_out(
    tree: DirTree,
    record: OpRecord,
    index: int,
    data: bytes | None,
    old: bytes | None,
    held: list[Held],
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
    tmp = temp_name(record.id, index)
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
    """Roll back what was done; the error to raise says whether that worked. The files put
    back but the journal unable to record it (a full disk): the operation changed nothing, so
    its record goes (freeing space) instead of standing as an interrupted operation."""
    try:
        restore_before(tree, journal, record, force=False, own=True, late=late or {})
    except (EditRefused, OSError) as exc:
        return EditRefused(
            f"{reason}; putting files back also failed ({exc}): run "
            f"`memtui undo --rollback {record.id}` to finish",
            path,
        )
    try:
        journal.set_state(record, "rolled-back")
    except OSError:
        if late:  # the bytes another process wrote stay in the journal, whatever it says
            return EditRefused(
                f"{reason}; every file was put back, the bytes another process wrote too, but "
                f"the journal could not record it: `memtui undo --rollback {record.id}` "
                "clears it", path)
        journal.discard(record)
    if kind is EditRefused and "nothing was written" not in reason and not late:
        reason += "; every file was put back as it was"
    return kind(reason, path)
