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
from functools import lru_cache
from itertools import chain
from urllib.parse import unquote

from memtui.core.contents import (
    BrokenLink,
    DroppedEntry,
    IndexEntry,
    IndexHealth,
    LoadReport,
    LongEntry,
)
from memtui.core.parse.lazyre import lazy_re
from memtui.core.parse.utf16 import index_of_unit, prefix_by_units, units

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
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

# ---------------------------------------------------------------------------------------------
# JavaScript string semantics
# ---------------------------------------------------------------------------------------------

# ECMAScript WhiteSpace + LineTerminator: what String.prototype.trim and RegExp \s match.
_JS_WS_CLASS = (
    "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    """``String.prototype.trimStart``."""
    return text.lstrip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """``String.prototype.trimEnd``."""
    return text.rstrip(JS_WHITESPACE)


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


# ---------------------------------------------------------------------------------------------
# marked v15.0.6 block lexer (gfm: false), top level only: enough to know CC's html tokens
# ---------------------------------------------------------------------------------------------
# The rules and tokenizer logic below are ported from marked 15.0.6
# (https://github.com/markedjs/marked, MIT License, Copyright (c) 2011-2025, Christopher Jeffrey).

_JS_DOT = "[^\\n\\r\\u2028\\u2029]"


def _js_source_to_python(source: str) -> str:
    """Translate a JS regex source to Python: ``\\s``, ``\\S``, ``.`` and ``$`` differ."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        ch = source[i]
        if source.startswith("[\\s\\S]", i):
            out.append("[\\s\\S]")
            i += 6
            continue
        if ch == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if nxt == "s":
                out.append(_JS_WS_CLASS if in_class else f"[{_JS_WS_CLASS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{_JS_WS_CLASS}]")
            else:
                out.append(ch + nxt)
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if source.startswith("[^", i):
                out.append(source[i : i + 2])
                i += 2
                continue
        elif ch == ".":
            ch = _JS_DOT
        elif ch == "$":
            ch = "\\Z"
        out.append(ch)
        i += 1
    return "".join(out)


def _lazy_re(source: str, flags: int = 0, *, from_js: bool = False) -> re.Pattern[str]:
    """Compiled on first use: marked's block grammar is only needed for files that contain an
    HTML comment, and compiling it costs more than a whole scan of a small home."""
    return lazy_re(source, flags, _js_source_to_python if from_js else None)


def _js_re(source: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """Compile a JS regex source for ``pattern.match(text, pos)`` (a leading ``^`` is dropped)."""
    if source.startswith("^"):
        source = source[1:]
    flags = re.ASCII | (re.IGNORECASE if ignore_case else 0)
    return _lazy_re(source, flags, from_js=True)


_CARET = re.compile(r"(^|[^\[])\^")


class _Edit:
    """marked's ``edit()``: build a regex source by named substitution."""

    def __init__(self, source: str) -> None:
        self.source = source

    def replace(self, name: str, value: str, *, every: bool = False) -> _Edit:
        value = _CARET.sub(r"\1", value)
        if every:
            self.source = self.source.replace(name, value)
        else:
            self.source = self.source.replace(name, value, 1)
        return self


_BULLET = r"(?:[*+-]|\d{1,9}[.)])"
_HR_SRC = r"^ {0,3}((?:-[\t ]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})(?:\n+|$)"
_TAG = (
    "address|article|aside|base|basefont|blockquote|body|caption"
    "|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption"
    "|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe"
    "|legend|li|link|main|menu|menuitem|meta|nav|noframes|ol|optgroup|option"
    "|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title"
    "|tr|track|ul"
)
_COMMENT_SRC = r"<!--(?:-?>|[\s\S]*?(?:-->|$))"
_PARAGRAPH_SRC = (
    _Edit(r"^([^\n]+(?:\n(?!hr|heading|lheading|blockquote|fences|list|html|table| +\n)[^\n]+)*)")
    .replace("hr", _HR_SRC)
    .replace("heading", r" {0,3}#{1,6}(?:\s|$)")
    .replace("|lheading", "")
    .replace("|table", "")
    .replace("blockquote", r" {0,3}>")
    .replace("fences", r" {0,3}(?:`{3,}(?=[^`\n]*\n)|~{3,})[^\n]*\n")
    .replace("list", r" {0,3}(?:[*+-]|1[.)]) ")
    .replace("html", r"</?(?:tag)(?: +|\n|/?>)|<(?:script|pre|style|textarea|!--)")
    .replace("tag", _TAG)
    .source
)
_LHEADING_SRC = (
    _Edit(
        r"^(?!bull |blockCode|fences|blockquote|heading|html)((?:.|\n(?!\s*?\n|bull |blockCode"
        r"|fences|blockquote|heading|html))+?)\n {0,3}(=+|-+) *(?:\n+|$)"
    )
    .replace("bull", _BULLET, every=True)
    .replace("blockCode", r"(?: {4}| {0,3}\t)", every=True)
    .replace("fences", r" {0,3}(?:`{3,}|~{3,})", every=True)
    .replace("blockquote", r" {0,3}>", every=True)
    .replace("heading", r" {0,3}#{1,6}", every=True)
    .replace("html", r" {0,3}<[^\n>]+>\n", every=True)
    .source
)
_DEF_SRC = (
    _Edit(
        r"^ {0,3}\[(label)\]: *(?:\n[ \t]*)?([^<\s][^\s]*|<.*?>)(?:(?: +(?:\n[ \t]*)?"
        r"| *\n[ \t]*)(title))? *(?:\n+|$)"
    )
    .replace("label", r"(?!\s*\])(?:\\.|[^\[\]\\])+")
    .replace("title", r"""(?:"(?:\\"?|[^"\\])*"|'[^'\n]*(?:\n[^'\n]+)*\n?'|\([^()]*\))""")
    .source
)
_HTML_SRC = (
    _Edit(
        r"^ {0,3}(?:"
        r"<(script|pre|style|textarea)[\s>][\s\S]*?(?:</\1>[^\n]*\n+|$)"
        r"|comment[^\n]*(\n+|$)"
        r"|<\?[\s\S]*?(?:\?>\n*|$)"
        r"|<![A-Z][\s\S]*?(?:>\n*|$)"
        r"|<!\[CDATA\[[\s\S]*?(?:\]\]>\n*|$)"
        r"|</?(tag)(?: +|\n|/?>)[\s\S]*?(?:(?:\n[ \t]*)+\n|$)"
        r"|<(?!script|pre|style|textarea)([a-z][\w-]*)(?:attribute)*? */?>(?=[ \t]*(?:\n|$))"
        r"[\s\S]*?(?:(?:\n[ \t]*)+\n|$)"
        r"|</(?!script|pre|style|textarea)[a-z][\w-]*\s*>(?=[ \t]*(?:\n|$))"
        r"[\s\S]*?(?:(?:\n[ \t]*)+\n|$)"
        r")"
    )
    .replace("comment", _COMMENT_SRC)
    .replace("tag", _TAG)
    .replace(
        "attribute",
        r""" +[a-zA-Z:_][\w.:-]*(?: *= *"[^"\n]*"| *= *'[^'\n]*'| *= *[^\s"'=<>`]+)?""",
    )
    .source
)

_NEWLINE = _js_re(r"^(?:[ \t]*(?:\n|$))+")
_CODE = _js_re(r"^((?: {4}| {0,3}\t)[^\n]+(?:\n(?:[ \t]*(?:\n|$))*)?)+")
_FENCES = _js_re(
    r"^ {0,3}(`{3,}(?=[^`\n]*(?:\n|$))|~{3,})([^\n]*)(?:\n|$)(?:|([\s\S]*?)(?:\n|$))"
    r"(?: {0,3}\1[~`]* *(?=\n|$)|$)"
)
_HR = _js_re(_HR_SRC)
_HEADING = _js_re(r"^ {0,3}(#{1,6})(?=\s|$)(.*)(?:\n+|$)")
_BLOCKQUOTE = _js_re(
    _Edit(r"^( {0,3}> ?(paragraph|[^\n]*)(?:\n|$))+").replace("paragraph", _PARAGRAPH_SRC).source
)
_LIST = _js_re(_Edit(r"^( {0,3}bull)([ \t][^\n]+?)?(?:\n|$)").replace("bull", _BULLET).source)
_HTML = _js_re(_HTML_SRC, ignore_case=True)
_DEF = _js_re(_DEF_SRC)
_LHEADING = _js_re(_LHEADING_SRC)
_PARAGRAPH = _js_re(_PARAGRAPH_SRC)
_BLOCKQUOTE_START = _js_re(r"^ {0,3}>")
_BLANK_LINE = _js_re(r"^[ \t]*$")
_BQ_SETEXT = _lazy_re(r"\n {0,3}((?:=+|-+) *)(?=\n|\Z)")
_BQ_MARKER = _lazy_re(r"(?<![^\n\r\u2028\u2029]) {0,3}>[ \t]?")
_LIST_TABS = _lazy_re(r"^\t+")
_COMMENT_SPAN = _lazy_re(r"<!--[\s\S]*?-->")
_CR = _lazy_re(r"\r\n|\r")
FRONTMATTER = _lazy_re(r"---\s*\n([\s\S]*?)---\s*\n?", from_js=True)


@lru_cache(maxsize=64)
def _list_item_re(bullet: str) -> re.Pattern[str]:
    return _js_re(f"^( {{0,3}}{bullet})((?:[\\t ][^\\n]*)?(?:\\n|$))")


@lru_cache(maxsize=64)
def _one_line_items_re(bullet: str) -> re.Pattern[str]:
    """A run of one-line items, each followed by another: ``- x`` at column 0, then a space and
    a printable ASCII character that is no ``-*_`` (so no line of it is a thematic break).

    For such a line marked's item loop ends the item at the next line (that line starts a
    sibling item: the ``next_bullet`` breaker matches it), so the whole run is skipped at once.
    The last line of the run is left to the item loop, which sees what follows it."""
    line = f"{bullet} (?![-*_])[!-~][^\\n]*\\n"
    return re.compile(f"(?:{line})+(?={bullet} (?![-*_])[!-~])")


@dataclass(frozen=True)
class _ItemBreakers:
    """The regexes that end a list item, for one indentation."""

    next_bullet: re.Pattern[str]
    hr: re.Pattern[str]
    fences: re.Pattern[str]
    heading: re.Pattern[str]
    html: re.Pattern[str]


@lru_cache(maxsize=64)
def _item_breakers(indent: int) -> _ItemBreakers:
    n = min(3, indent - 1)
    return _ItemBreakers(
        next_bullet=_js_re(f"^ {{0,{n}}}(?:[*+-]|\\d{{1,9}}[.)])((?:[ \\t][^\\n]*)?(?:\\n|$))"),
        hr=_js_re(f"^ {{0,{n}}}((?:- *){{3,}}|(?:_ *){{3,}}|(?:\\* *){{3,}})(?:\\n+|$)"),
        fences=_js_re(f"^ {{0,{n}}}(?:```|~~~)"),
        heading=_js_re(f"^ {{0,{n}}}#"),
        html=_js_re(f"^ {{0,{n}}}<(?:[a-z].*>|!--)", ignore_case=True),
    )


def _non_space_at(text: str) -> int:
    """``text.search(/[^ ]/)``."""
    stripped = text.lstrip(" ")
    return len(text) - len(stripped) if stripped else -1


def _line_at(src: str, pos: int) -> str:
    """``src.slice(pos).split('\\n', 1)[0]``."""
    end = src.find("\n", pos)
    return src[pos:] if end < 0 else src[pos:end]


def _rtrim_newlines(text: str) -> str:
    return text.rstrip("\n")


@dataclass
class _Token:
    """A block token: its type and raw text, with where each part of the raw came from."""

    type: str
    raw: str
    parts: list[tuple[str, int | None]] = field(default_factory=list)

    def append(self, text: str, origin: int | None) -> None:
        self.raw += text
        self.parts.append((text, origin))


class _BlockLexer:
    """Port of marked's ``Lexer.blockTokens`` for the options CC uses (gfm off, top level).

    ``fast``: skip runs of one-line list items with one regex (same tokens; the item loop
    costs a Python loop per line, seconds for a 50,000-line index). False only in tests, to
    check the two agree."""

    def __init__(self, *, fast: bool = True) -> None:
        self.fast = fast

    def lex(self, src: str) -> list[_Token]:
        tokens: list[_Token] = []
        self.block_tokens(src, tokens)
        return tokens

    def block_tokens(self, src: str, tokens: list[_Token], clipped: bool = False) -> None:
        """``clipped``: the first paragraph continues the last one (blockquote continuation)."""
        pos = 0
        while pos < len(src):
            new_pos = self._non_paragraph(src, pos, tokens)
            if new_pos is not None:
                pos = new_pos
                continue
            paragraph = _PARAGRAPH.match(src, pos)
            # Without a paragraph marked throws ("Infinite loop"); keep the rest as text.
            raw = paragraph.group(0) if paragraph else src[pos:]
            last = tokens[-1] if tokens else None
            if clipped and last is not None and last.type == "paragraph":
                last.append("\n", None)
                last.append(raw, pos)
            else:
                tokens.append(_Token("paragraph", raw, [(raw, pos)]))
            clipped = False
            pos += len(raw)

    def _non_paragraph(self, src: str, pos: int, tokens: list[_Token]) -> int | None:
        """Every block rule but paragraph, in marked's order; the new position, or None."""
        last = tokens[-1] if tokens else None
        space = _NEWLINE.match(src, pos)
        if space and space.end() > pos:
            if space.end() - pos == 1 and last is not None:
                last.append("\n", pos)
            else:
                tokens.append(_Token("space", space.group(0), [(space.group(0), pos)]))
            return space.end()
        code = _CODE.match(src, pos)
        if code:
            return self._after_paragraph(tokens, "code", code.group(0), pos, push=True)
        for kind, raw in self._simple_blocks(src, pos):
            if raw is not None:
                tokens.append(_Token(kind, raw, [(raw, pos)]))
                return pos + len(raw)
        definition = _DEF.match(src, pos)
        if definition:
            return self._after_paragraph(tokens, "def", definition.group(0), pos, push=False)
        heading = _LHEADING.match(src, pos)
        if heading:
            tokens.append(_Token("heading", heading.group(0), [(heading.group(0), pos)]))
            return heading.end()
        return None

    @staticmethod
    def _after_paragraph(tokens: list[_Token], kind: str, raw: str, pos: int, *, push: bool) -> int:
        """Code and link definitions right after a paragraph join it (marked adds a newline);
        otherwise code is pushed and a definition vanishes from the tokens."""
        last = tokens[-1] if tokens else None
        if last is not None and last.type in ("paragraph", "text"):
            last.append("\n", None)
            last.append(raw, pos)
        elif push:
            tokens.append(_Token(kind, raw, [(raw, pos)]))
        return pos + len(raw)

    def _simple_blocks(self, src: str, pos: int) -> Iterable[tuple[str, str | None]]:
        """fences, heading, hr, blockquote, list, html: tried in marked's order, lazily."""
        fences = _FENCES.match(src, pos)
        yield "code", fences.group(0) if fences else None
        heading = _HEADING.match(src, pos)
        yield "heading", heading.group(0) if heading else None
        hr = _HR.match(src, pos)
        yield "hr", _rtrim_newlines(hr.group(0)) if hr else None
        yield "blockquote", self.blockquote(src, pos)
        yield "list", self.list(src, pos)
        html = _HTML.match(src, pos)
        yield "html", html.group(0) if html else None

    def blockquote(self, src: str, pos: int) -> str | None:
        """marked's ``Tokenizer.blockquote``: only the raw text is kept."""
        cap = _BLOCKQUOTE.match(src, pos)
        if not cap:
            return None
        lines = _rtrim_newlines(cap.group(0)).split("\n")
        raw = ""
        tokens: list[_Token] = []
        while lines:
            current, lines = _quoted_chunk(lines)
            current_raw = "\n".join(current)
            current_text = _BQ_SETEXT.sub(lambda m: "\n    " + m.group(1), current_raw)
            current_text = _BQ_MARKER.sub("", current_text)
            raw = f"{raw}\n{current_raw}" if raw else current_raw
            self.block_tokens(current_text, tokens, clipped=True)
            if not lines:
                break
            last = tokens[-1] if tokens else None
            if last is None:
                continue
            if last.type == "code":
                break
            if last.type == "blockquote":
                new_raw = self.blockquote(last.raw + "\n" + "\n".join(lines), 0) or ""
                tokens[-1] = _Token("blockquote", new_raw)
                raw = raw[: len(raw) - len(last.raw)] + new_raw
                break
            if last.type == "list":
                new_text = last.raw + "\n" + "\n".join(lines)
                new_raw = self.list(new_text, 0) or ""
                tokens[-1] = _Token("list", new_raw)
                raw = raw[: len(raw) - len(last.raw)] + new_raw
                lines = new_text[len(new_raw) :].split("\n")
        return raw

    def list(self, src: str, pos: int) -> str | None:
        """marked's ``Tokenizer.list``: the raw text of the whole list (items are not lexed)."""
        cap = _LIST.match(src, pos)
        if not cap:
            return None
        bull = js_trim(cap.group(1))
        bullet = ("\\d{1,9}\\" + bull[-1]) if len(bull) > 1 else "\\" + bull
        item_re = _list_item_re(bullet)
        run_re = _one_line_items_re(bullet) if self.fast else None
        p = pos
        items = 0
        while p < len(src):
            run = run_re.match(src, p) if run_re is not None else None
            if run is not None:
                items += run.group(0).count("\n")
                p = run.end()
            item = item_re.match(src, p)
            if not item or _HR.match(src, p):
                break
            items += 1
            p = _list_item_end(src, item)
        if not items:
            return None
        return js_trim_end(src[pos : min(p, len(src))])


def _quoted_chunk(lines: list[str]) -> tuple[list[str], list[str]]:
    """Lines up to the first lazy line that follows a ``>`` line, and the rest."""
    in_quote = False
    for i, line in enumerate(lines):
        if _BLOCKQUOTE_START.match(line):
            in_quote = True
        elif in_quote:
            return lines[:i], lines[i:]
    return lines, []


def _list_item_end(src: str, item: re.Match[str]) -> int:
    """Where one list item ends (marked's item loop); may pass ``len(src)`` by one."""
    p = item.end()
    bullet, rest = item.group(1), item.group(2)
    line = _LIST_TABS.sub(lambda t: " " * (3 * len(t.group(0))), rest.split("\n", 1)[0], count=1)
    blank_line = not js_trim(line)
    if blank_line:
        indent = len(bullet) + 1
    else:
        indent = _non_space_at(rest)
        indent = 1 if indent > 4 else indent
        indent += len(bullet)
    next_line = _line_at(src, p)
    if blank_line and _BLANK_LINE.match(next_line):
        return p + len(next_line) + 1
    breakers = _item_breakers(indent)
    while p < len(src):
        raw_line = _line_at(src, p)
        without_tabs = raw_line.replace("\t", "    ")
        if _ends_item(raw_line, breakers):
            break
        if not (_non_space_at(without_tabs) >= indent or not js_trim(raw_line)) and (
            blank_line or _ends_lazy_continuation(line, breakers)
        ):
            break
        if not blank_line and not js_trim(raw_line):
            blank_line = True
        p += len(raw_line) + 1
        line = without_tabs[indent:]
    return p


def _ends_item(line: str, breakers: _ItemBreakers) -> bool:
    return any(
        rx.match(line)
        for rx in (breakers.fences, breakers.heading, breakers.html, breakers.next_bullet)
    ) or bool(breakers.hr.match(line))


def _ends_lazy_continuation(previous: str, breakers: _ItemBreakers) -> bool:
    """A lazy line cannot continue an item whose last line was code, a fence, heading or hr."""
    if _non_space_at(previous.replace("\t", "    ")) >= 4:
        return True
    return any(rx.match(previous) for rx in (breakers.fences, breakers.heading, breakers.hr))


# ---------------------------------------------------------------------------------------------
# Stripping for the main session, with a map back to raw lines
# ---------------------------------------------------------------------------------------------


@dataclass
class _Stripped:
    text: str
    line_map: Sequence[int]  # a range when the text is one slice of the raw file
    problems: list[str] = field(default_factory=list)


class _RawLines:
    """Maps character offsets of the raw file to 1-based line numbers (lines split on ``\\n``)."""

    def __init__(self, raw: str) -> None:
        self.newlines = [match.start() for match in re.finditer("\n", raw)]
        self.count = len(self.newlines) + 1

    def line_of(self, offset: int) -> int:
        return min(bisect_left(self.newlines, offset) + 1, self.count)


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
    collapsed: list[int] = []
    out: list[str] = []
    last = 0
    shift = 0
    for match in _CR.finditer(content):
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
    for match in _COMMENT_SPAN.finditer(raw):
        if match.start() > last:
            pieces.append((raw[last : match.start()], _shift(origin, last)))
        last = match.end()
    if last < len(raw):
        pieces.append((raw[last:], _shift(origin, last)))
    return pieces


def _shift(origin: int | None, by: int) -> int | None:
    return None if origin is None else origin + by


def _is_comment_block(token: _Token) -> bool:
    trimmed = js_trim_start(token.raw)
    return token.type == "html" and trimmed.startswith("<!--") and "-->" in trimmed


def _strip_tokens(tokens: list[_Token]) -> tuple[list[tuple[str, int | None]], list[int]]:
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
        tokens = _BlockLexer().lex(normalized)
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


# ---------------------------------------------------------------------------------------------
# Index entries
# ---------------------------------------------------------------------------------------------

# Searched through "\n" + the file: the literal newline lets the regex engine jump from line
# start to line start (nothing else in it matches a newline, and ``hook`` stops before one).
_ENTRY = _lazy_re(
    r"\n(?P<line>[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+"
    # an emphasised link, ``**[Title](file.md)**``: the same run of ``*`` or ``_`` closes it
    r"(?P<em>\*{1,3}+|_{1,3}+)?"
    # possessive loops: each alternative starts with a different character, so no match needs
    # to give characters back, and runs of plain characters are taken at once
    r"\[(?P<title>(?:[^\[\]\\\n]++|\\.|\[[^\[\]\n]*+\])*+)\]"
    r"\((?P<dest><[^<>\n]*>|(?:[^\s()\\]++|\\.|\([^\s()]*+\))*+)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"""
    r"(?:(?P=em))?"
    # the hook separator (`` — ``, `` – ``, `` - ``, ``: `` or none) and the spaces around it
    r"[^\S\n]*+(?:(?:[—–:]|-(?=\s|\Z))[^\S\n]*+)?"
    r"(?P<hook>[^\n]*))"
)
_SCHEME = _lazy_re(r"^[A-Za-z][A-Za-z0-9+.-]*:")


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
        line, title, dest, hook = match.group(1, 3, 4, 5)  # line, title, dest, hook
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        append(IndexEntry(number, title, dest or None, hook.rstrip(), line.removesuffix("\r")))
    return entries


def is_external_target(target: str) -> bool:
    """True for link targets outside the store: URLs, ``//host``, absolute paths, ``#anchors``."""
    return bool(_SCHEME.match(target) or target.startswith(("/", "\\", "~", "#")))


# ---------------------------------------------------------------------------------------------
# The load report
# ---------------------------------------------------------------------------------------------


@dataclass
class _Cut:
    loaded: str
    last_line: int  # 0-based line of the trimmed text where loading stops
    partial: bool


def _cut(text: str, lines: list[str], line_truncated: bool) -> _Cut:
    """CC's truncation of an over-limit trimmed text (without the warning).

    Where JS ``slice(0, 25000)`` would split a surrogate pair, the whole character is left out:
    JS keeps a lone high surrogate, which cannot be encoded as UTF-8 or shown. That line counts
    as partially loaded.
    """
    kept = "\n".join(lines[:MAX_LINES]) if line_truncated else text
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
    return len(text.encode("utf-8", "surrogatepass"))


def _hidden_entry_problems(entries: list[IndexEntry], line_map: Sequence[int]) -> list[str]:
    present = line_map if isinstance(line_map, range) else set(line_map)
    return [
        f"line {entry.line}: entry [{entry.title}] is inside frontmatter or an HTML comment; "
        "Claude Code never sees it"
        for entry in entries
        if entry.line not in present
    ]


def load_report(path: str, raw: str, *, agent: bool) -> LoadReport:
    """Exactly what CC puts in the prompt for this MEMORY.md, and what it leaves out.

    ``agent=False`` is the main session (auto and team memory: frontmatter and block comments
    stripped first); ``agent=True`` is agent memory (the raw file). ``lines``, ``units`` (UTF-16)
    and ``bytes`` (UTF-8) describe the trimmed text CC measures. ``cut_line`` is the 1-based raw
    line of the file on which loading stops, i.e. the last raw line of which anything is loaded
    (``None`` when everything loads); when ``cut_partial`` is set that line is only partly
    loaded. ``dropped`` lists the entries after the cut, including any on a partly loaded line.
    """
    stripped = _unstripped(raw) if agent else _strip(raw)
    entries = parse_entries(raw)
    problems = list(stripped.problems)
    if not agent:
        problems += _hidden_entry_problems(entries, stripped.line_map)
    text = js_trim(stripped.text)
    lead = len(stripped.text) - len(js_trim_start(stripped.text))
    first_line_index = stripped.text.count("\n", 0, lead)
    lines = text.split("\n")
    n_units = units(text)
    line_truncated = len(lines) > MAX_LINES
    byte_truncated = n_units > MAX_UNITS
    report = LoadReport(
        path=path,
        lines=len(lines),
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
    cut = _cut(text, lines, line_truncated)
    warning = warning_text(len(lines), n_units, line_truncated, byte_truncated)
    report.loaded = cut.loaded + warning
    report.warning = warning.removeprefix("\n\n")
    report.cut_line = stripped.line_map[first_line_index + cut.last_line]
    report.cut_partial = cut.partial
    # entries are in line order: the dropped ones are the tail from the first one past the cut
    last_kept = report.cut_line - 1 if cut.partial else report.cut_line
    first = bisect_right([entry.line for entry in entries], last_kept)
    report.dropped = [DroppedEntry(e.line, e.title, e.target) for e in entries[first:]]
    return report


# ---------------------------------------------------------------------------------------------
# Index health
# ---------------------------------------------------------------------------------------------

_WIKILINK = _lazy_re(r"\[\[([^\[\]\n]*)\]\]")
_FENCED_CODE = _lazy_re(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M)
_CODE_SPAN = _lazy_re(r"`[^`\n]*`")
_DAILY_LOG = _lazy_re(r"(?:^|/)logs/\d{4}/\d{2}/\d{4}-\d{2}-\d{2}\.md$")


def resolve_target(target: str, index_dir: str = "") -> str:
    """A relative link target as a posix path from the store root (fragment and query dropped)."""
    path = target.split("#", 1)[0].split("?", 1)[0]
    return posixpath.normpath(posixpath.join(index_dir, path)) if path else ""


_PLAIN_NAME = _lazy_re(r"[\w\-][\w\- .]*")  # no ``:/\\~#?%``: never external, never rewritten


def _target_in_store(target: str, index_dir: str, store_files: Set[str]) -> str | None:
    for candidate in (target, unquote(target)):
        resolved = resolve_target(candidate, index_dir)
        if resolved in store_files:
            return resolved
    return None


def _is_under(path: str, folder: str) -> bool:
    return folder in ("", ".") or path.startswith(folder.rstrip("/") + "/")


def _orphans(
    store_files: Set[str],
    pointed: set[str],
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


def _long_entries(entries: list[IndexEntry]) -> list[LongEntry]:
    found: list[LongEntry] = []
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
    """
    dangling: list[IndexEntry] = []
    pointed: set[str] = set()
    pointed_dirs: list[str] = []
    exists = folder_exists or _ancestor_test(store_files)
    for entry in report.entries:
        target = entry.target
        if target is None:
            continue
        if not index_dir and _PLAIN_NAME.fullmatch(target):
            # a bare file name: no URL, and resolve_target and unquote leave it as it is
            found = target if target in store_files else None
        elif is_external_target(target):
            continue
        else:
            found = _target_in_store(target, index_dir, store_files)
        if found is not None:
            pointed.add(found)
        elif (
            not target.endswith(".md")  # the common dangling entry: no folder to look for
            and (folder := _folder_in_store(target, index_dir, exists)) is not None
        ):
            pointed_dirs.append(folder)
        else:
            dangling.append(entry)
    return IndexHealth(
        dangling=dangling,
        orphans=_orphans(store_files, pointed, index_dir, own_index_dirs, pointed_dirs),
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
