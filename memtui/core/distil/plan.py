"""``plan_distil``: read a Claude Code store (the index whole, every memory's header) and plan
its distilled MEMORY.md (docs/claude-code-rules.md#distil)."""

from __future__ import annotations

import os
import posixpath
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote

from memtui.core.contents import Store
from memtui.core.distil.fit import fit
from memtui.core.distil.layout import (
    Layout,
    MemoryFacts,
    build_layout,
    collapse,
    drop_topic_dangling,
    keep_in_place,
)
from memtui.core.distil.model import DistilCancelled, DistilChange, DistilPlan
from memtui.core.distil.outcome import Sources
from memtui.core.distil.render import IndexPlan, measure, render_index
from memtui.core.fileread import read_full, read_header
from memtui.core.model import StoreKind
from memtui.core.parse.frontmatter import parse_frontmatter
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.index_health import index_health
from memtui.core.parse.link_targets import is_external_target, resolve_target
from memtui.core.parse.load_report import load_report
from memtui.core.parse.topic_files import TopicEntry, is_topic_file, topic_entries
from memtui.core.stores.walk import StoreWalk, store_skip, walk_store
from memtui.core.write.lock import live_lock
from memtui.core.write.ops.memory import INDEX_NAME, lock_dir_of
from memtui.core.write.proposal import DirListing, FileRead, sha256_hex

Progress = Callable[[str, int, int], None]
Cancelled = Callable[[], bool]
MARKDOWN = ".md"
KINDS = (StoreKind.AUTO, StoreKind.TEAM, StoreKind.AGENT)
"""The stores this planner distils (agentmemory has its own shape)."""
DISTIL_KINDS = (*KINDS, StoreKind.AGENTMEMORY)
"""The stores :func:`plan_distil` plans: these, and an agentmemory home
(:mod:`memtui.core.distil.agentmemory_plan`)."""


class _Reader:
    """Reads a store's files for a plan, recording what each read saw."""

    def __init__(self, store: Store, progress: Progress | None, cancelled: Cancelled | None):
        self.store = store
        self.progress = progress
        self.cancelled = cancelled
        self.sources = Sources(index_sha=None)
        self.headers: dict[str, MemoryFacts] = {}
        self.distilled: list[str] = []
        self.index_dirs: set[str] = set()
        self.files: set[str] = set()
        """Every memory file listed (readable or not)."""
        self.texts: dict[str, str] = {}
        """The memories read whole (each read once), by path."""
        self.undecodable: list[str] = []
        """Memories whose names are not valid UTF-8: an index line cannot link them."""

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise DistilCancelled("distil cancelled")

    def memories(self) -> None:
        """Every memory's header (each a revision-checked read)."""
        location = self.store.location
        walk = walk_store(location, store_skip(location))
        files = [e for e in walk.entries if posixpath.basename(e.rel_path) != INDEX_NAME]
        self.index_dirs = {
            posixpath.dirname(e.rel_path) for e in walk.entries
            if posixpath.basename(e.rel_path) == INDEX_NAME and "/" in e.rel_path
        }
        self.files = {e.rel_path for e in files}
        self.sources.listings = listings_of(walk)
        total = len(files)
        for done, entry in enumerate(files):
            self.check()
            if self.progress is not None:
                self.progress("reading memories", done, total)
            if not _is_utf8(entry.rel_path):
                self.undecodable.append(entry.rel_path)
                continue
            header = read_header(entry.path, location.path, regular=entry.regular)
            if not header.readable or b"\0" in header.data:
                continue
            self.sources.reads.append(
                FileRead(location.path / entry.rel_path, sha256_hex(header.data),
                         len(header.data)))
            text = header.data.decode("utf-8", "replace").lstrip("\ufeff").replace("\r", "")
            fm = parse_frontmatter(text)
            stem = posixpath.splitext(posixpath.basename(entry.rel_path))[0]
            self.headers[entry.rel_path] = MemoryFacts(
                key=entry.rel_path,
                title=collapse(fm.name or "") or stem,
                description=fm.description or "",
                type=fm.type or "other",
                mtime=header.mtime,
                header=text,
            )
            if is_topic_file(fm.data):
                self.distilled.append(entry.rel_path)
        if self.progress is not None:
            self.progress("reading memories", total, total)

    def whole(self, rel: str) -> str | None:
        """A memory's whole text (UTF-8), recorded for the revision check; None if unreadable.
        Read once: the same text for the plan's every use of it."""
        if rel in self.texts:
            return self.texts[rel]
        path = self.store.path / rel
        result = read_full(path, self.store.path)
        if not result.readable or not result.complete:
            return None
        try:
            text = result.data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        self.sources.expected[rel] = sha256_hex(result.data)
        self.texts[rel] = text
        return text

    def topic_entries(self, rel: str) -> list[TopicEntry] | None:
        """The entries of a topic file distil wrote (read whole, revision-checked)."""
        whole = self.whole(rel)
        return None if whole is None else topic_entries(whole)


