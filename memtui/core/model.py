"""The data model shared by the core, the CLI and the TUI: plain dataclasses, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:  # the type aliases only exist for the checker
    from typing import Any, Literal, TypeAlias

    MemoryType: TypeAlias = Literal["user", "feedback", "project", "reference"]
    FrontmatterLayout: TypeAlias = Literal["flat", "metadata"]
    SnapshotStatus: TypeAlias = Literal["none", "initialize", "prompt-update"]


class StoreKind(StrEnum):
    AUTO = "auto"
    TEAM = "team"
    SESSION = "session"
    AGENT = "agent"
    SNAPSHOT = "snapshot"
    AGENTMEMORY = "agentmemory"


class Scope(StrEnum):
    USER = "user"
    PROJECT = "project"
    LOCAL = "local"


MEMORY_TYPES: tuple[str, ...] = ("user", "feedback", "project", "reference")

@dataclass
class Frontmatter:
    """Parsed YAML frontmatter of a memory file.

    ``raw`` is the text between the opening and closing ``---`` lines (exclusive), ``end`` the
    character offset in the decoded text where the body starts (0 when there is no frontmatter).
    ``data`` holds every key, unknown ones included; values stay as YAML 1.2 gives them (dates and
    ``yes``/``no`` remain strings).
    """

    data: dict[str, Any] = field(default_factory=dict)
    raw: str = ""
    end: int = 0
    present: bool = False
    layout: FrontmatterLayout | None = None
    error: str | None = None
    retried: bool = False

    def get_str(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None:
            return None
        return value if isinstance(value, str) else str(value)

    @property
    def name(self) -> str | None:
        return self.get_str("name")

    @property
    def description(self) -> str | None:
        return self.get_str("description")

    @property
    def type(self) -> str | None:
        """``type``, else ``metadata.type``; only the four CC types count, anything else is None."""
        value = self.data.get("type")
        if value is None:
            meta = self.data.get("metadata")
            if isinstance(meta, dict):
                value = meta.get("type")
        return value if isinstance(value, str) and value in MEMORY_TYPES else None


@dataclass
class SnapshotScopeStatus:
    """A snapshot against one scope's local agent memory."""

    scope: Scope
    local: Path
    status: SnapshotStatus
    synced_from: str | None
    cc_acts: bool
    reason: str


@dataclass
class SnapshotInfo:
    """An agent's memory snapshot and its status for each scope."""

    agent: str
    snapshot_dir: Path
    updated_at: str | None
    problem: str | None
    files: list[str]
    scopes: list[SnapshotScopeStatus]
    acted_scope: Scope

    def for_scope(self, scope: Scope) -> SnapshotScopeStatus:
        for item in self.scopes:
            if item.scope == scope:
                return item
        raise KeyError(scope)

    @property
    def primary(self) -> SnapshotScopeStatus:
        return self.for_scope(self.acted_scope)


@dataclass
class SessionInfo:
    """A session store's transcript facts and summary title."""

    session_id: str
    transcript: Path | None
    cwd: str | None
    started: str | None
    git_branch: str | None
    title: str | None = None
    empty: bool = False


@dataclass
class StoreLocation:
    """Where a store lives and why: ``rule`` says in words which rule chose ``path``."""

    kind: StoreKind
    path: Path
    rule: str
    enabled: bool = True
    scope: Scope | None = None
    agent: str | None = None
    session: str | None = None
    enabled_rule: str = ""
    unit_cap: bool = True
    """Claude Code cuts this store's MEMORY.md at 25,000 UTF-16 units too (from 2.1.83;
    before, only the 200-line cap applied): set by the version the rules follow."""


@dataclass
class ProjectRef:
    """A project directory under the CC home and the source path it stands for."""

    dir: str
    path: str | None
