"""What Claude sees: the recall preview (``R``) and the context at session start (``C``).

The recall screen builds the auto memory's manifest in a worker, then ranks it for each prompt
typed (a new prompt cancels the ranking before it): the up to 5 memories recall would attach,
exactly as attached, and the files that came close; ``ctrl+t`` shows the manifest itself, with the
memories past the 200 newest that recall is never offered
(docs/claude-code-rules.md#the-recall-preview). The context screen lists every part of the
session's start, sized (docs/claude-code-rules.md#the-context-at-session-start). Both only
read; text from disk is shown as plain text."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static
from textual.worker import Worker, WorkerState

from memtui.core.recall.context import SessionContext, session_context
from memtui.core.recall.manifest import Manifest, build_manifest
from memtui.core.recall.preview import RecallPreview, preview_local
from memtui.core.secrets.redact import masked_text
from memtui.core.stores.locations import Context, locate
from memtui.tui.plain import body, line
from memtui.tui.widgets.footer import KeyFooter

BAR_CELLS = 20


def preview_text(preview: RecallPreview) -> Text:
    """The preview as the screen shows it: notes, each attachment (masked), the near misses."""
    out = Text()
    for note in preview.notes:
        out.append(f"{line(note)}\n", style="dim")
    if not preview.chosen:
        out.append("\nrecall would attach nothing\n", style="bold")
    for chosen in preview.chosen:
        out.append(f"\n{line(masked_text(chosen.file.rel_path))}\n", style="bold")
        if chosen.attachment is None:
            out.append("  cannot be read: Claude Code drops it\n", style="yellow")
        else:
            out.append(body(masked_text(chosen.attachment.text)) + "\n")
    if preview.near:
        out.append("\nclose, not chosen: ", style="dim")
        out.append(", ".join(line(masked_text(p)) for p in preview.near))
    return out


def manifest_text(manifest: Manifest) -> Text:
    out = Text()
    out.append(f"{len(manifest.files)} files offered to recall", style="bold")
    if manifest.invisible:
        out.append(f" · {len(manifest.invisible):,} invisible to recall (past the 200 newest)",
                   style="bold yellow")
    out.append("\n\n")
    out.append(body(masked_text(manifest.text)))
    if manifest.invisible:
        out.append("\n\nnever offered to recall:\n", style="bold yellow")
        out.append(body(masked_text("\n".join(manifest.invisible))))
    for problem in manifest.problems:
        out.append(f"\nleft out: {line(masked_text(problem))}", style="dim")
    return out


class RecallScreen(Screen[None]):
    """The recall preview of the auto memory (see the module's doc)."""

    CSS_PATH = "recall.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="recall.back", tooltip="Back to the stores"),
        Binding("ctrl+t", "manifest", "Manifest", id="recall.manifest",
                tooltip="Show the manifest recall chooses from (again: the preview)"),
    ]

    def __init__(self, context: Context) -> None:
        super().__init__()
        self.context = context
        self.manifest: Manifest | None = None
        self.preview: RecallPreview | None = None
        self.showing_manifest = False

    def compose(self) -> ComposeResult:
        yield Static(Text("Recall preview · offline approximation of Claude Code's selector; "
                          "what is attached is exact", style="bold"), id="recall-head")
        yield Input(placeholder="type a prompt and press enter: what would recall attach?",
                    id="recall-prompt")
        with VerticalScroll(id="recall-body"):
            yield Static(Text("reading the manifest…", style="dim"), id="recall-result")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#recall-prompt", Input).focus()
        self.read_manifest()

    @work(thread=True, exclusive=True, group="recall-manifest", exit_on_error=False)
    def read_manifest(self) -> Manifest:
        return build_manifest(locate(self.context).auto.path)

    @work(thread=True, exclusive=True, group="recall-rank", exit_on_error=False)
    def rank(self, manifest: Manifest, prompt: str) -> RecallPreview:
        """A newer prompt cancels this one: its worker ends CANCELLED, its result unseen."""
        return preview_local(manifest, prompt, time.time() * 1000)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.state == WorkerState.ERROR:
            self.show(Text(f"{worker.name} failed: {type(worker.error).__name__}: "
                           f"{line(worker.error)}", style="bold red"))
        elif worker.state == WorkerState.SUCCESS:
            if worker.group == "recall-manifest" and isinstance(worker.result, Manifest):
                self.manifest = worker.result
                self.show(manifest_text(worker.result) if self.showing_manifest
                          else Text(f"{len(worker.result.files)} memories offered to recall; "
                                    "type a prompt", style="dim"))
            elif worker.group == "recall-rank" and isinstance(worker.result, RecallPreview):
                self.preview = worker.result
                if not self.showing_manifest:
                    self.show(preview_text(worker.result))

    def show(self, text: Text) -> None:
        self.query_one("#recall-result", Static).update(text)

    @on(Input.Submitted, "#recall-prompt")
    def submitted(self, event: Input.Submitted) -> None:
        if self.manifest is None:
            self.notify("The manifest is still being read.", severity="warning")
            return
        self.showing_manifest = False
        self.show(Text("ranking…", style="dim"))
        self.rank(self.manifest, event.value)

    def action_manifest(self) -> None:
        self.showing_manifest = not self.showing_manifest
        if self.showing_manifest and self.manifest is not None:
            self.show(manifest_text(self.manifest))
        elif self.preview is not None:
            self.show(preview_text(self.preview))
        else:
            self.show(Text("type a prompt", style="dim"))

    def action_back(self) -> None:
        self.workers.cancel_node(self)
        self.dismiss(None)


