"""memtui's archive of superseded memories: outside every store (so no agent loads them),
beside the journal (``archive/`` in memtui's state dir), kept until the user removes them, not
pruned with the journal.

Archiving is the second half of a "keep one side" decision: the memory leaves its store through
the one write path (previewed, journaled, ``u`` undoes it, like a delete), and its bytes, the
MEMORY.md lines that pointed to it and why are written here. :func:`plan_restore` puts an
archived memory back through the write path (refused when a file of that name exists)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.model import StoreKind
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import default_journal_dir
from memtui.core.write.ops.memory import INDEX_NAME, lock_dir_of
from memtui.core.write.proposal import FileChange, Proposal, StateFile, read_regular, sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.core.contents import LoadReport

ENTRY = "entry.json"
ENTRY_CAP = 1024 * 1024
FILE_CAP = 64 * 1024 * 1024


ARCHIVE_DIR = "archive"
"""The archive's directory in memtui's state dir."""


def default_archive_dir(env: Mapping[str, str] | None = None) -> Path:
    return default_journal_dir(env).parent / ARCHIVE_DIR


def entry_bytes(entry: ArchiveEntry) -> bytes:
    """``entry.json``'s bytes. ASCII JSON: a path holding a file name's undecodable bytes (a
    lone surrogate) is written as its ``\\udcXX`` escape and read back the same."""
    return json.dumps(asdict(entry), ensure_ascii=True, indent=1).encode("ascii")


def entry_state_files(entry: ArchiveEntry, data: bytes) -> list[StateFile]:
    """The archive entry as files of the operation that archives it (written with it, so a
    crashed operation finished by recovery still leaves its entry): the bytes, then the
    entry."""
    return [StateFile(f"{ARCHIVE_DIR}/{entry.id}/memory", data),
            StateFile(f"{ARCHIVE_DIR}/{entry.id}/{ENTRY}", entry_bytes(entry))]


@dataclass
class ArchiveEntry:
    id: str
    time: float
    store_kind: str
    store_path: str
    rel_path: str
    sha256: str
    reason: str
    op_id: str | None = None
    pair: str | None = None
    superseded_by: str | None = None
    index_lines: list[str] = field(default_factory=list)
    """The MEMORY.md lines removed with it, as they were."""

    @property
    def original(self) -> Path:
        return Path(self.store_path) / self.rel_path


@dataclass
class Archive:
    root: Path
    problems: list[str] = field(default_factory=list)

    @classmethod
    def default(cls, env: Mapping[str, str] | None = None) -> Archive:
        return cls(default_archive_dir(env))

    def _entry_dir(self, entry_id: str) -> Path:
        if not entry_id or "/" in entry_id or entry_id.startswith("."):
            raise EditRefused(f"{entry_id!r} is not an archive id", self.root)
        return self.root / entry_id

    def add(self, entry: ArchiveEntry, data: bytes) -> ArchiveEntry:
        """Write ``data`` and its entry (atomically: a temp dir renamed into place)."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        temp = Path(tempfile.mkdtemp(prefix=".new-", dir=self.root))
        try:
            (temp / "memory").write_bytes(data)
            (temp / ENTRY).write_bytes(entry_bytes(entry))
            for name in ("memory", ENTRY):
                os.chmod(temp / name, 0o600)
                with open(temp / name, "rb") as handle:
                    os.fsync(handle.fileno())
            os.rename(temp, self._entry_dir(entry.id))
        except BaseException:
            for name in ("memory", ENTRY):
                with contextlib.suppress(OSError):
                    (temp / name).unlink()
            with contextlib.suppress(OSError):
                temp.rmdir()
            raise
        return entry

    def holds(self, entry: ArchiveEntry, data: bytes) -> bool:
        """Whether the archive holds ``entry`` with ``data`` already (written by the
        operation that archived it)."""
        where = self._entry_dir(entry.id)
        found = read_file(where / ENTRY, ENTRY_CAP, follow_symlinks=False)
        stored = read_file(where / "memory", FILE_CAP, follow_symlinks=False)
        return (found.complete and found.data == entry_bytes(entry) and stored.complete
                and stored.data == data)

    def entries(self) -> list[ArchiveEntry]:
        """Every readable entry, newest first (a broken one is named in ``problems``)."""
        found: list[ArchiveEntry] = []
        self.problems.clear()
        try:
            names = sorted(os.listdir(self.root))
        except FileNotFoundError:
            return []
        except OSError as err:
            self.problems.append(f"archive {self.root}: {err.strerror or err}")
            return []
        for name in names:
            if name.startswith("."):
                continue
            result = read_file(self.root / name / ENTRY, ENTRY_CAP, follow_symlinks=False)
            try:
                if not result.readable or not result.complete:
                    raise ValueError("; ".join(result.problems) or "cannot read")
                found.append(ArchiveEntry(**json.loads(result.data.decode("utf-8"))))
            except (ValueError, TypeError) as err:
                self.problems.append(f"archive entry {name}: {err}")
        found.sort(key=lambda e: e.time, reverse=True)
        return found

    def data(self, entry: ArchiveEntry) -> bytes:
        result = read_file(self._entry_dir(entry.id) / "memory", FILE_CAP, follow_symlinks=False)
        if not result.readable or not result.complete:
            raise EditRefused(f"archive {entry.id}: {'; '.join(result.problems)}", self.root)
        if sha256_hex(result.data) != entry.sha256:
            raise EditRefused(f"archive {entry.id} was changed since it was archived", self.root)
        return result.data


def new_entry_id(rel_path: str, data: bytes) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return f"{stamp}-{sha256_hex(data)[:8]}-{Path(rel_path).stem[:40]}"


