"""Which other processes hold a file open for writing (Linux, from ``/proc``).

:func:`memtui.core.write.apply.apply` refuses to replace or delete a file another process holds
open for writing (a writer that opened ``MEMORY.md`` and has not written yet would write into
the inode memtui replaced, and its bytes would be lost), and after its replaces waits for any
writer still holding a replaced inode to close before it checks that inode's bytes.

A scan reads only ``/proc``: each process's ``fd`` links (``readlink``, no file is opened or
followed), then the ``fdinfo`` of the few descriptors that name a path, for their inode number
and access mode; a descriptor on the same inode number is confirmed by its device with one
``stat``. At most :data:`MAX_DESCRIPTORS` descriptors are looked at per scan. Processes that
vanish or are not ours to read are skipped. Where ``/proc`` has no ``self/fd`` (not Linux)
nothing is found, and apply's grace period (:data:`~memtui.core.write.restore.LATE_WRITE_GRACE`)
is all there is.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from memtui.core.plaintext import escape_controls

PROC = Path("/proc")
MAX_DESCRIPTORS = 200_000
"""The most descriptors one scan looks at (a scan stops there: what it found so far stands)."""
WRITER_WAIT = 5.0
"""Seconds apply waits for a writer still holding a replaced inode to close."""
POLL = 0.002
"""Seconds between two scans while waiting."""
_ACCESS_MODE = 0o3  # O_ACCMODE: 1 is O_WRONLY, 2 is O_RDWR

Inode = tuple[int, int]
"""(st_dev, st_ino) of a file."""

pause = time.sleep
"""How the wait sleeps between scans (tests replace it to act at that moment)."""


@dataclass(frozen=True)
class Writer:
    """Another process with a file open for writing."""

    pid: int
    name: str  # its command name, controls escaped

    def __str__(self) -> str:
        return f"pid {self.pid}, {self.name}" if self.name else f"pid {self.pid}"


def inode_of(st: os.stat_result) -> Inode:
    return (st.st_dev, st.st_ino)


def _fdinfo(pid: str, fd: str) -> tuple[int, int] | None:
    """(inode number, open flags) of descriptor ``fd`` of process ``pid``."""
    try:
        with open(PROC / pid / "fdinfo" / fd, "rb") as info:
            text = info.read(4096).decode("ascii", "replace")
    except OSError:
        return None
    fields = dict(line.partition(":")[::2] for line in text.splitlines())
    try:
        return int(fields["ino"].strip()), int(fields["flags"].strip(), 8)
    except (KeyError, ValueError):
        return None


def _name(pid: str) -> str:
    try:
        with open(PROC / pid / "comm", "rb") as comm:
            raw = comm.read(64)
    except OSError:
        return ""
    return escape_controls(raw.decode("utf-8", "replace").strip())


def writers_of(inodes: Collection[Inode]) -> dict[Inode, list[Writer]]:
    """The other processes holding each of ``inodes`` open for writing (inodes nobody writes
    are left out); this process's own descriptors are not counted."""
    wanted = set(inodes)
    found: dict[Inode, list[Writer]] = {}
    if not wanted or not (PROC / "self" / "fd").is_dir():
        return found
    numbers = {ino for _dev, ino in wanted}
    me = str(os.getpid())
    budget = MAX_DESCRIPTORS
    try:
        pids = [name for name in os.listdir(PROC) if name.isdigit() and name != me]
    except OSError:
        return found
    for pid in pids:
        fd_dir = PROC / pid / "fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            budget -= 1
            if budget < 0:
                return found
            try:
                if not os.readlink(fd_dir / fd).startswith("/"):
                    continue  # a socket, a pipe, an anonymous inode
            except OSError:
                continue
            info = _fdinfo(pid, fd)
            if info is None or info[0] not in numbers or info[1] & _ACCESS_MODE == 0:
                continue
            try:
                key = inode_of(os.stat(fd_dir / fd))
            except OSError:
                continue
            if key in wanted:
                found.setdefault(key, []).append(Writer(int(pid), _name(pid)))
    return found


def wait_until_closed(inodes: Collection[Inode]) -> dict[Inode, list[Writer]]:
    """Wait (at most :data:`WRITER_WAIT` seconds) until no other process holds any of
    ``inodes`` open for writing; the writers still holding them then (empty: none)."""
    deadline = time.monotonic() + WRITER_WAIT
    while True:
        held = writers_of(inodes)
        if not held or time.monotonic() >= deadline:
            return held
        pause(POLL)
