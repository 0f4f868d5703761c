"""Where Claude Code's CLAUDE.md files are (docs/claude-code-rules.md#claudemd-files): the
chain CC loads whole at session start, read only, for the judge to compare memories with.

Managed (``/etc/claude-code/CLAUDE.md`` on Linux), ``HOME_CC/CLAUDE.md`` and
``HOME_CC/rules/**/*.md``, then for each directory from ``/`` down to the project:
``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md``, ``CLAUDE.local.md``; ``@path``
imports up to 5 deep. Symlinked directories are not followed, only regular files are read
(bounded), and the walk stops after :data:`MAX_FILES` files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import CONFIG_READ_CAP, read_file
from memtui.core.stores.locations import Context
from memtui.core.stores.walk import walk_markdown

MANAGED_CLAUDE_MD = Path("/etc/claude-code/CLAUDE.md")
IMPORT_DEPTH = 5
MAX_FILES = 500

_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:~/|\.{1,2}/|/)?[^\s`'\"()<>\[\]]+)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


@dataclass(frozen=True)
class ClaudeMdFile:
    """One file of the chain: its path, why it is loaded, and its text (or its problem)."""

    path: Path
    origin: str
    """``managed``, ``user``, ``user rules``, ``project``, ``project rules``, ``local`` or
    ``import from <file>``."""
    text: str = ""
    problem: str | None = None
    parent: Path | None = None
    """For an import: the file whose ``@path`` named it."""
    depth: int = 0
    """For an import: how many imports deep (1 to :data:`IMPORT_DEPTH`)."""


@dataclass
class ClaudeMdChain:
    files: list[ClaudeMdFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _rules(directory: Path) -> Iterator[Path]:
    for entry in walk_markdown(directory):
        yield Path(entry.path)


def _directories(project: Path) -> list[Path]:
    """``/`` down to the project, each directory once."""
    project = Path(os.path.abspath(project))
    return [*reversed(project.parents), project]


def candidate_paths(ctx: Context, managed: Path = MANAGED_CLAUDE_MD) -> Iterator[tuple[Path, str]]:
    """Every path of the chain that may hold a CLAUDE.md, in CC's load order (existing or not;
    the rules folders are listed)."""
    yield managed, "managed"
    yield ctx.claude_home / "CLAUDE.md", "user"
    for rule in _rules(ctx.claude_home / "rules"):
        yield rule, "user rules"
    for directory in _directories(ctx.project):
        yield directory / "CLAUDE.md", "project"
        yield directory / ".claude" / "CLAUDE.md", "project"
        for rule in _rules(directory / ".claude" / "rules"):
            yield rule, "project rules"
        yield directory / "CLAUDE.local.md", "local"


def imports_of(text: str) -> list[str]:
    """The ``@path`` imports of a CLAUDE.md text, outside code blocks and code spans."""
    if "@" not in text:
        return []
    text = _CODE_SPAN.sub("", _FENCE.sub("", text))
    return [match.group(1) for match in _IMPORT.finditer(text)]


def _resolve_import(target: str, source: Path, home: Path) -> Path:
    if target.startswith("~/"):
        return home / target[2:]
    return Path(os.path.normpath(source.parent / target))


def load_chain(ctx: Context, managed: Path = MANAGED_CLAUDE_MD) -> ClaudeMdChain:
    """Read the chain: every existing file once (first origin wins), imports followed up to
    :data:`IMPORT_DEPTH` deep; an unreadable file is kept with its problem."""
    chain = ClaudeMdChain()
    seen: set[str] = set()
    queue: list[tuple[Path, str, int, Path | None]] = [
        (p, o, 0, None) for p, o in candidate_paths(ctx, managed)
    ]
    while queue:
        path, origin, depth, parent = queue.pop(0)
        key = os.path.abspath(path)
        if key in seen:
            continue
        seen.add(key)
        if len(chain.files) >= MAX_FILES:
            chain.problems.append(f"more than {MAX_FILES} CLAUDE.md files: the rest not read")
            break
        result = read_file(path, CONFIG_READ_CAP)
        if result.missing:
            continue
        if not result.readable:
            problem = "; ".join(result.problems) or "cannot read"
            chain.files.append(ClaudeMdFile(path, origin, problem=problem, parent=parent,
                                            depth=depth))
            continue
        text = result.data.decode("utf-8", errors="replace")
        chain.files.append(ClaudeMdFile(path, origin, text, "; ".join(result.problems) or None,
                                        parent, depth))
        if depth < IMPORT_DEPTH:
            imported: list[tuple[Path, str, int, Path | None]] = [
                (_resolve_import(target, path, ctx.home), f"import from {path.name}", depth + 1,
                 path)
                for target in imports_of(text)
            ]
            queue[0:0] = imported  # an import is loaded where it is referenced
    return chain
