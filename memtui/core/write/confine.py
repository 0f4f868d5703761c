"""Confinement of paths to a store: the paths of a proposal, and those a journal record names.

Links are no concern here: every directory is opened without following one
(:mod:`memtui.core.write.dirfd`). This module refuses paths that leave their root, and journal
records whose paths are not plain absolute paths inside the record's root, before recovery or
undo writes anything.
"""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.write.dirfd import (
    EditRefused,
    absolute,
    relative_parts,
)
from memtui.core.write.journal import (
    OpRecord,
)
from memtui.core.write.lock import LOCK_NAME


def _strictly_under(path: Path, root: Path) -> bool:
    return path != root and path.is_relative_to(root)


def on_the_way(path: Path, root: Path) -> bool:
    """``path`` is ``root``, one of its ancestors, or inside it."""
    return path.is_relative_to(root) or root.is_relative_to(path)


def confine(path: Path, root: Path) -> Path:
    """``path`` (relative paths are taken from ``root``) normalized; refused when it leaves.
    Links are no concern here: every directory is opened without following one."""
    candidate = absolute(path if path.is_absolute() else root / path)
    if not _strictly_under(candidate, root):
        raise EditRefused(f"{path} is outside {root}; memtui only writes inside it", path)
    relative_parts(candidate.relative_to(root).as_posix())
    return candidate


def _record_path(record: OpRecord, raw: str) -> Path:
    """A path from a journal record: absolute and already normalized, or refused."""
    if not raw.startswith("/") or os.path.normpath(raw) != raw:
        raise EditRefused(
            f"the journal record of operation {record.id} names {raw!r}, which is not a plain "
            "absolute path; nothing was written",
            Path(raw),
        )
    return Path(raw)


def confine_record(record: OpRecord) -> list[Path]:
    """Check every path a journal record names before recovery or undo writes it: each file
    strictly inside its own root (one of the record's roots), created/removed directories on
    the way to a root or inside one, each root's lock dir on the way to that root or inside it,
    each lock file in its lock dir. Returns the roots, the first one first."""
    roots = [_record_path(record, r.root) for r in record.roots()]

    def outside(raw: str, root: Path) -> EditRefused:
        return EditRefused(
            f"the journal record of operation {record.id} names {raw}, outside its store "
            f"{root}; nothing was written",
            Path(raw),
        )

    for item in record.files:
        path = _record_path(record, item.path)
        root = _record_path(record, record.file_root(item))
        if root not in roots:
            raise outside(item.path, root)
        if not _strictly_under(path, root):
            raise outside(item.path, root)
        relative_parts(path.relative_to(root).as_posix())
    for raw in [*record.created_dirs, *(d for d, _mode in record.removed_dirs)]:
        path = _record_path(record, raw)
        if not any(on_the_way(path, root) for root in roots):
            raise outside(raw, roots[0])
    for entry, root in zip(record.roots(), roots, strict=True):
        if entry.lock_dir is not None and not on_the_way(
            _record_path(record, entry.lock_dir), root
        ):
            raise outside(entry.lock_dir, root)
        lock = entry.lock
        if lock is not None and lock.path != os.path.join(entry.lock_dir or "", LOCK_NAME):
            raise outside(lock.path, root)
    return roots
