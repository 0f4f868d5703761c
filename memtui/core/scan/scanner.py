"""Build the model of every store: header reads for the facts Claude Code's header scan sees,
each memory's whole text (up to its cap) for secrets only, problems per file, no whole
transcript. Everything read is cached per file by stat."""

from __future__ import annotations

import marshal
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from memtui.core.cache import RACY_SECONDS, ScanCache, StatKey, gc_paused, stat_key
from memtui.core.contents import (
    BrokenLink,
    DroppedEntry,
    IndexEntry,
    IndexHealth,
    LoadReport,
    LongEntry,
    Memory,
    ScanResult,
    SecretMark,
    Store,
    TopicDangling,
)
from memtui.core.fileread import ReadResult, read_full, read_header
from memtui.core.lazylist import LazyList
from memtui.core.model import Frontmatter, StoreKind, StoreLocation
from memtui.core.parse.frontmatter import parse_frontmatter
from memtui.core.parse.index_health import index_health
from memtui.core.parse.load_report import load_report
from memtui.core.parse.topic_files import TopicEntry, is_topic_file, topic_entries
from memtui.core.parse.wikilinks import broken_wikilinks, wikilinks
from memtui.core.stores.walk import NOT_A_DIRECTORY, FileEntry, StoreWalk, store_skip, walk_store

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:  # locate(), the git branch and projects: only a whole scan needs them
    from typing import Any

    from memtui.core.model import ProjectRef
    from memtui.core.stores.locations import Context, Locations

INDEX_NAME = "MEMORY.md"
SUMMARY_NAME = "summary.md"
INDEX_PAYLOAD_VERSION = 4  # 3: health.listed; 4: health.topic_dangling

EMPTY_SLACK_BYTES = 64
"""A summary this much larger than its template may still trim down to it."""

Progress = Callable[[str], None]


def _summary_title(text: str) -> str | None:
    """A session summary's title (sessions and snapshots are imported only for their stores:
    ``memtui index`` reads neither)."""
    from memtui.core.stores.sessions import summary_title

    return summary_title(text)


def read_memory(entry: FileEntry, store_root: Path, cache: ScanCache | None = None) -> Memory:
    """A memory from its header only: frontmatter, size, mtime and problems."""
    return read_memory_keyed(entry, store_root, cache)[0]


def read_memory_keyed(
    entry: FileEntry, store_root: Path, cache: ScanCache | None = None, *, secrets: bool = True
) -> tuple[Memory, os.stat_result | None]:
    """``read_memory`` and the stat of the file it describes (None unless a regular file).
    ``secrets`` False: the whole text is not scanned (``memtui index`` needs no secrets), and
    nothing is cached."""
    if not secrets:
        cache = None
    if cache is not None and cache.path is not None and entry.regular:
        try:
            st: os.stat_result | None = os.lstat(entry.path)
        except OSError:
            st = None
        payload = cache.get("memory", entry.path, st) if st is not None else None
        if payload is not None and st is not None:
            return memory_from_payload(entry, st, payload), st
    header = read_header(entry.path, store_root, regular=entry.regular)
    text = header.data.decode("utf-8", errors="replace")
    is_index = entry.rel_path.rsplit("/", 1)[-1] == INDEX_NAME
    memory = Memory(
        file=entry.path,
        rel_path=entry.rel_path,
        size=header.size,
        mtime=header.mtime,
        problems=list(header.problems),
        header_complete=header.complete,
        is_index=is_index,
        links=[] if is_index else wikilinks(text),
        summary_title=_summary_title(text) if entry.rel_path == SUMMARY_NAME else None,
    )
    if header.readable and "binary file (contains NUL bytes)" not in header.problems:
        memory.frontmatter = parse_frontmatter(text.lstrip("\ufeff").replace("\r", ""))
        if memory.frontmatter.error:
            memory.problems.append(memory.frontmatter.error)
    st = header.stat if entry.regular else None
    whole = WholeText(text if header.readable else None)
    if secrets:
        whole = whole_text(entry.path, store_root, header, text)
        if whole.text is not None:
            memory.secrets = secret_marks(whole.text, entry.rel_path)
    if cache is not None and st is not None and whole.same:
        cache.put("memory", entry.path, st, memory_payload(memory))
        if whole.read and not whole.binary and not is_index:
            # what ``whole_file_links`` would read the file again for (the TUI's links check)
            cache.put(LINKS_KIND, entry.path, st, wikilinks(whole.text or ""))
        if whole.text is not None and not whole.binary and is_topic_file(memory.frontmatter.data):
            # what the index health reads a topic file distil wrote for: its entries
            cache.put(TOPIC_KIND, entry.path, st, topic_entries(whole.text))
    return memory, st


