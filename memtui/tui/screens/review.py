"""What the review screens share (the distil review, the snapshot review): they plan a
proposal, preview it, and apply the confirmed one (:func:`memtui.tui.work.apply_step`) while
its progress fills the screen's bar. ``esc`` cancels a running apply (every file is put back)
or closes the screen; an applied operation closes it too (the app hears
:class:`~memtui.tui.messages.OperationApplied` and rescans), one that changed nothing (refused,
failed or cancelled) plans again against the disk."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from textual.command import Provider
from textual.screen import Screen
from textual.widgets import ProgressBar
from textual.worker import Worker

from memtui.core.stores.locations import Context
from memtui.core.write.journal import Journal
from memtui.core.write.proposal import AppliedOp, Proposal
from memtui.tui.messages import JobProgress
from memtui.tui.palette import ScreenCommands
from memtui.tui.work import EDIT_FAILED_TITLE, ReportsWork, apply_proposal, apply_step


class ReviewScreen(ReportsWork, Screen[None]):
    """A screen that applies a reviewed proposal; its :class:`ProgressBar` has the id
    ``PROGRESS_ID``. Subclasses say how to plan again (:meth:`replan`) and may follow more
    workers on the bar (:meth:`bar_workers`, :meth:`job_progressed`); they do not define
    ``on_job_progress`` (Textual would call both handlers)."""

    PROGRESS_ID: ClassVar[str]

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenCommands}

    def __init__(self, context: Context, journal: Journal) -> None:
        super().__init__()
        self.context = context
        self.journal = journal
        self.running: Worker[None] | None = None
        """The apply, while it runs."""

    @property
    def applying(self) -> bool:
        return self.running is not None and self.running.is_running

    def progress_bar(self) -> ProgressBar:
        return self.query_one(f"#{self.PROGRESS_ID}", ProgressBar)

    def replan(self) -> None:
        """Plan again against the disk (after an apply that changed nothing)."""
        raise NotImplementedError

    def bar_workers(self) -> tuple[Worker[Any] | None, ...]:
        """The workers whose progress fills the bar (the apply); closing the screen cancels
        them."""
        return (self.running,)

    def job_progressed(self, message: JobProgress) -> None:
        """A worker of :meth:`bar_workers` said how far it is (the bar shows it already)."""

    def start_applying(self, proposal: Proposal, *, label: str,
                       message: Callable[[AppliedOp], str]) -> None:
        """Apply the confirmed ``proposal`` (journaled, ``u`` undoes), its progress on the bar."""
        bar = self.progress_bar()
        bar.display = True
        bar.update(total=max(1, len(proposal.changes)), progress=0)
        self.running = self.run_worker(partial(self._apply, proposal, label, message), name=label,
                                       group="edit", description=EDIT_FAILED_TITLE,
                                       exclusive=True, exit_on_error=False)

    async def _apply(self, proposal: Proposal, label: str,
                     message: Callable[[AppliedOp], str]) -> None:
        op: AppliedOp | None = None
        try:
            op = await apply_step(self, label, apply_proposal(proposal, self.journal), message)
        finally:
            self.finished(op)

    def on_job_progress(self, message: JobProgress) -> None:
        """A progress of the screen's workers on the bar (it also reaches the header)."""
        if message.worker not in self.bar_workers() or message.total is None:
            return
        self.progress_bar().update(total=message.total, progress=message.done or 0)
        self.job_progressed(message)

    def finished(self, op: AppliedOp | None) -> None:
        self.running = None
        if not self.is_attached:
            return
        self.progress_bar().display = False
        if op is not None:
            if self.app.screen is self:
                self.dismiss(None)
            return
        self.replan()

    def action_back(self) -> None:
        if self.running is not None and self.running.is_running:
            self.running.cancel()
            self.notify("Cancelling: every file will be put back.", severity="warning")
            return
        for worker in self.bar_workers():
            if worker is not None and worker.is_running:
                worker.cancel()
        self.dismiss(None)
