"""Build the model of every store: header reads for the facts Claude Code's header scan sees,
each memory's whole text (up to its cap) for secrets only, problems per file, no whole
transcript. Everything read is cached per file by stat. A store's index is ``store_index``'s.
A progressive scan reads every store from its memories' headers first (the TUI lays its panes
out from that result); the whole texts of the memories not in the cache (``Deferred``: their
secrets) and the other projects are read after it, for the complete result."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from memtui.core.cache import ScanCache, gc_paused, stat_key
from memtui.core.contents import Memory, ScanResult, SecretMark, Store
from memtui.core.fileread import ReadResult, read_full, read_header
from memtui.core.model import Frontmatter, StoreKind, StoreLocation
from memtui.core.parse.frontmatter import parse_frontmatter
from memtui.core.parse.topic_files import is_topic_file, topic_entries
from memtui.core.parse.wikilinks import wikilinks
from memtui.core.scan.cached_report import store_digest
from memtui.core.scan.store_index import (
    INDEX_NAME,
    LINKS_KIND,
    TOPIC_KIND,
    own_index_dirs,
    store_index,
)
from memtui.core.stores.walk import NOT_A_DIRECTORY, FileEntry, StoreWalk, store_skip, walk_store

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:  # locate(), the git branch and projects: only a whole scan needs them
    from typing import Any

    from memtui.core.model import ProjectRef
    from memtui.core.stores.locations import Context, Locations

SUMMARY_NAME = "summary.md"

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
    entry: FileEntry, store_root: Path, cache: ScanCache | None = None, *, secrets: bool = True,
    deferred: list[Deferred] | None = None,
) -> tuple[Memory, os.stat_result | None]:
    """``read_memory`` and the stat of the file it describes (None unless a regular file).
    ``secrets`` False: the whole text is not scanned (``memtui index`` needs no secrets), and
    nothing is cached. ``deferred``: a memory not in the cache is read from its header only
    and what its whole text gives (its secrets, and the cache's entries) is left for
    :func:`finish_deferred`, appended to ``deferred``."""
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
    if not secrets:
        return memory, st
    later = Deferred(memory, entry.path, store_root, header, text, st, cache)
    if deferred is not None:
        deferred.append(later)
    else:
        later.finish()
    return memory, st


@dataclass
class Deferred:
    """What a memory's whole text still has to give after its header was read: its secrets
    and the cache's entries for it (the whole-file read of a scan, made once per file)."""

    memory: Memory
    path: str
    store_root: Path
    header: ReadResult
    text: str
    st: os.stat_result | None
    cache: ScanCache | None

    def finish(self) -> None:
        memory, cache, st = self.memory, self.cache, self.st
        whole = whole_text(self.path, self.store_root, self.header, self.text)
        if whole.text is not None:
            memory.secrets = secret_marks(whole.text, memory.rel_path)
        if cache is not None and cache.path is not None and st is not None and whole.same:
            cache.put("memory", self.path, st, memory_payload(memory))
            if whole.read and not whole.binary and not memory.is_index:
                # what ``whole_file_links`` would read the file again for (the TUI's links
                # check)
                cache.put(LINKS_KIND, self.path, st, wikilinks(whole.text or ""))
            if (whole.text is not None and not whole.binary
                    and is_topic_file(memory.frontmatter.data)):
                # what the index health reads a topic file distil wrote for: its entries
                cache.put(TOPIC_KIND, self.path, st, topic_entries(whole.text))


def finish_deferred(deferred: list[Deferred]) -> set[int]:
    """Scan the whole text of every memory left in ``deferred`` (and empty it); the ``id`` of
    each memory found to hold a secret."""
    found: set[int] = set()
    for later in deferred:
        later.finish()
        if later.memory.secrets:
            found.add(id(later.memory))
    deferred.clear()
    return found


def with_secrets_shown(stores: list[Store], found: set[int]) -> None:
    """Each store holding a memory of ``found`` replaced by a copy: the memory was shown
    before its secrets were known, and a view keeps a store object it has shown as it was."""
    for i, store in enumerate(stores):
        if any(id(memory) in found for memory in store.memories):
            stores[i] = replace(store)


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
    whole file, what the header's read took when that was the whole file (``whole``), else
    the file read whole (``read_full``: up to its cap), the one whole-file read of a scan,
    made once per file (its secrets and links are then cached by stat)."""
    if not header.readable:
        return WholeText(None)
    if header.complete:
        return WholeText(text)
    if header.whole is not None:  # the header's one read took the whole file
        whole = header.whole
        return WholeText(whole.decode("utf-8", errors="replace"), True, b"\x00" in whole)
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


def walked_store(location: StoreLocation, walk: StoreWalk) -> Store:
    """The store ``walk`` listed, before its memories: its problems (a path that is there but
    no directory says so)."""
    store = Store(location=location, exists=walk.exists)
    store.problems.extend(walk.problems)
    if not walk.exists and not walk.problems and os.path.exists(location.path):
        store.problems.append(NOT_A_DIRECTORY)
    return store


def scan_store(
    location: StoreLocation,
    skip: set[str] | None = None,
    cache: ScanCache | None = None,
    walked: StoreWalk | None = None,
    *,
    index: bool = True,
    secrets: bool = True,
    lazy_index: bool = False,
    deferred: list[Deferred] | None = None,
) -> Store:
    """One store: its memories from their headers and (unless ``index`` is False) its
    MEMORY.md load report. ``walked``: the store's ``walk_store`` when the caller has just
    made it. ``secrets`` False: no memory's whole text is scanned for secrets.
    ``lazy_index``: the report's entries (and dropped and dangling ones) are built when looked
    at (``memtui index`` prints a few of 50,000), see ``compute_store_index``. ``deferred``:
    the memories' whole texts are left to :func:`finish_deferred` (see ``read_memory_keyed``)."""
    walk = walked if walked is not None else walk_store(location, skip)
    store = walked_store(location, walk)
    if not walk.exists:
        return store
    read = [read_memory_keyed(entry, location.path, cache, secrets=secrets, deferred=deferred)
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
    location: StoreLocation, template: str, cache: ScanCache | None = None,
    deferred: list[Deferred] | None = None,
) -> Store:
    """A session store, with the cwd and start time its transcript's first lines give
    (``deferred``: see ``scan_store``)."""
    store = scan_store(location, cache=cache, deferred=deferred)
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
    location: StoreLocation, locations: Locations, cache: ScanCache | None = None,
    deferred: list[Deferred] | None = None,
) -> Store:
    store = scan_store(location, cache=cache, deferred=deferred)
    from memtui.core.stores.snapshot import snapshot_info

    store.snapshot = snapshot_info(location, locations)
    store.location.scope = store.snapshot.acted_scope
    return store