@dataclass(frozen=True)
class WholeText:
    """A memory's whole text (None: unreadable), whether it was read past the header, holds
    NUL bytes, and is the file the header was read from (not written in between)."""

    text: str | None
    read: bool = False
    binary: bool = False
    same: bool = True


def whole_text(path: str, store_root: Path, header: ReadResult, text: str) -> WholeText:
    """The whole text of a memory whose header gave ``text``: the header itself when it is the
    whole file, else the file read whole (``read_full``: up to its cap), the one whole-file
    read of a scan, made once per file (its secrets and links are then cached by stat)."""
    if not header.readable:
        return WholeText(None)
    if header.complete:
        return WholeText(text)
    full = read_full(path, store_root)
    if not full.readable:
        return WholeText(None)
    same = full.stat is None or header.stat is None or stat_key(full.stat) == stat_key(
        header.stat
    )  # else written between the two reads: the next scan reads both again
    binary = "binary file (contains NUL bytes)" in full.problems
    return WholeText(full.data.decode("utf-8", errors="replace"), True, binary, same)


def secret_marks(text: str, rel_path: str) -> list[SecretMark]:
    """The rule and line of each secret of ``text`` (the rules are loaded and compiled on the
    first call: a scan whose files all come from the cache never loads them)."""
    from memtui.core.secrets.scanner import find_secrets

    return [SecretMark(f.rule, f.line) for f in find_secrets(text, path=rel_path)]


def memory_payload(memory: Memory) -> tuple[Any, ...]:
    """The plain values a cache keeps of a memory read from its header."""
    fm = memory.frontmatter
    return (
        fm.data, fm.raw, fm.end, fm.present, fm.layout, fm.error, fm.retried,
        memory.problems, memory.header_complete, memory.links, memory.summary_title,
        [(mark.rule, mark.line) for mark in memory.secrets],
    )


def memory_from_payload(entry: FileEntry, st: os.stat_result, payload: Any) -> Memory:
    (data, raw, end, present, layout, error, retried, problems, complete, links, title,
     secrets) = payload
    return Memory(
        entry.path,
        entry.rel_path,
        st.st_size,
        st.st_mtime,
        Frontmatter(data, raw, end, present, layout, error, retried),
        list(problems),
        complete,
        entry.rel_path.rsplit("/", 1)[-1] == INDEX_NAME,
        list(links),
        title,
        [SecretMark(rule, line) for rule, line in secrets],
    )