def listings_of(walk: StoreWalk) -> list[DirListing]:
    """Each directory the walk listed with the ``.md`` names it found there (its memory
    files, and directories so named), so that apply refuses when a memory was added or removed
    since the plan: a memory added then would be left out of the index it rewrites. A file added
    between the walk and this listing is not among the names, so apply refuses then too."""
    found: dict[str, set[str]] = {}
    for directory in walk.dirs:
        try:
            with os.scandir(directory) as entries:
                found[directory] = {
                    e.name for e in entries
                    if e.name.endswith(MARKDOWN) and e.is_dir(follow_symlinks=False)
                }
        except OSError:
            continue  # not listed (its problem is the walk's): nothing to compare
    for entry in walk.entries:
        names = found.get(os.path.dirname(entry.path))
        if names is not None:
            names.add(os.path.basename(entry.path))
    return [DirListing(Path(d), tuple(sorted(n)), MARKDOWN) for d, n in sorted(found.items())]


def _targets(text: str, files: set[str]) -> dict[int, str]:
    """1-based line → the memory an entry of ``text`` (at the store root) points to."""
    found: dict[int, str] = {}
    for entry in parse_entries(text):
        target = entry.target
        if target is None or is_external_target(target):
            continue
        for candidate in (target, unquote(target)):
            resolved = resolve_target(candidate)
            if resolved in files:
                found[entry.line] = resolved
                break
    return found


def _lock_refusal(store: Store) -> str | None:
    lock_dir = lock_dir_of(store.kind, store.path)
    holder = live_lock(lock_dir) if lock_dir is not None else None
    if holder is None:
        return None
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(holder.since))
    return (f"a live .consolidate-lock is held by PID {holder.pid} (since {since}): Claude Code "
            "is consolidating this memory; distil again when it is done")


def _read_index(reader: _Reader) -> tuple[str, list[str]]:
    """The index text and refusals (an index that cannot be rewritten without loss)."""
    path = reader.store.path / INDEX_NAME
    result = read_full(path, reader.store.path)
    if result.missing:
        return "", []
    if not result.readable or not result.complete:
        return "", [f"{INDEX_NAME} cannot be read whole: {'; '.join(result.problems)}"]
    reader.sources.index_sha = sha256_hex(result.data)
    try:
        return result.data.decode("utf-8"), []
    except UnicodeDecodeError as err:
        return "", [f"{INDEX_NAME} is not valid UTF-8 (byte {err.start}): distil leaves it alone"]


