"""The health of an index against its store: dangling entries, orphans, long entries, broken
wikilinks (docs/claude-code-rules.md#index-health)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence, Set

from memtui.core.contents import IndexEntry, IndexHealth, LoadReport, LongEntry
from memtui.core.lazylist import LazyList
from memtui.core.parse.index_entries import IndexEntries
from memtui.core.parse.lazyre import lazy_re
from memtui.core.parse.link_targets import folders_with_files, link_of
from memtui.core.parse.topic_files import TopicEntries, TopicFiles, follow_topic_files
from memtui.core.parse.wikilinks import broken_wikilinks

ENTRY_SOFT_LIMIT = 150


ENTRY_HARD_LIMIT = 200


_DAILY_LOG = lazy_re(r"(?:^|/)logs/\d{4}/\d{2}/\d{4}-\d{2}-\d{2}\.md$")


def _is_under(path: str, folder: str) -> bool:
    return folder in ("", ".") or path.startswith(folder.rstrip("/") + "/")


def _orphans(
    store_files: Set[str],
    pointed: Set[str],
    index_dir: str,
    own_index_dirs: Set[str],
    pointed_dirs: Sequence[str] = (),
) -> list[str]:
    """``pointed_dirs``: folders an entry links to; the files below them are not orphans."""
    nested = [d for d in own_index_dirs if d.strip("/") != index_dir.strip("/")]
    return sorted(
        rel
        for rel in store_files
        if rel not in pointed
        and _is_under(rel, index_dir)
        and posixpath.basename(rel) != "MEMORY.md"
        and not _DAILY_LOG.search(rel)
        and not any(_is_under(d, index_dir) and _is_under(rel, d) for d in nested)
        and not any(_is_under(rel, d) for d in pointed_dirs)
    )


def _long_entries(entries: Sequence[IndexEntry]) -> list[LongEntry]:
    found: list[LongEntry] = []
    if isinstance(entries, IndexEntries):
        entries = [entries[i] for i in entries.long_candidates(ENTRY_SOFT_LIMIT)]
    for entry in entries:
        length = len(entry.raw)
        if length > ENTRY_HARD_LIMIT:
            found.append(LongEntry(entry.line, length, ENTRY_HARD_LIMIT, entry.title))
        elif length > ENTRY_SOFT_LIMIT:
            found.append(LongEntry(entry.line, length, ENTRY_SOFT_LIMIT, entry.title))
    return found


def _links_one_by_one(
    entries: Sequence[IndexEntry], index_dir: str, store_files: Set[str],
    exists: Callable[[str], bool],
) -> tuple[list[IndexEntry], set[str], list[str]]:
    """The dangling entries, the store files and the folders entries point to, entry by entry
    (``index_health``'s reference for ``_links_at_once``)."""
    positions, pointed, pointed_dirs = _judge(
        [entry.target for entry in entries], index_dir, store_files, exists
    )
    return [entries[i] for i in positions], pointed, pointed_dirs


def _judge(
    targets: list[str | None], index_dir: str, store_files: Set[str],
    exists: Callable[[str], bool],
) -> tuple[list[int], set[str], list[str]]:
    """``link_of`` each target: the positions of the dangling ones, the store files and the
    folders they point to."""
    dangling: list[int] = []
    pointed: set[str] = set()
    pointed_dirs: list[str] = []
    for i, target in enumerate(targets):
        verdict = link_of(target, index_dir, store_files, exists)
        if verdict is None:
            dangling.append(i)
        elif verdict[0] == "file":
            pointed.add(verdict[1])
        elif verdict[0] == "folder":
            pointed_dirs.append(verdict[1])
    return dangling, pointed, pointed_dirs


_NOT_IN_PLAIN_NAME = lazy_re(r"[^\w\- .\n]")  # a character no _PLAIN_NAME has (or a newline)


_PLAIN_ASCII = (
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_- .\n"
)  # what ``\w``, ``-``, `` ``, ``.`` and a newline match of ASCII


def _plain_ascii(text: str) -> bool:
    """Whether ``text`` is ASCII holding only ``_PLAIN_ASCII`` (bytes.translate: C, no regex)."""
    return text.isascii() and not text.encode("ascii").translate(None, _PLAIN_ASCII)


def _odd_targets(targets: str) -> set[str]:
    """Of ``targets`` (one a line), those that are no ``_PLAIN_NAME``: a character it cannot
    hold, or a space or dot first. Searched through all at once: most targets are plain."""
    odd: set[str] = set()
    search = _NOT_IN_PLAIN_NAME.search
    found = None if _plain_ascii(targets) else search(targets)
    while found is not None:
        start = targets.rfind("\n", 0, found.start()) + 1
        end = targets.find("\n", found.start())
        end = len(targets) if end < 0 else end
        odd.add(targets[start:end])
        found = search(targets, end + 1)
    lines = "\n" + targets
    for first in ("\n ", "\n."):
        at = lines.find(first)
        while at >= 0:
            end = lines.find("\n", at + 1)
            odd.add(lines[at + 1 : end if end >= 0 else len(lines)])
            at = lines.find(first, at + 1)
    return odd


def _links_at_once(
    entries: IndexEntries, index_dir: str, store_files: Set[str], exists: Callable[[str], bool]
) -> tuple[LazyList[IndexEntry], set[str], list[str]]:
    """``_links_one_by_one`` for all entries at once: each distinct target is judged once,
    and the common dangling one, a bare ``name.md`` that is no store file (``link_of`` finds
    it dangling at once), without a look."""
    targets = entries.targets()
    judged: set[str | None]
    if index_dir:
        judged = set(targets)
    else:
        present = list(filter(None, targets))
        joined = "\n".join(present)
        judged = set(_odd_targets(joined))
        if store_files or joined.count(".md\n") + joined.endswith(".md") < len(present):
            # some target is a store file or has no .md: the plain ones of those judged too
            judged |= {t for t in present if t in store_files or not t.endswith(".md")}
    judged.discard(None)
    distinct = list(judged)
    found, pointed, pointed_dirs = _judge(distinct, index_dir, store_files, exists)
    dangles = {distinct[i] for i in found}
    if judged or None in targets:
        positions: Sequence[int] = [
            i for i, target in enumerate(targets)
            if (target in dangles if target in judged else target is not None)
        ]
    else:  # every target a plain name.md that is no store file: every entry dangles
        positions = range(len(targets))
    return LazyList(len(positions), lambda i: entries[positions[i]]), pointed, pointed_dirs


def index_health(
    report: LoadReport,
    *,
    store_files: Set[str],
    memory_names: dict[str, str],
    link_sources: dict[str, str],
    source_links: dict[str, list[str]] | None = None,
    own_index_dirs: Set[str] = frozenset(),
    index_dir: str = "",
    folder_exists: Callable[[str], bool] | None = None,
    topic_files: Set[str] = frozenset(),
    topic_entries: TopicEntries | None = None,
) -> IndexHealth:
    """Problems of an index against its store.

    ``store_files``: posix paths (from the store root) of every ``.md`` file but ``MEMORY.md``
    files; ``memory_names``: name-slug → path; ``link_sources``: path → text searched for
    ``[[wikilinks]]``; ``source_links``: path → the ``wikilinks`` of its text, already
    extracted (searched before ``link_sources``); ``own_index_dirs``: folders holding their
    own ``MEMORY.md`` (files below them are not orphans of this index); ``index_dir``: the
    folder of this ``MEMORY.md``; ``folder_exists``: whether a folder of the store (posix,
    from the root) exists (by default: when a store file lies below it).
    An entry pointing to a folder (``[notes/](notes/)``) is dangling when the folder does not
    exist; when it does, it is no problem and the files below it are not orphans.
    Daily logs (``logs/YYYY/MM/YYYY-MM-DD.md``) are never orphans. Entry lengths are counted in
    characters (code points), limits 150 ("keep under ~150") and 200.
    ``topic_files``: the files of ``store_files`` distil wrote (``is_topic_file``);
    ``topic_entries``: their entries, asked only for those an entry points to. A memory such a
    file lists is no orphan (``IndexHealth.listed`` says which file lists it); an entry of one
    that points nowhere is dangling (``IndexHealth.topic_dangling``): the one rule distil and
    the scan share (``follow_topic_files``).
    """
    exists = folder_exists or folders_with_files(store_files)
    entries = report.entries
    dangling: Sequence[IndexEntry]
    if isinstance(entries, IndexEntries):
        dangling, pointed, pointed_dirs = _links_at_once(entries, index_dir, store_files, exists)
    else:
        dangling, pointed, pointed_dirs = _links_one_by_one(entries, index_dir, store_files, exists)
    topics = (
        follow_topic_files(pointed, topic_files, topic_entries, store_files, exists)
        if topic_entries is not None and topic_files
        else TopicFiles()
    )
    return IndexHealth(
        dangling=dangling,
        orphans=_orphans(store_files, pointed | topics.listed.keys(), index_dir, own_index_dirs,
                         pointed_dirs),
        listed=topics.listed,
        topic_dangling=topics.dangling,
        long_entries=_long_entries(report.entries),
        broken_wikilinks=broken_wikilinks(
            store_files=store_files,
            memory_names=memory_names,
            link_sources=link_sources,
            source_links=source_links,
        ),
    )
