"""Listing a store: which files its memories are read from, without opening any of them."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

from memtui.core.fileread import describe_os_error
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.stores.snapshot import SNAPSHOT_JSON

NOT_A_DIRECTORY = "the store path is not a directory"


@dataclass
class FileEntry:
    """A file a store walk listed (nothing opened)."""

    path: str
    rel_path: str
    regular: bool = False
    """The directory listing showed a regular file (no symlink): it can be opened directly."""


_entry_name = attrgetter("name")


def sorted_listing(directory: str) -> list[os.DirEntry[str]] | None:
    """The entries of ``directory`` sorted by name, or None when it cannot be listed."""
    return listing_or_error(directory)[0]


def listing_or_error(directory: str) -> tuple[list[os.DirEntry[str]] | None, OSError | None]:
    """The entries of ``directory`` sorted by name, or None and why it cannot be listed."""
    try:
        with os.scandir(directory) as it:
            return sorted(it, key=_entry_name), None
    except OSError as err:
        return None, err
    except ValueError:  # a NUL in the path
        return None, OSError(errno.EINVAL, os.strerror(errno.EINVAL))


def _absent(err: OSError | None) -> bool:
    """The listing failed because there is nothing (or no directory) at the path."""
    return err is None or err.errno in (errno.ENOENT, errno.ENOTDIR)


def walk_markdown(
    root: Path,
    skip: set[str] | None = None,
    listing: list[os.DirEntry[str]] | None = None,
    dirs: list[str] | None = None,
    problems: list[str] | None = None,
) -> Iterator[FileEntry]:
    """Every ``*.md`` entry below ``root`` (sorted, symlinked dirs not followed); ``listing``
    is ``sorted_listing(root)`` when the caller already has it; every directory listed (or
    tried) is appended to ``dirs``, and a subdirectory that cannot be listed to ``problems``
    (``sub/: cannot read: permission denied``)."""
    stack = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        if dirs is not None:
            dirs.append(directory)
        error = None
        if listing is not None:
            entries: list[os.DirEntry[str]] | None = listing
        else:
            entries, error = listing_or_error(directory)
        listing = None
        if entries is None:
            if problems is not None and not _absent(error) and error is not None:
                problems.append(f"{prefix or './'}: {describe_os_error(error)}")
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


def top_level_files(entries: list[os.DirEntry[str]]) -> Iterator[FileEntry]:
    """Top-level regular files (what a snapshot copies) of a sorted listing, excluding
    ``snapshot.json``."""
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
    problems: list[str] = field(default_factory=list)
    """Directories that exist but could not be listed (``cannot read: permission denied``)."""


def walk_store(location: StoreLocation, skip: set[str] | None = None) -> StoreWalk:
    """The memory files of a store: ``*.md`` below its root (a snapshot: every top-level
    regular file), sorted by path; no file is opened. A store that exists but cannot be listed
    (or whose path cannot even be looked at) has its reason in ``problems``."""
    root = str(location.path)
    listing, error = listing_or_error(root)
    if listing is None:
        if _absent(error):
            return StoreWalk(False, False, [], [])
        problem = describe_os_error(error) if error is not None else NOT_A_DIRECTORY
        return StoreWalk(os.path.isdir(root), False, [], [], [problem])
    if location.kind == StoreKind.SNAPSHOT:
        return StoreWalk(True, False, list(top_level_files(listing)), [root])
    dirs: list[str] = []
    problems: list[str] = []
    entries = list(walk_markdown(location.path, skip, listing, dirs, problems))
    return StoreWalk(True, True, entries, dirs, problems)


def store_skip(location: StoreLocation) -> set[str] | None:
    """The subdirectories a store's walk leaves out: auto memory holds team memory's."""
    return {"team"} if location.kind == StoreKind.AUTO else None
