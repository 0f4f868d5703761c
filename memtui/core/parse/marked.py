"""marked v15.0.6's block lexer (gfm: false), top level only: enough to know which top-level
HTML tokens Claude Code strips from MEMORY.md (docs/claude-code-rules.md#memorymd-load-report).

The rules and tokenizer logic are ported from marked 15.0.6 (https://github.com/markedjs/marked,
MIT License, Copyright (c) 2011-2025, Christopher Jeffrey), its JavaScript regexes translated for
Python's ``re`` and compiled on first use: most files hold no comment and never need them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from memtui.core.parse.jsstring import JS_WS_CLASS, js_trim, js_trim_end_at
from memtui.core.parse.lazyre import lazy_re

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
                out.append(JS_WS_CLASS if in_class else f"[{JS_WS_CLASS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{JS_WS_CLASS}]")
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


COMMENT_SPAN = _lazy_re(r"<!--[\s\S]*?-->")


CR = _lazy_re(r"\r\n|\r")


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
class Token:
    """A block token: its type and raw text, with where each part of the raw came from."""

    type: str
    raw: str
    parts: list[tuple[str, int | None]] = field(default_factory=list)

    def append(self, text: str, origin: int | None) -> None:
        self.raw += text
        self.parts.append((text, origin))


class BlockLexer:
    """Port of marked's ``Lexer.blockTokens`` for the options CC uses (gfm off, top level).

    ``fast``: skip runs of one-line list items with one regex (same tokens; the item loop
    costs a Python loop per line, seconds for a 50,000-line index), and try only the rules
    that can start with the block's first character after up to three spaces (each rule but
    the space, setext heading and paragraph ones needs one: compiling the others costs more
    than lexing a small file). False only in tests, to check the two agree."""

    def __init__(self, *, fast: bool = True) -> None:
        self.fast = fast

    def lex(self, src: str) -> list[Token]:
        tokens: list[Token] = []
        self.block_tokens(src, tokens)
        return tokens

    def block_tokens(self, src: str, tokens: list[Token], clipped: bool = False) -> None:
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
                tokens.append(Token("paragraph", raw, [(raw, pos)]))
            clipped = False
            pos += len(raw)

    def _non_paragraph(self, src: str, pos: int, tokens: list[Token]) -> int | None:
        """Every block rule but paragraph, in marked's order; the new position, or None."""
        last = tokens[-1] if tokens else None
        space = _NEWLINE.match(src, pos)
        if space and space.end() > pos:
            if space.end() - pos == 1 and last is not None:
                last.append("\n", pos)
            else:
                tokens.append(Token("space", space.group(0), [(space.group(0), pos)]))
            return space.end()
        lead = _lead_char(src, pos) if self.fast else None
        code = _CODE.match(src, pos) if _may_start(lead, " \t") else None
        if code:
            return self._after_paragraph(tokens, "code", code.group(0), pos, push=True)
        for kind, raw in self._simple_blocks(src, pos, lead):
            if raw is not None:
                tokens.append(Token(kind, raw, [(raw, pos)]))
                return pos + len(raw)
        definition = _DEF.match(src, pos) if _may_start(lead, "[") else None
        if definition:
            return self._after_paragraph(tokens, "def", definition.group(0), pos, push=False)
        heading = _LHEADING.match(src, pos)
        if heading:
            tokens.append(Token("heading", heading.group(0), [(heading.group(0), pos)]))
            return heading.end()
        return None

    @staticmethod
    def _after_paragraph(tokens: list[Token], kind: str, raw: str, pos: int, *, push: bool) -> int:
        """Code and link definitions right after a paragraph join it (marked adds a newline);
        otherwise code is pushed and a definition vanishes from the tokens."""
        last = tokens[-1] if tokens else None
        if last is not None and last.type in ("paragraph", "text"):
            last.append("\n", None)
            last.append(raw, pos)
        elif push:
            tokens.append(Token(kind, raw, [(raw, pos)]))
        return pos + len(raw)

    def _simple_blocks(
        self, src: str, pos: int, lead: str | None
    ) -> Iterable[tuple[str, str | None]]:
        """fences, heading, hr, blockquote, list, html: tried in marked's order, lazily (those
        that can start with ``lead``, see ``_may_start``)."""
        fences = _FENCES.match(src, pos) if _may_start(lead, "`~") else None
        yield "code", fences.group(0) if fences else None
        heading = _HEADING.match(src, pos) if _may_start(lead, "#") else None
        yield "heading", heading.group(0) if heading else None
        hr = _HR.match(src, pos) if _may_start(lead, "-_*") else None
        yield "hr", _rtrim_newlines(hr.group(0)) if hr else None
        yield "blockquote", self.blockquote(src, pos) if _may_start(lead, ">") else None
        yield "list", self.list(src, pos) if _may_start(lead, "*+-0123456789") else None
        html = _HTML.match(src, pos) if _may_start(lead, "<") else None
        yield "html", html.group(0) if html else None

    def blockquote(self, src: str, pos: int) -> str | None:
        """marked's ``Tokenizer.blockquote``: only the raw text is kept."""
        cap = _BLOCKQUOTE.match(src, pos)
        if not cap:
            return None
        lines = _rtrim_newlines(cap.group(0)).split("\n")
        raw = ""
        tokens: list[Token] = []
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
                tokens[-1] = Token("blockquote", new_raw)
                raw = raw[: len(raw) - len(last.raw)] + new_raw
                break
            if last.type == "list":
                new_text = last.raw + "\n" + "\n".join(lines)
                new_raw = self.list(new_text, 0) or ""
                tokens[-1] = Token("list", new_raw)
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
                items += src.count("\n", p, run.end())  # no copy of a 50,000-line run
                p = run.end()
            item = item_re.match(src, p)
            if not item or _HR.match(src, p):
                break
            items += 1
            p = _list_item_end(src, item)
        if not items:
            return None
        return src[pos : js_trim_end_at(src, pos, min(p, len(src)))]


def _lead_char(src: str, pos: int) -> str:
    """The character after up to three spaces at ``pos`` (a space when there are four; ``""``
    at the end): every rule but space, setext heading and paragraph starts `` {0,3}`` and one
    of a few characters."""
    end = min(pos + 3, len(src))
    while pos < end and src[pos] == " ":
        pos += 1
    return src[pos : pos + 1]


def _may_start(lead: str | None, chars: str) -> bool:
    """Whether a rule whose first character (after up to three spaces) is one of ``chars`` may
    match; ``lead`` None: not known (every rule is tried)."""
    return lead is None or (lead != "" and lead in chars)


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


def js_lazy_re(source: str, flags: int = 0) -> re.Pattern[str]:
    """A JavaScript regex source, compiled on first use."""
    return _lazy_re(source, flags, from_js=True)
