"""The modal screen every dialog (the help included) is made of, styled by the one
``dialogs.tcss``, and its box.

A dialog gets the data it shows when it is made and closes with a result (``dismiss``); it
never reaches into the screen that opened it. Its workers end with it; their progress is its
own (it stops here, off the app's header).
"""

from __future__ import annotations

from typing import TypeVar

from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen

from memtui.tui.messages import JobProgress
from memtui.tui.work import ReportsWork

HELP_KEY_ID = "app.keys"
"""The id of the binding that opens a screen's help (``?``) and closes it again."""

ResultT = TypeVar("ResultT")


class ModalDialog(ReportsWork, ModalScreen[ResultT]):
    """A modal dialog: its box (:func:`dialog_box`) has the class ``dialog-box`` (buttons
    ``dialog-buttons``, one-line notes ``dialog-note``, lists ``dialog-list``)."""

    CSS_PATH = "dialogs.tcss"

    def on_job_progress(self, message: JobProgress) -> None:
        message.stop()  # a dialog's own: its status line shows it, not the header


def dialog_box(name: str, title: str | Content, keys: str | None = None) -> Vertical:
    """A dialog's box, ``#<name>-box`` (``with`` it in ``compose``): its title on the top
    border, its keys on the bottom one (none: no subtitle)."""
    box = Vertical(id=f"{name}-box", classes="dialog-box")
    box.border_title = title
    if keys is not None:
        box.border_subtitle = keys
    return box
