"""Rescan a store after some of its files changed, reusing everything the change left alone.

A live refresh knows which paths changed (the watcher's report, sorted into stores by
``refresh.plan_refresh``). :func:`rescan_changed` lists the store again (no file opened),
reads the header of each changed file only, and keeps every other memory object of the
previous scan as it was (a view that compares memories by identity redraws only the changed
ones). The store's MEMORY.md load report and index health are computed again only when what
they depend on changed (:func:`index_depends_on`): MEMORY.md itself, the set of files, a
folder, or a changed memory's name, wikilinks or topic-file entries (while MEMORY.md itself is
unchanged, only its health is computed again: :func:`health_again`, or brought up to date
from the changed files alone when they are files of the store root: ``health_delta``);
otherwise the previous report is kept (with its broken wikilinks from the headers when they
had been checked in whole files, since a changed file's body may hold others: the TUI checks
them again).

The result is the store a full scan would give (``tests/core/scan/test_incremental.py``
compares them after adds, edits, deletes, renames and broken files).
"""

from __future__ import annotations

from dataclasses import replace

from memtui.core.cache import ScanCache
from memtui.core.contents import LoadReport, Memory, Store
from memtui.core.fileread import read_full
from memtui.core.lazylist import LazyList
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.parse.index_health import index_health
from memtui.core.parse.topic_files import is_topic_file
from memtui.core.scan.health_delta import health_delta
from memtui.core.scan.scanner import read_memory_keyed, session_summary_facts, walked_store
from memtui.core.scan.store_index import (
    INDEX_NAME,
    _link_targets,
    is_store_folder,
    links_checked,
    own_index_dirs,
    store_index,
    topic_file_entries,
)
from memtui.core.stores.walk import store_skip, walk_store

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Set

    from memtui.core.stores.locations import Context, Locations


def touched(rel_path: str, changes: Set[str]) -> bool:
    """Whether ``rel_path`` (posix, from the store root) or a folder holding it changed."""
    if rel_path in changes:
        return True
    at = rel_path.rfind("/")
    while at > 0:
        if rel_path[:at] in changes:
            return True
        at = rel_path.rfind("/", 0, at)
    return False


def _health_facts(memory: Memory) -> tuple[object, ...]:
    """What the index health reads of a memory other than MEMORY.md: its name, its header's
    wikilinks, whether it is an index, and whether it is a topic file distil wrote."""
    return (memory.name, memory.links, memory.is_index, is_topic_file(memory.frontmatter.data))


def index_depends_on(
    old: Store, new: Store, changes: Set[str], reread: dict[str, Memory]
) -> bool:
    """Whether ``new``'s index report must be computed again rather than taken from ``old``:
    MEMORY.md changed, a file came or went, a changed path is no memory (a folder, whose
    existence entries may check), the unit cut differs, or a re-read memory's facts differ
    (its name or links) or it is a topic file (whose entries the health follows)."""
    if old.location.unit_cap != new.location.unit_cap or old.exists != new.exists:
        return True
    if INDEX_NAME in changes or touched(INDEX_NAME, changes):
        return True
    old_rels = {m.rel_path for m in old.memories}
    new_rels = {m.rel_path for m in new.memories}
    if old_rels != new_rels or not changes <= new_rels:
        return True
    before = {m.rel_path: m for m in old.memories}
    for rel, memory in reread.items():
        prev = before[rel]
        facts = _health_facts(memory)
        if facts != _health_facts(prev) or facts[3] or _health_facts(prev)[3]:
            return True
    return False


def headers_checked(store: Store, report: LoadReport) -> LoadReport:
    """``report`` as a scan gives it: broken wikilinks looked for in the headers (a report the
    TUI had checked in whole files names links of bodies that may have changed)."""
    return links_checked(store, report, "headers", lambda m: m.links)


