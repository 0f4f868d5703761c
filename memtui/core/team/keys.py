"""Claude Code's validation of a team memory key (docs/claude-code-rules.md#team-push-rules).

A key is a file's path under ``team/`` with ``/`` separators. It is refused (fail closed) when it
holds a NUL or a backslash, starts with ``/``, turns under URL decoding into something different
that holds ``..`` or ``/``, turns under NFKC normalization into something different that holds
``..``, ``/``, ``\\`` or a NUL, or when its path resolves outside the team directory, through
symlinks too (the real path of its deepest existing ancestor is checked); a dangling link and a
link loop are refused.
"""

from __future__ import annotations

import errno
import os
import unicodedata
from pathlib import Path
from urllib.parse import unquote


def key_problem(key: str) -> str | None:
    """Why ``key`` is refused by its text alone, or None."""
    if "\x00" in key:
        return "NUL in the key"
    if "\\" in key:
        return "backslash in the key"
    if key.startswith("/"):
        return "leading /"
    decoded = unquote(key)
    if decoded != key and (".." in decoded or "/" in decoded):
        return f"URL-decodes to {decoded!r}"
    normal = unicodedata.normalize("NFKC", key)
    if normal != key and any(s in normal for s in ("..", "/", "\\", "\x00")):
        return f"NFKC-normalizes to {normal!r}"
    return None


def _deepest_existing(path: Path) -> Path:
    probe = path
    while not os.path.lexists(probe) and probe != probe.parent:
        probe = probe.parent
    return probe


def path_problem(team_dir: Path, key: str) -> str | None:
    """Why the file of ``key`` is refused by where it leads, or None."""
    root = os.path.realpath(team_dir)
    path = team_dir / key
    try:
        if os.path.islink(path) and not os.path.exists(path):
            try:
                os.stat(path)
            except OSError as err:
                if err.errno == errno.ELOOP:
                    return "symlink loop"
            return "dangling symlink"
        real = os.path.realpath(_deepest_existing(path), strict=True)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "symlink loop"
        return f"cannot resolve: {err.strerror or err}"
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        return "resolves outside the team directory"
    return None
