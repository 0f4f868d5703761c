"""The files of a store as history records them: listed without following a link, read
through the bounded reader, each turned into the bytes of a git blob.

Recorded: every regular file below the store's root but Claude Code's ``.consolidate-lock``,
session transcripts (``*.jsonl``, never recorded), memtui's own temp files and the folders of
stores recorded under their own key (``team/`` inside auto memory). Symlinks, devices and FIFOs
are never opened. A file over the size cap, or a binary one (a NUL byte), is recorded as a
stub holding its size and sha256 (:func:`stub_bytes`): a blob with a NUL byte is always a stub.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field

from memtui.core.fileread import hash_file, read_file

SIZE_CAP = 2 * 1024 * 1024
"""Files over this size are recorded as a stub with their hash."""
MAX_FILES = 20_000
"""A store with more files than this is recorded up to it (with a problem)."""
MAX_DEPTH = 24
SKIPPED_NAMES = frozenset({".consolidate-lock"})
TRANSCRIPT_SUFFIX = ".jsonl"
STUB_MAGIC = b"\0memtui-history-stub\0\n"
FILE_MODE = 0o100644
EXEC_MODE = 0o100755

StatKey = tuple[int, int, int, int, int]
"""(size, mtime_ns, ctime_ns, inode, mode) of a file, or of a directory."""


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


def skipped(name: str) -> bool:
    """Never recorded: the lock, transcripts, memtui's temp files."""
    return (name in SKIPPED_NAMES or name.endswith(TRANSCRIPT_SUFFIX)
            or (name.startswith(".memtui-") and name.endswith(".tmp")))


@dataclass
class Listing:
    """What listing a store found: each file's relative path (``/``) and stat, each directory's
    stat key (``""`` the root), and what could not be listed."""

    files: dict[str, os.stat_result] = field(default_factory=dict)
    dirs: dict[str, StatKey] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    exists: bool = True


def list_store(root: str, skip_dirs: frozenset[str] = frozenset()) -> Listing:
    """Every regular file below ``root`` (no link followed, directories in ``skip_dirs``
    relative to the root left out), at most MAX_FILES, MAX_DEPTH deep."""
    out = Listing()
    try:
        st = os.lstat(root)
    except OSError:
        out.exists = False
        return out
    if not stat.S_ISDIR(st.st_mode):
        out.exists = False
        return out
    stack: list[tuple[str, str, int]] = [(root, "", 0)]
    while stack:
        directory, prefix, depth = stack.pop()
        try:
            dir_st = os.lstat(directory)
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            out.problems.append(f"{prefix or './'}: cannot list: {err.strerror or err}")
            continue
        out.dirs[prefix.rstrip("/")] = stat_key(dir_st)
        for entry in entries:
            rel = prefix + entry.name
            try:
                est = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(est.st_mode):
                if rel in skip_dirs:
                    continue
                if depth + 1 >= MAX_DEPTH:
                    out.problems.append(f"{rel}/: nested too deeply: not recorded")
                    continue
                stack.append((entry.path, rel + "/", depth + 1))
            elif stat.S_ISREG(est.st_mode) and not skipped(entry.name):
                if len(out.files) >= MAX_FILES:
                    out.problems.append(f"more than {MAX_FILES} files: the rest not recorded")
                    return out
                out.files[rel] = est
    return out


def blob_sha(data: bytes) -> str:
    """The git object id of a blob of ``data`` (computed here: no git needed to compare)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def stub_bytes(reason: str, size: int, sha256: str | None) -> bytes:
    """A stub: what is kept of a file whose bytes are not (too large, binary)."""
    digest = sha256 or "unknown (too large to hash)"
    return STUB_MAGIC + f"reason: {reason}\nsize: {size}\nsha256: {digest}\n".encode()


def is_stub(data: bytes) -> bool:
    return data.startswith(STUB_MAGIC)


def stub_fields(data: bytes) -> dict[str, str]:
    """A stub's fields (``reason``, ``size``, ``sha256``)."""
    out: dict[str, str] = {}
    for line in data[len(STUB_MAGIC):].decode("utf-8", "replace").splitlines():
        name, sep, value = line.partition(": ")
        if sep:
            out[name] = value
    return out


@dataclass
class Read:
    """A file read for a version: its blob bytes, whether it is a stub, and whether it was
    changing while it was read (then it is read again at the next recording)."""

    data: bytes | None
    stub: bool = False
    unsettled: bool = False
    problem: str | None = None
    stat: os.stat_result | None = None


def read_for_history(path: str, listed: os.stat_result, size_cap: int = SIZE_CAP) -> Read:
    """The blob bytes of one file (never through a link: a file turned into one since the
    listing is not read). ``unsettled`` when its stat changed while it was read: a writer was
    at it, so the next recording reads it again."""
    if listed.st_size > size_cap:
        digest, result = hash_file(path)
        if result.stat is None or not result.readable:
            return Read(None, problem="; ".join(result.problems) or "cannot read")
        data = stub_bytes(f"larger than {size_cap // 1024} KB", result.size, digest)
        return Read(data, stub=True, unsettled=_moved(path, result.stat), stat=result.stat)
    result = read_file(path, size_cap + 1, follow_symlinks=False)
    if not result.readable or result.stat is None:
        return Read(None, problem="; ".join(result.problems) or "cannot read")
    data = result.data
    unsettled = _moved(path, result.stat) or stat_key(result.stat)[:3] != stat_key(listed)[:3]
    if len(data) > size_cap:
        digest, hashed = hash_file(path)
        data = stub_bytes(f"larger than {size_cap // 1024} KB", hashed.size, digest)
        return Read(data, stub=True, unsettled=True, stat=result.stat)
    if b"\0" in data:
        digest = hashlib.sha256(data).hexdigest()
        return Read(stub_bytes("binary", len(data), digest), stub=True, unsettled=unsettled,
                    stat=result.stat)
    return Read(data, unsettled=unsettled, stat=result.stat)


def _moved(path: str, opened: os.stat_result) -> bool:
    """Whether the file's stat now differs from the one it had when opened."""
    try:
        now = os.lstat(path)
    except OSError:
        return True
    return stat_key(now)[:4] != stat_key(opened)[:4]
