"""A dialog that lists rows read in a worker (the undo history, the archive): a note saying where
they come from over a table; ``escape`` closes it."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.work import in_thread, run_flow

ResultT = TypeVar("ResultT")


class ListingDialog(Dialog[ResultT | None]):
    """A box ``#<NAME>-box`` (``BOX_TITLE``, its keys ``BOX_KEYS``): the note
    ``#<NAME>-where`` (:meth:`where_note`) over the table ``#<NAME>-table`` (``COLUMNS``), whose
    rows :meth:`read` reads in a worker (``READ_LABEL``) once the dialog is mounted and
    :meth:`show_read` fills in."""

    NAME: ClassVar[str]
    BOX_TITLE: ClassVar[str]
    BOX_KEYS: ClassVar[str]
    COLUMNS: ClassVar[tuple[str, ...]]
    READ_LABEL: ClassVar[str]

    def where_note(self) -> Text:
        raise NotImplementedError

    def read(self) -> Any:
        """The rows (blocking: it runs in a thread)."""
        raise NotImplementedError

    def show_read(self, rows: Any) -> None:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with dialog_box(self.NAME, self.BOX_TITLE, self.BOX_KEYS):
            yield Static(self.where_note(), id=f"{self.NAME}-where", classes="dialog-note")
            yield DataTable(id=f"{self.NAME}-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.table()
        table.add_columns(*self.COLUMNS)
        table.focus()
        run_flow(self, self._read_rows, group=f"read-{self.NAME}", label=self.READ_LABEL,
                 title=self.BOX_TITLE)

    async def _read_rows(self) -> None:
        self.show_read(await in_thread(self.read))

    def table(self) -> DataTable[Any]:
        return self.query_one(f"#{self.NAME}-table", DataTable)

    def show_note(self, note: Text) -> None:
        self.query_one(f"#{self.NAME}-where", Static).update(note)

    def action_close(self) -> None:
        self.dismiss(None)
