"""The bodies the judge read of each memory, kept in memtui's cache dir
(``judge/bodies.json``), so a second ``memtui judge`` or ``J`` on files that did not change
opens none of them again.

Reading the items (:func:`memtui.core.judge.items.memory_items`) opens, checks and reads every
memory in full: 1,000 files, three or four system calls each, and on the conflicts screen each
call waits for the UI thread to give the interpreter back (half a second of the warm run's
first row). A body depends only on the file's bytes and on where its frontmatter ends, so it is
kept by the file's ``lstat`` (inode, size, modification and change times, nanoseconds) with
that end:

* a regular file whose ``lstat`` and frontmatter equal the entry's gives the entry's body (and
  digest, when the description is the same);
* anything else (a symlink, a file changed, one not in the cache) is read as before, and kept
  unless its times are within :data:`RACY_SECONDS` of now (a write in the same clock tick
  would not show in its stat: git's racily clean rule, as the scan cache has it).

The file is memtui's own: read with a size cap and never through a symlink, any problem in it
is an empty cache (written again by the next run), written whole and atomically, holding only
the files of the latest run. ``MEMTUI_NO_CACHE=1`` turns it off."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.cache import cache_dir, cache_enabled
from memtui.core.judge.cache_file import read_json, write_json

VERSION = 1
"""The rules a body is made by (:func:`memtui.core.judge.items.memory_item`'s body and
digest): change it with them."""
CACHE_FILE = "judge/bodies.json"
CACHE_CAP = 256 * 1024 * 1024
"""The largest file read (10,000 memories of 20,000 characters: about 200 MB)."""
RACY_SECONDS = 3.0

StatKey = tuple[int, int, int, int]
"""``(inode, size, mtime_ns, ctime_ns)`` of a regular file."""


def default_path(env: Mapping[str, str], home: Path) -> Path | None:
    """The cache file, or None when caching is off."""
    return cache_dir(env, home) / CACHE_FILE if cache_enabled(env) else None


def stat_key(file: str) -> StatKey | None:
    """``file``'s key when it is a regular file (not through a symlink), else None."""
    try:
        st = os.lstat(file)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass
class Entry:
    key: StatKey
    frontmatter: tuple[bool, int]
    """Whether the file has frontmatter, and where it ends (the body starts)."""
    body: str
    description: str
    digest: str
    """The item's digest (of the description and the body)."""

    def row(self) -> list[object]:
        return [*self.key, int(self.frontmatter[0]), self.frontmatter[1], self.body,
                self.description, self.digest]

    @classmethod
    def from_row(cls, row: object) -> Entry:
        if not isinstance(row, list) or len(row) != 9:
            raise ValueError("not a body entry")
        ino, size, mtime, ctime, present, end, body, description, digest = row
        numbers = (ino, size, mtime, ctime, present, end)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            raise ValueError("not a body entry")
        if not all(isinstance(t, str) for t in (body, description, digest)):
            raise ValueError("not a body entry")
        return cls((ino, size, mtime, ctime), (bool(present), end), body, description, digest)


@dataclass
class BodyCache:
    path: Path | None
    entries: dict[str, Entry] = field(default_factory=dict)
    """Each file's entry, as last stored."""
    used: dict[str, Entry] = field(default_factory=dict)
    """The entries of this run (found or made): what :meth:`save` writes."""
    changed: bool = False
    now: float = field(default_factory=time.time)

    @classmethod
    def load(cls, path: Path | None) -> BodyCache:
        """The cache at ``path``; missing, unreadable or broken: an empty one."""
        cache = cls(path)
        data = read_json(path, CACHE_CAP)
        if data is None:
            return cache
        try:
            if not isinstance(data, dict) or data.get("version") != VERSION:
                raise ValueError("not a bodies cache")
            files = data["files"]
            if not isinstance(files, dict):
                raise ValueError("not a bodies cache")
            cache.entries = {str(f): Entry.from_row(row) for f, row in files.items()}
        except (ValueError, TypeError, KeyError, RecursionError):
            return cls(path)
        return cache

    def get(self, file: str, key: StatKey, frontmatter: tuple[bool, int],
            description: str) -> Entry | None:
        """The entry of ``file`` when its stat and frontmatter are ``key`` and ``frontmatter``
        (its digest is for its own description: compare before taking it)."""
        entry = self.entries.get(file)
        if entry is None or entry.key != key or entry.frontmatter != frontmatter:
            return None
        self.used[file] = entry
        return entry

    def put(self, file: str, entry: Entry) -> None:
        """Keep ``entry`` (read from ``file`` with the stat it names) unless that stat is too
        recent to tell a later write in the same clock tick."""
        newest = max(entry.key[2], entry.key[3]) / 1e9
        if self.now - newest < RACY_SECONDS:
            return
        self.used[file] = entry
        self.changed = self.changed or self.entries.get(file) != entry

    def save(self) -> None:
        """Write the entries of this run (atomically; a failure leaves the old file: it is
        only a cache); nothing when they are the ones read."""
        if self.path is None or (not self.changed and self.used.keys() == self.entries.keys()):
            return
        data = {"version": VERSION,
                "files": {file: entry.row() for file, entry in self.used.items()}}
        if write_json(self.path, data):
            self.entries, self.changed = dict(self.used), False
