"""Whether the user accepted Claude Code's workspace trust dialog for a project
([the rule](../../../docs/claude-code-rules.md#auto-memory-directory)).

Claude Code keeps the answer in its global config, ``~/.claude.json``
(``$CLAUDE_CONFIG_DIR/.claude.json`` when the config dir is moved), under
``projects[<path>].hasTrustDialogAccepted``; accepting it for a directory trusts every
directory below it, so the project and each of its parents are looked up. The file is read with
the bounded reader: one that is missing, unreadable, too large or no JSON object trusts
nothing, and says why."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memtui.core.fileread import parse_json, read_file

GLOBAL_CONFIG = ".claude.json"
TRUST_KEY = "hasTrustDialogAccepted"
CONFIG_CAP = 8 * 1024 * 1024
"""``.claude.json`` grows with every project CC opened: a larger cap than settings files."""


@dataclass(frozen=True)
class Trust:
    """Whether Claude Code trusts the workspace, and why."""

    trusted: bool
    why: str
    """In words: which entry trusts the workspace, or why none does."""


def global_config_path(claude_home: Path, home: Path) -> Path:
    """``~/.claude.json`` for the default CC home, else ``<CC home>/.claude.json``."""
    if claude_home == home / ".claude":
        return home / GLOBAL_CONFIG
    return claude_home / GLOBAL_CONFIG


def workspace_trust(claude_home: Path, home: Path, project: Path) -> Trust:
    """Whether ``project`` (or a directory above it) is a trusted workspace."""
    path = global_config_path(claude_home, home)
    read = read_file(path, CONFIG_CAP)
    if read.missing:
        return Trust(False, f"no {path.name} records a trust answer")
    if not read.readable or not read.complete:
        return Trust(False, f"{path} unreadable: {'; '.join(read.problems)}")
    data, problem = parse_json(read.data)
    if problem is not None or not isinstance(data, dict):
        return Trust(False, f"{path} is no JSON object")
    projects = data.get("projects")
    if not isinstance(projects, dict):
        return Trust(False, f"{path.name} records no trusted workspace")
    current = os.path.normpath(str(project))
    while True:
        entry = projects.get(current)
        if isinstance(entry, dict) and entry.get(TRUST_KEY) is True:
            return Trust(True, f"{current} is trusted in {path.name}")
        parent = os.path.dirname(current)
        if parent == current:
            return Trust(False, f"the workspace is not trusted in {path.name}")
        current = parent
