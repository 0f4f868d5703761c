"""MEMORY.md: index entries, what Claude Code loads of it and index health
(docs/claude-code-rules.md#memorymd-load-report).

Claude Code (CC) v2.1.88 does, for the main session (``claudemd.ts``)::

    content = parseFrontmatter(raw).content          # /^---\\s*\\n([\\s\\S]*?)---\\s*\\n?/
    if '<!--' in content:                             # marked v15 Lexer({gfm: false})
        content = strip top-level html tokens that start with '<!--' and contain '-->'
    truncateEntrypointContent(content)                # memdir.ts

and for agent memory (``memdir.ts`` ``buildMemoryPrompt``) ``truncateEntrypointContent(raw)``.
This module reproduces those steps exactly, including marked's quirks: the lexer turns CRLF into
LF, drops top-level link reference definitions and keeps the text after ``-->`` on its line.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence, Set
from dataclasses import dataclass, field
from itertools import chain, compress
from operator import attrgetter
from urllib.parse import unquote

from memtui.core.contents import (
    BrokenLink,
    DroppedEntry,
    IndexEntry,
    IndexHealth,
    LoadReport,
    LongEntry,
    TopicDangling,
)
from memtui.core.lazylist import LazyList
from memtui.core.parse.jsstring import js_trim, js_trim_start, js_trim_start_at
from memtui.core.parse.lazyre import lazy_re
from memtui.core.parse.marked import COMMENT_SPAN, CR, BlockLexer, Token, js_lazy_re
from memtui.core.parse.utf16 import encoded_length, index_of_unit, prefix_by_units, units

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.core.contents import Binds


MAX_LINES = 200


MAX_UNITS = 25_000


ENTRY_SOFT_LIMIT = 150


ENTRY_HARD_LIMIT = 200


EMPTY_AGENT_INDEX = (
    "Your MEMORY.md is currently empty. When you save new memories, they will appear here."
)


_WARNING_ADVICE = (
    "Only part of it was loaded. Keep index entries to one line under ~200 chars; "
    "move detail into topic files."
)


def _to_fixed_1(n: int, scale: int) -> str:
    """``(n / scale).toFixed(1)`` for ``n >= 0`` and ``scale`` a power of two.

    ``n / scale`` is exact in binary, and toFixed picks the nearest tenth, the larger one on a
    tie (round half up), so integer arithmetic reproduces it exactly.
    """
    tenths = (20 * n + scale) // (2 * scale)
    return f"{tenths // 10}.{tenths % 10}"


def format_size(n: int) -> str:
    """CC's ``formatFileSize``: ``N bytes`` under 1024, else KB/MB/GB, one decimal, no ``.0``."""
    if n < 1024:
        return f"{n} bytes"
    for unit, scale in (("KB", 1024), ("MB", 1024**2)):
        if n < scale * 1024:
            return _strip_point_zero(_to_fixed_1(n, scale)) + unit
    return _strip_point_zero(_to_fixed_1(n, 1024**3)) + "GB"


def _strip_point_zero(text: str) -> str:
    return text[:-2] if text.endswith(".0") else text


def warning_text(lines: int, units: int, line_truncated: bool, byte_truncated: bool) -> str:
    """The text CC appends to a truncated MEMORY.md, leading ``\\n\\n`` included.

    ``units`` is the UTF-16 length of the trimmed text (CC calls it bytes). Returns ``""`` when
    neither limit was exceeded (CC appends nothing then).
    """
    if not (line_truncated or byte_truncated):
        return ""
    if byte_truncated and not line_truncated:
        reason = (
            f"{format_size(units)} (limit: {format_size(MAX_UNITS)}) — index entries are too long"
        )
    elif line_truncated and not byte_truncated:
        reason = f"{lines} lines (limit: {MAX_LINES})"
    else:
        reason = f"{lines} lines and {format_size(units)}"
    return f"\n\n> WARNING: MEMORY.md is {reason}. {_WARNING_ADVICE}"


FRONTMATTER = js_lazy_re(r"---\s*\n([\s\S]*?)---\s*\n?")


@dataclass
class _Stripped:
    text: str
    line_map: Sequence[int]  # a range when the text is one slice of the raw file
    problems: list[str] = field(default_factory=list)


