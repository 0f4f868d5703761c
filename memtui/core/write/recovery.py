"""Undo and recovery: :func:`undo` restores a finished operation byte for byte as a new, itself
undoable, operation; :func:`rollback` and :func:`complete` finish an operation that was killed
halfway (found by :meth:`~memtui.core.write.journal.Journal.incomplete`), one way or the other.

Each acts only on an operation of the journal's own Claude Code home, and confines the journal's
paths again (each file strictly inside the record's root, normalized; the root still free of
symlinks) before it writes anything.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memtui.core.write.apply import Held, Progress, apply, carry_out, close_held, finish, no_steps
from memtui.core.write.confine import confine_record
from memtui.core.write.dirfd import (
    DirTree,
    EditRefused,
)
from memtui.core.write.journal import (
    INCOMPLETE_STATES,
    RUNNING,
    FileRecord,
    Journal,
    OpRecord,
    pid_alive,
)
from memtui.core.write.lock import take_locks
from memtui.core.write.proposal import (
    NEW_DIR_MODE,
    AppliedOp,
    FileChange,
    Proposal,
    StoreRoot,
    current_hash,
)
from memtui.core.write.restore import (
    check_recovery_lock,
    open_record_root,
    remove_temps,
    restore_before,
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
        restore_before(tree, journal, record, force=force, own=False)
    journal.set_state(record, "rolled-back")
    return record


def complete_operation(journal: Journal, record: OpRecord) -> OpRecord:
    """Finish an interrupted operation from its recorded new bytes."""
    _require_interrupted(record)
    with DirTree() as tree:
        open_record_root(tree, record)
        check_recovery_lock(record, own=False)
        _complete(tree, journal, record)
    return record


def _complete(tree: DirTree, journal: Journal, record: OpRecord) -> None:
    states = [current_hash(tree, Path(item.path)) for item in record.files]
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
    remove_temps(tree, record)
    locks = record.locks()
    if locks:
        for _n, lock in locks:
            lock.pid = os.getpid()
        journal.save(record)
        take_locks(tree, record, no_steps)
    for directory in record.created_dirs:
        tree.mkdir(Path(directory), NEW_DIR_MODE)
    held: list[Held] = []
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
            carry_out(tree, record, index, data, current, held, no_steps)
    finally:
        close_held(held)
    finish(tree, journal, record, no_steps)


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
    roots = confine_record(record)
    with DirTree() as tree:
        for root in roots:
            tree.fd(root)
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
        more_roots=[
            StoreRoot(Path(r.root), Path(r.lock_dir) if r.lock_dir else None)
            for r in record.more_roots
        ],
    )
    if not proposal.changes:
        raise EditRefused(f"operation {record.id} changed no file; nothing to undo")
    applied = apply(proposal, journal, progress=progress, undoes=record.id)
    record.undone_by = applied.op_id
    journal.save(record)
    return applied


def _undo_change(
    tree: DirTree, journal: Journal, record: OpRecord, index: int, item: FileRecord, force: bool
) -> FileChange | None:
    path = Path(item.path)
    expected = item.sha256_after
    if force:
        digest, _st, _plain = current_hash(tree, path)
        expected = digest
    if not item.existed:
        if item.sha256_after is None and expected is None:
            return None
        return FileChange(path, "delete", None, expected)
    old = journal.old_bytes(record, index)
    if old is None:
        raise EditRefused(f"the journal lost the old bytes of {path}; cannot undo", path)
    return FileChange(path, "write", old, expected, mode=item.mode, mtime_ns=item.mtime_ns)


def undo(
    journal: Journal, op_id: str, *, force: bool = False, progress: Progress | None = None
) -> AppliedOp:
    """Restore every file ``op_id`` touched, byte for byte; itself a journaled operation.
    Refused (EditRefused) for an operation of another home."""
    return undo_operation(journal, journal.own(op_id), force=force, progress=progress)


def rollback(journal: Journal, op_id: str, *, force: bool = False) -> OpRecord:
    """Put back the tree an interrupted operation of this home started from."""
    return rollback_operation(journal, journal.own(op_id), force=force)


def complete(journal: Journal, op_id: str) -> OpRecord:
    """Finish an interrupted operation of this home from its recorded new bytes."""
    return complete_operation(journal, journal.own(op_id))
