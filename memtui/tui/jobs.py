"""The app's one runner of long work: the scan, live refreshes, plans, journal reads, edits,
the search index, detail reads. Every blocking call of the TUI is a :class:`Job`.

- **start**: a thread worker in the job's own group, exclusive (a new job of a group cancels
  the one before, on the same node), ``exit_on_error=False``. It runs on the node that started
  it (a dialog's jobs end with the dialog), the app by default.
- **progress**: :meth:`JobControl.progress` posts a :class:`~memtui.tui.messages.JobProgress`
  to that node; it bubbles up to the app, and the runner keeps each job's text for the header
  (``jobs: scan: agents``), published on :attr:`JobRunner.changed`.
- **cancel**: :meth:`JobHandle.cancel` / :meth:`JobRunner.cancel_group`; the body checks
  :attr:`JobControl.is_cancelled` (or calls :meth:`JobControl.check`) between blocking calls.
- **one failure handler**: whatever a job raises (a refusal or a bug), the runner clears its
  header text and says in words what failed (``scan failed: OSError: …``), plain text, then
  calls the job's ``failed``. A cancelled job ends silently, unless it ends with a refusal (an
  edit cancelled halfway says that every file was put back).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.signal import Signal
from textual.worker import Worker, WorkerState, get_current_worker

from memtui.core.stores.locations import Context
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.proposal import AppliedOp, Proposal
from memtui.tui.messages import JobProgress, OperationApplied, OperationFailed
from memtui.tui.plain import line

T = TypeVar("T")
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]

FAILURE_SECONDS = 20
"""How long a failure's notification stays."""


class JobCancelled(Exception):
    """Raised inside a job (:meth:`JobControl.check`) to stop quietly: it was cancelled."""


@dataclass
class Job(Generic[T]):
    """One piece of long work. ``run`` is called in a thread with a :class:`JobControl`;
    ``done`` (app thread) gets its result unless it was cancelled."""

    label: str
    """What it is, in words: the header shows it, a failure names it ("delete x.md failed")."""
    run: Callable[[JobControl], T]
    group: str
    """The worker group: one job of a group at a time per node."""
    title: str = ""
    """The title of the failure's notification (default: the label)."""
    header: str | None = None
    """The header's text from the start (None: nothing until the first progress)."""
    in_header: bool = True
    """False: its progress is for the node that started it only (a dialog's status line)."""
    done: Callable[[T], object] | None = None
    failed: Callable[[str], object] | None = None
    """Called (app thread) with the failure's words, after the runner showed them."""


@dataclass
class JobHandle:
    """A started job: its id (in its progress messages) and its worker."""

    job_id: int
    worker: Worker[None]

    @property
    def is_running(self) -> bool:
        return self.worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def cancel(self) -> None:
        self.worker.cancel()


@dataclass
class JobControl:
    """What a job's body gets: cancellation, progress, and a way to post to its node."""

    job_id: int
    group: str
    node: DOMNode
    worker: Worker[None]

    @property
    def is_cancelled(self) -> bool:
        return self.worker.is_cancelled

    def check(self) -> None:
        """Stop here (quietly) if the job was cancelled."""
        if self.worker.is_cancelled:
            raise JobCancelled

    def progress(self, text: str, done: int | None = None, total: int | None = None) -> None:
        """Say how far the job is (never raises: safe inside the core's own callbacks)."""
        if not self.worker.is_cancelled:
            self.post(JobProgress(self.job_id, self.group, text, done, total))

    def post(self, message: Message) -> None:
        """Post ``message`` to the job's node (thread-safe); dropped once cancelled."""
        if not self.worker.is_cancelled:
            self.node.post_message(message)

    def post_and_wait(self, message: Message, handled: threading.Event) -> None:
        """Post ``message`` and wait until its handler sets ``handled`` (stopping quietly if
        the job is cancelled meanwhile; not waiting when the node takes no more messages)."""
        self.check()
        if not self.node.post_message(message):
            return
        while not handled.wait(0.05):
            self.check()


