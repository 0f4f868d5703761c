"""What every dialog but the help shares: the modal screen (:mod:`memtui.tui.dialogs.modal`)
and the help key (``?``), which opens the dialog's own help."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType

from memtui.tui.dialogs.help import show_help
from memtui.tui.dialogs.modal import HELP_KEY_ID, ModalDialog, dialog_box

__all__ = ["HELP_KEY_ID", "Dialog", "dialog_box"]

ResultT = TypeVar("ResultT")


class Dialog(ModalDialog[ResultT]):
    """A modal dialog with a help of its keys (``?``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", show=False, id=HELP_KEY_ID,
                tooltip="Help: every key of this dialog (? or esc closes it)"),
    ]
    HELP_TITLE = "Keys of this dialog"

    def action_help(self) -> None:
        show_help(self, self.HELP_TITLE)
