"""An index's health brought up to date after a few memory files changed, without judging the
other memories again.

A live refresh of a store of 3,000 memories where one file came, went or changed (MEMORY.md
itself unchanged) needs the health ``incremental.health_again`` computes: every entry judged
against the store's files, every file checked for orphanhood, every ``[[wikilink]]`` matched
against every memory's names. Only the changed files can change any of that, so
:func:`health_delta` takes the previous report's verdicts and changes those of the changed
files: the entries whose target may name one of them are judged again (the others keep their
verdict), a changed file joins or leaves the orphans, and the wikilinks are matched again only
when some memory (or MEMORY.md) holds one (the names of the memories are collected then).

It answers only when that is sure to give what ``health_again`` gives; None otherwise (a
changed folder, a file below a folder, an index file, a topic file distil wrote or an index
that lists through one, a target whose verdict moves to another file): the caller computes
the health again. ``tests/core/scan/test_health_delta.py`` compares both on random edits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence, Set
from dataclasses import replace
from urllib.parse import unquote

from memtui.core.contents import BrokenLink, IndexEntry, LoadReport, Memory, Store
from memtui.core.fileread import read_full
from memtui.core.model import StoreKind
from memtui.core.parse.lazyre import lazy_re
from memtui.core.parse.link_targets import is_external_target, link_of, resolve_target
from memtui.core.parse.topic_files import is_topic_file
from memtui.core.parse.wikilinks import broken_wikilinks, wikilinks
from memtui.core.scan.store_index import INDEX_NAME, _link_targets, is_store_folder

_PLAIN_NAME = lazy_re(r"[\w\-][\w\- .]*")
"""A target ``link_of`` compares with the store files as it is (as ``link_targets``)."""


class _StoreFiles(Set[str]):
    """The ``store_files`` of ``index_health`` for a store's memories (``.md`` files but the
    index files), answering membership from a dict by path instead of a set built of 3,000."""

    def __init__(self, by_rel: dict[str, Memory]) -> None:
        self._by_rel = by_rel

    def __contains__(self, rel: object) -> bool:
        memory = self._by_rel.get(rel) if isinstance(rel, str) else None
        return memory is not None and is_store_file(memory)

    def __iter__(self) -> Iterator[str]:
        return (rel for rel, memory in self._by_rel.items() if is_store_file(memory))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def is_store_file(memory: Memory) -> bool:
    """Whether ``memory`` is one of the ``store_files`` the health of MEMORY.md judges (as
    ``store_index._link_targets`` makes them)."""
    return (not memory.is_index and memory.rel_path != INDEX_NAME
            and memory.rel_path.endswith(".md"))


def _applies(old: Store, new: Store, report: LoadReport, changes: Set[str],
             before: dict[str, Memory], after: dict[str, Memory]) -> bool:
    """Whether only the changed top-level files can change the health: each change is a file
    of the store root (a memory before or after, no index file, no topic file), and the store
    holds no topic file distil wrote (its entries follow the files: listed, dangling)."""
    health = report.health
    if health.listed or health.topic_dangling or old.kind != new.kind:
        return False
    if any(is_topic_file(m.frontmatter.data) for m in new.memories):
        return False  # the files it lists follow the store's files (listed, dangling)
    for rel in changes:
        if "/" in rel or rel == INDEX_NAME:
            return False
        memories = [m for m in (before.get(rel), after.get(rel)) if m is not None]
        if not memories:
            return False  # no memory then or now: a folder, or a file no walk lists
        if any(m.is_index or is_topic_file(m.frontmatter.data) for m in memories):
            return False
    return True


def _names_changed(target: str, changed: Set[str]) -> bool:
    """Whether a target that is no plain name can name one of the ``changed`` files: as
    ``link_of`` looks it up among the store files, as it is or unquoted, resolved from the
    store root (an external one names none). Any other verdict of it (a folder, dangling, a
    file that did not change) is the same before and after: the files differ in ``changed``
    only, and the folders not at all. The changed files are of the store root (``_applies``):
    a path resolved to one ends in it, so a form without the name in it is not resolved."""
    forms = [form for form in {target, unquote(target)} if any(rel in form for rel in changed)]
    if not forms or is_external_target(target):
        return False
    return any(resolve_target(form) in changed for form in forms)


def _candidates(entries: Sequence[IndexEntry], changed: Set[str]) -> tuple[list[int], list[int]]:
    """Positions of the entries whose verdict a change of the ``changed`` files may move (a
    target naming one of them: :func:`_names_changed`), and of the entries whose target may
    name a folder (no ``.md`` at its end)."""
    files: list[int] = []
    folders: list[int] = []
    plain = _PLAIN_NAME.fullmatch
    for i, entry in enumerate(entries):
        target = entry.target
        if target is None:
            continue
        if target in changed or (not plain(target) and _names_changed(target, changed)):
            files.append(i)
        if not target.endswith(".md"):
            folders.append(i)
    return files, folders


def _broken(store: Store, index_text: str) -> list[BrokenLink]:
    """The broken wikilinks ``health_again`` finds (the memories' header links, then
    MEMORY.md's): the names of the memories are collected only when some link is there."""
    sources = {m.rel_path: m.links for m in store.memories
               if m.links and not m.is_index and m.rel_path != INDEX_NAME}
    index_links = wikilinks(index_text)
    if not sources and not index_links:
        return []
    _others, files, names = _link_targets(store, INDEX_NAME)
    return broken_wikilinks(store_files=files, memory_names=names,
                            link_sources={INDEX_NAME: index_text}, source_links=sources)


def _moved(was: tuple[str, str] | None, now: tuple[str, str] | None, changed: Set[str]) -> bool:
    """Whether an entry's verdict moved in a way only judging every entry again can follow:
    to or from a folder, or a file that did not change (it gains or loses a pointer)."""
    return was != now and any(
        verdict is not None and (verdict[0] != "file" or verdict[1] not in changed)
        for verdict in (was, now)
    )


def health_delta(
    old: Store, new: Store, report: LoadReport, changes: Set[str],
    before: dict[str, Memory] | None = None,
) -> LoadReport | None:
    """``report`` (of ``old``'s MEMORY.md, the file ``new`` holds unchanged) with its health
    as ``incremental.health_again(new, report)`` computes it, from the verdicts ``report``
    holds and the files of ``changes`` (posix, from the store root) only; None when that is
    not sure to give the same (the caller computes it again). ``before``: ``old``'s memories
    by path, when the caller has them."""
    before = before if before is not None else {m.rel_path: m for m in old.memories}
    after = {m.rel_path: m for m in new.memories}
    if not _applies(old, new, report, changes, before, after):
        return None
    entries = report.entries
    old_files, new_files = _StoreFiles(before), _StoreFiles(after)
    checked: dict[str, bool] = {}

    def exists(rel: str) -> bool:
        if rel not in checked:
            checked[rel] = is_store_folder(new.path, rel)
        return checked[rel]

    changed = frozenset(changes)
    maybe, folder_like = _candidates(entries, changed)
    gained: set[int] = set()  # entries dangling before, pointing to a changed file now
    lost: set[int] = set()  # entries pointing to a changed file before, dangling now
    pointed: set[str] = set()  # the changed files an entry points to now
    for i in maybe:
        target = entries[i].target
        was = link_of(target, "", old_files, exists)
        now = link_of(target, "", new_files, exists)
        if _moved(was, now, changed):
            return None
        if now is not None and now[0] == "file" and now[1] in changed:
            pointed.add(now[1])
        if was is None and now is not None:
            gained.add(i)
        elif was is not None and now is None:
            lost.add(i)
    root_pointed = any(link_of(entries[i].target, "", new_files, exists) == ("folder", ".")
                       for i in folder_like)
    health = report.health
    dangling: Sequence[IndexEntry] = health.dangling
    if gained or lost:
        position = {id(entry): i for i, entry in enumerate(entries)}
        keep = {position[id(e)] for e in health.dangling} - gained | lost
        dangling = [entries[i] for i in sorted(keep)]
    orphans = health.orphans
    if new.kind != StoreKind.AGENTMEMORY:
        gone = {rel for rel in changed if rel not in new_files or rel in pointed}
        come = {rel for rel in changed if rel in new_files and rel not in pointed
                and not root_pointed}
        if gone & set(orphans) or come - set(orphans):
            orphans = sorted((set(orphans) - gone) | come)
    result = read_full(new.path / INDEX_NAME, new.path)
    text = result.data.decode("utf-8", errors="replace") if result.readable else ""
    fresh = replace(health, dangling=list(dangling), orphans=list(orphans),
                    broken_wikilinks=_broken(new, text), wikilinks_checked="headers")
    return replace(report, health=fresh)
