"""Claude Code's ``sanitizePath``: how a project path becomes a directory name under projects/."""

from __future__ import annotations

from pathlib import Path

MAX_NAME_UNITS = 200


def sanitize_path(path: str) -> str:
    """Every UTF-16 unit that is not ``[A-Za-z0-9]`` becomes ``-`` (an emoji becomes ``--``).

    Names longer than 200 units get a hash suffix in CC that cannot be reproduced portably; this
    returns the full sanitized name, and :func:`sanitized_prefix` gives what such names start with.
    """
    out: list[str] = []
    for ch in path:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        elif ord(ch) > 0xFFFF:
            out.append("--")
        else:
            out.append("-")
    return "".join(out)


def sanitized_prefix(path: str) -> str | None:
    """For a name over 200 units, the ``<first 200>-`` prefix CC's hashed name starts with."""
    name = sanitize_path(path)
    if len(name) <= MAX_NAME_UNITS:
        return None
    return name[:MAX_NAME_UNITS] + "-"


def find_project_dir(projects_root: Path, path: str) -> tuple[Path, str]:
    """The directory under ``projects_root`` CC uses for ``path``, with the rule in words.

    Short names map directly. Long names are found the way CC finds them: the first existing
    directory (sorted by name) whose name starts with the first 200 units and a dash. When none
    exists yet, the unhashed name is returned and the rule says so.
    """
    name = sanitize_path(path)
    if len(name) <= MAX_NAME_UNITS:
        return projects_root / name, f"projects/{name}"
    prefix = name[:MAX_NAME_UNITS] + "-"
    try:
        matches = sorted(
            entry.name
            for entry in projects_root.iterdir()
            if entry.name.startswith(prefix) and entry.is_dir()
        )
    except OSError:
        matches = []
    if matches:
        return (
            projects_root / matches[0],
            f"name over 200 units: matched projects/{matches[0]} by its 200-unit prefix",
        )
    return (
        projects_root / (prefix + "0"),
        "name over 200 units and no directory with its 200-unit prefix exists yet",
    )
