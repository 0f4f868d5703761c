"""A dialog that lists rows read in a job (the undo history, the archive): a note saying where
they come from over a table; ``escape`` closes it."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.jobs import Job, runner_of

ResultT = TypeVar("ResultT")


class ListingDialog(Dialog[ResultT | None]):
    """A box ``#<NAME>-box`` (``BOX_TITLE``, its keys ``BOX_KEYS``): the note
    ``#<NAME>-where`` (:meth:`where_note`) over the table ``#<NAME>-table`` (``COLUMNS``), whose
    rows the job :meth:`read_job` reads once the dialog is mounted (its ``done`` fills them
    in)."""

    NAME: ClassVar[str]
    BOX_TITLE: ClassVar[str]
    BOX_KEYS: ClassVar[str]
    COLUMNS: ClassVar[tuple[str, ...]]

    def where_note(self) -> Text:
        raise NotImplementedError

    def read_job(self) -> Job[Any]:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with dialog_box(self.NAME, self.BOX_TITLE, self.BOX_KEYS):
            yield Static(self.where_note(), id=f"{self.NAME}-where", classes="dialog-note")
            yield DataTable(id=f"{self.NAME}-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.table()
        table.add_columns(*self.COLUMNS)
        table.focus()
        runner_of(self).start(self.read_job(), self)

    def table(self) -> DataTable[Any]:
        return self.query_one(f"#{self.NAME}-table", DataTable)

    def show_note(self, note: Text) -> None:
        self.query_one(f"#{self.NAME}-where", Static).update(note)

    def action_close(self) -> None:
        self.dismiss(None)
