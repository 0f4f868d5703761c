"""The distil review: a store's MEMORY.md rebuilt to fit Claude Code's load budget with
headroom (or an agentmemory home's tag index, each generated section a change), as a diff
against the current one, the meter before and after, and every proposed change in a list the
user toggles before applying (docs/claude-code-rules.md#distil).

Planning reads every memory's header (a job, with progress, cancelled by esc); each toggle
renders the outcome again in a job (a new toggle cancels the one before); ``a`` previews the
operation and applies it through the write path (journaled, ``u`` undoes). An applied distil
reaches the app as :class:`~memtui.tui.messages.OperationApplied` (it rescans) and the screen
closes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import ProgressBar, SelectionList, Static
from textual.widgets.selection_list import Selection
from textual.worker import Worker

from memtui.core.contents import Store
from memtui.core.distil.model import (
    DistilChange,
    DistilOutcome,
    DistilPlan,
    meter_text,
    short_notes,
)
from memtui.core.model import StoreKind
from memtui.core.plaintext import counted
from memtui.core.stores.locations import Context
from memtui.core.write.journal import Journal
from memtui.core.write.proposal import FileDiff, Proposal
from memtui.tui import clock
from memtui.tui.dialogs.base import HELP_KEY_ID
from memtui.tui.dialogs.confirm import ConfirmScreen, proposal_summary
from memtui.tui.dialogs.help import HelpRow, show_help
from memtui.tui.messages import JobProgress
from memtui.tui.plain import line
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.diff_view import DiffView
from memtui.tui.widgets.footer import KeyFooter
from memtui.tui.work import ask, check, in_thread, is_cancelled, progress

DISTIL_KINDS = (StoreKind.AUTO, StoreKind.TEAM, StoreKind.AGENT, StoreKind.AGENTMEMORY)
"""The stores the review distils (``memtui.core.distil.plan.DISTIL_KINDS``, not imported: the
planner loads on first use)."""

GROUP_LABELS: dict[str, str] = {
    "regroup": "regroup",
    "dangling": "dangling",
    "orphans": "orphan",
    "hooks": "hook",
    "move-out": "move out",
    "added": "add",
    "changed": "rebuild",
    "removed": "remove",
}


def distil_refusal(store: Store | None) -> str | None:
    """Why the selection's store cannot be distilled, or None."""
    if store is None:
        return "Select a store (or a memory in it) to distil its MEMORY.md."
    if store.kind not in DISTIL_KINDS:
        return (f"{store.title}: distil rebuilds the MEMORY.md of an auto, team or agent "
                "memory store, or of the agentmemory home.")
    return None


@dataclass
class Shown:
    """One outcome as the screen shows it: the outcome and its preview against the disk."""

    outcome: DistilOutcome
    diffs: list[FileDiff] = field(default_factory=list)


def shown_outcome(plan: DistilPlan, disabled: frozenset[str]) -> Shown:
    """The outcome of ``disabled`` and its diffs against the disk (reads: run in a worker)."""
    outcome = plan.outcome(disabled)
    diffs = [] if outcome.proposal is None else outcome.proposal.diff()
    diffs.sort(key=lambda d: d.path != plan.index_path)  # the index first, then its files
    return Shown(outcome, diffs)


def change_prompt(change: DistilChange, enabled: bool = True) -> Text:
    """A change's row: its group, then its summary (text from disk: escaped); a disabled
    change reads ``off`` and is struck through, so its state shows without colour."""
    text = Text()
    label = GROUP_LABELS.get(change.group, change.group)
    text.append(f"{label:<8} ", style="bold cyan" if enabled else "dim")
    text.append(line(change.summary), style="" if enabled else "dim strike")
    if not enabled:
        text.append("  off", style="bold")
    return text


def change_detail(change: DistilChange) -> Text:
    """What the highlighted change does, in full: lines, where they go, the memory."""
    text = Text()
    text.append(line(change.summary), style="bold")
    if change.lines:
        text.append(f"\n{lines_text(change.lines)} of the current MEMORY.md", style="dim")
    if change.moved_to:
        text.append(f"\n→ {line(change.moved_to)}", style="green")
    if change.target:
        text.append(f"\nmemory: {line(change.target)}", style="dim")
    return text


