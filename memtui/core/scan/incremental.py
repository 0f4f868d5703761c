"""Rescan a store after some of its files changed, reusing everything the change left alone.

A live refresh knows which paths changed (the watcher's report, sorted into stores by
``refresh.plan_refresh``). :func:`rescan_changed` lists the store again (no file opened),
reads the header of each changed file only, and keeps every other memory object of the
previous scan as it was (a view that compares memories by identity redraws only the changed
ones). The store's MEMORY.md load report and index health are computed again only when what
they depend on changed (:func:`index_depends_on`): MEMORY.md itself, the set of files, a
folder, or a changed memory's name, wikilinks or topic-file entries; otherwise the previous
report is kept (with its broken wikilinks from the headers when they had been checked in whole
files, since a changed file's body may hold others: the TUI checks them again).

The result is the store a full scan would give (``tests/core/scan/test_incremental.py``
compares them after adds, edits, deletes, renames and broken files).
"""

from __future__ import annotations

from dataclasses import replace

from memtui.core.cache import ScanCache
from memtui.core.contents import LoadReport, Memory, Store
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.parse.topic_files import is_topic_file
from memtui.core.parse.wikilinks import broken_wikilinks
from memtui.core.scan.scanner import read_memory_keyed, session_summary_facts
from memtui.core.scan.store_index import (
    INDEX_NAME,
    _link_targets,
    own_index_dirs,
    store_index,
)
from memtui.core.stores.walk import NOT_A_DIRECTORY, store_skip, walk_store

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
    if report.health.wikilinks_checked == "headers":
        return report
    others, files, names = _link_targets(store, INDEX_NAME)
    broken = broken_wikilinks(
        store_files=files,
        memory_names=names,
        link_sources={},
        source_links={m.rel_path: m.links for m in others},
    )
    broken += [b for b in report.health.broken_wikilinks if b.source == INDEX_NAME]
    health = replace(report.health, broken_wikilinks=broken, wikilinks_checked="headers")
    return replace(report, health=health)


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
    store = Store(location=location, exists=walk.exists)
    store.problems.extend(walk.problems)
    if not walk.exists:
        import os

        if not walk.problems and os.path.exists(location.path):
            store.problems.append(NOT_A_DIRECTORY)
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
        memory, _st = read_memory_keyed(entry, location.path, cache)
        memories.append(memory)
        if prev is not None:
            reread[entry.rel_path] = memory
    store.memories = memories
    if old.index is not None and not index_depends_on(old, store, changes, reread):
        store.index = headers_checked(store, old.index) if reread else old.index
    else:
        store_index(store, own_index_dirs(store), cache, listed=walk.listed)
    return store


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
