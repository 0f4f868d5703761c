"""The dialogs of the decisions that rewrite memories (the conflicts screen's ``s`` and
``e``): the "applies when" note of each side, and the merged memory; and, for a group (``K``),
the member to keep. Each closes with what the user wrote or picked (None: cancelled); the
screen then plans it and shows the preview."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from memtui.core.judge.scoped import NOTE_CHARS
from memtui.core.judge.verdicts import JudgeItem
from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.plain import body, line

ResultT = TypeVar("ResultT")


class DecisionDialog(Dialog[ResultT | None]):
    """What the two dialogs share: their "…-ok" button (and ``ctrl+s``) ends it with what the
    user wrote (:meth:`action_done`), any other button and ``escape`` with None."""

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if (event.button.id or "").endswith("-ok"):
            self.action_done()
        else:
            self.dismiss(None)

    def action_done(self) -> None:
        raise NotImplementedError

    def action_cancel(self) -> None:
        self.dismiss(None)

    @staticmethod
    def buttons(name: str) -> Horizontal:
        """The row of ``Preview`` (``#<name>-ok``) and ``Cancel`` (``#<name>-no``)."""
        return Horizontal(
            Button("Preview (^s)", variant="primary", id=f"{name}-ok"),
            Button("Cancel (esc)", id=f"{name}-no"),
            classes="dialog-buttons",
        )


class ScopedDialog(DecisionDialog[dict[str, str]]):
    """One input per memory side, prefilled with memtui's proposal: when that side applies.
    A CLAUDE.md side gets no input (memtui does not edit CLAUDE.md)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "done", "Preview", id="scoped.done",
                tooltip="Preview the two notes (enter in the last field does it too)"),
        Binding("escape", "cancel", "Cancel", id="scoped.cancel",
                tooltip="Close without writing anything"),
    ]
    HELP_TITLE = "Keys of the scoped dialog"

    def __init__(self, sides: dict[str, JudgeItem], proposed: dict[str, str]) -> None:
        super().__init__()
        self.sides = sides
        self.proposed = proposed

    def compose(self) -> ComposeResult:
        with dialog_box("scoped", "Keep both: when does each apply?",
                        "⏎ next / preview · ^s preview · esc cancel"):
            yield Static(Text(
                "Each memory gets a first line “Applies when: …” (one line, plain text), "
                "written as one operation you can undo with u.", style="dim"),
                id="scoped-help")
            unnamed = [tag.upper() for tag, text in self.proposed.items() if not text.strip()]
            if unnamed:
                yield Static(Text(
                    f"memtui found no condition only {' and '.join(unnamed)} names (such as "
                    "staging against production): say when it applies.", style="yellow"),
                    id="scoped-ask")
            if len(self.sides) > 2:  # a group's members: they scroll
                with VerticalScroll(id="scoped-members"):
                    yield from self.side_inputs()
            else:
                yield from self.side_inputs()
            yield self.buttons("scoped")

    def side_inputs(self) -> ComposeResult:
        for tag, item in self.sides.items():
            yield Static(Text(f"{tag.upper()}  {line(item.label)}", style="bold"),
                         classes="scoped-label")
            if tag in self.proposed:
                yield Input(self.proposed[tag], id=f"scoped-{tag}", max_length=NOTE_CHARS,
                            placeholder="when this one applies")
            else:
                yield Static(Text("a CLAUDE.md rule: memtui does not edit CLAUDE.md, so it "
                                  "gets no note", style="yellow"), classes="scoped-label")

    def on_mount(self) -> None:
        inputs = list(self.query(Input))
        if inputs:
            inputs[0].focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        index = inputs.index(event.input) if event.input in inputs else -1
        if 0 <= index < len(inputs) - 1:
            inputs[index + 1].focus()
        else:
            self.action_done()

    def action_done(self) -> None:
        self.dismiss({tag: self.query_one(f"#scoped-{tag}", Input).value
                      for tag in self.proposed})


class MergeDialog(DecisionDialog[str]):
    """The merged memory memtui proposes, editable: it replaces the kept side, the other side
    is archived (after a preview)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "done", "Preview", id="merge.done",
                tooltip="Preview the merge: the merged text in place of the kept side, the "
                "other archived"),
        Binding("escape", "cancel", "Cancel", id="merge.cancel",
                tooltip="Close without writing anything"),
    ]
    HELP_TITLE = "Keys of the merge dialog"

    def __init__(self, kept: JudgeItem, other: JudgeItem, text: str,
                 more: Sequence[JudgeItem] = ()) -> None:
        super().__init__()
        self.kept = kept
        self.other = other
        self.more = list(more)
        """A group's merge: the other members it archives too."""
        self.text = text

    def compose(self) -> ComposeResult:
        title = ("Merge: one memory in place of all" if self.more
                 else "Merge: one memory in place of both")
        with dialog_box("merge", title, "^s preview · esc cancel"):
            note = Text()
            note.append("writes ", style="dim")
            note.append(line(self.kept.label), style="bold")
            note.append(" · archives ", style="dim")
            note.append(line(", ".join(i.label for i in [self.other, *self.more])),
                        style="bold")
            yield Static(note, id="merge-note")
            yield TextArea(body(self.text), id="merge-text", soft_wrap=True,
                           show_line_numbers=False)
            yield self.buttons("merge")

    def on_mount(self) -> None:
        self.query_one("#merge-text", TextArea).focus()

    def action_done(self) -> None:
        self.dismiss(self.query_one("#merge-text", TextArea).text)


class KeepDialog(Dialog[str | None]):
    """A group's members, the one a keep keeps by default highlighted: ``enter`` closes it
    with the key of the highlighted member (every other one is then archived, after a
    preview), ``escape`` with None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="keep.cancel",
                tooltip="Close without writing anything"),
    ]
    HELP_TITLE = "Keys of the keep dialog"
    DEFAULT_CSS = """
    #keep-members { height: auto; max-height: 20; }
    #keep-help { height: auto; }
    """

    def __init__(self, members: Sequence[JudgeItem], default: str) -> None:
        super().__init__()
        self.members = list(members)
        self.default = default

    def compose(self) -> ComposeResult:
        with dialog_box("keep", "Keep one member, archive the rest", "⏎ preview · esc cancel"):
            yield Static(Text("The other members leave their stores (their files and MEMORY.md "
                              "lines; the bytes go to memtui's archive), as one operation you "
                              "can undo with u. A CLAUDE.md rule cannot be archived.",
                              style="dim"), id="keep-help")
            options = []
            for n, item in enumerate(self.members, 1):
                label = Text(f"{n} {line(item.label)}")
                if item.modified:
                    label.append(f"  modified {line(item.modified)}", style="dim")
                if item.key == self.default:
                    label.append("  (newest)" if item.kind != "claude-md" else "  (the rule)",
                                 style="green")
                options.append(Option(label, id=f"keep-{n}"))
            yield OptionList(*options, id="keep-members")

    def on_mount(self) -> None:
        members = self.query_one("#keep-members", OptionList)
        members.highlighted = next(
            (n for n, m in enumerate(self.members) if m.key == self.default), 0)
        members.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.members[event.option_index].key)

    def action_cancel(self) -> None:
        self.dismiss(None)