def scan_progressively(
    ctx: Context, progress: Progress | None = None, cache: ScanCache | None = None
) -> Iterator[ScanResult]:
    """Scan store kind by store kind, yielding a growing partial result after each stage (the
    TUI shows the first trees while the rest is read); the last result is complete.

    Every store is read from its memories' headers first: the result that has them all (every
    kind in ``scanned``, not yet ``complete``) is what the panes are laid out from. The whole
    texts of the memories not in the cache (their secrets) and the other projects are read
    after it, for the complete result (issue 25: no work before the first paint that it does
    not need)."""
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
        claude_code_version=locations.version,
    )
    say("auto memory")
    # The trees want the headers only: the whole texts of their memories (secrets) are read
    # after every store's headers (the complete result has them all).
    deferred: list[Deferred] = []
    auto = scan_store(locations.auto, store_skip(locations.auto), cache=cache, deferred=deferred)
    auto.problems.extend(locations.problems)
    result.stores += [auto, scan_store(locations.team, cache=cache, deferred=deferred)]
    result.scanned.update({StoreKind.AUTO, StoreKind.TEAM})
    yield snapshot_of(result)
    say("agent memory")
    result.stores += [scan_store(loc, cache=cache, deferred=deferred) for loc in locations.agents]
    result.stores += [
        scan_snapshot(loc, locations, cache, deferred) for loc in locations.snapshots
    ]
    result.stores.append(scan_store(locations.agentmemory, cache=cache, deferred=deferred))
    result.scanned.update({StoreKind.AGENT, StoreKind.SNAPSHOT, StoreKind.AGENTMEMORY})
    yield snapshot_of(result)
    say("sessions")
    from memtui.core.stores.sessions import session_template

    template = session_template(ctx.claude_home)
    result.stores += [
        scan_session(loc, template, cache, deferred) for loc in locations.sessions
    ]
    result.scanned.add(StoreKind.SESSION)
    order = list(StoreKind)
    result.stores.sort(key=lambda store: order.index(store.kind))
    yield snapshot_of(result)  # every store from its headers: the panes' widths are known
    say("secrets")
    with_secrets_shown(result.stores, finish_deferred(deferred))
    say("projects")
    result.projects = discover_projects(ctx, cache)
    if cache is not None:
        cache.save()
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
