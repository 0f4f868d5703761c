"""The entries of a MEMORY.md: list items that start with a link, ``- [Title](file.md) —
hook`` (docs/claude-code-rules.md#memorymd-load-report, "What memtui reports"), found in one
regex pass and, for a runaway index, built only when looked at."""

from __future__ import annotations

import re
from itertools import compress
from operator import attrgetter

from memtui.core.contents import IndexEntry
from memtui.core.lazylist import LazyList
from memtui.core.parse.lazyre import lazy_re

# Searched through "\n" + the file: the literal newline lets the regex engine jump from line
# start to line start (nothing else in it matches a newline, and ``hook`` stops before one).
_ENTRY_SOURCE = (
    r"\n(?P<line>[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+"
    # an emphasised link, ``**[Title](file.md)**``: the same run of ``*`` or ``_`` closes it
    # (or an empty one: then the empty closing run matches too)
    r"(?P<em>\*{1,3}+|_{1,3}+|)"
    # possessive loops, unrolled (a run of plain characters, then escapes or brackets each
    # followed by a run): each alternative starts with a different character, so no match
    # needs to give characters back, and the common title or target is one run
    r"\[(?P<title>[^\[\]\\\n]*+(?:(?:\\.|\[[^\[\]\n]*+\])[^\[\]\\\n]*+)*+)\]"
    r"\((?P<dest><[^<>\n]*>|[^\s()\\]*+(?:(?:\\.|\([^\s()]*+\))[^\s()\\]*+)*+)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"""
    r"(?:(?P=em))?"
    # the hook separator (`` — ``, `` – ``, `` - ``, ``: `` or none) and the spaces around it
    r"[^\S\n]*+(?:(?:[—–:]|-(?=\s|\Z))[^\S\n]*+)?"
    r"(?P<hook>[^\n]*))"
)


_ENTRY = lazy_re(_ENTRY_SOURCE)


_LASTINDEX = attrgetter("lastindex")


# Every line after the first, an entry or not: a match per newline of the file, so the i-th
# match is on line i + 1, and its ``line`` group is set when the line is an entry.
def every_line_source() -> str:
    """The source of ``_EVERY_LINE`` (``bench/bench_bigindex.py`` times it alone)."""
    return r"\n(?:" + _ENTRY_SOURCE.removeprefix(r"\n") + ")?"


_EVERY_LINE = lazy_re(every_line_source())


_FIRST_LINE = lazy_re(_ENTRY_SOURCE.removeprefix(r"\n"))  # line 1, when it is an entry


def parse_entries(raw: str) -> list[IndexEntry]:
    """Every list item line of ``raw`` that starts with a link: ``- [Title](file.md) — hook``.

    Bullets ``-``, ``*``, ``+`` and ``1.``/``1)`` at any indentation; the link may be wrapped
    in emphasis (``**[Title](file.md)**``, ``__…__``, ``*…*``, ``_…_``, ``***…***``: the title
    is then the text inside the brackets, the hook what follows the closing run, which may be
    missing); the hook separator may be `` — ``, `` – ``, `` - ``, ``: `` or nothing.
    ``target`` is the destination as written (angle brackets removed), ``None`` when empty.
    Lines are 1-based raw lines.
    """
    entries: list[IndexEntry] = []
    append = entries.append
    text = "\n" + raw
    count = text.count
    number, counted = 0, 0  # the number of newlines of ``text`` before ``counted``
    for match in _ENTRY.finditer(text):  # one pass, no Python work for the other lines
        start = match.start() + 1
        number += count("\n", counted, start)
        counted = start
        append(_entry(number, match))
    return entries


def _entry(line: int, match: re.Match[str]) -> IndexEntry:
    raw_line, title, dest, hook = match.group(1, 3, 4, 5)  # line, title, dest, hook
    raw = raw_line.removesuffix("\r")
    return IndexEntry(line, title, _target(dest) or None, hook.rstrip(), raw)


def _target(dest: str) -> str:
    return dest[1:-1] if dest.startswith("<") and dest.endswith(">") else dest


class IndexEntries(LazyList[IndexEntry]):
    """``parse_entries(raw)``, from one regex pass over the file whose entries are built when
    looked at: a runaway index has 50,000, of which ``memtui index`` shows a few. ``lines``:
    each entry's line; ``targets()`` and ``long_candidates()`` answer for all entries without
    building them."""

    __slots__ = ("_matches", "lines")

    def __init__(self, raw: str) -> None:
        # the matches point into ``raw`` itself: no copy with a newline in front to keep alive
        every = list(_EVERY_LINE.finditer(raw))  # lines 2, 3, …; C: no Python work per line
        is_entry = list(map(_LASTINDEX, every))  # the ``line`` group (1) is set, or None
        self.lines = list(compress(range(2, len(every) + 2), is_entry))
        self._matches = list(compress(every, is_entry))
        first = _FIRST_LINE.match(raw)
        if first is not None:
            self.lines.insert(0, 1)
            self._matches.insert(0, first)
        super().__init__(len(self.lines), self._build_entry)

    def _build_entry(self, i: int) -> IndexEntry:
        return _entry(self.lines[i], self._matches[i])

    def targets(self) -> list[str | None]:
        """Each entry's ``target``."""
        dests = [match[4] for match in self._matches]
        return [(_target(dest) if dest[:1] == "<" else dest) or None for dest in dests]

    def long_candidates(self, limit: int) -> list[int]:
        """The positions of the entries whose ``raw`` may be longer than ``limit``."""
        # the ``line`` group is ``raw`` and maybe a CR
        return [i for i, match in enumerate(self._matches) if match.end() - match.start(1) > limit]