def bar(share: float) -> str:
    filled = round(max(0.0, min(1.0, share)) * BAR_CELLS)
    return "█" * filled + "·" * (BAR_CELLS - filled)


class ContextScreen(Screen[None]):
    """The context at session start: one row per part, sized, with a bar; the total."""

    CSS_PATH = "recall.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="context.back", tooltip="Back to the stores"),
    ]

    def __init__(self, context: Context, agent: str | None = None) -> None:
        super().__init__()
        self.context = context
        self.agent = agent

    def compose(self) -> ComposeResult:
        who = f"agent {line(self.agent)}" if self.agent else "the main session"
        yield Static(Text(f"Context of {who} at session start · CLAUDE.md files and memory "
                          "indexes", style="bold"), id="context-head")
        yield DataTable(id="context-table", cursor_type="row", zebra_stripes=True)
        yield Static(Text("reading…", style="dim"), id="context-total")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#context-table", DataTable)
        table.add_columns("", "tokens", "lines", "units", "file", "why")
        table.focus()
        self.read()

    @work(thread=True, exclusive=True, group="context-read", exit_on_error=False)
    def read(self) -> SessionContext:
        from memtui.core.judge.ledger import Ledger, default_ledger_path

        ledger = Ledger.load(default_ledger_path(self.context.env))
        return session_context(self.context, agent=self.agent, ledger=ledger)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        total = self.query_one("#context-total", Static)
        if worker.state == WorkerState.ERROR:
            total.update(Text(f"reading the context failed: {type(worker.error).__name__}: "
                              f"{line(worker.error)}", style="bold red"))
        elif worker.state == WorkerState.SUCCESS and isinstance(worker.result, SessionContext):
            self.fill(worker.result)

    def fill(self, found: SessionContext) -> None:
        table = self.query_one("#context-table", DataTable)
        largest = max((p.tokens for p in found.parts), default=0) or 1
        for part in found.parts:
            tokens = f"{part.tokens:,}" + ("" if part.exact else "~")
            name = "  " * part.depth + self.context.show(part.path)
            why = " · ".join([part.origin, *(x for x in (part.problem, part.note) if x),
                              *part.repeats])
            table.add_row(bar(part.tokens / largest), tokens, f"{part.lines:,}",
                          f"{part.units:,}", Text(line(name)), Text(line(why)))
        summary = Text(f"total {found.tokens:,} tokens · {found.lines:,} lines · "
                       f"{found.units:,} units", style="bold")
        if not found.exact:
            summary.append("  (~ estimated: about 3.5 characters a token; "
                           "memtui context --count-tokens counts exactly)", style="dim")
        for note in found.notes:
            summary.append(f"\n{line(note)}", style="dim")
        self.query_one("#context-total", Static).update(summary)

    def action_back(self) -> None:
        self.workers.cancel_node(self)
        self.dismiss(None)