def lines_text(lines: tuple[int, ...]) -> str:
    """``line 4``, ``lines 4-9`` (a run), ``lines 4, 7, 9`` (at most 12 named)."""
    if len(lines) == 1:
        return f"line {lines[0]}"
    if list(lines) == list(range(lines[0], lines[0] + len(lines))):
        return f"lines {lines[0]}-{lines[-1]}"
    more = f" and {len(lines) - 12} more" if len(lines) > 12 else ""
    return "lines " + ", ".join(str(n) for n in lines[:12]) + more


def meter_view(plan: DistilPlan, outcome: DistilOutcome | None) -> Text:
    """The meter before → after, green when the new index fits the headroom target (plain
    for a file Claude Code does not load: no budget applies to it)."""
    text = Text()
    before = plan.before
    if outcome is None:
        past = f", {before.dropped} past the cut" if before.loaded else ""
        text.append(f"now {before.lines:,} lines, {before.units:,} units{past}", style="bold")
    else:
        fits = outcome.after.fits if outcome.after.loaded else None  # no budget applies
        style = {True: "bold green", False: "bold yellow", None: "bold"}[fits]
        text.append(meter_text(before, outcome.after), style=style)
    if before.loaded:
        text.append(f"   target ≤ {round(plan.headroom * 100)} % of the binding limit",
                    style="dim")
    return text


def nothing_to_change(plan: DistilPlan) -> str:
    if plan.before.loaded:
        return "Nothing to change: the index already has these bytes."
    return "Nothing to change: the index is already distilled (its stamp aside)."


def notes_view(plan: DistilPlan, outcome: DistilOutcome | None) -> RenderableType:
    """Refusals (nothing may be applied), then the plan's and the outcome's notes."""
    parts: list[RenderableType] = []
    for refusal in plan.refusals:
        parts.append(Text(f"refused: {line(refusal)}", style="bold red"))
    notes = list(plan.notes) + ([] if outcome is None else outcome.notes)
    for note in notes:
        parts.append(Text(f"• {line(note)}", style="yellow"))
    if outcome is not None and outcome.cut:
        shown = "; ".join(line(item) for item in outcome.cut[:3])
        more = f"; … ({len(outcome.cut) - 3} more)" if len(outcome.cut) > 3 else ""
        parts.append(Text(f"Claude Code would still cut: {shown}{more}", style="bold yellow"))
    if outcome is not None and not outcome.changed and not plan.refusals:
        parts.append(Text(nothing_to_change(plan), style="dim"))
    return Group(*parts)


