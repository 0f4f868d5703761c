"""The undo dialogs: the history of operations (``U``; Enter picks one to undo) and an operation
a crash interrupted (roll back, finish or later), with the texts that describe operations.
Only operations of the app's Claude Code home are offered: those of other homes are counted and
named. The flows that use them are in :mod:`memtui.tui.operations`."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Button, DataTable, Static

from memtui.core.plaintext import counted
from memtui.core.write.journal import Journal, OpRecord, undo_verb
from memtui.core.write.proposal import record_target_text
from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.dialogs.listing import ListingDialog
from memtui.tui.plain import line

Recovery = Literal["rollback", "complete", "later"]


def op_time(record: OpRecord) -> str:
    return record.time.replace("T", " ")[:19]


def files_text(record: OpRecord) -> Text:
    text = Text()
    for item in record.files:
        style = "red" if item.action == "delete" else "yellow"
        text.append(f"  {item.action:<6} ", style=style)
        text.append(f"{line(item.path)}\n")
    return text


def undo_files_text(record: OpRecord) -> Text:
    """What undoing ``record`` does to each file: restore, revert or remove (each named from
    the directory the operation wrote into, which the dialog names above it)."""
    text = Text()
    for item in record.files:
        verb = undo_verb(item)
        style = {"remove": "red", "restore": "green"}.get(verb, "yellow")
        path = Path(item.path)
        root = Path(item.root or record.root)
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else item.path
        text.append(f"  {verb:<7} ", style=style)
        text.append(f"{line(shown)}\n")
    return text


def undo_body(record: OpRecord) -> Text:
    text = Text()
    text.append(f"{line(record.kind)}: {line(record.title)}\n", style="bold")
    text.append(f"operation {line(record.id)}, {op_time(record)} UTC\n", style="dim")
    text.append(f"{line(record_target_text(record))}\n\n", style="dim")
    text.append("Puts back, byte for byte, every file it touched:\n")
    text.append_text(undo_files_text(record))
    text.append(
        "\nThe undo is itself an operation: undo it from U to redo.", style="italic"
    )
    return text


# --- U: the history ------------------------------------------------------------------------


class UndoHistoryScreen(ListingDialog[OpRecord]):
    """Every journaled operation of this home, newest first; Enter picks the highlighted one
    to undo. Operations of other homes are only counted."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="undo.close"),
    ]
    NAME = "undo"
    BOX_TITLE = "Operations"
    BOX_KEYS = "⏎ undo · esc close"
    COLUMNS = ("time (UTC)", "kind", "title", "files", "state")
    READ_LABEL = "reading the history"

    def __init__(self, journal: Journal) -> None:
        super().__init__()
        self.journal = journal
        self.records: list[OpRecord] = []
        self.elsewhere = 0

    def where_note(self) -> Text:
        return Text(f"journal: {line(self.journal.directory)}", style="dim")

    def read(self) -> tuple[list[tuple[OpRecord, str]], int]:
        return history_of(self.journal)

    def show_read(self, history: tuple[list[tuple[OpRecord, str]], int]) -> None:
        rows, self.elsewhere = history
        self.show_rows(rows)
        if self.elsewhere:
            self.show_note(self.where_text())

    def where_text(self) -> Text:
        journal = self.journal
        text = Text(f"journal: {line(journal.directory)} · home {line(journal.home)}", style="dim")
        text.append(
            f"\n{self.elsewhere} operation(s) of other Claude Code homes not shown "
            "(memtui undo --list names them)",
            style="yellow",
        )
        return text

    def title_width(self, rows: list[tuple[OpRecord, str]]) -> int | None:
        """The width the title column may take so the state column after it shows whole
        (None: the table has no width yet, titles are not cut)."""
        table = self.table()
        available = table.scrollable_content_region.width
        if available <= 0 or not rows:
            return None
        others = [
            max(len(op_time(r)) for r, _ in rows),
            max(len("kind"), *(len(line(r.kind)) for r, _ in rows)),
            len("files"),
            max(len("state"), *(len(state) for _, state in rows)),
        ]
        padding = 2 * table.cell_padding * (len(others) + 1)
        return max(12, available - sum(others) - padding)

    def show_rows(self, rows: list[tuple[OpRecord, str]]) -> None:
        table = self.table()
        self.records = [record for record, _state in rows]
        width = self.title_width(rows)
        for record, state in rows:
            style = "dim" if state != "done" else ""
            title = Text(line(record.title), style=style)
            if width is not None:
                title.truncate(width, overflow="ellipsis")
            table.add_row(
                Text(op_time(record), style=style),
                Text(line(record.kind), style=style),
                title,
                Text(str(len(record.files)), style=style),
                Text(state, style="yellow" if state == "undone" else style),
                key=record.id,
            )
        if not rows and not self.elsewhere:
            self.show_note(
                Text(f"No operations yet in {line(self.journal.directory)}", style="dim")
            )

    @on(DataTable.RowSelected, "#undo-table")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self.records):
            self.dismiss(self.records[event.cursor_row])


