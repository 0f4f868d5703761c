"""The project switcher: every project Claude Code keeps memory for. One whose source path is
known and on disk opens there; any other opens by its directory under the CC home (its stores
there only), and says so."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui.core.model import ProjectRef
from memtui.core.plaintext import counted
from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.plain import line
from memtui.tui.work import check, in_thread

PathState = Literal["unknown", "checking", "exists", "missing"]


@dataclass
class ProjectRow:
    """A project directory of the CC home, its real path and what we know of that path."""

    ref: ProjectRef
    state: PathState
    current: bool = False

    @property
    def name(self) -> str:
        """The project directory's name, control characters escaped (shown, never parsed)."""
        return line(Path(self.ref.dir).name)

    @property
    def shown_path(self) -> str:
        return line(self.ref.path or "")


@dataclass(frozen=True)
class OpenProject:
    """The switcher's choice: open ``ref`` at its source path, or (``by_dir``) by its directory
    under the CC home, its source path being unknown or gone."""

    ref: ProjectRef
    by_dir: bool


def initial_rows(
    projects: list[ProjectRef], current: Path, current_dir: Path | None = None
) -> list[ProjectRow]:
    """``current_dir``: the project directory the current project was opened by, if so."""

    def is_current(ref: ProjectRef) -> bool:
        if current_dir is not None:
            return Path(ref.dir) == current_dir
        return ref.path is not None and Path(ref.path) == current

    return [
        ProjectRow(ref, "unknown" if ref.path is None else "checking", current=is_current(ref))
        for ref in projects
    ]


def path_state(path: str | None) -> PathState:
    """Whether a project's real path is known and is a directory on this machine (does I/O)."""
    if path is None:
        return "unknown"
    return "exists" if os.path.isdir(path) else "missing"


BY_DIR_NOTE = " · opens its stores under the CC home only"
STATE_TEXT: dict[PathState, tuple[str, str]] = {
    "unknown": ("source path unknown", "dim italic"),
    "checking": ("", "dim"),
    "exists": ("", ""),
    "missing": ("  missing on disk", "bold red"),
}


def row_prompt(row: ProjectRow) -> Text:
    prompt = Text()
    prompt.append(row.name, style="bold")
    if row.current:
        prompt.append("  ● current", style="bold green")
    note, style = STATE_TEXT[row.state]
    prompt.append("\n  ")
    if row.ref.path is not None:
        prompt.append(row.shown_path, style="dim" if row.state == "missing" else "cyan")
    prompt.append(note, style=style)
    if row.state in ("unknown", "missing"):
        prompt.append(BY_DIR_NOTE, style="dim italic")
    return prompt


def refusal(row: ProjectRow) -> str | None:
    """Why ``row`` cannot be opened yet, or None when it can."""
    if row.state == "checking":
        return f"{row.name}: still checking whether {row.shown_path} exists, try again."
    return None


class ProjectsScreen(Dialog[OpenProject | None]):
    """Pick another project: the dialog closes with it (the main screen rescans)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="projects.close"),
    ]

    def __init__(
        self, projects: list[ProjectRef], current: Path, current_dir: Path | None = None
    ) -> None:
        super().__init__()
        self.rows = initial_rows(projects, current, current_dir)

    def compose(self) -> ComposeResult:
        with dialog_box("projects", "Projects", "⏎ open · esc close"):
            yield Static(self.summary(), id="projects-summary", classes="dialog-note")
            yield OptionList(
                *[Option(row_prompt(row)) for row in self.rows],
                id="projects-list",
                classes="dialog-list",
            )

    def summary(self) -> Text:
        if not self.rows:
            return Text("No project directories under the Claude Code home.", style="dim")
        known = sum(1 for row in self.rows if row.ref.path is not None)
        return Text(
            f"{counted(len(self.rows), 'project')} with memory or transcripts · {known} with a "
            "known source path · every one opens",
            style="dim",
        )

    def on_mount(self) -> None:
        options = self.query_one("#projects-list", OptionList)
        options.focus()
        current = next((n for n, row in enumerate(self.rows) if row.current), 0)
        if self.rows:
            options.highlighted = current
        self.check_paths()

    @work(exclusive=True, group="project-paths", exit_on_error=False,
          name="checking the project paths", description="Projects")
    async def check_paths(self) -> None:
        paths = [row.ref.path for row in self.rows]

        def run() -> list[PathState]:
            states: list[PathState] = []
            for path in paths:
                check()
                states.append(path_state(path))
            return states

        self.show_states(await in_thread(run))

    def show_states(self, states: list[PathState]) -> None:
        if not self.is_attached:
            return
        options = self.query_one("#projects-list", OptionList)
        for number, (row, state) in enumerate(zip(self.rows, states, strict=True)):
            if state != row.state:
                row.state = state
                options.replace_option_prompt_at_index(number, row_prompt(row))

    @on(OptionList.OptionSelected, "#projects-list")
    def option_selected(self, event: OptionList.OptionSelected) -> None:
        row = self.rows[event.option_index]
        why = refusal(row)
        if why is not None:
            self.notify(why, title="Cannot open project", severity="warning", markup=False)
            return
        self.dismiss(OpenProject(row.ref, by_dir=row.state != "exists"))

    def action_close(self) -> None:
        self.dismiss(None)
