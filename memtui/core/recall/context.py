"""What Claude Code puts in front of a session from instructions and memory, before the first
prompt: the CLAUDE.md chain in load order (managed, user, user rules, each directory from ``/``
down to the project with its rules and ``CLAUDE.local.md``, ``@`` imports where they are named,
up to 5 deep), then the loaded part of the auto and team ``MEMORY.md`` for the main session, or
the agent's own ``MEMORY.md`` for an agent
([the rules](../../../docs/claude-code-rules.md#the-context-at-session-start)).

Each part has its size in lines, UTF-16 units and tokens: an offline estimate (about 3.5
characters a token, labelled as such) unless a counter is given (the anthropic SDK's
``count_tokens``, on redacted text, when the user asks for it). The memory instructions Claude
Code adds around the indexes are not counted: memtui does not reproduce their text. With the
judge's ledger, a part that repeats or contradicts another file by the judge's latest verdict
says so."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import read_full
from memtui.core.judge.ledger import Ledger
from memtui.core.model import StoreLocation
from memtui.core.parse.load_report import load_report
from memtui.core.parse.utf16 import units
from memtui.core.stores.claudemd import MANAGED_CLAUDE_MD, load_chain
from memtui.core.stores.locations import Context, Locations, locate

INDEX_NAME = "MEMORY.md"
CHARS_PER_TOKEN = 3.5
"""The offline token estimate: characters divided by this (English prose and Markdown)."""

TokenCounter = Callable[[str], int]
"""Exact tokens of a text (the caller redacts before anything leaves the machine)."""


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN + 0.5) if text else 0


@dataclass
class ContextPart:
    """One piece of the session's context."""

    kind: str
    """``claude_md``, ``rule``, ``import``, ``memory_index`` (auto or team) or
    ``agent_memory_index``."""
    path: Path
    origin: str
    """Why it is loaded, in words (``project``, ``user rules``, ``import from CLAUDE.md``,
    ``auto memory``…)."""
    text: str
    """What Claude Code puts in the context of it (a MEMORY.md: its loaded part)."""
    depth: int = 0
    parent: Path | None = None
    problem: str | None = None
    tokens: int = 0
    exact: bool = False
    note: str | None = None
    """A MEMORY.md past its limit: what was cut."""
    repeats: list[str] = field(default_factory=list)
    """What the judge found this part repeats or contradicts (``duplicate of ~/x.md``)."""

    @property
    def lines(self) -> int:
        return self.text.count("\n") + 1 if self.text else 0

    @property
    def units(self) -> int:
        return units(self.text)


@dataclass
class SessionContext:
    agent: str | None
    parts: list[ContextPart] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return sum(p.lines for p in self.parts)

    @property
    def units(self) -> int:
        return sum(p.units for p in self.parts)

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.parts)

    @property
    def exact(self) -> bool:
        return bool(self.parts) and all(p.exact for p in self.parts)


class ContextError(ValueError):
    """The agent asked for has no memory here (the message says which do)."""


def _kind_of(origin: str) -> str:
    if origin.startswith("import"):
        return "import"
    return "rule" if origin.endswith("rules") else "claude_md"


def _index_part(location: StoreLocation, kind: str, origin: str, agent: bool) -> ContextPart | None:
    path = location.path / INDEX_NAME
    if not os.path.lexists(path):
        return None
    read = read_full(path, location.path)
    if not read.readable:
        return ContextPart(kind, path, origin, "", problem="; ".join(read.problems) or "unreadable")
    raw = read.data.decode("utf-8", errors="replace")
    report = load_report(str(path), raw, agent=agent, unit_cap=location.unit_cap)
    note = None
    if report.cut_line is not None:
        note = f"cut at line {report.cut_line}: {len(report.dropped)} entries never loaded"
    return ContextPart(kind, path, origin, report.loaded, note=note)


def _agent_location(locations: Locations, agent: str) -> StoreLocation:
    found = [loc for loc in locations.agents if loc.agent == agent]
    definition = locations.definitions.get(agent)
    if definition is not None and definition.memory is not None:
        found = [loc for loc in found if loc.scope == definition.memory] or found
    if len(found) == 1:
        return found[0]
    if not found:
        known = ", ".join(sorted({loc.agent or "" for loc in locations.agents})) or "none"
        raise ContextError(f"no agent memory named {agent} (agents with memory: {known})")
    scopes = ", ".join(loc.scope.value for loc in found if loc.scope)
    raise ContextError(f"agent {agent} has memory in several scopes ({scopes}) and no "
                       "definition that names one")


WORDS = {"duplicate": "duplicate of", "conflicts_with": "conflicts with",
         "supersedes": "supersedes or is superseded by"}


def owns(part: ContextPart, key: str) -> bool:
    """Whether the judge item ``key`` is (part of) ``part``: a CLAUDE.md paragraph's key is its
    file's path, ``#`` and a digest; an index stands for every memory of its store."""
    if part.kind in ("memory_index", "agent_memory_index"):
        return key.startswith(str(part.path.parent) + os.sep)
    own = str(part.path)
    return key == own or key.startswith(own + "#")


def mark_repeats(result: SessionContext, ledger: Ledger, ctx: Context) -> None:
    """Each part's pairs whose latest verdict in the judge's ``ledger`` is a duplicate, a
    conflict or a supersession not yet decided, naming the other side."""
    latest = [history[-1] for history in ledger.entries.values() if history]
    for part in result.parts:
        found: set[str] = set()
        for entry in latest:
            if entry.relation not in WORDS or entry.decided:
                continue
            for this, other in ((entry.a, entry.b), (entry.b, entry.a)):
                if owns(part, this) and not owns(part, other):
                    found.add(f"{WORDS[entry.relation]} {ctx.show(other.split('#', 1)[0])}")
        part.repeats = sorted(found)


def session_context(
    ctx: Context,
    *,
    agent: str | None = None,
    counter: TokenCounter | None = None,
    managed: Path = MANAGED_CLAUDE_MD,
    ledger: Ledger | None = None,
) -> SessionContext:
    """The context Claude Code builds at session start for the main session (``agent``
    None) or for the agent ``agent``."""
    result = SessionContext(agent)
    chain = load_chain(ctx, managed)
    result.notes += chain.problems
    for file in chain.files:
        result.parts.append(ContextPart(_kind_of(file.origin), file.path, file.origin,
                                        file.text, file.depth, file.parent, file.problem))
    locations = locate(ctx)
    if agent is None:
        if not locations.auto.enabled:
            result.notes.append(f"auto memory is off: {locations.auto.enabled_rule}; no "
                                "MEMORY.md is loaded")
        else:
            for location, origin in ((locations.auto, "auto memory"),
                                     (locations.team, "team memory")):
                part = _index_part(location, "memory_index", origin, agent=False)
                if part is not None:
                    result.parts.append(part)
    else:
        location = _agent_location(locations, agent)
        scope = location.scope.value if location.scope else "?"
        part = _index_part(location, "agent_memory_index", f"agent {agent} ({scope} scope)",
                           agent=True)
        if part is not None:
            result.parts.append(part)
        else:
            result.notes.append(f"agent {agent} has no MEMORY.md yet")
    for part in result.parts:
        if counter is not None and part.text:
            try:
                part.tokens, part.exact = counter(part.text), True
                continue
            except Exception as err:  # a counter that fails: the estimate, said once
                if not any(n.startswith("token count failed") for n in result.notes):
                    result.notes.append(f"token count failed ({type(err).__name__}): "
                                        "estimated instead")
        part.tokens = estimate_tokens(part.text)
    if ledger is not None:
        mark_repeats(result, ledger, ctx)
    return result
