"""Text from disk in the TUI: always plain text (``Text`` / ``Content``, never markup), with
control characters escaped (:mod:`memtui.core.plaintext`).

A memory's name, description, path or body can hold Rich markup (``[@click=app.quit]``, an
unmatched ``[/x]`` that would raise MarkupError) or terminal sequences (an OSC that retitles
the terminal, a CSI that clears it, a C1 control, a bidi override). Every widget builds what it
shows from disk through these helpers: :func:`line` for one-line fields (names, paths, titles,
descriptions, rules, messages), :func:`body` for file contents (newlines and tabs kept).

A one-line field shows every secret in it as its mask (``ghp_…9abc``), through the core's
:func:`~memtui.core.secrets.mask.mask_secrets` as the CLI does: a token in a memory's name,
description or file name never reaches the screen (the file on disk is unchanged). File
contents are masked where they are shown (:func:`memtui.core.secrets.redact.masked_file`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from rich.text import Text
from textual.content import Content

from memtui.core.plaintext import escape_controls, has_controls
from memtui.core.secrets.mask import mask_secrets

CACHED_LINE = 4096
"""Longer values are masked each time, not kept (a line is a name, a path, a message)."""


def line(value: object) -> str:
    """``value`` as one line of plain text: every secret masked, every control character
    escaped, newlines too."""
    raw = str(value)
    return _line(raw) if len(raw) <= CACHED_LINE else escape_controls(mask_secrets(raw))


@lru_cache(maxsize=32768)
def _line(raw: str) -> str:
    """The same names are drawn again and again (every rescan, every resize): masked once."""
    return escape_controls(mask_secrets(raw))


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
    each span (offsets into ``raw``: search matches) styled where it moved to. A line holding
    a secret is shown masked, without its spans (they would point into the secret)."""
    if mask_secrets(raw) != raw:
        return Text(line(raw), style=style)
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
