"""The history of a memory file or of the stores (``H``): its versions, newest first, with
time, author and size change, the diff of the highlighted version against the file on disk,
and the files recently deleted. ``m`` (or space) marks a version: while one is marked the diff
is between the marked and the highlighted version (the older one as the old side) of the same
file; ``m`` on the marked one clears the mark. ``enter``/``r`` picks a version to restore (the
main screen previews it and applies it through the write path); esc closes.

The versions are read in a worker (:func:`memtui.core.history.timeline.open_history`); text
from disk is shown masked and plain."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker

from memtui.core.history.paths import HistoryError
from memtui.core.history.timeline import FileVersion, History, open_history
from memtui.core.secrets.redact import masked_text
from memtui.core.stores.locations import Context
from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.plain import body, line
from memtui.tui.work import in_thread


@dataclass(frozen=True)
class RestoreChoice:
    """A version picked to put back: ``path`` as version ``rev`` held it."""

    path: Path
    rev: str


@dataclass
class Listed:
    """What the dialog lists: the versions (a file's, or every store's newest files) and the
    recently deleted files (their last version that held them)."""

    history: History
    versions: list[FileVersion]
    deleted: list[FileVersion]
    restore_revs: dict[int, str]
    """By ``id`` of a deleted file's row: the last version that held it."""


def author_text(version: FileVersion) -> str:
    who = version.attribution
    if who.kind == "memtui":
        return f"memtui {who.op_id or ''}".strip()
    if who.kind == "editor":
        return f"editor {who.editor or ''}".strip()
    if who.kind == "session":
        return f"session {(who.session_id or '')[:8]} {who.tool or ''}".strip()
    if who.kind == "consolidation":
        return "consolidation"
    return f"unknown ({who.source})" if who.source else "unknown"


def version_prompt(version: FileVersion, with_name: bool) -> Text:
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(version.time))
    change = "" if version.size_change is None else f"{version.size_change:+,d} B"
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"{when}  {version.rev[:8]}  ", style="dim")
    out.append(f"{line(version.status):<8} ", style="bold")
    out.append(f"{change:>9}  ")
    out.append(line(author_text(version)), style="cyan")
    if with_name:
        out.append(f"  {line(version.rel)}")
    if version.pruned:
        out.append(f"  (after {version.pruned} pruned versions)", style="dim")
    return out


MARK = "◆ "
UNMARKED = "  "
HINT = "↑ ↓ versions · m mark, ↑ ↓: diff of two · r/⏎ restore · esc close"


