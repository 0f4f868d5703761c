"""A ``Static`` given again what it already shows keeps it: :func:`show` updates it only when
the text differs. Textual's ``Static.update`` converts the text again and lays the whole
screen out again even for the same text; the conflicts screen redrew its pair's four panes on
every batch of verdicts and again for the highlight that followed, with the same pair on
show: each time a layout and a repaint of the screen, most of the time judging took in the
TUI. And a widget of a fixed size (the main screen's header, which names every job's
progress) is drawn again without laying the screen out again."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def same_text(shown: object, new: Text | str) -> bool:
    """``new`` would show exactly as ``shown`` does: the same string, or a ``Text`` with the
    same characters, spans, base style and settings (``Text ==`` compares only the first
    two)."""
    if isinstance(new, str) or isinstance(shown, str):
        return type(shown) is type(new) and shown == new
    if not isinstance(shown, Text):
        return False
    return (
        shown.plain == new.plain
        and shown.spans == new.spans
        and shown.style == new.style
        and shown.justify == new.justify
        and shown.overflow == new.overflow
        and shown.no_wrap == new.no_wrap
        and shown.end == new.end
        and shown.tab_size == new.tab_size
    )


def show(static: Static, content: Text | str) -> bool:
    """Show ``content`` in ``static`` unless it shows exactly that already; True: updated.
    The screen is laid out again only when the widget's size follows its text (an ``auto``
    width or height, as Textual's option list decides): a one-line header given the next
    job's progress is only drawn again."""
    if same_text(static.content, content):
        return False
    static.update(content, layout=static.styles.auto_dimensions)
    return True
