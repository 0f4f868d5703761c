"""The help of a screen: every key of the screen it was opened from with what it really does,
the keys that work everywhere, and the legend of the trees' letters and marks.

The rows come from the screen's own ``BINDINGS`` (:func:`memtui.tui.keymap.own_bindings`) with
the keys a user keymap gives them, and each binding's meaning (its ``tooltip`` where the short
label is not enough). The key that opened the help (``?``, binding id ``app.keys``) closes it,
and so does esc.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from memtui.tui.dialogs.modal import HELP_KEY_ID, ModalDialog, dialog_box
from memtui.tui.keymap import key_display, meaning, own_bindings
from memtui.tui.plain import content


@dataclass(frozen=True)
class HelpRow:
    keys: str
    meaning: str


def binding_rows(node: DOMNode) -> list[HelpRow]:
    """One row per binding memtui declares on ``node``, with its current keys."""
    return [HelpRow(key_display(node, b), meaning(b)) for b in own_bindings(node)]


def everywhere_rows(screen: Screen[Any]) -> list[HelpRow]:
    """The app's own keys and the command palette's."""
    app = screen.app
    rows = binding_rows(app)
    palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette")
    rows.append(HelpRow(key_display(app, palette),
                        "Command palette: every action of this screen, and more"))
    return rows


def section(title: str, rows: Sequence[HelpRow]) -> RenderableType:
    table = Table.grid(padding=(0, 2))
    table.add_column(min_width=10, no_wrap=True, style="bold")
    table.add_column()
    for row in rows:
        table.add_row(Text(row.keys), Text(row.meaning))
    return Group(Text(title, style="bold underline"), table)


def help_body(
    screen: Screen[Any], extra: Sequence[HelpRow] = (), legend: Text | None = None
) -> Group:
    """The help of ``screen``: its keys, ``extra`` rows (keys of its widgets), the keys that
    work everywhere, then the legend."""
    parts: list[RenderableType] = [section("Keys of this screen", binding_rows(screen))]
    if extra:
        parts.append(section("Moving around", extra))
    parts.append(section("Everywhere", everywhere_rows(screen)))
    if legend is not None:
        parts.append(Group(Text("Legend", style="bold underline"), legend))
    spaced: list[RenderableType] = []
    for part in parts:
        spaced += [Text("")] if spaced else []
        spaced.append(part)
    return Group(*spaced)


class HelpScreen(ModalDialog[None]):
    """A screen's help; the help key (``?``) and esc close it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "close", "Close help", id=HELP_KEY_ID),
        Binding("escape", "close", "Close help", id="help.close"),
    ]

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        box = dialog_box("help", content(self.title_text), "? or esc closes · ↑ ↓ scroll")
        with box, VerticalScroll(id="help-scroll"):
            yield Static(self.body, id="help-body")

    def on_mount(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_help(self) -> None:
        self.dismiss(None)


def show_help(
    screen: Screen[Any],
    title: str,
    extra: Sequence[HelpRow] = (),
    legend: Text | None = None,
) -> None:
    """Open the help of ``screen`` over it."""
    screen.app.push_screen(HelpScreen(title, help_body(screen, extra, legend)))
