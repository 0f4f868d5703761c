"""What every dialog shares: a modal screen styled by the one ``dialogs.tcss``.

A dialog gets the data it shows when it is made and closes with a result (``dismiss``); it
never reaches into the screen that opened it.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

ResultT = TypeVar("ResultT")


class Dialog(ModalScreen[ResultT]):
    """A modal dialog: its box has the class ``dialog-box`` (buttons ``dialog-buttons``,
    one-line notes ``dialog-note``, lists ``dialog-list``)."""

    CSS_PATH = "dialogs.tcss"
