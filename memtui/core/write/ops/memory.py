"""Plans for editing memories in a store: deleting one or many, with their MEMORY.md lines
(and their lines in the topic files distil wrote)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote

from memtui.core.contents import IndexEntry, Memory, Store
from memtui.core.model import StoreKind
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.link_targets import is_external_target, resolve_target
from memtui.core.parse.topic_files import is_topic_file
from memtui.core.secrets.redact import masked_text
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.proposal import (
    FileChange,
    Proposal,
    StoreRoot,
    file_sha256,
    read_regular,
    roots_base,
    sha256_hex,
)

__all__ = [
    "INDEX_NAME",
    "delete_refusal",
    "index_lines_for",
    "lock_dir_for",
    "lock_dir_of",
    "plan_delete_memories",
    "plan_delete_memory",
    "remove_lines",
    "root_store",
    "span_stores",
    "store_roots",
]

INDEX_NAME = "MEMORY.md"


def lock_dir_for(store: Store) -> Path | None:
    """The memory dir whose ``.consolidate-lock`` governs ``store`` (None: no lock applies)."""
    return lock_dir_of(store.kind, store.path)


def lock_dir_of(kind: StoreKind, path: Path) -> Path | None:
    """:func:`lock_dir_for` of a store of ``kind`` at ``path``."""
    if kind in (StoreKind.AUTO, StoreKind.AGENT):
        return path
    if kind == StoreKind.TEAM:
        return path.parent
    return None


def plan_delete_memory(store: Store, memory: Memory) -> Proposal:
    """Delete ``memory``'s file and every line of the store's ``MEMORY.md`` (and of the topic
    files distil wrote at its root) that links to it, in one operation; the rest of each file
    stays byte-identical (line endings included)."""
    return plan_delete_memories(store, [memory])


def plan_delete_memories(
    stores: Store | Sequence[Store], memories: Sequence[Memory]
) -> Proposal:
    """Delete every file of ``memories`` and each one's ``MEMORY.md`` lines as ONE operation
    (one preview, one journal entry, one undo): each index is rewritten once, without the lines
    of every deleted memory it lists; every file keeps its own revision check.

    ``stores`` holds the memories' stores. Stores that share a write root under one
    ``.consolidate-lock`` (a store and the stores inside it: Auto and its Team folder) are one
    root; stores with separate roots (an auto memory and an agent memory) make one operation
    across those roots (:func:`store_roots`), each confined and locked on its own. A snapshot's
    memory is refused (:class:`EditRefused`), as are a memory outside its store and a memory of
    no given store. Deleting a store's ``MEMORY.md`` itself leaves that index's lines alone
    (the file goes)."""
    given = [stores] if isinstance(stores, Store) else list(stores)
    memories = list({m.path: m for m in memories}.values())  # each file once
    if not memories:
        raise EditRefused("no memory to delete")
    owner = (
        {id(m): given[0] for m in memories} if len(given) == 1 else _owners(given, memories)
    )
    used = list({id(owner[id(m)]): owner[id(m)] for m in memories}.values())  # theirs only
    for store in used:
        if store.kind == StoreKind.SNAPSHOT:
            raise EditRefused(
                f"{store.path} is a snapshot: snapshots ship with the project; "
                "memtui does not edit them", store.path)
    roots = store_roots(used)
    base = roots_base([r.path for r in roots])  # notes name files from here
    changes: list[FileChange] = []
    notes: list[str] = []
    by_store: dict[int, list[Memory]] = {}
    for memory in memories:
        store = owner[id(memory)]
        path = memory.path
        if not path.is_relative_to(store.path) or path == store.path:
            raise EditRefused(f"{path} is not in the store {store.path}", path)
        try:
            changes.append(FileChange(path, "delete", None, _expected(path)))
        except OSError as exc:
            raise EditRefused(f"cannot read {path}: {exc.strerror or exc}", path) from exc
        notes.append(f"deletes {_shown_rel(base, path)}")
        by_store.setdefault(id(store), []).append(memory)
    for store in used:
        deleted = by_store.get(id(store), [])
        if any(m.path == store.path / INDEX_NAME for m in deleted):
            continue  # the index itself goes
        gone = {m.rel_path for m in deleted}
        for listing in [INDEX_NAME, *_topic_files(store, gone)]:
            index_change, removed = _index_change_many(store.path / listing, gone)
            if index_change is not None:
                changes.append(index_change)
                where = _shown_rel(base, index_change.path)
                notes += [f"removes {where} line {e.line}: {e.raw}" for e in removed]
    count = len(memories)
    what = memories[0].rel_path if count == 1 else f"{count} memories"
    tops = [next(s for s in used if s.path == r.path).title for r in roots]
    return Proposal(
        kind="delete-memories" if count > 1 else "delete-memory",
        title=f"delete {what} from {' and '.join(tops)}",
        root=roots[0].path,
        lock_dir=roots[0].lock_dir,
        changes=changes,
        notes=notes,
        shown=masked_text,  # a deleted memory's diff shows its secrets masked
        more_roots=roots[1:],
    )


def _topic_files(store: Store, gone: set[str]) -> list[str]:
    """The topic files distil wrote at the store's root (their entries were index entries:
    a deleted memory's lines go from them too), but those being deleted."""
    return [m.rel_path for m in store.memories
            if "/" not in m.rel_path and m.rel_path not in gone
            and is_topic_file(m.frontmatter.data)]


