"""What a scan reads from the stores: memories, MEMORY.md load reports with their index
health, stores and the scan result (plain dataclasses, no I/O). Where stores are and why lives in
``model``; ``scan --json`` on unchanged stores needs only that one."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from memtui.core.model import (
    Frontmatter,
    ProjectRef,
    SessionInfo,
    SnapshotInfo,
    StoreKind,
    StoreLocation,
)


@dataclass(frozen=True, slots=True)
class SecretMark:
    """A secret found in a memory's whole text: the gitleaks rule id and the 1-based line where
    it starts (never the secret: a scan keeps, caches and prints only these)."""

    rule: str
    line: int


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
    secrets: list[SecretMark] = field(default_factory=list)
    """The secrets of the whole file (read up to its cap), in order of position."""

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


@dataclass(slots=True)
class IndexEntry:
    """An index line ``- [Title](target) — hook`` of a MEMORY.md (``line`` is 1-based, raw;
    slots: a runaway index makes 50,000 of them)."""

    line: int
    title: str
    target: str | None
    hook: str
    raw: str


@dataclass
class LongEntry:
    """An index entry longer than ``limit`` characters (150: keep under; 200: too long)."""

    line: int
    length: int
    limit: int
    title: str


@dataclass
class TopicDangling:
    """An entry of a topic file distil wrote (one the index points to) whose target names no
    file or folder of the store: ``file`` (posix, from the store root), its 1-based ``line``."""

    file: str
    line: int
    title: str
    target: str


@dataclass
class BrokenLink:
    """A ``[[link]]`` in ``source`` that names no memory."""

    source: str
    link: str


@dataclass
class IndexHealth:
    """What is wrong with an index against its store (dataclasses without a docstring cost
    an ``inspect.signature`` call each when defined)."""

    dangling: Sequence[IndexEntry] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    listed: dict[str, str] = field(default_factory=dict)
    """Memories no entry points to that a topic file distil wrote lists, one the index points
    to: memory → that file (posix paths from the store root). Not orphans; not a problem."""
    topic_dangling: list[TopicDangling] = field(default_factory=list)
    """The dangling entries of those topic files (by file, then line)."""
    long_entries: list[LongEntry] = field(default_factory=list)
    broken_wikilinks: list[BrokenLink] = field(default_factory=list)
    wikilinks_checked: str = "headers"
    """Where ``broken_wikilinks`` were looked for: ``"headers"`` (the whole MEMORY.md and the
    first 30 lines of each memory file: what a scan reads) or ``"files"`` (whole files, each
    up to the full-read cap: ``memtui index``, and the TUI after its scan)."""

    @property
    def ok(self) -> bool:
        return not (self.dangling or self.topic_dangling or self.orphans or self.long_entries
                    or self.broken_wikilinks)

    def listed_counts(self) -> list[tuple[str, int]]:
        """Each topic file of ``listed`` with how many memories it lists, by file name."""
        counts: dict[str, int] = {}
        for topic in self.listed.values():
            counts[topic] = counts.get(topic, 0) + 1
        return sorted(counts.items())


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal, TypeAlias

    from memtui.core.claude_version import ClaudeCodeVersion

    Binds: TypeAlias = Literal["none", "lines", "bytes", "both"]


@dataclass
class DroppedEntry:
    """An index entry past the cut: Claude Code never loads it."""

    line: int
    title: str
    target: str | None


@dataclass
class LoadReport:
    """What Claude Code loads of one MEMORY.md (docs/claude-code-rules.md#memorymd-load-report)."""

    path: str
    lines: int
    units: int
    bytes: int
    line_truncated: bool
    byte_truncated: bool
    binds: Binds
    cut_line: int | None
    dropped: Sequence[DroppedEntry]
    warning: str | None
    loaded: str
    agent: bool = False
    entries: Sequence[IndexEntry] = field(default_factory=list)
    health: IndexHealth = field(default_factory=IndexHealth)
    problems: list[str] = field(default_factory=list)
    cut_partial: bool = False  # the cut falls inside cut_line: that line is only partly loaded


@dataclass
class Store:
    """One store: where and why, its memories, its index report and what else it holds."""

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
class ScanResult:
    """Every store of a project, and the other projects under the CC home."""

    project: Path
    claude_home: Path
    stores: list[Store]
    projects: list[ProjectRef]
    git_root: Path | None = None
    git_branch: str | None = None
    complete: bool = True
    scanned: set[StoreKind] = field(default_factory=lambda: set(StoreKind))
    """Store kinds already read; a partial result (``complete`` False) lacks the others."""
    claude_code_version: ClaudeCodeVersion | None = None
    """The Claude Code version whose rules the scan followed (None: a result not made by a
    scan of the stores' locations)."""
