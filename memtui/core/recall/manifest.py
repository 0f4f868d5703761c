"""The recall manifest: exactly the list Claude Code offers its recall side query before each
prompt ([the rule](../../../docs/claude-code-rules.md#the-header-scan-and-the-recall-manifest)).

Every ``*.md`` below the memory directory (team memory's ``team/`` included: it lies below
auto memory's), except files named ``MEMORY.md``; the first 30 lines of each (one BOM and each
line's trailing ``\\r`` removed: :func:`memtui.core.recall.readrange.read_range`) for its
frontmatter; newest ``mtimeMs`` first (a stable sort); at most 200 files; one
line each, ``- [type] rel/path.md (2026-03-05T12:34:56.789Z): description``, the type part and
``: description`` left out when missing. A memory past the 200 newest is never offered to
recall, however well it would match: :attr:`Manifest.invisible`.

Only the 200 newest headers matter to the text, so the walk stats every file and reads headers
newest first until 200 were read (a file whose header cannot be read is left out, as CC's
rejected read leaves it out)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import describe_os_error, inside, read_header
from memtui.core.model import MEMORY_TYPES
from memtui.core.parse.frontmatter import parse_frontmatter
from memtui.core.recall.jsvalues import iso_from_ms, js_string, js_truthy, node_mtime_ms
from memtui.core.recall.readrange import read_range

MAX_FILES = 200
"""The files a manifest offers at most (CC's ``MAX_MEMORY_FILES``)."""
HEADER_LINES = 30
"""The lines of each file the header scan reads (CC's ``FRONTMATTER_MAX_LINES``)."""
INDEX_NAME = "MEMORY.md"


@dataclass(frozen=True)
class ManifestFile:
    """One file the header scan found: its path as CC names it (relative, ``/``), its
    ``mtimeMs``, and the type and description of its frontmatter (None when missing)."""

    rel_path: str
    mtime_ms: float
    type: str | None = None
    description: str | None = None

    @property
    def mtime_iso(self) -> str:
        return iso_from_ms(self.mtime_ms) or "Invalid Date"

    @property
    def line(self) -> str:
        """The file's manifest line (exactly CC's ``formatMemoryManifest``)."""
        tag = f"[{self.type}] " if self.type else ""
        head = f"- {tag}{self.rel_path} ({self.mtime_iso})"
        return f"{head}: {self.description}" if self.description else head


@dataclass
class Manifest:
    """The manifest of one memory directory."""

    root: Path
    files: list[ManifestFile] = field(default_factory=list)
    """What recall is offered: the 200 newest, newest first."""
    invisible: list[str] = field(default_factory=list)
    """Every other memory file (newest first): never offered to recall."""
    problems: list[str] = field(default_factory=list)
    """Files left out because their header could not be read, each with why."""

    @property
    def text(self) -> str:
        """The manifest as CC puts it in the recall query (lines joined by ``\\n``)."""
        return "\n".join(item.line for item in self.files)

    @property
    def total(self) -> int:
        return len(self.files) + len(self.invisible)


@dataclass
class _Found:
    path: str
    rel_path: str
    mtime_ms: float


def _walk(root: str, rel: str, out: list[_Found], problems: list[str]) -> None:
    """Every ``*.md`` (not named MEMORY.md) below ``root``: real directories are entered
    (never a symlink), entries in name order."""
    try:
        with os.scandir(root) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as err:
        if rel:
            problems.append(f"{rel}: {describe_os_error(err)}")
        return
    for entry in entries:
        path = f"{rel}{entry.name}"
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if entry.name.endswith(".md") and entry.name != INDEX_NAME and not is_dir:
            try:
                st = os.stat(entry.path)  # CC reads through a link; the mtime is the target's
            except OSError as err:
                problems.append(f"{path}: {describe_os_error(err)}")
                continue
            if stat.S_ISREG(st.st_mode):
                out.append(_Found(entry.path, path, node_mtime_ms(st.st_mtime_ns)))
            else:
                problems.append(f"{path}: not a regular file: not read")
        if is_dir:
            _walk(entry.path, f"{path}/", out, problems)


def _memory_type(data: dict[str, object]) -> str | None:
    """CC's ``parseMemoryType``: one of the four types, else none (``metadata.type`` counts
    in the newer layout)."""
    value = data.get("type")
    if value is None:
        meta = data.get("metadata")
        if isinstance(meta, dict):
            value = meta.get("type")
    return value if isinstance(value, str) and value in MEMORY_TYPES else None


def _header_of(found: _Found, root: Path) -> ManifestFile | str:
    """The file's manifest entry, or why its header cannot be read."""
    if not inside(root, found.path):
        return f"{found.rel_path}: a link that leaves the store: not read"
    header = read_header(found.path, root)
    if not header.readable:
        return f"{found.rel_path}: {'; '.join(header.problems) or 'cannot be read'}"
    text = read_range(header.data.decode("utf-8", errors="replace"), HEADER_LINES).content
    data = parse_frontmatter(text).data
    description = data.get("description")
    return ManifestFile(
        rel_path=found.rel_path,
        mtime_ms=found.mtime_ms,
        type=_memory_type(data),
        description=js_string(description) if js_truthy(description) else None,
    )


def build_manifest(root: Path, limit: int = MAX_FILES) -> Manifest:
    """The recall manifest of the memory directory ``root`` (a missing one has no files)."""
    manifest = Manifest(root=root)
    found: list[_Found] = []
    if not os.path.isdir(root):
        return manifest
    _walk(str(root), "", found, manifest.problems)
    found.sort(key=lambda f: -f.mtime_ms)  # stable: ties keep the walk's order
    for item in found:
        if len(manifest.files) >= limit:
            manifest.invisible.append(item.rel_path)
            continue
        entry = _header_of(item, root)
        if isinstance(entry, str):
            manifest.problems.append(entry)
        else:
            manifest.files.append(entry)
    return manifest
