"""A store's index: its MEMORY.md read whole, Claude Code's load report and the index health
(the topic files distil wrote that it points to read whole too), cached by a digest of the
store; and the ``[[wikilinks]]`` of whole memory files, checked after a scan."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from memtui.core.cache import ScanCache, gc_paused, stat_key
from memtui.core.contents import LoadReport, Memory, Store
from memtui.core.fileread import read_full
from memtui.core.lazylist import LazyList
from memtui.core.model import StoreKind
from memtui.core.parse.index_health import index_health
from memtui.core.parse.load_report import load_report
from memtui.core.parse.topic_files import TopicEntry, is_topic_file, topic_entries
from memtui.core.parse.wikilinks import broken_wikilinks, wikilinks
from memtui.core.scan.cached_report import CachedReport

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

INDEX_NAME = "MEMORY.md"


def store_index(
    store: Store,
    own_index_dirs: set[str],
    cache: ScanCache | None = None,
    digest: str | None = None,
    *,
    listed: bool = False,
    lazy: bool = False,
) -> None:
    """Read the store's MEMORY.md whole and compute CC's load report and index health.

    ``listed``: the memories come from a full walk of the store root, so a MEMORY.md there
    (file, link or directory) is among them. ``digest`` names everything the result depends
    on (see ``cached_report.store_digest``): while it is unchanged, the report comes from ``cache``.
    ``lazy``: see ``compute_store_index``."""
    if listed:
        if not any(m.rel_path == INDEX_NAME for m in store.memories):
            return
    elif not os.path.lexists(store.path / INDEX_NAME):
        return
    key = str(store.path)
    if cache is not None and digest is not None:
        cached = _cached_report(cache.get_keyed("index", key, digest), store.path)
        if cached is not None:
            store.index = cached
            return
    folders: dict[str, bool] = {}
    store.index = compute_store_index(
        store, own_index_dirs, folders=folders, cache=cache, lazy=lazy
    )
    if cache is not None and digest is not None:
        payload = (CachedReport.of(store.index).to_plain(), list(folders.items()))
        cache.put_keyed("index", key, digest, payload, newest=0.0)


def _cached_report(payload: Any, root: Path) -> LoadReport | None:
    """The report ``store_index`` cached (a ``CachedReport`` and the folders its entries link
    to, with whether each existed), while those folders are as they were: they are no files
    of the digest, so each is checked again (a few lstats). None for anything else."""
    if not isinstance(payload, tuple) or len(payload) != 2:
        return None
    plain, folders = payload
    cached = CachedReport.from_plain(plain)
    try:
        if cached is None or not all(is_store_folder(root, rel) == found for rel, found in folders):
            return None
        return cached.report()
    except (TypeError, ValueError, IndexError):  # a value of another shape: a miss
        return None


def compute_store_index(
    store: Store,
    own_index_dirs: set[str],
    name: str = INDEX_NAME,
    *,
    folders: dict[str, bool] | None = None,
    cache: ScanCache | None = None,
    lazy: bool = False,
) -> LoadReport:
    """The load report and health of the store's ``name`` (``MEMORY.md``; ``memtui index``
    measures any file of the store root as if it were the index). ``folders`` receives the
    folders whose existence was checked (entries linking to folders), and the answers. The
    topic files distil wrote that the index points to are read whole (their entries list
    memories that are no orphans, and their dangling entries are reported:
    ``topic_file_entries``), the other memories are not.
    ``lazy`` False: every entry, dropped and dangling entry is built before it returns (by the
    scan's worker thread: the TUI reads them all, and building 100,000 objects later would
    hold its UI thread); True: each is built when first looked at."""
    checked = {} if folders is None else folders

    def folder_exists(rel: str) -> bool:
        if rel not in checked:
            checked[rel] = is_store_folder(store.path, rel)
        return checked[rel]

    path = store.path / name
    result = read_full(path, store.path)
    raw = result.data.decode("utf-8", errors="replace") if result.readable else ""
    with gc_paused():  # a runaway index makes 100,000 objects: no collection walks them all
        report = load_report(str(path), raw, agent=store.kind == StoreKind.AGENT,
                             unit_cap=store.location.unit_cap)
    report.problems = list(result.problems) + report.problems
    others, files, names = _link_targets(store, name)
    report.health = index_health(
        report,
        store_files=files,
        memory_names=names,
        link_sources={name: raw},
        source_links={m.rel_path: m.links for m in others},
        own_index_dirs=own_index_dirs,
        folder_exists=folder_exists,
        topic_files={m.rel_path for m in others if is_topic_file(m.frontmatter.data)},
        topic_entries=lambda rel: topic_file_entries(store.path, rel, cache),
    )
    if store.kind == StoreKind.AGENTMEMORY:
        # agentmemory's MEMORY.md is a tag index over daily/ and topics/: no file needs an entry.
        report.health.orphans = []
    if not lazy:  # the TUI and scan read every entry: built here (in a scan's worker), not later
        for items in (report.entries, report.dropped, report.health.dangling):
            if isinstance(items, LazyList):
                items.build_all()
    return report


def _link_targets(store: Store, name: str) -> tuple[list[Memory], set[str], dict[str, str]]:
    """The memories of a store but its index ``name`` (and other ``MEMORY.md`` files), their
    ``.md`` paths, and every name a ``[[wikilink]]`` may use for one (stem, then ``name:``)."""
    others = [m for m in store.memories if not m.is_index and m.rel_path != name]
    files = {m.rel_path for m in others if m.rel_path.endswith(".md")}
    names: dict[str, str] = {}
    for memory in others:
        names.setdefault(memory.stem, memory.rel_path)
        if memory.name:
            names.setdefault(memory.name, memory.rel_path)
    return others, files, names


LINKS_KIND = "links"
"""The scan cache's kind for the ``[[wikilinks]]`` of whole memory files."""
TOPIC_KIND = "topic-entry-lines"
"""The scan cache's kind for the entries (line, title, target) of the topic files distil
wrote."""


