"""The snapshot review: an agent's shipped snapshot against its local memory, per scope, and the
three snapshot actions (initialize, replace, mark synced), each previewed
(docs/claude-code-rules.md#snapshot-operations).

The screen gets the snapshot, the context and the job runner; an applied action reaches the app
as :class:`~memtui.tui.messages.OperationApplied` (it rescans), and the screen closes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import OptionList, ProgressBar, Select, Static, Tab, Tabs
from textual.worker import Worker

from memtui.core.contents import ScanResult, Store
from memtui.core.model import Scope, SnapshotInfo
from memtui.core.stores.locations import Context
from memtui.core.stores.snapshot import snapshot_store_of
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.snapshot import (
    SNAPSHOT_ACTIONS,
    SnapshotAction,
    nothing_to_do,
    plan_snapshot,
)
from memtui.core.write.proposal import FileDiff, Proposal
from memtui.tui.dialogs.base import HELP_KEY_ID
from memtui.tui.dialogs.confirm import ConfirmScreen, proposal_summary
from memtui.tui.dialogs.help import HelpRow, show_help
from memtui.tui.nodes import NodeRef
from memtui.tui.plain import line
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.diff_view import DiffView, status_line
from memtui.tui.widgets.footer import KeyFooter
from memtui.tui.work import ask, in_thread

ACTION_LABELS: dict[SnapshotAction, str] = {
    "initialize": "i initialize",
    "replace": "R replace",
    "mark-synced": "m mark synced (keep mine)",
}
ACTION_DONE: dict[SnapshotAction, str] = {
    "initialize": "initialized",
    "replace": "replaced",
    "mark-synced": "marked synced",
}
COMPACT_WIDTH = 100
COMPACT_HEIGHT = 34
"""Under this width or height the review stacks its panes (``apply_size``)."""

STATUS_VIEW: dict[str, SnapshotAction] = {
    "initialize": "initialize",
    "prompt-update": "replace",
    "none": "mark-synced",
}


@dataclass
class Plan:
    """One action's proposal and its preview, or why it cannot be planned; ``nothing``: why
    it would change no file (it is then not offered)."""

    proposal: Proposal | None = None
    diffs: list[FileDiff] = field(default_factory=list)
    refused: str | None = None
    nothing: str | None = None


def plan_all(snapshot: SnapshotInfo, scope: Scope) -> dict[SnapshotAction, Plan]:
    """Every action planned against the local dir of ``scope`` (reads files: run in a worker)."""
    local = snapshot.for_scope(scope).local
    plans: dict[SnapshotAction, Plan] = {}
    for action in SNAPSHOT_ACTIONS:
        try:
            proposal = plan_snapshot(snapshot.snapshot_dir, local, action)
        except EditRefused as exc:
            plans[action] = Plan(refused=exc.reason)
            continue
        proposal.title += f" ({scope.value} scope)"
        plans[action] = Plan(proposal, proposal.diff(), nothing=nothing_to_do(proposal))
    return plans


def snapshot_store_for(ref: NodeRef | None, result: ScanResult | None) -> Store | None:
    """The snapshot store of the selection ``ref`` (the core's matching:
    :func:`memtui.core.stores.snapshot.snapshot_store_of`)."""
    if ref is None or result is None:
        return None
    return snapshot_store_of(ref.store, result.stores)


def scope_text(snapshot: SnapshotInfo, selected: Scope, *, compact: bool = False) -> Table:
    """A row per scope: its status, whether CC acts on it, and why (an unusable snapshot's
    reason is the same for every scope: the screen says it once, below). The reason wraps in
    its own column, or (``compact``: a small terminal) is cut to one line."""
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(no_wrap=True, width=9)
    table.add_column(no_wrap=True, width=13)
    table.add_column(no_wrap=True, width=13)
    table.add_column(no_wrap=compact, overflow="ellipsis" if compact else "fold", ratio=1)
    usable = snapshot.updated_at is not None
    for item in snapshot.scopes:
        scope = Text("▶ " if item.scope == selected else "  ", style="bold")
        scope.append(f"{item.scope.value:<7}", style="bold" if item.cc_acts else "")
        style = {"initialize": "yellow", "prompt-update": "bold magenta"}.get(item.status, "dim")
        acts = Text("CC acts on it" if item.cc_acts else "", style="green")
        reason = Text(line(item.reason) if usable else "", style="dim")
        table.add_row(scope, Text(f"{item.status:<13}", style=style), acts, reason)
    return table


def invalid_text(problem: str) -> Group:
    """Why an unusable snapshot offers nothing: said once, the reason indented under it."""
    return Group(
        Text("This snapshot cannot be used: no action is available.", style="bold red"),
        Padding(Text(line(problem), style="red"), (0, 0, 0, 2)),
        Text("Fix snapshot.json in the project, then open this review again.", style="dim"),
    )


def deleted_note(action: SnapshotAction) -> str:
    return f"{action} deletes this local file; its full contents:"


class SnapshotDiffScreen(ReviewScreen):
    """Review one agent's snapshot and initialize, replace or mark synced."""

    CSS_PATH = "snapshot_diff.tcss"
    PROGRESS_ID = "snap-progress"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="snapshot.back",
                tooltip="Back to the main screen (while an action runs: cancel it, every file "
                "is put back)"),
        Binding("i", "act('initialize')", "Initialize", id="snapshot.initialize",
                tooltip="Initialize: copy the snapshot into the local memory (previewed)"),
        Binding("R", "act('replace')", "Replace", id="snapshot.replace",
                tooltip="Replace the local memory with the snapshot: local memories are lost "
                "(previewed, undoable)"),
        Binding("m", "act('mark-synced')", "Mark synced", id="snapshot.mark_synced",
                tooltip="Mark synced: keep my local memory, record the snapshot as seen"),
        Binding("question_mark", "help", "Help", id=HELP_KEY_ID,
                tooltip="Help: every key of this screen (? or esc closes it)"),
    ]
    HELP_EXTRA = (
        HelpRow("tab", "Next widget: scope, action tabs, file list, diff"),
        HelpRow("↑ ↓", "Move in the file list (the diff shows the file under the cursor)"),
    )

    def __init__(self, snapshot: SnapshotInfo, context: Context, journal: Journal) -> None:
        super().__init__(context, journal)
        self.snapshot = snapshot
        self.scope = snapshot.acted_scope
        self.view: SnapshotAction = STATUS_VIEW.get(snapshot.primary.status, "mark-synced")
        self.plans: dict[SnapshotAction, Plan] | None = None

    @property
    def invalid(self) -> str | None:
        """Why the snapshot cannot be used (bad JSON, no updatedAt), or None."""
        if self.snapshot.updated_at is None:
            return self.snapshot.problem or "snapshot.json has no updatedAt"
        return None

    def compose(self) -> ComposeResult:
        snap = self.snapshot
        head = Text()
        head.append(f" snapshot: {line(snap.agent)} ", style="bold reverse")
        head.append(f"  updatedAt {line(snap.updated_at or '-')}", style="bold")
        head.append(f"  · {line(self.context.show(snap.snapshot_dir))}", style="dim")
        yield Static(head, id="snap-head")
        yield Static(scope_text(snap, self.scope), id="snap-scopes")
        with Horizontal(id="snap-controls"):
            yield Select(
                [(f"{s.scope.value} scope", s.scope) for s in snap.scopes],
                value=self.scope,
                allow_blank=False,
                id="snap-scope",
            )
            yield Tabs(
                *[Tab(ACTION_LABELS[a], id=f"act-{a}") for a in SNAPSHOT_ACTIONS],
                active=f"act-{self.view}",
                id="snap-actions",
            )
        yield Static("", id="snap-message")
        with Horizontal(id="snap-body"):
            yield OptionList(id="snap-files")
            with VerticalScroll(id="snap-diff-scroll"):
                yield DiffView(id="snap-diff")
        yield ProgressBar(id="snap-progress", show_eta=False)
        yield KeyFooter()

    def on_resize(self) -> None:
        self.apply_size()

    def apply_size(self) -> None:
        """A small terminal stacks the file list over the diff and keeps the texts above them
        to one line each, so the diff keeps most of the rows."""
        width, height = self.size
        compact = width < COMPACT_WIDTH or height < COMPACT_HEIGHT
        self.set_class(compact, "compact")
        self.query_one("#snap-scope", Select).compact = compact
        self.query_one("#snap-scopes", Static).update(
            scope_text(self.snapshot, self.scope, compact=compact))

    def on_mount(self) -> None:
        self.apply_size()
        self.progress_bar().display = False
        if self.invalid is not None:
            self.query_one("#snap-message", Static).update(invalid_text(self.invalid))
            self.query_one("#snap-controls").display = False
            self.query_one("#snap-body").display = False
            return
        self.query_one("#snap-files", OptionList).focus()
        self.replan()

    def show_message(self, message: str, style: str = "") -> None:
        """A one-line message (it may name files and paths: shown escaped, never parsed)."""
        self.query_one("#snap-message", Static).update(Text(line(message), style=style))

    # planning ---------------------------------------------------------------------------

    def replan(self) -> None:
        self.plans = None
        self.refresh_bindings()
        self.show_message(f"planning against {self.local_shown()} …", "dim")
        self.plan_actions(self.snapshot, self.scope)

    @work(exclusive=True, group="plan-snapshot", exit_on_error=False,
          name="planning the snapshot actions", description="Snapshot")
    async def plan_actions(self, snapshot: SnapshotInfo, scope: Scope) -> None:
        self.show_plans(await in_thread(lambda: plan_all(snapshot, scope)))

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        if failure is not None and worker.group == "plan-snapshot":
            self.plan_failed(failure)

    def local_shown(self) -> str:
        return line(self.context.show(self.snapshot.for_scope(self.scope).local))

    def show_plans(self, plans: dict[SnapshotAction, Plan]) -> None:
        self.plans = plans
        self.refresh_bindings()
        self.show_view()

    def plan_failed(self, reason: str) -> None:
        self.show_message(reason, "bold red")

    def show_view(self) -> None:
        files = self.query_one("#snap-files", OptionList)
        files.clear_options()
        self.query_one("#snap-diff", DiffView).show([])
        if self.plans is None:
            return
        plan = self.plans[self.view]
        if plan.refused is not None:
            self.show_message(plan.refused, "bold red")
            return
        assert plan.proposal is not None
        note = Text(f"{line(plan.proposal.title)} · in {self.local_shown()}", style="bold")
        if plan.nothing is not None:
            note.append(f"\n{line(plan.nothing[:1].upper() + plan.nothing[1:])}; "
                        "it is not offered.", style="bold yellow")
        for note_line in plan.proposal.notes:
            note.append(f"\n• {line(note_line)}", style="dim")
        self.query_one("#snap-message", Static).update(note)
        files.add_options([status_line(d) for d in plan.diffs])
        if plan.diffs:
            files.highlighted = 0

    @on(OptionList.OptionHighlighted, "#snap-files")
    def file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.plans is None or self.plans[self.view].refused is not None:
            return
        diffs = self.plans[self.view].diffs
        if 0 <= event.option_index < len(diffs):
            view = self.query_one("#snap-diff", DiffView)
            view.show([diffs[event.option_index]], deleted_note=deleted_note(self.view))

    @on(Select.Changed, "#snap-scope")
    def scope_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, Scope) and event.value != self.scope:
            self.scope = event.value
            self.apply_size()
            self.replan()

    @on(Tabs.TabActivated, "#snap-actions")
    def action_tab(self, event: Tabs.TabActivated) -> None:
        action = (event.tab.id or "").removeprefix("act-")
        for known in SNAPSHOT_ACTIONS:
            if known == action and known != self.view:
                self.view = known
                self.show_view()

    # actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """An unusable snapshot offers no action (the footer drops the keys); one that would
        change nothing shows its key disabled."""
        if action != "act":
            return True
        if self.invalid is not None:
            return False
        if self.plans is not None and parameters and parameters[0] in self.plans:
            plan = self.plans[parameters[0]]
            if plan.nothing is not None:
                return None
        return True

    def action_help(self) -> None:
        show_help(self, f"Keys of the snapshot review ({line(self.snapshot.agent)})",
                  self.HELP_EXTRA)

    def action_act(self, action: SnapshotAction) -> None:
        why = self.why_not(action)
        if why is not None:
            self.notify(line(why), title="Cannot " + action, severity="error", markup=False)
            return
        assert self.plans is not None
        plan = self.plans[action]
        assert plan.proposal is not None
        self.view = action
        self.query_one("#snap-actions", Tabs).active = f"act-{action}"
        self.show_view()
        body = proposal_summary(plan.proposal, plan.diffs, self.local_shown())
        screen = ConfirmScreen(f"{ACTION_LABELS[action][2:]} {self.snapshot.agent}?", body)
        self.confirm_action(screen, action, plan.proposal)

    def why_not(self, action: SnapshotAction) -> str | None:
        if self.invalid is not None:
            return f"This snapshot cannot be used: {self.invalid}"
        if self.applying:
            return "An operation is still running."
        if self.plans is None:
            return "Still planning; try again in a moment."
        plan = self.plans[action]
        return plan.refused or plan.nothing

    @work(exclusive=True, group="snapshot-confirm", exit_on_error=False,
          name="confirming the snapshot action", description="Snapshot")
    async def confirm_action(self, screen: ConfirmScreen, action: SnapshotAction,
                             proposal: Proposal) -> None:
        if not await ask(self, screen):
            return
        agent = line(self.snapshot.agent)
        label = f"{ACTION_DONE[action]} {agent} ({self.scope.value})"
        self.start_applying(proposal, label=f"{action} {agent}",
                            message=lambda _op: f"{label} · u to undo")