class _RawLines:
    """Maps character offsets of the raw file to 1-based line numbers (lines split on ``\\n``).

    Callers ask in increasing order (a piece of the stripped text after another): the newlines
    are counted from the last offset asked. The first time one goes back, every newline is
    listed once and looked up from then on."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.pos = 0
        self.line = 1  # the line of ``pos``
        self.newlines: list[int] | None = None

    def line_of(self, offset: int) -> int:
        if self.newlines is None and offset >= self.pos:
            self.line += self.raw.count("\n", self.pos, offset)
            self.pos = offset
            return self.line
        if self.newlines is None:
            self.newlines = [match.start() for match in re.finditer("\n", self.raw)]
        return min(bisect_left(self.newlines, offset) + 1, len(self.newlines) + 1)


def _line_map(
    pieces: list[tuple[str, int | None]],
    line_of: Callable[[int], int],
    first_line: int,
    *,
    source: str | None = None,
) -> list[int]:
    """For each line of ``''.join(text for text, _ in pieces)``, the raw line it starts on.

    A line that starts at the very end (after a final newline, or in an empty text) is given the
    raw line just after that newline. ``source``: the text the origins point into, when each of
    its newlines is a newline of the raw file (no CR was normalized): a piece that is the slice
    of ``source`` at its origin then spans consecutive raw lines, and ``line_of`` is needed once
    per piece instead of once per line. (Not every piece is such a slice: marked adds a newline
    for a blank line of spaces.)
    """
    line_map: list[int] = []
    pending_line: int | None = first_line  # where the next line starts, if one is pending
    last_line = first_line
    for text, origin in pieces:
        if source is not None and origin is not None and text and source.startswith(text, origin):
            first = line_of(origin)
            newlines = text.count("\n")
            if pending_line is not None:
                line_map.append(first)
            line_map.extend(range(first + 1, first + newlines))
            pending_line = None
            last_line = first + newlines
            if newlines and text.endswith("\n"):
                pending_line = first + newlines
                last_line -= 1
            elif newlines:
                line_map.append(first + newlines)
            continue
        start = 0
        while start < len(text):
            line = line_of(origin + start) if origin is not None else last_line
            if pending_line is not None:
                line_map.append(line)
                pending_line = None
            newline = text.find("\n", start)
            if newline < 0:
                last_line = line_of(origin + len(text) - 1) if origin is not None else last_line
                break
            last_line = line_of(origin + newline) if origin is not None else last_line
            pending_line = line_of(origin + newline + 1) if origin is not None else last_line
            start = newline + 1
    if pending_line is not None:
        line_map.append(pending_line)
    return line_map


def _normalize_newlines(content: str) -> tuple[str, list[int]]:
    """marked's ``\\r\\n|\\r`` → ``\\n``; also where (in the result) each ``\\r\\n`` collapsed."""
    if "\r" not in content:
        return content, []
    collapsed: list[int] = []
    out: list[str] = []
    last = 0
    shift = 0
    for match in CR.finditer(content):
        out.append(content[last : match.start()])
        out.append("\n")
        if match.group(0) == "\r\n":
            collapsed.append(match.start() - shift)
            shift += 1
        last = match.end()
    out.append(content[last:])
    return "".join(out), collapsed


def _comment_residue(raw: str, origin: int | None) -> list[tuple[str, int | None]]:
    """``raw.replace(/<!--[\\s\\S]*?-->/g, '')`` as pieces that keep their origin."""
    pieces: list[tuple[str, int | None]] = []
    last = 0
    for match in COMMENT_SPAN.finditer(raw):
        if match.start() > last:
            pieces.append((raw[last : match.start()], _shift(origin, last)))
        last = match.end()
    if last < len(raw):
        pieces.append((raw[last:], _shift(origin, last)))
    return pieces


def _shift(origin: int | None, by: int) -> int | None:
    return None if origin is None else origin + by


def _is_comment_block(token: Token) -> bool:
    trimmed = js_trim_start(token.raw)
    return token.type == "html" and trimmed.startswith("<!--") and "-->" in trimmed