def _owners(stores: list[Store], memories: Sequence[Memory]) -> dict[int, Store]:
    """Each memory's store (by identity of the memory), from those given."""
    owner: dict[int, Store] = {}
    for store in stores:
        for memory in store.memories:
            owner[id(memory)] = store
    for memory in memories:
        if id(memory) not in owner:
            raise EditRefused(f"{memory.path} is in none of the given stores", memory.path)
    return owner


def root_store(stores: Sequence[Store]) -> Store | None:
    """The store every other one lies inside, under the same lock (one operation's root and
    lock); None when there is none: each store has its own root and lock, and one operation
    cannot span them."""
    for candidate in stores:
        lock = lock_dir_for(candidate)
        if all(
            s.path.is_relative_to(candidate.path) and lock_dir_for(s) == lock for s in stores
        ):
            return candidate
    return None


def store_roots(stores: Sequence[Store]) -> list[StoreRoot]:
    """The roots one operation over ``stores`` writes into, each with its own lock: a store
    that lies inside another given store under the same lock (a Team folder in its Auto
    memory) goes with it; every other store is a root of its own (in the order given)."""
    roots: list[StoreRoot] = []
    for store in stores:
        if any(other is not store and root_store([other, store]) is other for other in stores):
            continue
        root = StoreRoot(store.path, lock_dir_for(store))
        if root not in roots:
            roots.append(root)
    return roots


def span_stores(proposal: Proposal, stores: Sequence[Store]) -> Proposal:
    """``proposal`` made to write into the roots of ``stores`` (:func:`store_roots`): one root
    when they share one, else one operation across several roots, each confined and locked on
    its own."""
    roots = store_roots(stores)
    proposal.root, proposal.lock_dir = roots[0].path, roots[0].lock_dir
    proposal.more_roots = roots[1:]
    return proposal


def _shown_rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def index_lines_for(raw: str, rel_path: str) -> list[IndexEntry]:
    """The index entries of ``raw`` (a root ``MEMORY.md``) whose link resolves to ``rel_path``."""
    return index_lines_for_any(raw, {rel_path})


def index_lines_for_any(raw: str, rel_paths: set[str]) -> list[IndexEntry]:
    """The index entries of ``raw`` whose link resolves to one of ``rel_paths`` (one parse)."""
    found: list[IndexEntry] = []
    for entry in parse_entries(raw):
        target = entry.target
        if target is None or is_external_target(target):
            continue
        if rel_paths & {resolve_target(target), resolve_target(unquote(target))}:
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
    return _index_change_many(index, {rel_path})


def _index_change_many(
    index: Path, rel_paths: set[str]
) -> tuple[FileChange | None, list[IndexEntry]]:
    """``index`` without every line linking to one of ``rel_paths`` (one read, one write)."""
    if not rel_paths:
        return None, []
    try:
        data, _st = read_regular(index)
    except (EditRefused, OSError):
        data = None
    if data is None:
        return None, []
    entries = index_lines_for_any(data.decode("utf-8", errors="replace"), rel_paths)
    if not entries:
        return None, []
    new = remove_lines(data, {e.line for e in entries})
    return FileChange(index, "write", new, sha256_hex(data)), entries


def _expected(path: Path) -> str | None:
    return file_sha256(path)


SNAPSHOT_REFUSAL = "Snapshots ship with the project; memtui does not edit them."


def delete_refusal(store: Store, memory: Memory | None) -> str | None:
    """Why ``memory`` of ``store`` is not offered for deleting (None: it may be), in words a
    shell shows as they are: no memory (a store or folder is selected), a snapshot's memory, a
    store's index (its memories are deleted instead)."""
    if memory is None:
        return "Select a memory file to delete (stores and folders are not deleted)."
    if store.kind == StoreKind.SNAPSHOT:
        return SNAPSHOT_REFUSAL
    if memory.is_index or memory.rel_path == INDEX_NAME:
        return "MEMORY.md is the index; delete the memories it lists instead."
    return None
