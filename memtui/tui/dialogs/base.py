"""What every dialog shares: a modal screen styled by the one ``dialogs.tcss``.

A dialog gets the data it shows when it is made and closes with a result (``dismiss``); it
never reaches into the screen that opened it.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen

HELP_KEY_ID = "app.keys"
"""The id of the binding that opens a screen's help (``?``) and closes it again."""

ResultT = TypeVar("ResultT")


class Dialog(ModalScreen[ResultT]):
    """A modal dialog: its box (:func:`dialog_box`) has the class ``dialog-box`` (buttons
    ``dialog-buttons``, one-line notes ``dialog-note``, lists ``dialog-list``)."""

    CSS_PATH = "dialogs.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", show=False, id=HELP_KEY_ID,
                tooltip="Help: every key of this dialog (? or esc closes it)"),
    ]
    HELP_TITLE = "Keys of this dialog"

    def action_help(self) -> None:
        from memtui.tui.dialogs.help import show_help  # the help is itself a Dialog

        show_help(self, self.HELP_TITLE)


def dialog_box(name: str, title: str | Content, keys: str | None = None) -> Vertical:
    """A dialog's box, ``#<name>-box`` (``with`` it in ``compose``): its title on the top
    border, its keys on the bottom one (none: no subtitle)."""
    box = Vertical(id=f"{name}-box", classes="dialog-box")
    box.border_title = title
    if keys is not None:
        box.border_subtitle = keys
    return box