def _strip_tokens(tokens: list[Token]) -> tuple[list[tuple[str, int | None]], list[int]]:
    """CC's ``stripHtmlCommentsFromTokens``; also the offsets of unclosed comments."""
    pieces: list[tuple[str, int | None]] = []
    unclosed: list[int] = []
    for token in tokens:
        if _is_comment_block(token):
            residue = [
                piece for part, origin in token.parts for piece in _comment_residue(part, origin)
            ]
            if js_trim("".join(text for text, _ in residue)):
                pieces.extend(residue)
            continue
        if token.type == "html" and js_trim_start(token.raw).startswith("<!--"):
            origin = token.parts[0][1] if token.parts else None
            if origin is not None:
                unclosed.append(origin)
        pieces.extend(token.parts)
    return pieces, unclosed


def _unchanged(raw: str, start: int, problems: list[str]) -> _Stripped:
    """``raw[start:]`` as it is: its lines are the raw lines from the one ``start`` is on."""
    first = raw.count("\n", 0, start) + 1
    return _Stripped(raw[start:], range(first, first + raw.count("\n", start) + 1), problems)


def _strip(raw: str) -> _Stripped:
    """CC's main-session preprocessing of MEMORY.md, with the raw line of every output line."""
    front = FRONTMATTER.match(raw)
    body_start = front.end() if front else 0
    content = raw[body_start:]
    if "<!--" not in content:
        return _unchanged(raw, body_start, [])
    raw_lines = _RawLines(raw)
    normalized, collapsed = _normalize_newlines(content)

    def line_of(offset: int) -> int:
        return raw_lines.line_of(body_start + offset + bisect_left(collapsed, offset))

    try:
        tokens = BlockLexer().lex(normalized)
    except RecursionError:  # thousands of nested quotes: leave the text as it is
        return _unchanged(raw, body_start, ["too deeply nested to strip comments"])
    pieces, unclosed = _strip_tokens(tokens)
    text = "".join(part for part, _ in pieces)
    problems = [
        f"line {line_of(offset)}: unclosed <!-- comment: Claude Code loads it and everything "
        "after it as text"
        for offset in unclosed
    ]
    first_line = raw_lines.line_of(body_start)
    source = None if "\r" in content else normalized  # its newlines are the raw file's
    line_map = _line_map(pieces, line_of, first_line, source=source)
    return _Stripped(text, line_map, problems)


def _unstripped(raw: str) -> _Stripped:
    """Agent memory: the raw file, line ``i`` on raw line ``i + 1``."""
    return _Stripped(raw, range(1, raw.count("\n") + 2))


def strip_for_main_session(raw: str) -> tuple[str, list[int]]:
    """What CC measures for the main session: frontmatter and block-level comments removed.

    Returns the stripped text and, for each of its lines (split on ``\\n``), the 1-based raw line
    where that line starts. Like CC (through marked), when the text contains ``<!--`` CRLF line
    ends become LF, top-level link reference definitions disappear, and text after ``-->`` on the
    comment's last line is kept; an unclosed ``<!--`` is kept verbatim.
    """
    stripped = _strip(raw)
    return stripped.text, list(stripped.line_map)


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


_SCHEME = lazy_re(r"^[A-Za-z][A-Za-z0-9+.-]*:")


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


def is_external_target(target: str) -> bool:
    """True for link targets outside the store: URLs, ``//host``, absolute paths, ``#anchors``."""
    return bool(_SCHEME.match(target) or target.startswith(("/", "\\", "~", "#")))


@dataclass
class _Cut:
    loaded: str
    last_line: int  # 0-based line of the trimmed text where loading stops
    partial: bool


def _cut(text: str, line_truncated: bool) -> _Cut:
    """CC's truncation of an over-limit trimmed text (without the warning).

    Where JS ``slice(0, 25000)`` would split a surrogate pair, the whole character is left out:
    JS keeps a lone high surrogate, which cannot be encoded as UTF-8 or shown. That line counts
    as partially loaded.
    """
    kept = "\n".join(text.split("\n", MAX_LINES)[:MAX_LINES]) if line_truncated else text
    if units(kept) > MAX_UNITS:
        search_end = index_of_unit(kept, MAX_UNITS + 1)
        cut_at = kept.rfind("\n", 0, search_end)
        kept = kept[:cut_at] if cut_at > 0 else prefix_by_units(kept, MAX_UNITS)
    partial = len(kept) < len(text) and text[len(kept)] != "\n"
    return _Cut(kept, kept.count("\n"), partial)


