"""What the review screens share (the distil review, the snapshot review): they plan a
proposal, preview it, and apply the confirmed one in an edit job (:func:`start_apply`) whose
progress fills the screen's bar. ``esc`` cancels a running apply (every file is put back) or
closes the screen; an applied operation closes it too (the app hears
:class:`~memtui.tui.messages.OperationApplied` and rescans), one that changed nothing (refused,
failed or cancelled) plans again against the disk."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.command import Provider
from textual.screen import Screen
from textual.widgets import ProgressBar

from memtui.core.stores.locations import Context
from memtui.core.write.proposal import AppliedOp, Proposal
from memtui.tui.jobs import JobHandle, JobRunner, start_apply
from memtui.tui.messages import JobProgress
from memtui.tui.palette import ScreenCommands


class ReviewScreen(Screen[None]):
    """A screen that applies a reviewed proposal; its :class:`ProgressBar` has the id
    ``PROGRESS_ID``. Subclasses say how to plan again (:meth:`replan`) and may follow more
    jobs on the bar (:meth:`bar_jobs`, :meth:`job_progressed`); they do not define
    ``on_job_progress`` (Textual would call both handlers)."""

    PROGRESS_ID: ClassVar[str]

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenCommands}

    def __init__(self, context: Context, jobs: JobRunner) -> None:
        super().__init__()
        self.context = context
        self.jobs = jobs
        self.running: JobHandle | None = None
        """The apply, while it runs."""

    @property
    def applying(self) -> bool:
        return self.running is not None and self.running.is_running

    def progress_bar(self) -> ProgressBar:
        return self.query_one(f"#{self.PROGRESS_ID}", ProgressBar)

    def replan(self) -> None:
        """Plan again against the disk (after an apply that changed nothing)."""
        raise NotImplementedError

    def bar_jobs(self) -> tuple[JobHandle | None, ...]:
        """The jobs whose progress fills the bar (the apply); closing the screen cancels
        them."""
        return (self.running,)

    def job_progressed(self, message: JobProgress) -> None:
        """A job of :meth:`bar_jobs` said how far it is (the bar shows it already)."""

    def start_applying(self, proposal: Proposal, *, label: str,
                       message: Callable[[AppliedOp], str]) -> None:
        """Apply the confirmed ``proposal`` (journaled, ``u`` undoes), its progress on the bar."""
        bar = self.progress_bar()
        bar.display = True
        bar.update(total=max(1, len(proposal.changes)), progress=0)
        self.running = start_apply(self.jobs, self.context, proposal, label=label,
                                   message=message, node=self, finished=self.finished)

    def on_job_progress(self, message: JobProgress) -> None:
        """A progress of the screen's jobs on the bar (it also reaches the header)."""
        handles = [h for h in self.bar_jobs() if h is not None]
        if not any(h.job_id == message.job_id for h in handles) or message.total is None:
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
        for handle in self.bar_jobs():
            if handle is not None and handle.is_running:
                handle.cancel()
        self.dismiss(None)