@dataclass
class _Running:
    job_id: int
    job: Job[Any]
    node: DOMNode
    text: str | None
    worker: Worker[None] | None = field(default=None)
    started: bool = False
    """Its body runs (set by the worker's thread)."""
    cancelled: bool = False
    """Cancelled, or replaced by a newer job of its group: off the header, silent, unless
    its body ends with a refusal (a write stopped and put back says so)."""


def failure_text(label: str, error: BaseException) -> str:
    """A failure in words: a refusal's own reason, otherwise ``<label> failed: Type: …``."""
    if isinstance(error, EditRefused):
        return error.reason
    return f"{label} failed: {type(error).__name__}: {error}"


class JobRunner:
    """The app's jobs (see the module's docstring)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.changed: Signal[str] = Signal(app, "jobs-changed")
        """Published with the header's text (``""``: nothing running) when it changes."""
        self._ids = itertools.count(1)
        self._running: dict[int, _Running] = {}

    # starting and cancelling ---------------------------------------------------------------

    def start(self, job: Job[T], node: DOMNode | None = None) -> JobHandle:
        """Run ``job`` in a thread worker of ``node`` (the app by default)."""
        owner: DOMNode = node if node is not None else self.app
        for old in self._running.values():
            if old.node is owner and old.job.group == job.group:
                old.cancelled = True  # by the exclusive start below
        entry = _Running(next(self._ids), job, owner, job.header)
        self._running[entry.job_id] = entry

        def body() -> None:
            self._body(entry)

        worker: Worker[None] = owner.run_worker(
            body,
            name=job.label,
            group=job.group,
            description=job.label,
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )
        entry.worker = worker
        self._publish()
        return JobHandle(entry.job_id, worker)

    def cancel_group(self, group: str) -> None:
        for entry in list(self._running.values()):
            if entry.job.group == group and entry.worker is not None:
                entry.worker.cancel()

    def running(self, group: str) -> bool:
        return any(entry.job.group == group for entry in self._running.values())

    # the header ----------------------------------------------------------------------------

    def header_text(self) -> str:
        """What the header's ``jobs:`` shows: every running job's latest text."""
        return " · ".join(
            entry.text
            for entry in self._running.values()
            if entry.job.in_header and entry.text and not entry.cancelled
        )

    def _publish(self) -> None:
        self.changed.publish(self.header_text())

    def progress(self, message: JobProgress) -> None:
        """App thread: a job's progress (older messages of a finished job are dropped)."""
        entry = self._running.get(message.job_id)
        if entry is None or entry.cancelled or not entry.job.in_header:
            return
        if entry.text == message.text:
            return
        entry.text = message.text
        self._publish()

    # the worker's side -----------------------------------------------------------------------

    def _body(self, entry: _Running) -> None:
        entry.started = True
        worker = get_current_worker()
        control = JobControl(entry.job_id, entry.job.group, entry.node, worker)
        try:
            result = entry.job.run(control)
        except JobCancelled:
            self._call(self._ended, entry)
            return
        except Exception as error:  # one handler for refusals and bugs alike
            if worker.is_cancelled and not isinstance(error, EditRefused):
                self._call(self._ended, entry)
            else:
                self._call(self._failed, entry, error)
            return
        if worker.is_cancelled:
            self._call(self._ended, entry)
        else:
            self._call(self._succeeded, entry, result)

    def _call(self, callback: Callable[..., None], *args: object) -> None:
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.app.call_from_thread(callback, *args)

    # the app's side --------------------------------------------------------------------------

    def _finish(self, entry: _Running) -> bool:
        """Forget ``entry``; False when it was already forgotten."""
        if self._running.pop(entry.job_id, None) is None:
            return False
        self._publish()
        return True

    def _ended(self, entry: _Running) -> None:
        self._finish(entry)

    def _succeeded(self, entry: _Running, result: object) -> None:
        if not self._finish(entry) or entry.cancelled:
            return
        if entry.job.done is not None:
            try:
                entry.job.done(result)
            except Exception as error:  # showing the result failed: say so, never stick
                self._report(entry, error)

    def _failed(self, entry: _Running, error: BaseException) -> None:
        if self._finish(entry):
            self._report(entry, error)

    def _report(self, entry: _Running, error: BaseException) -> None:
        """The one failure handler: the failure in words (plain text), then the job's own."""
        text = failure_text(entry.job.label, error)
        self.app.notify(
            line(text),
            title=line(entry.job.title or entry.job.label),
            severity="error",
            timeout=FAILURE_SECONDS,
            markup=False,
        )
        if entry.job.failed is not None:
            entry.job.failed(text)

    def worker_settled(self, worker: Worker[Any]) -> None:
        """A worker reached a final state: a job whose body never ran (cancelled before it
        started) or died of something the body could not catch still leaves the header."""
        for entry in list(self._running.values()):
            if entry.worker is not worker:
                continue
            if worker.state == WorkerState.ERROR and worker.error is not None:
                self._failed(entry, worker.error)
            elif worker.state == WorkerState.CANCELLED:
                # a thread worker ends at once; its body, if it runs, ends at its next check
                entry.cancelled = True
                if not entry.started:
                    self._finish(entry)
                else:
                    self._publish()
            elif worker.state == WorkerState.SUCCESS:
                self._finish(entry)


