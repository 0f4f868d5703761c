"""``[[wikilinks]]``: those of a text, outside code, and the ones that match no memory of the
store (docs/claude-code-rules.md#index-health, "broken wikilinks")."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Set
from itertools import chain

from memtui.core.contents import BrokenLink
from memtui.core.parse.lazyre import lazy_re

_WIKILINK = lazy_re(r"\[\[([^\[\]\n]*)\]\]")


_FENCED_CODE = lazy_re(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M)


_CODE_SPAN = lazy_re(r"`[^`\n]*`")


def wikilinks(text: str) -> list[str]:
    """The ``[[x]]`` links of ``text`` as written, outside code blocks and code spans."""
    if "[[" not in text:
        return []
    text = _FENCED_CODE.sub("", text)
    text = _CODE_SPAN.sub("", text)
    return [match.group(1) for match in _WIKILINK.finditer(text)]


def wikilink_target(link: str) -> str:
    """``name#heading|alias`` → ``name``."""
    return link.split("|", 1)[0].split("#", 1)[0].strip()


def _known_names(store_files: Set[str], memory_names: dict[str, str]) -> set[str]:
    known = {name.casefold() for name in memory_names}
    for rel in store_files:
        known.add(posixpath.splitext(posixpath.basename(rel))[0].casefold())
        known.add(posixpath.splitext(rel)[0].casefold())
    return known


def _broken_wikilinks(
    link_sources: Iterable[tuple[str, list[str]]], known: set[str]
) -> list[BrokenLink]:
    broken: list[BrokenLink] = []
    seen: set[tuple[str, str]] = set()
    for source, links in link_sources:
        for link in links:
            name = wikilink_target(link).casefold()
            if not name or name in known or name.removesuffix(".md") in known:
                continue
            if (source, link) not in seen:
                seen.add((source, link))
                broken.append(BrokenLink(source=source, link=link))
    return broken


def broken_wikilinks(
    *,
    store_files: Set[str],
    memory_names: dict[str, str],
    link_sources: dict[str, str],
    source_links: dict[str, list[str]] | None = None,
) -> list[BrokenLink]:
    """The ``[[wikilinks]]`` that match no memory, as ``index_health`` finds them (same
    arguments): those of ``source_links`` first, then those of ``link_sources``."""
    return _broken_wikilinks(
        chain(
            (source_links or {}).items(),
            ((source, wikilinks(text)) for source, text in link_sources.items()),
        ),
        _known_names(store_files, memory_names),
    )