def row_prompt(prompt: Text, marked: bool) -> Text:
    """A row: the mark's glyph (or room for it), then the version."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(MARK if marked else UNMARKED, style="bold magenta")
    out.append_text(prompt)
    return out


class HistoryScreen(Dialog[RestoreChoice | None]):
    """The versions of ``path`` (a memory file), or of every store (None)."""

    HELP_TITLE = "Keys of the history"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="history.close"),
        Binding("r", "restore", "Restore", id="history.restore",
                tooltip="Put the highlighted version back (previewed, journaled, u undoes)"),
        Binding("m,space", "mark", "Mark", id="history.mark",
                tooltip="Mark the highlighted version: the diff is then between the marked "
                "and the highlighted version (m on the marked one clears it)"),
    ]

    def __init__(self, context: Context, path: Path | None) -> None:
        super().__init__()
        self.context = context
        self.path = path
        self.listed: Listed | None = None
        self.rows: list[FileVersion] = []
        self.prompts: list[Text] = []
        self.marked: int | None = None
        """The row marked with ``m``: the other side of the diff (None: the file on disk)."""

    def compose(self) -> ComposeResult:
        title = "History of " + (line(self.path.name) if self.path else "every store")
        with dialog_box("history", title, HINT):
            yield Static(Text("reading the history …", style="dim"), id="history-note",
                         classes="dialog-note")
            yield OptionList(id="history-list", classes="dialog-list")
            with VerticalScroll(id="history-diff-scroll"):
                yield Static("", id="history-diff")

    def on_mount(self) -> None:
        self.query_one("#history-list", OptionList).focus()
        self.read_versions()

    @work(exclusive=True, group="history-read", exit_on_error=False,
          name="reading the history", description="History")
    async def read_versions(self) -> None:
        context, path = self.context, self.path

        def read() -> Listed:
            history = open_history(context)
            if path is not None:
                return Listed(history, history.file_timeline(path), [], {})
            versions = [f for v in history.recent(50) for f in v.files]
            gone = history.deleted()
            return Listed(history, versions, [d.deleted for d in gone],
                          {id(d.deleted): d.restore_rev for d in gone})

        try:
            listed = await in_thread(read)
        except HistoryError as why:  # no history yet: said in the dialog, not as a failure
            self.query_one("#history-note", Static).update(Text(line(why), style="yellow"))
            return
        self.show_listed(listed)

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        if failure is not None:
            self.query_one("#history-note", Static).update(Text(line(failure), style="yellow"))

    def show_listed(self, listed: Listed) -> None:
        self.listed = listed
        options = self.query_one("#history-list", OptionList)
        with_name = self.path is None
        self.rows = [*listed.versions, *listed.deleted]
        prompts = [version_prompt(v, with_name) for v in listed.versions]
        if listed.deleted:
            prompts += [Text.assemble(("recently deleted: ", "bold red"),
                                      version_prompt(v, True)) for v in listed.deleted]
        self.prompts = prompts
        options.add_options([Option(row_prompt(p, False)) for p in prompts])
        count = f"{len(listed.versions)} versions"
        if listed.deleted:
            count += f", {len(listed.deleted)} recently deleted"
        where = line(self.context.show(listed.history.repo.directory))
        note = Text(f"{count} · history in {where}", style="dim")
        self.query_one("#history-note", Static).update(note)
        if self.rows:
            options.highlighted = 0

    @on(OptionList.OptionHighlighted, "#history-list")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.rows):
            self.show_diff(event.option_index)

    def rev_of(self, version: FileVersion) -> str:
        """The version whose bytes a row shows (a deleted file's row: the last that held it)."""
        assert self.listed is not None
        return self.listed.restore_revs.get(id(version), version.rev)

    def sides(self, index: int) -> tuple[FileVersion, str, str | None, str | None]:
        """(the version, the old side's rev, the new side's rev (None: on disk), a note) of the
        diff shown for row ``index``: against the marked row when one is marked (the row lower
        in the list, older, is the old side), else against the file on disk."""
        version = self.rows[index]
        rev = self.rev_of(version)
        marked = self.marked
        if marked is None or marked == index:
            return version, rev, None, None
        other = self.rows[marked]
        if (other.key, other.rel) != (version.key, version.rel):
            return version, rev, None, "the marked version is of another file: against the disk"
        older, newer = (other, version) if marked > index else (version, other)
        return version, self.rev_of(older), self.rev_of(newer), None

    @work(exclusive=True, group="history-diff", exit_on_error=False,
          name="reading a version", description="History")
    async def show_diff(self, index: int) -> None:
        listed = self.listed
        if listed is None or not 0 <= index < len(self.rows):
            return
        version, old, new, note = self.sides(index)
        diff = await in_thread(lambda: listed.history.diff(version.path, old, new))
        if new is None:
            shown = diff.unified or "(the same bytes as the file on disk)"
            title = Text(f"{line(version.rel)} at {old[:8]} → on disk now\n", style="bold")
        else:
            shown = diff.unified or "(the same bytes in both versions)"
            title = Text(f"{line(version.rel)} at {old[:8]} → at {new[:8]} (marked ↔ "
                         "highlighted)\n", style="bold")
        if note is not None:
            title.append(f"({note})\n", style="yellow")
        title.append(body(masked_text(shown, path=version.rel)))
        self.query_one("#history-diff", Static).update(title)

    def action_mark(self) -> None:
        """Mark the highlighted version (or clear the mark on it) and show the diff again."""
        index = self.query_one("#history-list", OptionList).highlighted
        if index is None or not 0 <= index < len(self.rows):
            return
        before = self.marked
        self.marked = None if before == index else index
        options = self.query_one("#history-list", OptionList)
        for row in {before, self.marked} - {None}:
            assert row is not None
            options.replace_option_prompt_at_index(
                row, row_prompt(self.prompts[row], row == self.marked))
        self.show_diff(index)

    def highlighted_version(self) -> FileVersion | None:
        index = self.query_one("#history-list", OptionList).highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    @on(OptionList.OptionSelected, "#history-list")
    def selected(self, _event: OptionList.OptionSelected) -> None:
        self.action_restore()

    def action_restore(self) -> None:
        version = self.highlighted_version()
        if version is None or self.listed is None:
            return
        restore_rev = self.listed.restore_revs.get(id(version))
        if restore_rev is not None:
            self.dismiss(RestoreChoice(version.path, restore_rev))
            return
        if version.status == "deleted":
            self.notify("That version is the deletion: pick one that held the file.",
                        title="History", severity="warning")
            return
        self.dismiss(RestoreChoice(version.path, version.rev))

    def action_close(self) -> None:
        self.dismiss(None)
