"""Agent definitions (``agents/*.md``) and how an agent type names its memory directory."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memtui.core.cache import ScanCache
from memtui.core.model import Scope

AGENT_HEADER_LINES = 60
AGENT_KIND = "agent-definition"


@dataclass
class AgentDefinition:
    """An agent file's type, path, memory scope (None: no memory) and description."""

    agent_type: str
    path: Path
    memory: Scope | None
    description: str | None


def agent_dir_name(agent_type: str) -> str:
    """The memory directory name of an agent type: ``:`` becomes ``-`` (``plugin:agent``)."""
    return agent_type.replace(":", "-")


def read_definition(path: Path) -> tuple[AgentDefinition | None, str | None]:
    """One agent file's definition, or the reason it could not be read."""
    # imported here: while every agent file is unchanged the cache answers (a warm scan)
    from memtui.core.fileread import read_header
    from memtui.core.parse.frontmatter import parse_frontmatter

    header = read_header(path, path.parent, lines=AGENT_HEADER_LINES)
    if not header.readable:
        return None, f"agent file {path}: {'; '.join(header.problems)}"
    fm = parse_frontmatter(header.data.decode("utf-8", errors="replace"))
    agent_type = fm.get_str("name") or path.stem
    memory_value = fm.get_str("memory")
    memory = Scope(memory_value) if memory_value in {s.value for s in Scope} else None
    problem = None
    if fm.error:
        problem = f"agent file {path}: {fm.error}"
    elif memory_value is not None and memory is None:
        problem = f"agent file {path}: unknown memory scope {memory_value!r}"
    return AgentDefinition(agent_type, path, memory, fm.description), problem


def read_definition_cached(
    path: Path, cache: ScanCache | None
) -> tuple[AgentDefinition | None, str | None]:
    """``read_definition``, from ``cache`` while the file (a regular file) is unchanged."""
    try:
        st = os.lstat(path)
    except OSError:
        st = None
    if cache is None or st is None or not stat.S_ISREG(st.st_mode):
        return read_definition(path)
    found = cache.get(AGENT_KIND, str(path), st)
    if found is not None:
        agent_type, memory, description, problem = found
        scope = Scope(memory) if memory is not None else None
        return AgentDefinition(agent_type, path, scope, description), problem
    definition, problem = read_definition(path)
    if definition is not None:
        memory = definition.memory.value if definition.memory else None
        payload = (definition.agent_type, memory, definition.description, problem)
        cache.put(AGENT_KIND, str(path), st, payload)
    return definition, problem


def load_agent_definitions(
    dirs: list[Path], cache: ScanCache | None = None
) -> tuple[dict[str, AgentDefinition], list[str]]:
    """Definitions from each directory in turn; a later directory (the project) overrides.
    With ``cache``, a file is parsed again only when its stat changed."""
    found: dict[str, AgentDefinition] = {}
    problems: list[str] = []
    for directory in dirs:
        try:
            with os.scandir(directory) as it:
                files = sorted(directory / e.name for e in it if e.name.endswith(".md"))
        except OSError:
            continue
        for path in files:
            definition, problem = read_definition_cached(path, cache)
            if problem:
                problems.append(problem)
            if definition is not None:
                found[definition.agent_type] = definition
    return found, problems
