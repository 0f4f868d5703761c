"""Reading files memtui did not write, safely: every failure returned as a problem.

Store files are read header first (``read_header``), whole only on demand (``read_full``);
other files (settings, ``snapshot.json``, transcripts, git's ``HEAD``) through ``read_file``
and ``read_first_lines``. Every one of them opens regular files only (a device, FIFO or socket
is never opened: checked with ``stat`` before, and ``fstat`` after a non-blocking open), reads
at most a cap of bytes, and returns what went wrong instead of raising.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

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

CONFIG_READ_CAP = 1024 * 1024
"""``read_file``'s default cap: settings and ``snapshot.json`` files are a few KB."""

NOT_REGULAR = "not a regular file (device, FIFO or socket): not read"
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


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
    missing: bool = False
    """The file does not exist (or a directory on its path is no directory)."""
    whole: bytes | None = None
    """``read_header`` only: the whole file, when the one read that took the header took all of
    it (at most :data:`READ_CHUNK` bytes) and more than the header: its whole text without
    opening it again."""


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


def _link_text(path: Path | str) -> str:
    """A symlink's target for a message; the link may have changed since its ``lstat``."""
    try:
        return os.readlink(path)
    except (OSError, ValueError):
        return "?"


def _kind_problem(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory, not a file: not read"
    if stat.S_ISLNK(mode):
        return "a symbolic link: not read"
    return NOT_REGULAR


def _failed(result: ReadResult, err: OSError) -> ReadResult:
    result.readable = False
    result.missing = err.errno in (errno.ENOENT, errno.ENOTDIR)
    result.problems.append(describe_os_error(err))
    return result


def _lstat_into(result: ReadResult, path: Path | str) -> None:
    """Size and mtime from ``lstat`` for a file that cannot be opened (0 when gone)."""
    try:
        st = os.lstat(path)
    except OSError:
        return
    result.size, result.mtime = st.st_size, st.st_mtime


def _open_regular(path: Path | str, result: ReadResult, *, follow: bool = True) -> int | None:
    """A descriptor of ``path`` when it is a regular file (opened without blocking, checked
    with ``fstat``; ``follow=False``: a symlink fails with ELOOP), else None and the problem
    recorded in ``result``."""
    try:
        fd = os.open(path, _OPEN_FLAGS | (0 if follow else os.O_NOFOLLOW))
    except OSError as err:
        _failed(result, err)
        if err.errno == errno.ELOOP and not follow:
            result.problems[-1] = "a symbolic link: not read"
        _lstat_into(result, path)
        return None
    try:
        st = os.fstat(fd)
    except OSError as err:
        os.close(fd)
        _failed(result, err)
        return None
    result.size, result.mtime, result.stat = st.st_size, st.st_mtime, st
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        result.readable = False
        result.problems.append(_kind_problem(st.st_mode))
        return None
    return fd


def _read_upto(fd: int, cap: int) -> bytes:
    """At most ``cap`` bytes from ``fd`` (to its end when shorter)."""
    chunks: list[bytes] = []
    total = 0
    while total < cap:
        chunk = os.read(fd, min(cap - total, 1024 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _read_into(result: ReadResult, path: Path | str, cap: int, *, follow: bool = True) -> bool:
    """Open ``path`` as a regular file and read up to ``cap`` bytes of it into ``result``;
    False (the problem recorded) when it cannot be opened or read."""
    fd = _open_regular(path, result, follow=follow)
    if fd is None:
        return False
    try:
        result.data = _read_upto(fd, cap)
    except OSError as err:
        _failed(result, err)
        return False
    finally:
        os.close(fd)
    return True


def read_file(
    path: Path | str, cap: int = CONFIG_READ_CAP, *, follow_symlinks: bool = True
) -> ReadResult:
    """The bounded reader of a file that is not a store's memory (settings, ``snapshot.json``,
    git's ``HEAD``): a regular file only (``stat`` first, so a device or FIFO is never
    opened; ``fstat`` after a non-blocking open), at most ``cap`` bytes. ``missing`` tells a
    file that does not exist; every other failure is ``readable=False`` with its problem; a
    file over the cap is read up to it, ``complete=False``, with a problem."""
    result = ReadResult()
    try:
        st = os.stat(path) if follow_symlinks else os.lstat(path)
    except (OSError, ValueError) as err:
        if isinstance(err, ValueError):  # a NUL in the path
            err = OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        return _failed(result, err)
    result.size, result.mtime = st.st_size, st.st_mtime
    if not stat.S_ISREG(st.st_mode):
        result.readable = False
        result.problems.append(_kind_problem(st.st_mode))
        return result
    if not _read_into(result, path, cap, follow=follow_symlinks):
        return result
    result.complete = len(result.data) < cap or len(result.data) >= result.size
    if not result.complete:
        result.problems.append(f"larger than {cap // 1024} KB: only the first part was read")
    return result


def parse_json(text: str | bytes, **options: Any) -> tuple[Any, str | None]:
    """``json.loads`` that never raises: (value, None), or (None, why it is not valid JSON).
    Nesting too deep for the parser (a RecursionError) is one more kind of invalid."""
    import json  # not needed by a warm scan --json's header-only path

    try:
        return json.loads(text, **options), None
    except json.JSONDecodeError as err:
        return None, f"{err.msg} (line {err.lineno})"
    except RecursionError:
        return None, "nested too deeply to parse"
    except (ValueError, TypeError) as err:  # bad bytes, a parse hook's refusal
        return None, str(err) or type(err).__name__


def check_file(path: Path | str, store_root: Path) -> tuple[os.stat_result | None, list[str], bool]:
    """``lstat`` a store file: its stat, what is wrong with it, and whether it may be opened."""
    try:
        st = os.lstat(path)
    except OSError as err:
        return None, [describe_os_error(err)], False
    if stat.S_ISLNK(st.st_mode):
        if not inside(store_root, path):
            return st, [f"symlink leaves the store (→ {_link_text(path)}): not read"], False
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
    fd = _open_regular(path, result, follow=not regular)
    if fd is None:
        if regular and result.problems == ["a symbolic link: not read"]:
            return read_header(path, store_root, lines, byte_cap)  # a symlink since the listing
        return result
    try:
        if regular and result.size > HUGE_FILE_BYTES:
            result.problems.extend(check_size(result.size))
        result.data, result.whole = _read_lines(fd, lines, byte_cap, result.size)
    except OSError as err:
        return _failed(result, err)
    finally:
        os.close(fd)
    result.complete = len(result.data) >= result.size
    result.problems.extend(_decode_problems(result.data, result.complete))
    return result


def _read_lines(
    fd: int, lines: int, byte_cap: int, size: int | None = None
) -> tuple[bytes, bytes | None]:
    """The first ``lines`` lines from ``fd`` in as few reads as possible, at most ``byte_cap``,
    and everything read when that is the whole file, more than those lines and one read
    (``ReadResult.whole``; else None). ``size``: the file's size when opened; once that much is
    read no read waits for the end of the file (for a small memory, one read instead of two)."""
    data = b""
    while len(data) < byte_cap:
        chunk = os.read(fd, min(READ_CHUNK, byte_cap - len(data)))
        if not chunk:
            break
        data += chunk
        end = _end_of_line(data, lines)
        if end >= 0:
            took_all = size is not None and size <= len(data) <= READ_CHUNK
            return data[:end], data if took_all and end < len(data) else None
        if size is not None and len(data) >= size:
            break
    return data[:byte_cap], None


def _end_of_line(data: bytes, number: int) -> int:
    """The offset just past the ``number``-th newline of ``data``, or -1."""
    if data.count(b"\n") < number:  # one pass in C: most memories are shorter than a header
        return -1
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
    if not _read_into(result, path, cap):
        return result
    result.complete = len(result.data) >= result.size
    if not result.complete:
        result.problems.append(f"only the first {cap // 1_048_576} MB were read")
    result.problems.extend(_decode_problems(result.data, result.complete))
    return result


def read_first_lines(path: Path | str, count: int, byte_cap: int = 256 * 1024) -> list[bytes]:
    """The first ``count`` lines of a regular file (a transcript), never more than
    ``byte_cap`` bytes; [] when it is no regular file or cannot be read."""
    fd = _open_regular(path, ReadResult())
    if fd is None:
        return []
    out: list[bytes] = []
    total = 0
    try:
        with os.fdopen(fd, "rb") as handle:
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


HASH_READ_CAP = 1024 * 1024 * 1024
"""``hash_file`` reads no more than this (1 GB) of a file to hash it."""


def hash_file(
    path: Path | str, algorithm: str = "sha256", cap: int = HASH_READ_CAP
) -> tuple[str | None, ReadResult]:
    """The hex digest of a regular file's bytes, read in chunks without keeping them (a link
    is never followed: ``O_NOFOLLOW``), and the result of the read (size, stat, problems);
    None when it cannot be read or is larger than ``cap``."""
    import hashlib

    result = ReadResult()
    fd = _open_regular(path, result, follow=False)
    if fd is None:
        return None, result
    if result.size > cap:
        os.close(fd)
        result.problems.append(f"larger than {cap // 1_048_576} MB: not hashed")
        return None, result
    digest = hashlib.new(algorithm)
    total = 0
    try:
        while total <= cap:
            chunk = os.read(fd, 1024 * 1024)
            if not chunk:
                break
            digest.update(chunk)
            total += len(chunk)
    except OSError as err:
        _failed(result, err)
        return None, result
    finally:
        os.close(fd)
    if total > cap:
        result.problems.append(f"larger than {cap // 1_048_576} MB: not hashed")
        return None, result
    result.complete = True
    result.size = total
    return digest.hexdigest(), result