# --- edits: plan, confirm, apply ------------------------------------------------------------


def journal_for(context: Context) -> Journal:
    """The journal of ``context`` (its environment decides where it is), scoped to the
    context's Claude Code home: operations of other homes are neither offered nor undone."""
    return Journal.default(context.env, home=context.claude_home)


@dataclass
class EditJob:
    """One confirmed operation: ``run`` writes (through the core), ``message`` says what it
    did; ``finished`` (the flow's next step) gets the operation, or None when nothing
    changed."""

    label: str
    run: Callable[[Progress, Cancelled], AppliedOp]
    message: Callable[[AppliedOp], str]
    finished: Callable[[AppliedOp | None], object] | None = None


def start_apply(
    runner: JobRunner,
    context: Context,
    proposal: Proposal,
    *,
    label: str,
    message: Callable[[AppliedOp], str],
    node: DOMNode | None = None,
    finished: Callable[[AppliedOp | None], object] | None = None,
    after: Callable[[AppliedOp], object] | None = None,
) -> JobHandle:
    """Apply a confirmed ``proposal`` through the write path (:func:`apply`, journaled in the
    context's journal) as an :class:`EditJob`; ``after`` runs in the job once it is applied
    (what a decision records), ``finished`` on the app thread."""
    journal = journal_for(context)

    def run(progress: Progress, cancelled: Cancelled) -> AppliedOp:
        done = apply(proposal, journal, progress=progress, cancelled=cancelled)
        if after is not None:
            after(done)
        return done

    return start_edit(runner, EditJob(label, run, message, finished), node)


def start_edit(runner: JobRunner, edit: EditJob, node: DOMNode | None = None) -> JobHandle:
    """Apply ``edit`` in the ``edit`` group. Its progress reaches ``node`` (and the header);
    the app hears :class:`OperationApplied` (it says so and rescans) or
    :class:`OperationFailed`."""
    app = runner.app

    def run(control: JobControl) -> AppliedOp:
        def progress(done: int, total: int) -> None:
            control.progress(f"{edit.label} {done}/{total}", done, total)

        return edit.run(progress, lambda: control.is_cancelled)

    def applied(op: AppliedOp) -> None:
        app.post_message(OperationApplied(edit.label, edit.message(op), op))
        if edit.finished is not None:
            edit.finished(op)

    def failed(reason: str) -> None:
        app.post_message(OperationFailed(edit.label, reason))
        if edit.finished is not None:
            edit.finished(None)

    job = Job(
        edit.label,
        run,
        group="edit",
        title="Nothing changed",
        header=edit.label,
        done=applied,
        failed=failed,
    )
    return runner.start(job, node)


def runner_of(node: DOMNode) -> JobRunner:
    """The job runner of ``node``'s app."""
    runner = getattr(node.app, "jobs", None)
    if not isinstance(runner, JobRunner):
        raise TypeError(f"{type(node.app).__name__} has no job runner (memtui's app has one)")
    return runner
