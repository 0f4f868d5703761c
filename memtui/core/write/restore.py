"""Putting a tree back as an operation found it: the rollback behind a failed apply, a
cancelled one and ``memtui undo --rollback``.

Files another process changed since are left alone (unless forced), bytes a process appended
while memtui wrote are put back after the journal's new bytes, and on a full disk the order frees
space first: files the operation created go before deleted ones come back.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from memtui.core.write.confine import confine_record
from memtui.core.write.dirfd import (
    DirTree,
    EditRefused,
    read_all,
)
from memtui.core.write.journal import (
    FileRecord,
    Journal,
    OpRecord,
    lock_tag,
    temp_name,
)
from memtui.core.write.lock import check_lock, restore_lock
from memtui.core.write.proposal import NEW_DIR_MODE, NEW_FILE_MODE, current_hash

LATE_WRITE_GRACE = 0.005
"""Seconds between the last replace or delete of an existing file and the check that nobody
wrote to the replaced inode meanwhile (a writer that opened the file just before the replace)."""
LATE_WRITE_ATTEMPTS = 5
"""How often putting late bytes back is retried while the writer keeps writing."""


def _matches_before(item: FileRecord, digest: str | None, st: os.stat_result | None) -> bool:
    if digest != item.sha256_before:
        return False
    if st is None:
        return True
    same_mode = item.mode is None or stat.S_IMODE(st.st_mode) == item.mode
    return same_mode and (item.mtime_ns is None or st.st_mtime_ns == item.mtime_ns)


def remove_temps(tree: DirTree, record: OpRecord) -> None:
    temps = [
        (Path(item.path).parent, temp_name(record.id, i)) for i, item in enumerate(record.files)
    ]
    for n, lock in record.locks():
        temps.append((Path(lock.path).parent, temp_name(record.id, lock_tag(n))))
    for directory, name in temps:
        with contextlib.suppress(EditRefused, OSError):
            tree.unlink(directory / name)


def check_recovery_lock(record: OpRecord, own: bool) -> None:
    """No live lock in any of the record's roots but the one this very process took for
    ``record``."""
    for entry in record.roots():
        if entry.lock_dir is None:
            continue
        allowed = entry.lock.pid if own and entry.lock is not None else None
        check_lock(Path(entry.lock_dir), allowed)


def open_record_root(tree: DirTree, record: OpRecord) -> None:
    """Confine the record's paths and open each of its roots (and lock dirs) without
    following links."""
    for root in confine_record(record):
        tree.fd(root)
    for entry in record.roots():
        if entry.lock_dir is not None:
            tree.fd(Path(entry.lock_dir))


def restore_before(
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
    open_record_root(tree, record)
    check_recovery_lock(record, own)
    states = [current_hash(tree, Path(item.path)) for item in record.files]
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
    remove_temps(tree, record)
    journal.remove_state_files(record)
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
    restore_lock(tree, journal, record)


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
    tree.write_atomic(path, old, mode, temp_name(record.id, index), item.mtime_ns)


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
            tree.write_atomic(path, content, mode, temp_name(record.id, index))
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
