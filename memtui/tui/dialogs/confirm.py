"""Confirming an operation: what it does in words, the diff of the files it changes, yes or no.

The dialog gets the summary and the diffs and closes with the answer; the flow that opened it
(:mod:`memtui.tui.operations`, the snapshot review) applies the operation on a yes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Static

from memtui.core.write.proposal import FileDiff, Proposal
from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.plain import content, line
from memtui.tui.widgets.diff_view import DiffView

UNDO_HINT = "You can undo this with u (U lists every operation)."


def names_with(diffs: Sequence[FileDiff], status: str) -> list[str]:
    return [d.rel for d in diffs if d.status == status]


def proposal_summary(
    proposal: Proposal,
    diffs: Sequence[FileDiff],
    where: str,
    notes: Sequence[str] | None = None,
) -> Text:
    """What confirming ``proposal`` does, naming every file it deletes or overwrites; then its
    notes, or ``notes`` instead (a short set for a proposal of many changes: distil's)."""
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
    for note in proposal.notes if notes is None else notes:
        text.append(f"• {line(note)}\n", style="dim")
    text.append(f"\n{UNDO_HINT}", style="italic")
    return text


class ConfirmScreen(Dialog[bool]):
    """Yes or no about one operation; ``y``/enter confirms, ``n``/esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(
        self,
        title: str,
        body: RenderableType,
        *,
        yes: str = "Apply",
        danger: bool = True,
        diffs: Sequence[FileDiff] = (),
        diffs_title: str | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.yes_label = yes
        self.danger = danger
        self.diffs = list(diffs)
        self.diffs_title = diffs_title

    def compose(self) -> ComposeResult:
        with dialog_box("confirm", content(self.title_text), "y confirm · n/esc cancel"):
            with VerticalScroll(id="confirm-scroll"):
                yield Static(self.body, id="confirm-body")
                if self.diffs:
                    yield DiffView(self.diffs, title=self.diffs_title, id="confirm-diff")
            with Horizontal(id="confirm-buttons", classes="dialog-buttons"):
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
