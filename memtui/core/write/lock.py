"""Claude Code's ``.consolidate-lock`` (docs/claude-code-rules.md#the-consolidate-lock).

No write into a directory while Claude Code holds a live lock there (pid alive, under 60 minutes
old); memtui takes the lock while it writes and puts it back exactly as it was afterwards (bytes,
mode and mtime, which Claude Code reads as the last consolidation time).
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memtui.core.write.dirfd import (
    DirTree,
    EditRefused,
    absolute,
)
from memtui.core.write.journal import (
    Journal,
    LockRecord,
    OpRecord,
    lock_tag,
    pid_alive,
    temp_name,
)
from memtui.core.write.proposal import NEW_FILE_MODE, sha256_hex

LOCK_NAME = ".consolidate-lock"
LOCK_STALE_SECONDS = 60 * 60


@dataclass
class LockHolder:
    """A live ``.consolidate-lock``: who holds it and since when (the lock's mtime)."""

    path: Path
    pid: int
    since: float


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


def check_lock(lock_dir: Path | None, allowed_pid: int | None = None) -> None:
    if lock_dir is None:
        return
    holder = live_lock(lock_dir)
    if holder is not None and holder.pid != allowed_pid:
        raise _lock_refusal(holder, lock_dir)


def lock_plan(tree: DirTree, lock_dir: Path | None) -> tuple[LockRecord | None, bytes | None]:
    """What the lock looks like now, to take it and put it back; None when the dir is missing."""
    if lock_dir is None or tree.fd(absolute(lock_dir)) is None:
        return None, None
    path = absolute(lock_dir) / LOCK_NAME
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


def take_lock(tree: DirTree, lock: LockRecord, op_id: str, n: int = 0) -> None:
    """Write this process's pid into the lock of root ``n`` (see :meth:`OpRecord.locks`)."""
    path = Path(lock.path)
    body = str(lock.pid).encode()
    mode = lock.mode if lock.mode is not None else NEW_FILE_MODE
    tree.write_atomic(path, body, mode, temp_name(op_id, lock_tag(n)))
    if tree.read(path)[0] != body:
        raise EditRefused(f"another process took {path} at the same moment; nothing was written")


def take_locks(tree: DirTree, record: OpRecord, steps: Callable[[], None]) -> None:
    """Take every lock of the operation, in :meth:`OpRecord.locks` order (one step each)."""
    for n, lock in record.locks():
        take_lock(tree, lock, record.id, n)
        steps()


def restore_lock(
    tree: DirTree, journal: Journal, record: OpRecord, steps: Callable[[], None] | None = None
) -> None:
    """Put every lock of the operation back as it was (the reverse of the order they were
    taken in), each only if it still holds the pid this operation wrote."""
    for n, lock in reversed(record.locks()):
        _restore_one(tree, journal, record, n, lock)
        if steps is not None:
            steps()


def _restore_one(
    tree: DirTree, journal: Journal, record: OpRecord, n: int, lock: LockRecord
) -> None:
    path = Path(lock.path)
    current, _st = tree.read(path)
    if current is None or current != str(lock.pid).encode():
        return
    old = journal.lock_old_bytes(record, n)
    if lock.existed and old is not None:
        mode = lock.mode if lock.mode is not None else NEW_FILE_MODE
        tree.write_atomic(path, old, mode, temp_name(record.id, lock_tag(n)), lock.mtime_ns)
    else:
        tree.unlink(path)