def whole_file_facts(
    file: str,
    store_root: Path,
    cache: ScanCache | None,
    kind: str,
    extract: Callable[[str], list[Any]],
) -> list[Any] | None:
    """``extract`` of a file's whole text (``read_full``: up to its cap), cached by stat under
    ``kind``; None when it cannot be read or is binary."""
    try:
        st = os.lstat(file)
    except (OSError, ValueError):
        return None
    regular = stat.S_ISREG(st.st_mode)  # a symlink's target may change unseen: not cached
    if cache is not None and regular:
        cached = cache.get(kind, file, st)
        if cached is not None:
            return list(cached)
    result = read_full(Path(file), store_root)
    if not result.readable or "binary file (contains NUL bytes)" in result.problems:
        return None
    found = extract(result.data.decode("utf-8", errors="replace"))
    if (cache is not None and regular and result.stat is not None
            and stat_key(result.stat) == stat_key(st)):  # unchanged while it was read
        cache.put(kind, file, result.stat, found)
    return found


def whole_file_links(memory: Memory, store_root: Path, cache: ScanCache | None = None) -> list[str]:
    """The ``[[wikilinks]]`` of a memory's whole text (``read_full``: up to its cap), never read
    during a scan. A memory whose header was the whole file costs nothing (its header's
    links); the others are read once and then cached by stat."""
    if memory.header_complete:
        return memory.links
    links = whole_file_facts(memory.file, store_root, cache, LINKS_KIND, wikilinks)
    return memory.links if links is None else links


def topic_file_entries(
    store_root: Path, rel: str, cache: ScanCache | None = None
) -> list[TopicEntry] | None:
    """The entries (line, title, target) of a topic file distil wrote (``rel``: from the store
    root), read whole when the index points to it, then cached by stat (a scan that read the
    file whole for its secrets cached them already)."""
    entries = whole_file_facts(str(store_root / rel), store_root, cache, TOPIC_KIND,
                               topic_entries)
    return None if entries is None else [(line, title, target) for line, title, target in entries]


def check_whole_files(
    store: Store, report: LoadReport, cache: ScanCache | None = None, name: str = INDEX_NAME
) -> LoadReport:
    """``report`` (the store's index ``name``, from a scan) with its broken ``[[wikilinks]]``
    looked for in whole memory files, not in their first 30 lines only (MEMORY.md itself was
    read whole already). A new report; ``report`` is left as it is."""
    return links_checked(store, report, "files",
                         lambda m: whole_file_links(m, store.path, cache), name)


def links_checked(store: Store, report: LoadReport, checked: str,
                  links_of: Callable[[Memory], list[str]],
                  name: str = INDEX_NAME) -> LoadReport:
    """``report`` with its broken ``[[wikilinks]]`` of the memories looked for again, each
    memory's links by ``links_of`` (the index's own kept), marked ``checked`` (``files``,
    ``headers``); ``report`` itself when it was checked so already."""
    if report.health.wikilinks_checked == checked:
        return report
    others, files, names = _link_targets(store, name)
    broken = broken_wikilinks(
        store_files=files,
        memory_names=names,
        link_sources={},
        source_links={m.rel_path: links_of(m) for m in others},
    )
    broken += [b for b in report.health.broken_wikilinks if b.source == name]
    health = replace(report.health, broken_wikilinks=broken, wikilinks_checked=checked)
    return replace(report, health=health)


def check_store_links(
    stores: Iterable[Store], cache: ScanCache | None = None
) -> list[tuple[Store, LoadReport, LoadReport]]:
    """``check_whole_files`` for every store whose index was not checked so: (store, its
    report, the checked report). Nothing is changed: the caller puts the new reports in."""
    return [
        (store, store.index, check_whole_files(store, store.index, cache))
        for store in stores
        if store.index is not None and store.index.health.wikilinks_checked != "files"
    ]


def is_store_folder(root: Path, rel: str) -> bool:
    """Whether ``rel`` (posix, from ``root``; ``.`` is the root) is a directory of the store:
    every part of it a real directory (``lstat``: a symlink on the way is no folder of the
    store, and nothing is followed out of it)."""
    if rel == ".":
        return True
    path = str(root)
    try:
        for part in rel.split("/"):
            if part in ("", ".", ".."):
                return False
            path = os.path.join(path, part)
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return False
    except (OSError, ValueError):
        return False
    return True


def own_index_dirs(store: Store) -> set[str]:
    """The folders of a store that hold a MEMORY.md of their own."""
    return {
        m.rel_path.rsplit("/", 1)[0] for m in store.memories if m.is_index and "/" in m.rel_path
    }