def history_of(journal: Journal) -> tuple[list[tuple[OpRecord, str]], int]:
    """This home's rows, and how many operations other homes have in the journal."""
    records = journal.list()
    mine = [r for r in records if journal.of_home(r)]
    return rows_of(journal, mine), len(records) - len(mine)


def rows_of(journal: Journal, records: list[OpRecord]) -> list[tuple[OpRecord, str]]:
    """Each operation and its state as a user reads it (``undone`` when undone)."""
    rows = []
    for record in records:
        state = "undone" if journal.is_undone(record) else record.state
        if record.incomplete:
            state += " (interrupted)"
        rows.append((record, state))
    return rows


# --- interrupted operations at start -------------------------------------------------------


class InterruptedScreen(Dialog[Recovery]):
    """An operation a crash left half done: roll it back, finish it, or decide later."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "choose('rollback')", "Roll back", id="interrupted.rollback"),
        Binding("f", "choose('complete')", "Finish", id="interrupted.complete"),
        Binding("escape,l", "choose('later')", "Later", id="interrupted.later"),
    ]

    def __init__(self, record: OpRecord, more: int) -> None:
        super().__init__()
        self.record = record
        self.more = more

    def compose(self) -> ComposeResult:
        record = self.record
        body = Text()
        body.append(f"{line(record.kind)}: {line(record.title)}\n", style="bold")
        body.append(
            f"started {op_time(record)} UTC (operation {record.id}) and was interrupted "
            f"({record.state}, {record.progress} of {counted(len(record.files), 'file')} done). "
            "Some files may be old and some new.\n\n"
        )
        body.append_text(files_text(record))
        body.append(
            "\nRoll back puts every file back as it was before; Finish writes the rest of the "
            "new files. Later leaves the files as they are (memtui undo --rollback "
            f"{record.id} works too).",
            style="dim",
        )
        if self.more:
            body.append(f"\n{self.more} more interrupted operation(s) follow.", style="yellow")
        with dialog_box("interrupted", "An operation was interrupted"):
            yield Static(body, id="interrupted-body")
            with Horizontal(id="interrupted-buttons", classes="dialog-buttons"):
                yield Button("Roll back (b)", variant="warning", id="rollback")
                yield Button("Finish (f)", variant="primary", id="complete")
                yield Button("Later (l)", id="later")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "later")

    def action_choose(self, choice: str) -> None:
        if choice == "rollback":
            self.dismiss("rollback")
        elif choice == "complete":
            self.dismiss("complete")
        else:
            self.dismiss("later")


def interrupted_of(journal: Journal) -> tuple[list[OpRecord], list[OpRecord]]:
    return journal.incomplete(), journal.incomplete_elsewhere()


def elsewhere_text(records: list[OpRecord]) -> str:
    """Interrupted operations of other homes: what, where, and the command that recovers each."""
    lines = [f"{len(records)} interrupted operation(s) of other Claude Code homes, left as they "
             "are:"]
    for record in records:
        home = line(record.home) if record.home else "an unknown home"
        what = f"{line(record.kind)}: {line(record.title)}"
        lines.append(f"• {what} in {home} ({line(record.where())})")
        option = f" --claude-home {line(record.home)}" if record.home else ""
        lines.append(f"  memtui{option} undo --rollback {line(record.id)}")
    return "\n".join(lines)
