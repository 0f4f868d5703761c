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


def _fdinfo(info_dir: int, fd: str) -> tuple[int, int] | None:
    """(inode number, open flags) of descriptor ``fd``, read from the process's ``fdinfo``
    directory (open at ``info_dir``)."""
    try:
        info = os.open(fd, os.O_RDONLY, dir_fd=info_dir)
    except OSError:
        return None
    try:
        text = os.read(info, 4096).decode("ascii", "replace")
    except OSError:
        return None
    finally:
        os.close(info)
    ino = flags = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == "ino":
            ino = value
        elif key == "flags":
            flags = value
    if ino is None or flags is None:
        return None
    try:
        return int(ino.strip()), int(flags.strip(), 8)
    except ValueError:
        return None


def _name(proc: str, pid: str) -> str:
    try:
        with open(f"{proc}/{pid}/comm", "rb") as comm:
            raw = comm.read(64)
    except OSError:
        return ""
    return escape_controls(raw.decode("utf-8", "replace").strip())


def _open_dir(path: str) -> int | None:
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None


def writers_of(inodes: Collection[Inode]) -> dict[Inode, list[Writer]]:
    """The other processes holding each of ``inodes`` open for writing (inodes nobody writes
    are left out); this process's own descriptors are not counted.

    One pass over ``/proc``, with plain string paths and each process's ``fd`` and ``fdinfo``
    directories opened once (every link and info file is read relative to them): apply scans
    once per check and repeatedly while it waits for a writer, so the scan is kept cheap."""
    wanted = set(inodes)
    found: dict[Inode, list[Writer]] = {}
    proc = str(PROC)
    if not wanted or not os.path.isdir(f"{proc}/self/fd"):
        return found
    numbers = {ino for _dev, ino in wanted}
    me = str(os.getpid())
    budget = MAX_DESCRIPTORS
    try:
        pids = [name for name in os.listdir(proc) if name.isdigit() and name != me]
    except OSError:
        return found
    for pid in pids:
        fd_dir = _open_dir(f"{proc}/{pid}/fd")
        if fd_dir is None:
            continue
        info_dir: int | None = None
        try:
            try:
                fds = os.listdir(fd_dir)
            except OSError:
                continue
            for fd in fds:
                budget -= 1
                if budget < 0:
                    return found
                try:
                    if not os.readlink(fd, dir_fd=fd_dir).startswith("/"):
                        continue  # a socket, a pipe, an anonymous inode
                except OSError:
                    continue
                if info_dir is None:
                    info_dir = _open_dir(f"{proc}/{pid}/fdinfo")
                    if info_dir is None:
                        break
                info = _fdinfo(info_dir, fd)
                if info is None or info[0] not in numbers or info[1] & _ACCESS_MODE == 0:
                    continue
                try:
                    key = inode_of(os.stat(fd, dir_fd=fd_dir))
                except OSError:
                    continue
                if key in wanted:
                    found.setdefault(key, []).append(Writer(int(pid), _name(proc, pid)))
        finally:
            os.close(fd_dir)
            if info_dir is not None:
                os.close(info_dir)
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