def plan_distil(
    store: Store,
    *,
    headroom: float = 0.7,
    now: datetime | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> DistilPlan:
    """The distil plan of a Claude Code store (auto, team or agent memory) or of an
    agentmemory home (its plan at ``now``, default the current time: see
    :func:`~memtui.core.distil.agentmemory_plan.plan_agentmemory`); ValueError for another
    kind. ``progress(step, done, total)`` after each file; ``cancelled()`` is checked between
    files (:class:`DistilCancelled`). Deterministic: the same tree (and ``now``), the same
    plan."""
    if store.kind == StoreKind.AGENTMEMORY:
        from memtui.core.distil.agentmemory_plan import plan_agentmemory

        return plan_agentmemory(store, now=now or datetime.now(UTC), headroom=headroom,
                                progress=progress, cancelled=cancelled)
    if store.kind not in KINDS:
        raise ValueError(f"distil plans Claude Code stores (auto, team, agent) and agentmemory "
                         f"homes, not {store.kind}")
    reader = _Reader(store, progress, cancelled)
    agent = store.kind == StoreKind.AGENT
    text, refusals = _read_index(reader)
    reader.memories()
    reader.check()
    files = reader.files
    report = load_report(str(store.path / INDEX_NAME), text, agent=agent)
    # the scan's index health: a memory a topic file distil wrote lists is no orphan
    health = index_health(report, store_files=files, memory_names={}, link_sources={},
                          own_index_dirs=reader.index_dirs, topic_files=set(reader.distilled),
                          topic_entries=reader.topic_entries)
    orphans = [rel for rel in health.orphans if rel in reader.headers]
    changes: list[DistilChange] = []
    layout = build_layout(text, reader.headers, {e.line for e in health.dangling},
                          _targets(text, files), orphans, changes)
    layout.taken = set(files) | {INDEX_NAME}
    # the topic files' own dangling entries, as the index health finds them, go too
    drop_topic_dangling(layout, health.topic_dangling, reader.texts, changes)
    changes = _with_appends(reader, layout, changes)
    if _fits_in_place(layout, changes, agent=agent, headroom=headroom):
        changes = keep_in_place(layout, changes)
    lock = _lock_refusal(store)
    plan = IndexPlan(
        store_kind=store.kind,
        store_path=store.path,
        store_title=store.title,
        index_path=store.path / INDEX_NAME,
        agent=agent,
        old_text=text,
        changes=changes,
        before=measure(text, agent=agent, target=headroom)[0],
        headroom=headroom,
        refusals=refusals + ([lock] if lock else []),
        lock_dir=lock_dir_of(store.kind, store.path),
        layout=layout,
        sources=reader.sources,
    )
    if not refusals:
        fit(plan, layout)
    if not text:
        plan.notes.append(f"there is no {INDEX_NAME}: distil writes one")
    plan.notes += [f"{rel}: its name is not valid UTF-8, so no line of {INDEX_NAME} can link "
                   "it: left out (rename it to list it)" for rel in reader.undecodable]
    return plan


def _fits_in_place(
    layout: Layout, changes: list[DistilChange], *, agent: bool, headroom: float
) -> bool:
    """Whether the index fits with every change but the regroups (regrouping only adds
    headings: when this fits, no entry needs to move)."""
    regroups = {c.id for c in changes if c.kind == "regroup"}
    if not regroups:
        return False
    text = render_index(layout, lambda change_id: change_id is not None
                        and change_id not in regroups)
    return measure(text, agent=agent, target=headroom)[0].fits


def _is_utf8(name: str) -> bool:
    """Whether a file name decoded with surrogateescape came from valid UTF-8 bytes."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _with_appends(
    reader: _Reader, layout: Layout, changes: list[DistilChange]
) -> list[DistilChange]:
    """Shortened hooks whose full text is not in their memory's header: the full text is
    appended to the memory file; when that file cannot be read whole, the hook stays long."""
    from memtui.core.distil.layout import TopicAppend

    dropped: set[str] = set()
    for entry in sorted(layout.entries.values(), key=lambda e: e.old_line or 0):
        if entry.shorten_id is None or not entry.append_hook:
            continue
        append = layout.appends.get(entry.key)
        if append is None:
            whole = reader.whole(entry.key)
            if whole is None:
                dropped.add(entry.shorten_id)
                entry.short = entry.shorten_id = None
                continue
            append = layout.appends[entry.key] = TopicAppend(
                whole, reader.sources.expected[entry.key])
        append.parts.append((entry.shorten_id, entry.hook))
    return [c for c in changes if c.id not in dropped]
