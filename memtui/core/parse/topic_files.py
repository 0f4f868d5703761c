"""The topic files distil wrote: their entries were index entries, so the memories they list
are no orphans when the index points to them, and their entries may dangle
(docs/claude-code-rules.md#index-health)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field

from memtui.core.contents import TopicDangling
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.link_targets import folders_with_files, link_of

DISTILLED_KEY = "distilled-from"
"""The frontmatter key of the topic files distil writes: their entries were index entries, so a
memory one of them lists (when the index points to the file) is no orphan."""


TopicEntry = tuple[int, str, str]
"""An entry of a topic file: its 1-based line, title and link target (as written)."""


TopicEntries = Callable[[str], Sequence[TopicEntry] | None]
"""A topic file (posix, from the store root) → its entries with a target (``topic_entries``
of its whole text); None when it cannot be read."""


def is_topic_file(data: object) -> bool:
    """Whether a memory's frontmatter ``data`` marks it as a topic file distil wrote."""
    return isinstance(data, dict) and DISTILLED_KEY in data


def topic_entries(text: str) -> list[TopicEntry]:
    """The entries of ``text`` that have a link target (``parse_entries``): (line, title,
    target as written)."""
    return [(entry.line, entry.title, entry.target)
            for entry in parse_entries(text) if entry.target]


@dataclass
class TopicFiles:
    """What the topic files distil wrote that the index points to say (``follow_topic_files``)."""

    listed: dict[str, str] = field(default_factory=dict)
    """memory → the first such file (by name) listing it."""
    dangling: list[TopicDangling] = field(default_factory=list)
    """Their entries whose target names no file or folder of the store (by file, line)."""


def follow_topic_files(
    pointed: Set[str],
    topic_files: Set[str],
    entries_of: TopicEntries,
    store_files: Set[str],
    exists: Callable[[str], bool] | None = None,
) -> TopicFiles:
    """The topic files distil wrote that the index points to (one level deep): the memories
    they list, each with the first such file (by name) listing it (memories the index points
    to itself are not in it), and their dangling entries, judged as the index's own are
    (``link_of``, from the topic file's folder). Only ``entries_of`` the topic files the index
    points to is asked for (the caller reads those files, and only those)."""
    found = TopicFiles()
    exists = exists or folders_with_files(store_files)
    for topic in sorted(pointed & topic_files):
        entries = entries_of(topic)
        if entries is None:
            continue
        folder = posixpath.dirname(topic)
        for line, title, target in entries:
            verdict = link_of(target, folder, store_files, exists)
            if verdict is None:
                found.dangling.append(TopicDangling(topic, line, title, target))
            elif verdict[0] == "file" and verdict[1] != topic and verdict[1] not in pointed:
                found.listed.setdefault(verdict[1], topic)
    return found