def rescan_changed(
    location: StoreLocation,
    old: Store,
    changes: Set[str],
    cache: ScanCache | None = None,
) -> Store:
    """``scan_store(location)`` made from ``old`` (the same store, scanned before) and the
    paths that changed since (``changes``: posix, from the store root; a folder stands for
    every file below it): only changed files (and links, whose target may change unseen) are
    read; every other memory is ``old``'s object."""
    walk = walk_store(location, store_skip(location))
    store = walked_store(location, walk)
    if not walk.exists:
        return store
    before = {m.rel_path: m for m in old.memories}
    reread: dict[str, Memory] = {}
    memories: list[Memory] = []
    for entry in walk.entries:
        prev = before.get(entry.rel_path)
        if (prev is not None and entry.regular and prev.file == entry.path
                and not touched(entry.rel_path, changes)):
            memories.append(prev)
            continue
        # no cache: a changed file's stat changed (nothing to find), and one just written is
        # racily recent (nothing to keep); links are never cached
        memory, _st = read_memory_keyed(entry, location.path, None)
        memories.append(memory)
        if prev is not None:
            reread[entry.rel_path] = memory
    store.memories = memories
    report = old.index
    if report is not None and not index_depends_on(old, store, changes, reread):
        store.index = headers_checked(store, report) if reread else report
    elif report is not None and same_index_file(old, store):
        delta = health_delta(old, store, report, changes, before)
        store.index = delta if delta is not None else health_again(store, report, cache)
    else:
        store_index(store, own_index_dirs(store), cache, listed=walk.listed)
    return store


def same_index_file(old: Store, new: Store) -> bool:
    """Whether ``new``'s MEMORY.md is the file ``old``'s report was made of (its memory object
    kept: not changed, no link) and the report's rules are the same."""
    before = next((m for m in old.memories if m.rel_path == INDEX_NAME), None)
    after = next((m for m in new.memories if m.rel_path == INDEX_NAME), None)
    return (before is not None and after is before
            and old.location.unit_cap == new.location.unit_cap and old.kind == new.kind)


def health_again(store: Store, report: LoadReport, cache: ScanCache | None = None) -> LoadReport:
    """``report`` (of the same MEMORY.md) with its index health computed again against the
    store's files as they are now, as ``store_index.compute_store_index`` computes it: the
    load figures and entries (parsing MEMORY.md, the costly part of a large index) kept."""
    checked: dict[str, bool] = {}

    def folder_exists(rel: str) -> bool:
        if rel not in checked:
            checked[rel] = is_store_folder(store.path, rel)
        return checked[rel]

    result = read_full(store.path / INDEX_NAME, store.path)
    raw = result.data.decode("utf-8", errors="replace") if result.readable else ""
    others, files, names = _link_targets(store, INDEX_NAME)
    health = index_health(
        report,
        store_files=files,
        memory_names=names,
        link_sources={INDEX_NAME: raw},
        source_links={m.rel_path: m.links for m in others},
        own_index_dirs=own_index_dirs(store),
        folder_exists=folder_exists,
        topic_files={m.rel_path for m in others if is_topic_file(m.frontmatter.data)},
        topic_entries=lambda rel: topic_file_entries(store.path, rel, cache),
    )
    if store.kind == StoreKind.AGENTMEMORY:
        health.orphans = []  # a tag index: no file needs an entry (as compute_store_index)
    if isinstance(health.dangling, LazyList):
        health.dangling.build_all()
    return replace(report, health=health)


def rescan_store_changed(
    ctx: Context,
    locations: Locations,
    location: StoreLocation,
    old: Store,
    changes: Set[str],
    cache: ScanCache | None = None,
) -> Store:
    """One store as a full scan would scan it (``refresh.rescan_store``), from ``old`` and its
    changed paths (:func:`rescan_changed`), with what else its kind holds read again: the
    auto memory's location problems, a session's summary and transcript facts, a snapshot's
    status."""
    location = replace(location)
    store = rescan_changed(location, old, changes, cache)
    if location.kind == StoreKind.AUTO:
        store.problems.extend(locations.problems)
    elif location.kind == StoreKind.SESSION:
        from memtui.core.stores.sessions import (
            session_info,
            session_template,
            transcript_head,
            transcript_of,
        )

        title, empty = session_summary_facts(store, session_template(ctx.claude_home))
        head = transcript_head(transcript_of(location), cache)
        store.session_info = session_info(location, head, title, empty)
    elif location.kind == StoreKind.SNAPSHOT:
        from memtui.core.stores.snapshot import snapshot_info

        store.snapshot = snapshot_info(location, locations)
        store.location.scope = store.snapshot.acted_scope
    return store
