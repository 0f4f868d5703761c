"""Text from disk in the TUI: always plain text (``Text`` / ``Content``, never markup), with
control characters escaped (:mod:`memtui.core.plaintext`).

A memory's name, description, path or body can hold Rich markup (``[@click=app.quit]``, an
unmatched ``[/x]`` that would raise MarkupError) or terminal sequences (an OSC that retitles
the terminal, a CSI that clears it, a C1 control, a bidi override). Every widget builds what it
shows from disk through these helpers: :func:`line` for one-line fields (names, paths, titles,
descriptions, rules, messages), :func:`body` for file contents (newlines and tabs kept).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.content import Content

from memtui.core.plaintext import escape_controls, has_controls


def line(value: object) -> str:
    """``value`` as one line of plain text: every control character escaped, newlines too."""
    return escape_controls(str(value))


def body(value: str) -> str:
    """File contents as plain text: controls escaped, newlines and tabs kept."""
    return escape_controls(value, keep_newlines=True)


def text(value: object, style: str = "") -> Text:
    """A one-line value from disk as a ``Text`` (never parsed as markup)."""
    return Text(line(value), style=style)


def content(value: object) -> Content:
    """A one-line value from disk as Textual ``Content``: for border titles and other places
    where Textual would parse a ``str`` as markup."""
    return Content(line(value))


def styled(raw: str, spans: Iterable[tuple[int, int, str]], style: str = "") -> Text:
    """``raw`` (one line from disk) as a ``Text`` with its control characters escaped, and
    each span (offsets into ``raw``: search matches) styled where it moved to."""
    if not has_controls(raw):
        out = Text(raw, style=style)
        for start, end, span_style in spans:
            out.stylize(span_style, start, end)
        return out
    offsets: list[int] = []
    pieces: list[str] = []
    position = 0
    for char in raw:
        offsets.append(position)
        piece = escape_controls(char)
        pieces.append(piece)
        position += len(piece)
    offsets.append(position)
    out = Text("".join(pieces), style=style)
    for start, end, span_style in spans:
        start, end = max(0, min(start, len(raw))), max(0, min(end, len(raw)))
        out.stylize(span_style, offsets[start], offsets[end])
    return out
