"""Plans for editing memories in a store (deleting one, with its MEMORY.md lines)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from memtui.core.contents import IndexEntry, Memory, Store
from memtui.core.model import StoreKind
from memtui.core.parse.index import is_external_target, parse_entries, resolve_target
from memtui.core.secrets.redact import masked_text
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.proposal import FileChange, Proposal, file_sha256, read_regular, sha256_hex

__all__ = ["INDEX_NAME", "index_lines_for", "lock_dir_for", "plan_delete_memory", "remove_lines"]

INDEX_NAME = "MEMORY.md"


def lock_dir_for(store: Store) -> Path | None:
    """The memory dir whose ``.consolidate-lock`` governs ``store`` (None: no lock applies)."""
    if store.kind in (StoreKind.AUTO, StoreKind.AGENT):
        return store.path
    if store.kind == StoreKind.TEAM:
        return store.path.parent
    return None


def plan_delete_memory(store: Store, memory: Memory) -> Proposal:
    """Delete ``memory``'s file and every line of the store's ``MEMORY.md`` that links to it,
    in one operation; the rest of ``MEMORY.md`` stays byte-identical (line endings included)."""
    root = store.path
    path = memory.path
    if not path.is_relative_to(root) or path == root:
        raise EditRefused(f"{path} is not in the store {root}", path)
    try:
        changes = [FileChange(path, "delete", None, _expected(path))]
    except OSError as exc:
        raise EditRefused(f"cannot read {path}: {exc.strerror or exc}", path) from exc
    notes = [f"deletes {memory.rel_path}"]
    index = root / INDEX_NAME
    if not memory.is_index and index != path:
        index_change, removed = _index_change(index, memory.rel_path)
        if index_change is not None:
            changes.append(index_change)
            notes += [f"removes MEMORY.md line {e.line}: {e.raw}" for e in removed]
    return Proposal(
        kind="delete-memory",
        title=f"delete {memory.rel_path} from {store.title}",
        root=root,
        lock_dir=lock_dir_for(store),
        changes=changes,
        notes=notes,
        shown=masked_text,  # a deleted memory's diff shows its secrets masked
    )


def index_lines_for(raw: str, rel_path: str) -> list[IndexEntry]:
    """The index entries of ``raw`` (a root ``MEMORY.md``) whose link resolves to ``rel_path``."""
    found: list[IndexEntry] = []
    for entry in parse_entries(raw):
        target = entry.target
        if target is None or is_external_target(target):
            continue
        if rel_path in {resolve_target(target), resolve_target(unquote(target))}:
            found.append(entry)
    return found


def remove_lines(data: bytes, numbers: set[int]) -> bytes:
    """``data`` without the given 1-based lines (each with its own ``\\n``); all else kept."""
    pieces = data.split(b"\n")
    kept = [
        piece + (b"\n" if i < len(pieces) - 1 else b"")
        for i, piece in enumerate(pieces)
        if i + 1 not in numbers
    ]
    return b"".join(kept)


def _index_change(index: Path, rel_path: str) -> tuple[FileChange | None, list[IndexEntry]]:
    try:
        data, _st = read_regular(index)
    except (EditRefused, OSError):
        data = None
    if data is None:
        return None, []
    entries = index_lines_for(data.decode("utf-8", errors="replace"), rel_path)
    if not entries:
        return None, []
    new = remove_lines(data, {e.line for e in entries})
    return FileChange(index, "write", new, sha256_hex(data)), entries


def _expected(path: Path) -> str | None:
    return file_sha256(path)
