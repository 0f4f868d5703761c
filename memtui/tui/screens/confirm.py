"""Confirming an edit, and running confirmed edits (and their planning) in workers.

Every write of the TUI goes: plan (worker) → :class:`ConfirmScreen` naming what will be deleted
or overwritten → :func:`start_edit` (worker through :func:`memtui.core.write.apply.apply` or the
journal) → notification with "u to undo" → rescan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.worker import Worker, get_current_worker

from memtui.core.plaintext import escape_diff
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.proposal import AppliedOp, FileDiff, Proposal
from memtui.tui.plain import content, line

if TYPE_CHECKING:
    from memtui.tui.screens.main import MainScreen

T = TypeVar("T")
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]

UNDO_HINT = "You can undo this with u (U lists every operation)."
STATUS_LETTER = {"added": "A", "changed": "M", "deleted": "D", "unchanged": "="}
STATUS_STYLE = {"added": "green", "changed": "yellow", "deleted": "bold red", "unchanged": "dim"}


def journal_for(main: MainScreen) -> Journal:
    """The journal of the screen's context (its environment decides where it is), scoped to
    the context's Claude Code home: operations of other homes are neither offered nor undone."""
    return Journal.default(main.context.env, home=main.context.claude_home)


# --- rendering plans ----------------------------------------------------------------------


def status_line(diff: FileDiff) -> Text:
    """``A file.md`` / ``M`` / ``D`` / ``=`` (unchanged), colored."""
    text = Text()
    text.append(STATUS_LETTER[diff.status], style=STATUS_STYLE[diff.status])
    text.append(f" {line(diff.rel)}", style="dim" if diff.status == "unchanged" else "")
    if diff.binary:
        text.append("  (binary)", style="dim")
    return text


def colored_diff(unified: str, rel: str) -> Text:
    """The unified diff of ``rel`` with ``+`` lines green, ``-`` lines red and hunk headers cyan
    (control characters escaped, in the contents and in the file name of the headers)."""
    text = Text()
    for diff_line in escape_diff(unified, rel).splitlines(keepends=True):
        if diff_line.startswith(("+++", "---")):
            text.append(diff_line, style="bold")
        elif diff_line.startswith("@@"):
            text.append(diff_line, style="cyan")
        elif diff_line.startswith("+"):
            text.append(diff_line, style="green")
        elif diff_line.startswith("-"):
            text.append(diff_line, style="red")
        else:
            text.append(diff_line)
    return text


def names_with(diffs: Sequence[FileDiff], status: str) -> list[str]:
    return [d.rel for d in diffs if d.status == status]


def proposal_summary(proposal: Proposal, diffs: Sequence[FileDiff], where: str) -> Text:
    """What confirming ``proposal`` does, naming every file it deletes or overwrites."""
    text = Text()
    text.append(f"{line(proposal.title)}\n", style="bold")
    text.append(f"in {line(where)}\n{line(proposal.target_text())}\n\n", style="dim")
    groups = (
        ("deleted", "Deletes", "bold red"),
        ("changed", "Overwrites", "yellow"),
        ("added", "Creates", "green"),
    )
    for status, verb, style in groups:
        names = names_with(diffs, status)
        if names:
            text.append(f"{verb}: ", style=style)
            text.append(", ".join(line(name) for name in names) + "\n")
    if not any(d.status != "unchanged" for d in diffs):
        text.append("No file changes (every file already has these bytes).\n", style="dim")
    for note in proposal.notes:
        text.append(f"• {line(note)}\n", style="dim")
    text.append(f"\n{UNDO_HINT}", style="italic")
    return text


# --- the modal ----------------------------------------------------------------------------


class ConfirmScreen(ModalScreen[bool]):
    """Yes or no about one operation; ``y``/enter confirms, ``n``/esc cancels."""

    CSS_PATH = "confirm.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(
        self, title: str, body: RenderableType, *, yes: str = "Apply", danger: bool = True
    ) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.yes_label = yes
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = content(self.title_text)
            box.border_subtitle = "y confirm · n/esc cancel"
            with VerticalScroll(id="confirm-scroll"):
                yield Static(self.body, id="confirm-body")
            with Horizontal(id="confirm-buttons"):
                yield Button(
                    f"{self.yes_label} (y)",
                    variant="error" if self.danger else "primary",
                    id="confirm-yes",
                )
                yield Button("Cancel (n)", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def diff_group(diffs: Sequence[FileDiff]) -> Group:
    """Each changed file's colored diff, one under the other (delete previews)."""
    parts: list[RenderableType] = []
    for diff in diffs:
        if diff.status == "unchanged":
            continue
        parts.append(status_line(diff))
        parts.append(colored_diff(diff.unified or "\n", diff.rel))
    return Group(*parts)


# --- workers ------------------------------------------------------------------------------


def run_in_thread(
    node: DOMNode,
    name: str,
    job: Callable[[], T],
    done: Callable[[T], None],
    failed: Callable[[str], None],
) -> Worker[None]:
    """Run blocking ``job`` (planning, reading the journal) and hand its result back."""

    def body() -> None:
        worker = get_current_worker()
        try:
            result = job()
        except EditRefused as exc:
            if not worker.is_cancelled:
                node.app.call_from_thread(failed, exc.reason)
            return
        except (OSError, KeyError) as exc:
            if not worker.is_cancelled:
                node.app.call_from_thread(failed, f"{type(exc).__name__}: {exc}")
            return
        if not worker.is_cancelled:
            node.app.call_from_thread(done, result)

    return node.run_worker(
        body, name=name, group=f"plan-{name}", exclusive=True, thread=True, exit_on_error=False
    )


@dataclass
class EditJob:
    """One confirmed operation: ``run`` writes (through the core), ``message`` says what it did."""

    label: str
    run: Callable[[Progress, Cancelled], AppliedOp]
    message: Callable[[AppliedOp], str]
    progress: Progress | None = None
    """Also shown on the screen that started the job (the header jobs always show it)."""
    finished: Callable[[AppliedOp | None], None] | None = None


def start_edit(main: MainScreen, job: EditJob) -> Worker[None]:
    """Apply ``job`` in the main screen's ``edit`` worker group, then notify and rescan."""

    def report(done: int, total: int) -> None:
        main.set_jobs(f"{job.label} {done}/{total}")
        if job.progress is not None:
            job.progress(done, total)

    def finish(op: AppliedOp | None, error: str | None) -> None:
        main.set_jobs("")
        if error is not None:
            main.notify(
                line(error), title="Nothing changed", severity="error", timeout=12, markup=False
            )
        elif op is not None:
            main.notify(line(job.message(op)), title="Done", markup=False)
            main.run_scan()
        if job.finished is not None:
            job.finished(op)

    def body() -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            main.app.call_from_thread(report, done, total)

        try:
            op = job.run(progress, lambda: worker.is_cancelled)
        except EditRefused as exc:
            main.app.call_from_thread(finish, None, exc.reason)
            return
        except (OSError, KeyError) as exc:
            main.app.call_from_thread(finish, None, f"{job.label} failed: {exc}")
            return
        main.app.call_from_thread(finish, op, None)

    main.set_jobs(job.label)
    return main.run_worker(
        body, name=job.label, group="edit", exclusive=True, thread=True, exit_on_error=False
    )
