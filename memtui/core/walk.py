"""Listing a store: which files its memories are read from, without opening any of them."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from memtui.core.model import StoreKind, StoreLocation
from memtui.core.snapshot import SNAPSHOT_JSON

NOT_A_DIRECTORY = "the store path is not a directory"


@dataclass
class FileEntry:
    path: str
    rel_path: str
    regular: bool = False
    """The directory listing showed a regular file (no symlink): it can be opened directly."""


_entry_name = attrgetter("name")


def sorted_listing(directory: str) -> list[os.DirEntry[str]] | None:
    """The entries of ``directory`` sorted by name, or None when it cannot be listed."""
    try:
        with os.scandir(directory) as it:
            return sorted(it, key=_entry_name)
    except OSError:
        return None


def walk_markdown(
    root: Path,
    skip: set[str] | None = None,
    listing: list[os.DirEntry[str]] | None = None,
    dirs: list[str] | None = None,
) -> Iterator[FileEntry]:
    """Every ``*.md`` entry below ``root`` (sorted, symlinked dirs not followed); ``listing``
    is ``sorted_listing(root)`` when the caller already has it; every directory listed (or
    tried) is appended to ``dirs``."""
    stack = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        if dirs is not None:
            dirs.append(directory)
        entries = listing if listing is not None else sorted_listing(directory)
        listing = None
        if entries is None:
            continue
        subdirs = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir and not entry.name.endswith(".md"):
                if skip is None or rel not in skip:
                    subdirs.append((entry.path, rel + "/"))
            elif entry.name.endswith(".md"):
                try:
                    regular = entry.is_file(follow_symlinks=False)
                except OSError:
                    regular = False
                yield FileEntry(entry.path, rel, regular)
        stack.extend(reversed(subdirs))


def top_level_files(root: Path) -> Iterator[FileEntry]:
    """Top-level regular files (what a snapshot copies), excluding ``snapshot.json``."""
    try:
        with os.scandir(root) as it:
            entries = sorted(it, key=_entry_name)
    except OSError:
        return
    for entry in entries:
        if entry.name == SNAPSHOT_JSON:
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
            yield FileEntry(entry.path, entry.name, stat.S_ISREG(mode))


@dataclass
class StoreWalk:
    """What listing a store's directory found: the files its memories are read from."""

    exists: bool
    listed: bool
    """The root was listed: a MEMORY.md there is among ``entries`` if it exists at all."""
    entries: list[FileEntry]
    dirs: list[str]
    """Every directory listed: while none of them changes, no entry was added or removed."""


def walk_store(location: StoreLocation, skip: set[str] | None = None) -> StoreWalk:
    """The memory files of a store: ``*.md`` below its root (a snapshot: every top-level
    regular file), sorted by path; no file is opened."""
    snapshot = location.kind == StoreKind.SNAPSHOT
    root = str(location.path)
    listing = None if snapshot else sorted_listing(root)
    exists = listing is not None or location.path.is_dir()
    if not exists:
        return StoreWalk(False, False, [], [])
    if snapshot:
        return StoreWalk(True, False, list(top_level_files(location.path)), [root])
    dirs: list[str] = []
    entries = list(walk_markdown(location.path, skip, listing, dirs))
    return StoreWalk(True, listing is not None, entries, dirs)


def store_skip(location: StoreLocation) -> set[str] | None:
    """The subdirectories a store's walk leaves out: auto memory holds team memory's."""
    return {"team"} if location.kind == StoreKind.AUTO else None