class DistilScreen(ReviewScreen):
    """Review a store's distilled MEMORY.md, toggle changes, apply."""

    CSS_PATH = "distil.tcss"
    PROGRESS_ID = "distil-progress"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="distil.back",
                tooltip="Back to the main screen (while planning or applying: cancel it)"),
        Binding("a", "apply", "Apply", id="distil.apply",
                tooltip="Apply the enabled changes (previewed first; journaled, u undoes)"),
        Binding("g", "toggle_group", "Group", id="distil.group",
                tooltip="Enable or disable every change of the highlighted change's group"),
        Binding("A", "toggle_all", "All", show=False, id="distil.all",
                tooltip="Enable every change, or disable every change when all are enabled"),
        Binding("question_mark", "help", "Help", id=HELP_KEY_ID,
                tooltip="Help: every key of this screen (? or esc closes it)"),
    ]
    HELP_EXTRA = (
        HelpRow("space", "Enable or disable the highlighted change (the diff follows)"),
        HelpRow("↑ ↓", "Move in the list of changes"),
        HelpRow("tab", "Next widget: the changes, then the diff"),
    )

    def __init__(self, store: Store, context: Context, journal: Journal,
                 headroom: float = 0.7) -> None:
        super().__init__(context, journal)
        self.store = store
        self.headroom = headroom
        self.plan: DistilPlan | None = None
        self.shown: Shown | None = None
        self.planning: Worker[None] | None = None

    def compose(self) -> ComposeResult:
        head = Text()
        head.append(f" distil: {line(self.store.title)} ", style="bold reverse")
        head.append(f"  {line(self.context.show(self.store.path))}", style="dim")
        yield Static(head, id="distil-head")
        yield Static("", id="distil-meter")
        yield Static("", id="distil-notes")
        with Horizontal(id="distil-body"):
            with Vertical(id="distil-left"):
                yield SelectionList[str](id="distil-changes")
                yield Static("", id="distil-detail")
            with VerticalScroll(id="distil-diff-scroll"):
                yield DiffView(id="distil-diff")
        yield ProgressBar(id="distil-progress", show_eta=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        changes = self.query_one("#distil-changes", SelectionList)
        changes.border_title = "changes (space toggles)"
        self.query_one("#distil-diff-scroll").border_title = "proposed MEMORY.md and files"
        changes.focus()
        self.start_plan()

    # planning ---------------------------------------------------------------------------

    def start_plan(self) -> None:
        from memtui.core.distil.plan import plan_distil

        store, headroom = self.store, self.headroom
        self.show_status(f"reading {line(self.context.show(store.path))} …")
        self.progress_bar().display = True

        def run() -> tuple[DistilPlan, Shown]:
            def step(name: str, done: int, total: int) -> None:
                progress(f"distil: {name}", done, total)

            now = datetime.fromtimestamp(clock.now(), UTC)  # frozen for snapshots
            plan = plan_distil(store, headroom=headroom, now=now,
                               progress=step, cancelled=is_cancelled)
            check()
            return plan, shown_outcome(plan, frozenset())

        self.planning = self.run_worker(partial(self._plan, run), name=f"distil {store.title}",
                                        group="distil-plan", description="Distil",
                                        exclusive=True, exit_on_error=False)

    async def _plan(self, run: Callable[[], tuple[DistilPlan, Shown]]) -> None:
        self.planned(await in_thread(run))

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        if worker is self.planning and failure is not None:
            self.plan_failed(failure)

    def replan(self) -> None:
        """Plan again (an apply changed nothing): ``a`` waits for the new plan."""
        self.refresh_bindings()
        self.start_plan()

    def show_status(self, message: str) -> None:
        self.query_one("#distil-notes", Static).update(Text(message, style="dim"))

    def planned(self, result: tuple[DistilPlan, Shown]) -> None:
        self.planning = None
        self.plan, shown = result
        self.progress_bar().display = False
        changes = self.query_one("#distil-changes", SelectionList)
        changes.clear_options()
        changes.add_options([Selection(change_prompt(c), c.id, True, id=c.id)
                             for c in self.plan.changes])
        changes.border_title = f"{counted(len(self.plan.changes), 'change')} (space toggles)"
        if self.plan.changes:
            changes.highlighted = 0
        self.show_outcome(shown)
        self.refresh_bindings()

    def plan_failed(self, reason: str) -> None:
        self.planning = None
        self.progress_bar().display = False
        self.query_one("#distil-notes", Static).update(Text(line(reason), style="bold red"))

    def disabled_ids(self) -> frozenset[str]:
        if self.plan is None:
            return frozenset()
        selected = set(self.query_one("#distil-changes", SelectionList).selected)
        return frozenset(c.id for c in self.plan.changes if c.id not in selected)

    def rerender(self) -> None:
        """Render the outcome of the current toggles (a job; a newer toggle cancels it)."""
        plan = self.plan
        if plan is None:
            return
        disabled = self.disabled_ids()
        if self.shown is not None and self.shown.outcome.disabled == disabled:
            return
        self.shown = None
        self.refresh_bindings()
        self.query_one("#distil-meter", Static).update(Text("rendering …", style="dim"))
        self.render_toggles(plan, disabled)

    @work(exclusive=True, group="distil-outcome", exit_on_error=False,
          name="rendering the distilled index", description="Distil")
    async def render_toggles(self, plan: DistilPlan, disabled: frozenset[str]) -> None:
        self.show_outcome(await in_thread(lambda: shown_outcome(plan, disabled)))

    def show_outcome(self, shown: Shown) -> None:
        if self.plan is None or shown.outcome.disabled != self.disabled_ids():
            return  # a toggle since: its own job shows the newer outcome
        self.shown = shown
        self.query_one("#distil-meter", Static).update(meter_view(self.plan, shown.outcome))
        self.query_one("#distil-notes", Static).update(notes_view(self.plan, shown.outcome))
        self.query_one("#distil-diff", DiffView).show(shown.diffs)
        self.refresh_bindings()

    @on(SelectionList.SelectedChanged, "#distil-changes")
    def toggled(self) -> None:
        if self.plan is not None:
            changes = self.query_one("#distil-changes", SelectionList)
            selected = set(changes.selected)
            for change in self.plan.changes:
                changes.replace_option_prompt(change.id,
                                              change_prompt(change, change.id in selected))
        self.rerender()

    @on(SelectionList.SelectionHighlighted, "#distil-changes")
    def highlighted(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        if self.plan is None:
            return
        change_id = event.selection.value
        self.query_one("#distil-detail", Static).update(
            change_detail(self.plan.change(change_id)))

    # actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``a`` is disabled while there is nothing to apply (or a refusal, or planning)."""
        if action == "apply":
            return None if self.why_not() is not None else True
        if action in ("toggle_group", "toggle_all"):
            return None if self.plan is None or not self.plan.changes else True
        return True

    def why_not(self) -> str | None:
        if self.applying:
            return "The distil is being applied."
        if self.plan is None:
            return "Still planning; try again in a moment."
        if self.plan.refusals:
            return self.plan.refusals[0]
        if self.shown is None:
            return "Still rendering the outcome; try again in a moment."
        if self.shown.outcome.proposal is None:
            return nothing_to_change(self.plan)
        return None

    def action_toggle_group(self) -> None:
        changes = self.query_one("#distil-changes", SelectionList)
        if self.plan is None or changes.highlighted is None:
            return
        group = self.plan.changes[changes.highlighted].group
        ids = [c.id for c in self.plan.changes if c.group == group]
        on = any(i not in changes.selected for i in ids)
        for change_id in ids:
            if on:
                changes.select(change_id)
            else:
                changes.deselect(change_id)

    def action_toggle_all(self) -> None:
        changes = self.query_one("#distil-changes", SelectionList)
        if self.plan is None:
            return
        if len(changes.selected) == len(self.plan.changes):
            changes.deselect_all()
        else:
            changes.select_all()

    def action_help(self) -> None:
        show_help(self, f"Keys of the distil review ({line(self.store.title)})",
                  self.HELP_EXTRA)

    def action_apply(self) -> None:
        why = self.why_not()
        if why is not None:
            self.notify(line(why), title="Cannot distil", severity="warning", markup=False)
            return
        assert self.shown is not None and self.shown.outcome.proposal is not None
        proposal = self.shown.outcome.proposal
        where = line(self.context.show(self.store.path))
        assert self.plan is not None
        # the counts per group, not every change's summary: the review above lists them
        body = proposal_summary(proposal, self.shown.diffs, where,
                                notes=short_notes(self.plan, self.shown.outcome))
        screen = ConfirmScreen(f"Distil {self.store.title}?", body, diffs=self.shown.diffs)
        self.confirm_apply(screen, proposal)

    @work(exclusive=True, group="distil-confirm", exit_on_error=False,
          name="confirming the distil", description="Distil")
    async def confirm_apply(self, screen: ConfirmScreen, proposal: Proposal) -> None:
        yes = await ask(self, screen)
        if not yes or self.shown is None or self.shown.outcome.proposal is not proposal:
            return  # declined, or toggled meanwhile: the shown preview is no longer it
        title = line(self.store.title)
        self.start_applying(proposal, label=f"distil {title}",
                            message=lambda _op: f"distilled {title} · u to undo")
        self.refresh_bindings()

    def bar_workers(self) -> tuple[Worker[Any] | None, ...]:
        """The plan's or the apply's progress fills the bar (the plan's also the notes)."""
        return (self.planning, self.running)

    def job_progressed(self, message: JobProgress) -> None:
        if message.worker is self.planning:
            self.show_status(f"{line(message.text)} ({message.done or 0} / {message.total})")
