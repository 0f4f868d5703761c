"""The archive of memories a judge decision took out of their stores (``v`` on the conflicts
screen, ``A`` on the main screen): what, from which store, when and why. ``enter`` or ``r``
closes it with the highlighted entry; the flow that opened it
(:mod:`memtui.tui.restore`) previews putting it back."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memtui.core.judge.archive import Archive, ArchiveEntry
from memtui.core.plaintext import counted
from memtui.tui.dialogs.listing import ListingDialog
from memtui.tui.plain import line

Listing = tuple[list[tuple[ArchiveEntry, bool]], list[str]]
"""Each entry with whether a file of its name is back in its store, and the problems."""


def list_archive(archive: Archive) -> Listing:
    entries = archive.entries()
    return [(e, e.original.exists()) for e in entries], list(archive.problems)


def archived_when(entry: ArchiveEntry) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(entry.time))


class ArchiveScreen(ListingDialog[ArchiveEntry]):
    """Every archived memory, newest first; ``enter`` / ``r`` restores the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "restore", "Restore", id="archive.restore",
                tooltip="Put the highlighted memory back in its store (previewed, undoable; "
                "never over a file of that name)"),
        Binding("escape", "close", "Close", id="archive.close",
                tooltip="Close the archive"),
    ]
    HELP_TITLE = "Keys of the archive"
    NAME = "archive"
    BOX_TITLE = "Archived memories"
    BOX_KEYS = "⏎/r restore · esc close"
    COLUMNS = ("archived (UTC)", "store", "memory", "why", "")
    READ_LABEL = "reading the archive"

    def __init__(self, archive: Archive, where: str) -> None:
        super().__init__()
        self.archive = archive
        self.where = where
        """The archive's directory as the user reads it (``~/…``)."""
        self.entries: list[ArchiveEntry] = []

    def where_note(self) -> Text:
        return Text(f"archive: {line(self.where)}", style="dim")

    def read(self) -> Listing:
        return list_archive(self.archive)

    def show_read(self, listing: Listing) -> None:
        rows, problems = listing
        table = self.table()
        self.entries = [entry for entry, _back in rows]
        for entry, back in rows:
            table.add_row(
                Text(archived_when(entry)),
                Text(line(entry.store_kind)),
                Text(line(entry.rel_path), style="bold"),
                Text(line(entry.reason)),
                Text("a file of that name is back" if back else "", style="yellow"),
                key=entry.id,
            )
        count = counted(len(rows), "memory", "memories")
        note = Text(f"archive: {line(self.where)} · {count}", style="dim")
        if not rows:
            note = Text(f"Nothing archived yet in {line(self.where)}", style="dim")
        for problem in problems:
            note.append(f"\n{line(problem)}", style="yellow")
        self.show_note(note)

    def highlighted(self) -> ArchiveEntry | None:
        row = self.table().cursor_row
        return self.entries[row] if 0 <= row < len(self.entries) else None

    @on(DataTable.RowSelected, "#archive-table")
    def row_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_restore()

    def action_restore(self) -> None:
        entry = self.highlighted()
        if entry is not None:
            self.dismiss(entry)
