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


def plan_restore(archive: Archive, entry: ArchiveEntry) -> Proposal:
    """Put ``entry`` back where it was, and its MEMORY.md lines at the end of the index."""
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
        base = old or b""
        if base and not base.endswith(b"\n"):
            base += b"\n"
        lines = b"".join(line.encode("utf-8") + b"\n" for line in entry.index_lines)
        changes.append(FileChange(index, "write", base + lines,
                                  None if old is None else sha256_hex(old)))
        notes += [f"adds to MEMORY.md: {line}" for line in entry.index_lines]
    return Proposal(
        kind="restore-archived",
        title=f"restore {entry.rel_path} from the archive",
        root=root,
        lock_dir=lock_dir_of(StoreKind(entry.store_kind), root),
        changes=changes,
        notes=notes,
    )