def _binds(line_truncated: bool, byte_truncated: bool) -> Binds:
    if line_truncated and byte_truncated:
        return "both"
    if line_truncated:
        return "lines"
    return "bytes" if byte_truncated else "none"


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else encoded_length(text, "utf-8")


def _hidden_entry_problems(
    entries: Sequence[IndexEntry], lines: list[int], line_map: Sequence[int]
) -> list[str]:
    """``lines``: each entry's line (only the hidden entries are looked at)."""
    if isinstance(line_map, range):  # consecutive lines; ``lines`` ascend: those around it
        below, above = bisect_left(lines, line_map.start), bisect_left(lines, line_map.stop)
        hidden: Set[int] = set(lines[:below] + lines[above:])
    else:
        hidden = set(lines).difference(line_map)  # C: most files hide no entry
    if not hidden:
        return []
    return [
        f"line {line}: entry [{entries[i].title}] is inside frontmatter or an HTML comment; "
        "Claude Code never sees it"
        for i, line in enumerate(lines)
        if line in hidden
    ]


def _dropped(entries: Sequence[IndexEntry], first: int) -> LazyList[DroppedEntry]:
    """The entries from position ``first`` on, as dropped entries (built when looked at)."""

    def build(i: int) -> DroppedEntry:
        entry = entries[first + i]
        return DroppedEntry(entry.line, entry.title, entry.target)

    return LazyList(len(entries) - first, build)


def load_report(path: str, raw: str, *, agent: bool, fast: bool = True) -> LoadReport:
    """Exactly what CC puts in the prompt for this MEMORY.md, and what it leaves out.

    ``agent=False`` is the main session (auto and team memory: frontmatter and block comments
    stripped first); ``agent=True`` is agent memory (the raw file). ``lines``, ``units`` (UTF-16)
    and ``bytes`` (UTF-8) describe the trimmed text CC measures. ``cut_line`` is the 1-based raw
    line of the file on which loading stops, i.e. the last raw line of which anything is loaded
    (``None`` when everything loads); when ``cut_partial`` is set that line is only partly
    loaded. ``dropped`` lists the entries after the cut, including any on a partly loaded line.

    ``fast``: the entries are an ``IndexEntries`` (built when looked at) and the health counts
    them without building them; False (only in tests, to check the two agree): a list, and
    ``index_health`` looks at each entry.
    """
    stripped = _unstripped(raw) if agent else _strip(raw)
    entries: Sequence[IndexEntry]
    if fast:
        entries = IndexEntries(raw)
        entry_lines = entries.lines
    else:
        entries = parse_entries(raw)
        entry_lines = [entry.line for entry in entries]
    problems = list(stripped.problems)
    if not agent:
        problems += _hidden_entry_problems(entries, entry_lines, stripped.line_map)
    text = js_trim(stripped.text)
    lead = js_trim_start_at(stripped.text)
    first_line_index = stripped.text.count("\n", 0, lead)
    n_lines = text.count("\n") + 1
    n_units = units(text)
    line_truncated = n_lines > MAX_LINES
    byte_truncated = n_units > MAX_UNITS
    report = LoadReport(
        path=path,
        lines=n_lines,
        units=n_units,
        bytes=_utf8_length(text),
        line_truncated=line_truncated,
        byte_truncated=byte_truncated,
        binds=_binds(line_truncated, byte_truncated),
        cut_line=None,
        dropped=[],
        warning=None,
        loaded=text if text or not agent else EMPTY_AGENT_INDEX,
        agent=agent,
        entries=entries,
        problems=problems,
    )
    if not (line_truncated or byte_truncated):
        return report
    cut = _cut(text, line_truncated)
    warning = warning_text(n_lines, n_units, line_truncated, byte_truncated)
    report.loaded = cut.loaded + warning
    report.warning = warning.removeprefix("\n\n")
    report.cut_line = stripped.line_map[first_line_index + cut.last_line]
    report.cut_partial = cut.partial
    # entries are in line order: the dropped ones are the tail from the first one past the cut
    last_kept = report.cut_line - 1 if cut.partial else report.cut_line
    report.dropped = _dropped(entries, bisect_right(entry_lines, last_kept))
    return report


