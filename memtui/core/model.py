"""The data model shared by the core, the CLI and the TUI: plain dataclasses, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any, Literal


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


MemoryType = Literal["user", "feedback", "project", "reference"]
MEMORY_TYPES: tuple[str, ...] = ("user", "feedback", "project", "reference")

FrontmatterLayout = Literal["flat", "metadata"]


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
class Memory:
    """One file in a store, built from the file's header. ``file`` is the absolute path as a
    string (a scan makes thousands of these; ``path`` builds the ``Path`` only when asked)."""

    file: str
    rel_path: str
    size: int
    mtime: float
    frontmatter: Frontmatter = field(default_factory=Frontmatter)
    problems: list[str] = field(default_factory=list)
    header_complete: bool = False
    is_index: bool = False
    links: list[str] = field(default_factory=list)
    """The ``[[wikilinks]]`` of the header, as written, outside code."""
    summary_title: str | None = None
    """For a ``summary.md`` at a store's root: the title under ``# Session Title`` in its header."""

    @cached_property
    def path(self) -> Path:
        return Path(self.file)

    @property
    def name(self) -> str | None:
        return self.frontmatter.name

    @property
    def description(self) -> str | None:
        return self.frontmatter.description

    @property
    def type(self) -> str | None:
        return self.frontmatter.type

    @property
    def file_name(self) -> str:
        return self.rel_path.rsplit("/", 1)[-1]

    @property
    def stem(self) -> str:
        name = self.file_name
        return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


@dataclass
class IndexEntry:
    """An index line ``- [Title](target) — hook`` of a MEMORY.md (``line`` is 1-based, raw)."""

    line: int
    title: str
    target: str | None
    hook: str
    raw: str


@dataclass
class LongEntry:
    line: int
    length: int
    limit: int
    title: str


@dataclass
class BrokenLink:
    source: str
    link: str


@dataclass
class IndexHealth:
    dangling: list[IndexEntry] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    long_entries: list[LongEntry] = field(default_factory=list)
    broken_wikilinks: list[BrokenLink] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.dangling or self.orphans or self.long_entries or self.broken_wikilinks)


Binds = Literal["none", "lines", "bytes", "both"]


@dataclass
class DroppedEntry:
    line: int
    title: str
    target: str | None


@dataclass
class LoadReport:
    """What Claude Code loads of one MEMORY.md, per claude-code-memory.md section 4."""

    path: str
    lines: int
    units: int
    bytes: int
    line_truncated: bool
    byte_truncated: bool
    binds: Binds
    cut_line: int | None
    dropped: list[DroppedEntry]
    warning: str | None
    loaded: str
    agent: bool = False
    entries: list[IndexEntry] = field(default_factory=list)
    health: IndexHealth = field(default_factory=IndexHealth)
    problems: list[str] = field(default_factory=list)
    cut_partial: bool = False  # the cut falls inside cut_line: that line is only partly loaded


SnapshotStatus = Literal["none", "initialize", "prompt-update"]


@dataclass
class SnapshotScopeStatus:
    scope: Scope
    local: Path
    status: SnapshotStatus
    synced_from: str | None
    cc_acts: bool
    reason: str


@dataclass
class SnapshotInfo:
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


@dataclass
class Store:
    location: StoreLocation
    exists: bool
    memories: list[Memory] = field(default_factory=list)
    index: LoadReport | None = None
    snapshot: SnapshotInfo | None = None
    session_info: SessionInfo | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def kind(self) -> StoreKind:
        return self.location.kind

    @property
    def path(self) -> Path:
        return self.location.path

    @property
    def title(self) -> str:
        loc = self.location
        parts = [loc.kind.value]
        if loc.agent:
            parts.append(loc.agent)
        if loc.scope:
            parts.append(f"({loc.scope.value})")
        if loc.session:
            parts.append(loc.session[:8])
        return " ".join(parts)


@dataclass
class ProjectRef:
    dir: str
    path: str | None


@dataclass
class ScanResult:
    project: Path
    claude_home: Path
    stores: list[Store]
    projects: list[ProjectRef]
    git_root: Path | None = None
    git_branch: str | None = None
    complete: bool = True
    scanned: set[StoreKind] = field(default_factory=lambda: set(StoreKind))
    """Store kinds already read; a partial result (``complete`` False) lacks the others."""
