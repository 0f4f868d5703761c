"""The text of a MEMORY.md that Claude Code measures for the main session: frontmatter and
top-level HTML comments stripped as CC strips them (through marked's block lexer), with the raw
line each line of the result starts on
(docs/claude-code-rules.md#memorymd-load-report, "Which text is measured").

This reproduces CC's steps exactly, including marked's quirks: the lexer turns CRLF into LF,
drops top-level link reference definitions and keeps the text after ``-->`` on its line.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memtui.core.parse.jsstring import js_trim, js_trim_start
from memtui.core.parse.marked import COMMENT_SPAN, CR, BlockLexer, Token, js_lazy_re

FRONTMATTER = js_lazy_re(r"---\s*\n([\s\S]*?)---\s*\n?")


@dataclass
class MainSessionText:
    """The text the main session reads of a file, the raw line of each of its lines, problems."""

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


def _unchanged(raw: str, start: int, problems: list[str]) -> MainSessionText:
    """``raw[start:]`` as it is: its lines are the raw lines from the one ``start`` is on."""
    first = raw.count("\n", 0, start) + 1
    return MainSessionText(raw[start:], range(first, first + raw.count("\n", start) + 1), problems)


def stripped_text(raw: str) -> MainSessionText:
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
    return MainSessionText(text, line_map, problems)


def unstripped_text(raw: str) -> MainSessionText:
    """Agent memory: the raw file, line ``i`` on raw line ``i + 1``."""
    return MainSessionText(raw, range(1, raw.count("\n") + 2))


def strip_for_main_session(raw: str) -> tuple[str, list[int]]:
    """What CC measures for the main session: frontmatter and block-level comments removed.

    Returns the stripped text and, for each of its lines (split on ``\\n``), the 1-based raw line
    where that line starts. Like CC (through marked), when the text contains ``<!--`` CRLF line
    ends become LF, top-level link reference definitions disappear, and text after ``-->`` on the
    comment's last line is kept; an unclosed ``<!--`` is kept verbatim.
    """
    stripped = stripped_text(raw)
    return stripped.text, list(stripped.line_map)
