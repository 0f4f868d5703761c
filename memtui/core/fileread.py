"""Reading store files safely: headers only by default, every failure returned as a problem."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

HEADER_LINES = 30
"""Claude Code's header scan reads the first 30 lines of each memory file."""

HEADER_BYTE_CAP = 64 * 1024
"""A header is never read past this many bytes, however long its lines are."""

HUGE_FILE_BYTES = 1024 * 1024
"""Files over this size are flagged: CC's recall reads only 200 lines / 4096 bytes of them."""

READ_CHUNK = 8192
"""Most memory files fit in one read of this size."""

FULL_READ_CAP = 8 * 1024 * 1024
"""A full read stops here; MEMORY.md and memory files are meant to be small."""


@dataclass
class ReadResult:
    """Bytes read from a file, whether they are the whole file, and what is wrong with it."""

    data: bytes = b""
    complete: bool = False
    problems: list[str] = field(default_factory=list)
    size: int = 0
    mtime: float = 0.0
    readable: bool = True
    stat: os.stat_result | None = None


def inside(root: Path | str, target: Path | str) -> bool:
    """Whether the real path of ``target`` lies inside the real path of ``root``."""
    try:
        real_root = os.path.realpath(root)
        real_target = os.path.realpath(target)
    except (OSError, ValueError):
        return False
    return real_target == real_root or real_target.startswith(real_root.rstrip(os.sep) + os.sep)


def describe_os_error(err: OSError) -> str:
    reason = err.strerror or err.__class__.__name__
    return f"cannot read: {reason.lower()}"


def check_file(path: Path | str, store_root: Path) -> tuple[os.stat_result | None, list[str], bool]:
    """``lstat`` a store file: its stat, what is wrong with it, and whether it may be opened."""
    try:
        st = os.lstat(path)
    except OSError as err:
        return None, [describe_os_error(err)], False
    if stat.S_ISLNK(st.st_mode):
        if not inside(store_root, path):
            return st, [f"symlink leaves the store (→ {os.readlink(path)}): not read"], False
        try:
            st = os.stat(path)
        except OSError as err:
            return st, [f"broken symlink: {describe_os_error(err)}"], False
    if stat.S_ISDIR(st.st_mode):
        return st, ["a directory named like a memory file"], False
    if not stat.S_ISREG(st.st_mode):
        return st, ["not a regular file (device, FIFO or socket): not read"], False
    return st, check_size(st.st_size), True


def checked(path: Path | str, store_root: Path) -> ReadResult:
    """An empty result carrying ``check_file``'s verdict, size and mtime."""
    st, problems, readable = check_file(path, store_root)
    result = ReadResult(problems=problems, readable=readable and st is not None)
    if st is not None:
        result.size, result.mtime = st.st_size, st.st_mtime
    return result


def check_size(size: int) -> list[str]:
    if size <= HUGE_FILE_BYTES:
        return []
    return [f"very large ({size / 1_048_576:.1f} MB): recall reads only 200 lines / 4 KB"]


def _decode_problems(data: bytes, complete: bool) -> list[str]:
    problems: list[str] = []
    if b"\x00" in data:
        problems.append("binary file (contains NUL bytes)")
        return problems
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        at_end = err.reason == "unexpected end of data" and not complete
        if not at_end:
            problems.append(f"invalid UTF-8 at byte {err.start}")
    return problems


def read_header(
    path: Path | str,
    store_root: Path,
    lines: int = HEADER_LINES,
    byte_cap: int = HEADER_BYTE_CAP,
    *,
    regular: bool = False,
) -> ReadResult:
    """Read at most ``lines`` lines (and ``byte_cap`` bytes) of a store file.

    ``regular=True`` says the directory listing already showed a regular file (not a symlink):
    then the file is opened straight away (``O_NOFOLLOW``, so a race with a symlink fails
    closed) and checked with ``fstat``. Anything else is checked with ``lstat`` first so that
    devices, FIFOs and symlinks leaving the store are never opened.
    """
    if not regular:
        result = checked(path, store_root)
        if not result.readable:
            return result
    else:
        result = ReadResult()
    flags = os.O_RDONLY | os.O_NONBLOCK | (os.O_NOFOLLOW if regular else 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if regular and err.errno == errno.ELOOP:  # became a symlink since the listing
            return read_header(path, store_root, lines, byte_cap)
        result.readable = False
        result.problems.append(describe_os_error(err))
        return result
    try:
        st = os.fstat(fd)
        result.size, result.mtime, result.stat = st.st_size, st.st_mtime, st
        if not stat.S_ISREG(st.st_mode):
            result.readable = False
            result.problems.append("not a regular file: not read")
            return result
        if regular and st.st_size > HUGE_FILE_BYTES:
            result.problems.extend(check_size(st.st_size))
        result.data = _read_lines(fd, lines, byte_cap, st.st_size)
    except OSError as err:
        result.readable = False
        result.problems.append(describe_os_error(err))
        return result
    finally:
        os.close(fd)
    result.complete = len(result.data) >= result.size
    result.problems.extend(_decode_problems(result.data, result.complete))
    return result


def _read_lines(fd: int, lines: int, byte_cap: int, size: int | None = None) -> bytes:
    """The first ``lines`` lines from ``fd`` in as few reads as possible, at most ``byte_cap``.
    ``size``: the file's size when opened; once that much is read no read waits for the end of
    the file (for a small memory, one read instead of two)."""
    data = b""
    while len(data) < byte_cap:
        chunk = os.read(fd, min(READ_CHUNK, byte_cap - len(data)))
        if not chunk:
            break
        data += chunk
        end = _end_of_line(data, lines)
        if end >= 0:
            return data[:end]
        if size is not None and len(data) >= size:
            break
    return data[:byte_cap]


def _end_of_line(data: bytes, number: int) -> int:
    """The offset just past the ``number``-th newline of ``data``, or -1."""
    pos = -1
    for _ in range(number):
        pos = data.find(b"\n", pos + 1)
        if pos < 0:
            return -1
    return pos + 1


def read_full(path: Path | str, store_root: Path, cap: int = FULL_READ_CAP) -> ReadResult:
    """Read a whole store file (up to ``cap`` bytes) with the same checks as the header."""
    result = checked(path, store_root)
    if not result.readable:
        return result
    try:
        with open(path, "rb") as handle:
            result.data = handle.read(cap)
    except OSError as err:
        result.readable = False
        result.problems.append(describe_os_error(err))
        return result
    result.complete = len(result.data) >= result.size
    if not result.complete:
        result.problems.append(f"only the first {cap // 1_048_576} MB were read")
    result.problems.extend(_decode_problems(result.data, result.complete))
    return result


def read_first_lines(path: Path | str, count: int, byte_cap: int = 256 * 1024) -> list[bytes]:
    """The first ``count`` lines of any file (a transcript), never more than ``byte_cap`` bytes."""
    out: list[bytes] = []
    total = 0
    try:
        with open(path, "rb") as handle:
            for _ in range(count):
                line = handle.readline(max(1, byte_cap - total))
                if not line:
                    break
                out.append(line)
                total += len(line)
                if total >= byte_cap:
                    break
    except OSError:
        return out
    return out