def load_full_text(memory: Memory, store_root: Path) -> tuple[str, list[str]]:
    """The whole text of a memory, read on demand (a scan reads it only for its secrets)."""
    result = read_full(memory.path, store_root)
    return result.data.decode("utf-8", errors="replace"), result.problems


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
    on (see ``store_digest``): while it is unchanged, the report comes from ``cache``.
    ``lazy``: see ``compute_store_index``."""
    if listed:
        if not any(m.rel_path == INDEX_NAME for m in store.memories):
            return
    elif not os.path.lexists(store.path / INDEX_NAME):
        return
    key = str(store.path)
    if cache is not None and digest is not None:
        payload = cache.get_keyed("index", key, digest)
        # the folders entries link to are no files: checked again (a few lstats) each time
        if payload is not None and all(
            is_store_folder(store.path, rel) == found for rel, found in payload[1]
        ):
            store.index = report_from_payload(payload[0])
            return
    folders: dict[str, bool] = {}
    store.index = compute_store_index(
        store, own_index_dirs, folders=folders, cache=cache, lazy=lazy
    )
    if cache is not None and digest is not None:
        payload = (report_payload(store.index), list(folders.items()))
        cache.put_keyed("index", key, digest, payload, newest=0.0)


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
        report = load_report(str(path), raw, agent=store.kind == StoreKind.AGENT)
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
    if report.health.wikilinks_checked == "files":
        return report
    others, files, names = _link_targets(store, name)
    broken = broken_wikilinks(
        store_files=files,
        memory_names=names,
        link_sources={},
        source_links={m.rel_path: whole_file_links(m, store.path, cache) for m in others},
    )
    broken += [b for b in report.health.broken_wikilinks if b.source == name]
    health = replace(report.health, broken_wikilinks=broken, wikilinks_checked="files")
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


def store_digest(store: Store, stats: list[os.stat_result | None], now: float) -> str | None:
    """A digest of what a store's index report depends on: the store kind and the path and
    stat key of every file (MEMORY.md included). None when it cannot be trusted: a file that
    is not regular (a symlink's target may change unseen) or one changed racily recently."""
    keys: list[tuple[str, StatKey]] = []
    for memory, st in zip(store.memories, stats, strict=True):
        if st is None or now - max(st.st_mtime, st.st_ctime) < RACY_SECONDS:
            return None
        keys.append((memory.rel_path, stat_key(st)))
    import hashlib  # only with a cache: not on ``memtui index``'s path

    blob = marshal.dumps((INDEX_PAYLOAD_VERSION, store.kind.value, keys))
    return hashlib.sha256(blob).hexdigest()


def report_payload(report: LoadReport) -> tuple[Any, ...]:
    """The plain values a cache keeps of a load report and its health."""
    positions = {id(entry): i for i, entry in enumerate(report.entries)}
    health = report.health
    return (
        report.path, report.lines, report.units, report.bytes, report.line_truncated,
        report.byte_truncated, report.binds, report.cut_line,
        [(d.line, d.title, d.target) for d in report.dropped],
        report.warning, report.loaded, report.agent,
        [(e.line, e.title, e.target, e.hook, e.raw) for e in report.entries],
        report.problems, report.cut_partial,
        [positions.get(id(e), (e.line, e.title, e.target, e.hook, e.raw))
         for e in health.dangling],
        health.orphans,
        health.listed,
        [(t.file, t.line, t.title, t.target) for t in health.topic_dangling],
        [(e.line, e.length, e.limit, e.title) for e in health.long_entries],
        [(b.source, b.link) for b in health.broken_wikilinks],
    )


def report_from_payload(payload: Any) -> LoadReport:
    """Rebuild the ``LoadReport`` that ``report_payload`` stored (dangling entries are the
    same objects as the report's entries, as when computed)."""
    (path, lines, n_units, n_bytes, line_truncated, byte_truncated, binds, cut_line, dropped,
     warning, loaded, agent, entries, problems, cut_partial, dangling, orphans, listed,
     topic_dangling, long_entries, broken) = payload
    index_entries = [IndexEntry(*entry) for entry in entries]
    return LoadReport(
        path=path,
        lines=lines,
        units=n_units,
        bytes=n_bytes,
        line_truncated=line_truncated,
        byte_truncated=byte_truncated,
        binds=binds,
        cut_line=cut_line,
        dropped=[DroppedEntry(*d) for d in dropped],
        warning=warning,
        loaded=loaded,
        agent=agent,
        entries=index_entries,
        health=IndexHealth(
            dangling=[index_entries[d] if isinstance(d, int) else IndexEntry(*d)
                      for d in dangling],
            orphans=list(orphans),
            listed=dict(listed),
            topic_dangling=[TopicDangling(*t) for t in topic_dangling],
            long_entries=[LongEntry(*e) for e in long_entries],
            broken_wikilinks=[BrokenLink(*b) for b in broken],
        ),
        problems=list(problems),
        cut_partial=cut_partial,
    )


def own_index_dirs(store: Store) -> set[str]:
    """The folders of a store that hold a MEMORY.md of their own."""
    return {
        m.rel_path.rsplit("/", 1)[0] for m in store.memories if m.is_index and "/" in m.rel_path
    }


def scan_store(
    location: StoreLocation,
    skip: set[str] | None = None,
    cache: ScanCache | None = None,
    walked: StoreWalk | None = None,
    *,
    index: bool = True,
    secrets: bool = True,
    lazy_index: bool = False,
) -> Store:
    """One store: its memories from their headers and (unless ``index`` is False) its
    MEMORY.md load report. ``walked``: the store's ``walk_store`` when the caller has just
    made it. ``secrets`` False: no memory's whole text is scanned for secrets.
    ``lazy_index``: the report's entries (and dropped and dangling ones) are built when looked
    at (``memtui index`` prints a few of 50,000), see ``compute_store_index``."""
    walk = walked if walked is not None else walk_store(location, skip)
    store = Store(location=location, exists=walk.exists)
    store.problems.extend(walk.problems)
    if not walk.exists:
        if not walk.problems and os.path.exists(location.path):
            store.problems.append(NOT_A_DIRECTORY)
        return store
    read = [read_memory_keyed(entry, location.path, cache, secrets=secrets)
            for entry in walk.entries]
    store.memories = [memory for memory, _st in read]
    own_dirs = own_index_dirs(store)
    digest = None
    if cache is not None and cache.path is not None and location.kind != StoreKind.SNAPSHOT:
        digest = store_digest(store, [st for _memory, st in read], cache.now)
    if index:
        store_index(store, own_dirs, cache, digest, listed=walk.listed, lazy=lazy_index)
    return store


def summary_facts(summary: Memory, store_root: Path, template: str) -> tuple[str | None, bool]:
    """A session summary's title and whether it is still the bare template.

    The title sits in the header. Only a summary small enough to equal the template is read
    in full; a larger one cannot be empty."""
    title = summary.summary_title
    if summary.size > len(template.encode("utf-8")) + EMPTY_SLACK_BYTES:
        return title, False
    text, _problems = load_full_text(summary, store_root)
    from memtui.core.stores.sessions import summary_is_empty

    return _summary_title(text), summary_is_empty(text, template)


def scan_session(
    location: StoreLocation, template: str, cache: ScanCache | None = None
) -> Store:
    """A session store, with the cwd and start time its transcript's first lines give."""
    store = scan_store(location, cache=cache)
    title, empty = session_summary_facts(store, template)
    from memtui.core.stores.sessions import session_info, transcript_head, transcript_of

    head = transcript_head(transcript_of(location), cache)
    store.session_info = session_info(location, head, title, empty)
    return store


def session_summary_facts(store: Store, template: str) -> tuple[str | None, bool]:
    """The title of a session store's ``summary.md`` and whether it is still the template
    (no title and not empty without one)."""
    summary = next((m for m in store.memories if m.rel_path == SUMMARY_NAME), None)
    if summary is None:
        return None, False
    return summary_facts(summary, store.path, template)


def discover_projects(ctx: Context, cache: ScanCache | None = None) -> list[ProjectRef]:
    """:func:`memtui.core.stores.projects.discover_projects`, imported when a scan needs it (with
    ``locations``: neither is on ``memtui index``'s path)."""
    from memtui.core.stores.projects import discover_projects as discover

    return discover(ctx, cache)


def scan_snapshot(
    location: StoreLocation, locations: Locations, cache: ScanCache | None = None
) -> Store:
    store = scan_store(location, cache=cache)
    from memtui.core.stores.snapshot import snapshot_info

    store.snapshot = snapshot_info(location, locations)
    store.location.scope = store.snapshot.acted_scope
    return store


def scan_progressively(
    ctx: Context, progress: Progress | None = None, cache: ScanCache | None = None
) -> Iterator[ScanResult]:
    """Scan store kind by store kind, yielding a growing partial result after each stage (the
    TUI shows the first trees while the rest is read); the last result is complete."""
    from memtui.core.stores.gitroot import current_branch
    from memtui.core.stores.locations import locate

    say = progress or (lambda _msg: None)
    locations = locate(ctx)
    git = locations.git
    result = ScanResult(
        project=ctx.project,
        claude_home=ctx.claude_home,
        stores=[],
        projects=[],
        git_root=git.root if git else None,
        git_branch=current_branch(git.checkout, cache) if git else None,
        complete=False,
        scanned=set(),
    )
    say("auto memory")
    auto = scan_store(locations.auto, store_skip(locations.auto), cache=cache)
    auto.problems.extend(locations.problems)
    result.stores += [auto, scan_store(locations.team, cache=cache)]
    result.scanned.update({StoreKind.AUTO, StoreKind.TEAM})
    yield snapshot_of(result)
    say("agent memory")
    result.stores += [scan_store(loc, cache=cache) for loc in locations.agents]
    result.stores += [scan_snapshot(loc, locations, cache) for loc in locations.snapshots]
    result.stores.append(scan_store(locations.agentmemory, cache=cache))
    result.scanned.update({StoreKind.AGENT, StoreKind.SNAPSHOT, StoreKind.AGENTMEMORY})
    yield snapshot_of(result)
    say("sessions")
    from memtui.core.stores.sessions import session_template

    template = session_template(ctx.claude_home)
    result.stores += [scan_session(loc, template, cache) for loc in locations.sessions]
    result.scanned.add(StoreKind.SESSION)
    say("projects")
    result.projects = discover_projects(ctx, cache)
    if cache is not None:
        cache.save()
    order = list(StoreKind)
    result.stores.sort(key=lambda store: order.index(store.kind))
    result.complete = True
    yield result


def snapshot_of(result: ScanResult) -> ScanResult:
    """A copy whose lists the scan will not grow further (partial results cross threads)."""
    return replace(result, stores=list(result.stores), scanned=set(result.scanned))


def scan(
    ctx: Context, progress: Progress | None = None, cache: ScanCache | None = None
) -> ScanResult:
    """Every store of the project in ``ctx``, header-only; ``cache`` reuses unchanged reads."""
    with gc_paused():
        *_, result = scan_progressively(ctx, progress, cache)
    return result


def cache_for(ctx: Context) -> ScanCache:
    """The scan cache the CLI and the TUI use for this CC home and project."""
    return ScanCache.for_scan(ctx.env, ctx.home, ctx.claude_home, ctx.project)