def archiving(store_kind: StoreKind, store_path: Path, rel_path: str, data: bytes, *,
              reason: str, op_id: str, pair: str | None, superseded_by: str,
              index_lines: list[str]) -> ArchiveEntry:
    """The archive entry of a memory a decision archives now (``data``: its bytes), as a
    pair's keep or merge and a group's write it."""
    return ArchiveEntry(
        id=new_entry_id(rel_path, data),
        time=time.time(),
        store_kind=store_kind.value,
        store_path=str(store_path),
        rel_path=rel_path,
        sha256=sha256_hex(data),
        reason=reason,
        op_id=op_id,
        pair=pair,
        superseded_by=superseded_by,
        index_lines=index_lines,
    )


@dataclass(frozen=True)
class IndexPlacement:
    """Where restored index lines go, and what Claude Code then loads of them."""

    text: bytes
    """The new MEMORY.md."""
    past_cut: bool
    """The restored lines land past the index's cut: Claude Code never loads them."""
    cut_line: int | None
    """The index's cut (1-based line loading stops at) after the restore, or None."""
    pushed_out: list[str]
    """Entries the restored lines push past the cut (when they are put above it)."""
    moved: bool = False
    """The lines were put above the cut, not at the end."""


def _report(text: bytes, agent: bool) -> LoadReport:
    from memtui.core.parse.load_report import load_report

    return load_report(INDEX_NAME, text.decode("utf-8", "replace"), agent=agent)


def place_index_lines(old: bytes, lines: list[str], *, agent: bool,
                      above_cut: bool = False) -> IndexPlacement:
    """``lines`` added to the index ``old``: at its end; or, with ``above_cut`` when the end
    is past the cut, as the last lines Claude Code still loads (the entries they push past
    the cut are named)."""
    base = old
    if base and not base.endswith(b"\n"):
        base += b"\n"
    added = b"".join(line.encode("utf-8") + b"\n" for line in lines)
    at_end = base + added
    report = _report(at_end, agent)
    first_new = base.count(b"\n") + 1
    if report.cut_line is None or report.cut_line < 0 or first_new + len(lines) - 1 <= (
            report.cut_line - (1 if report.cut_partial else 0)):
        return IndexPlacement(at_end, False, report.cut_line, [])
    if not above_cut:
        return IndexPlacement(at_end, True, report.cut_line, [])
    rows = base.splitlines(keepends=True)
    before = _report(base, agent)
    loaded = {e.title for e in before.entries} - {d.title for d in before.dropped}
    position = max(0, (before.cut_line or len(rows)) - len(lines))
    while True:
        text = b"".join(rows[:position]) + added + b"".join(rows[position:])
        placed = _report(text, agent)
        end = position + len(lines)
        if placed.cut_line is None or end <= placed.cut_line - (1 if placed.cut_partial else 0) \
                or position == 0:
            break
        position = max(0, position - len(lines))
    still = {e.title for e in placed.entries} - {d.title for d in placed.dropped}
    pushed = sorted(loaded - still)
    return IndexPlacement(text, False, placed.cut_line, pushed, moved=True)


def lands_past_cut(entry: ArchiveEntry) -> int | None:
    """The index's cut line when ``entry``'s MEMORY.md lines, restored at the end, would land
    past it (Claude Code would never load them); None when they would load."""
    if not entry.index_lines:
        return None
    old, _st = read_regular(Path(entry.store_path) / INDEX_NAME)
    placed = place_index_lines(old or b"", entry.index_lines,
                               agent=entry.store_kind == StoreKind.AGENT.value)
    return placed.cut_line if placed.past_cut else None


def plan_restore(archive: Archive, entry: ArchiveEntry, *, above_cut: bool = False) -> Proposal:
    """Put ``entry`` back where it was, and its MEMORY.md lines at the end of the index; when
    they would land past the index's cut (Claude Code would never load them), the plan says
    so, and ``above_cut`` puts them where Claude Code still loads them instead."""
    root = Path(entry.store_path)
    data = archive.data(entry)
    target = entry.original
    if not target.is_relative_to(root) or target == root:
        raise EditRefused(f"{target} is not in the store {root}", target)
    existing, _st = read_regular(target)
    if existing is not None:
        raise EditRefused(f"{entry.rel_path} exists again in {root}: restoring would overwrite "
                          "it", target)
    changes = [FileChange(target, "write", data, None)]
    notes = [f"restores {entry.rel_path} (archived: {entry.reason})"]
    index = root / INDEX_NAME
    if entry.index_lines:
        old, _st = read_regular(index)
        placed = place_index_lines(old or b"", entry.index_lines,
                                   agent=entry.store_kind == StoreKind.AGENT.value,
                                   above_cut=above_cut)
        changes.append(FileChange(index, "write", placed.text,
                                  None if old is None else sha256_hex(old)))
        where = "above MEMORY.md's cut" if placed.moved else "to MEMORY.md"
        notes += [f"adds {where}: {line}" for line in entry.index_lines]
        if placed.past_cut:
            notes.append(
                f"warning: the restored index line lands past MEMORY.md's cut (loading stops "
                f"at line {placed.cut_line}): Claude Code would not load it; restore it above "
                "the cut instead (memtui judge restore ID --above-cut; the TUI asks)")
        for title in placed.pushed_out:
            notes.append(f"warning: pushes the entry [{title}] past the cut")
    return Proposal(
        kind="restore-archived",
        title=f"restore {entry.rel_path} from the archive",
        root=root,
        lock_dir=lock_dir_of(StoreKind(entry.store_kind), root),
        changes=changes,
        notes=notes,
    )