_WIKILINK = lazy_re(r"\[\[([^\[\]\n]*)\]\]")


_FENCED_CODE = lazy_re(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M)


_CODE_SPAN = lazy_re(r"`[^`\n]*`")


_DAILY_LOG = lazy_re(r"(?:^|/)logs/\d{4}/\d{2}/\d{4}-\d{2}-\d{2}\.md$")


def resolve_target(target: str, index_dir: str = "") -> str:
    """A relative link target as a posix path from the store root (fragment and query dropped)."""
    path = target.split("#", 1)[0].split("?", 1)[0]
    return posixpath.normpath(posixpath.join(index_dir, path)) if path else ""


_PLAIN_NAME = lazy_re(r"[\w\-][\w\- .]*")  # no ``:/\\~#?%``: never external, never rewritten


def _target_in_store(target: str, index_dir: str, store_files: Set[str]) -> str | None:
    for candidate in (target, unquote(target)):
        resolved = resolve_target(candidate, index_dir)
        if resolved in store_files:
            return resolved
    return None


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
    (``_link_of``, from the topic file's folder). Only ``entries_of`` the topic files the index
    points to is asked for (the caller reads those files, and only those)."""
    found = TopicFiles()
    exists = exists or _ancestor_test(store_files)
    for topic in sorted(pointed & topic_files):
        entries = entries_of(topic)
        if entries is None:
            continue
        folder = posixpath.dirname(topic)
        for line, title, target in entries:
            verdict = _link_of(target, folder, store_files, exists)
            if verdict is None:
                found.dangling.append(TopicDangling(topic, line, title, target))
            elif verdict[0] == "file" and verdict[1] != topic and verdict[1] not in pointed:
                found.listed.setdefault(verdict[1], topic)
    return found


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


def _folder_in_store(
    target: str, index_dir: str, exists: Callable[[str], bool]
) -> str | None:
    """The store folder (posix, from the root; ``.`` for the root) a link names, when it
    exists; None for a file-like target (``….md``), a path that leaves the store, or a folder
    that does not exist."""
    for candidate in (target, unquote(target)):
        resolved = resolve_target(candidate, index_dir)
        if (
            resolved
            and not resolved.lower().endswith(".md")
            and resolved != ".."
            and not resolved.startswith(("../", "/"))
            and exists(resolved)
        ):
            return resolved
    return None


def _ancestor_test(store_files: Set[str]) -> Callable[[str], bool]:
    """A folder exists when a store file lies below it (built on the first call)."""
    folders: set[str] = set()

    def exists(folder: str) -> bool:
        if not folders:
            folders.add(".")
            for rel in store_files:
                parts = rel.split("/")[:-1]
                for end in range(1, len(parts) + 1):
                    folders.add("/".join(parts[:end]))
        return folder in folders

    return exists


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
    """``_link_of`` each target: the positions of the dangling ones, the store files and the
    folders they point to."""
    dangling: list[int] = []
    pointed: set[str] = set()
    pointed_dirs: list[str] = []
    for i, target in enumerate(targets):
        verdict = _link_of(target, index_dir, store_files, exists)
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
    and the common dangling one, a bare ``name.md`` that is no store file (``_link_of`` finds
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


def _link_of(
    target: str | None, index_dir: str, store_files: Set[str], exists: Callable[[str], bool]
) -> tuple[str, str] | None:
    """What an entry's target points to: ``("file", path)`` or ``("folder", folder)`` in the
    store, ``("none", "")`` for no target or one outside the store, ``None``: dangling."""
    if target is None:
        return "none", ""
    if not index_dir and _PLAIN_NAME.fullmatch(target):
        # a bare file name: no URL, and resolve_target and unquote leave it as it is
        found = target if target in store_files else None
    elif is_external_target(target):
        return "none", ""
    else:
        found = _target_in_store(target, index_dir, store_files)
    if found is not None:
        return "file", found
    if (
        not target.endswith(".md")  # the common dangling entry: no folder to look for
        and (folder := _folder_in_store(target, index_dir, exists)) is not None
    ):
        return "folder", folder
    return None


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
    exists = folder_exists or _ancestor_test(store_files)
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
