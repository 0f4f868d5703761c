"""Long work on Textual's own workers, and the one helper every plan → confirm → apply flow
is written with.

- **Work** is a worker: ``@work(thread=True, exclusive=True, group=…, exit_on_error=False)``
  for a blocking read, ``@work(exclusive=True, group=…, exit_on_error=False)`` for a flow
  (an async worker that awaits its blocking steps in a thread: :func:`in_thread`). A newer
  worker of a group cancels the older one on the same node (``exclusive``); a dialog's workers
  end with the dialog (Textual cancels a node's workers when it is removed).
- **Progress**: :func:`progress` posts a :class:`~memtui.tui.messages.JobProgress` (it
  replaces an older one still queued: ``can_replace``) to the worker's node; it bubbles up to
  the app, which keeps the header's ``jobs:`` text (a dialog keeps its own).
- **Cancellation**: the body checks :func:`is_cancelled` (or calls :func:`check`) between
  blocking calls; the core's ``cancelled`` callbacks get :func:`is_cancelled`.
- **One failure handler**: :class:`ReportsWork` gives every node that runs workers the one
  ``Worker.StateChanged`` handler. Whatever a worker raises (a refusal or a bug) is said in
  words, plain text (``scan failed: OSError: …``; a refusal's own reason); a step of a flow
  names itself (:class:`StepFailed`). A cancelled worker ends silently, except a write stopped
  halfway: :func:`apply_step` says that every file was put back.
- **A flow** reads top to bottom: ``plan = await in_thread(...)``; ``if not await ask(self,
  ConfirmScreen(...)): return``; ``op = await apply_step(self, ...)``. ``esc`` answers a dialog
  no and cancels a running step (the flow's worker).
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from textual.dom import DOMNode
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.proposal import AppliedOp, Proposal
from memtui.tui.messages import JobEnded, JobProgress, OperationApplied
from memtui.tui.plain import line

T = TypeVar("T")
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]

FAILURE_SECONDS = 20
"""How long a failure's notification stays."""

EDIT_FAILED_TITLE = "Nothing changed"

WAITING: weakref.WeakSet[Worker[Any]] = weakref.WeakSet()
"""Flows waiting for the user's answer in a dialog (:func:`ask`): they are not busy
(:func:`memtui.tui.testing.settle` does not wait for them)."""


class WorkCancelled(Exception):
    """Raised inside a thread worker (:func:`check`) to stop quietly: it was cancelled (its
    worker is already over, so nothing is said)."""


class StepFailed(Exception):
    """A step of a flow failed: ``label`` names the step in the failure's words, ``title`` is
    the notification's title."""

    def __init__(self, label: str, title: str, error: BaseException) -> None:
        super().__init__(f"{label}: {error}")
        self.label = label
        self.title = title
        self.error = error


def failure_text(label: str, error: BaseException) -> str:
    """A failure in words: a refusal's own reason, otherwise ``<label> failed: Type: …``."""
    if isinstance(error, EditRefused):
        return error.reason
    return f"{label} failed: {type(error).__name__}: {error}"


def run_flow(node: DOMNode, flow: Callable[[], Coroutine[Any, Any, T]], *, group: str,
             label: str, title: str | None = None) -> Worker[T]:
    """Run ``flow`` (an async function: a plan → confirm → apply, or any async work; a
    ``partial`` with its arguments) as the async worker of ``node`` in ``group`` (a newer one
    of the group cancels it). ``label`` names it in a failure's words, ``title`` titles that
    failure (default: the label)."""
    return node.run_worker(flow, name=label, group=group, description=title or label,
                           exclusive=True, exit_on_error=False)


def run_thread(node: DOMNode, run: Callable[[], T], *, group: str, label: str,
               title: str | None = None, header: str | None = None) -> Worker[T]:
    """Run the blocking ``run`` as a thread worker of ``node`` in ``group``; ``header``: the
    header's text from the start."""

    def body() -> T:
        if header is not None:
            progress(header)
        return run()

    return node.run_worker(body, name=label, group=group, description=title or label,
                           exclusive=True, exit_on_error=False, thread=True)


# --- inside a worker ----------------------------------------------------------------------------


def is_cancelled() -> bool:
    """The current worker was cancelled (or replaced by a newer one of its group)."""
    return get_current_worker().is_cancelled


def check() -> None:
    """Stop here (quietly) if the current worker was cancelled."""
    if get_current_worker().is_cancelled:
        raise WorkCancelled


def progress(text: str, done: int | None = None, total: int | None = None) -> None:
    """Say how far the current worker is (thread-safe; never raises, so it is safe inside the
    core's own callbacks; dropped once cancelled)."""
    worker = get_current_worker()
    if not worker.is_cancelled:
        worker.node.post_message(JobProgress(worker, text, done, total))


async def in_thread(run: Callable[[], T], *, label: str | None = None,
                    title: str | None = None) -> T:
    """Run the blocking ``run`` in a thread as a step of the current (async) worker: inside
    it, :func:`progress` and :func:`is_cancelled` are the worker's. Cancelling the worker
    raises ``CancelledError`` here at once; the thread stops at its next check. With a
    ``label``, what it raises is a :class:`StepFailed` of that label and ``title``."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    try:
        return await loop.run_in_executor(None, context.run, run)
    except (asyncio.CancelledError, StepFailed):
        raise
    except Exception as error:
        if label is None:
            raise
        raise StepFailed(label, title or label, error) from error


async def ask(node: DOMNode, dialog: Screen[T]) -> T:
    """Show ``dialog`` and wait (not busy) for its answer."""
    worker = get_current_worker()
    WAITING.add(worker)
    try:
        return await node.app.push_screen_wait(dialog)
    finally:
        WAITING.discard(worker)


async def apply_step(
    node: DOMNode,
    label: str,
    run: Callable[[Progress, Cancelled], AppliedOp],
    message: Callable[[AppliedOp], str],
) -> AppliedOp:
    """The step that writes: ``run`` (a thread) with progress ``<label> done/total`` and the
    worker's cancellation; the app then hears :class:`OperationApplied` (it says so and
    rescans). A refusal or a failure raises :class:`StepFailed` (titled "Nothing changed").
    Cancelled halfway (esc), the write stops at its next check and puts every file back: that
    is said, and the cancellation goes on."""
    worker = get_current_worker()
    loop = asyncio.get_running_loop()

    def body() -> AppliedOp:
        def step(done: int, total: int) -> None:
            progress(f"{label} {done}/{total}", done, total)

        return run(step, lambda: worker.is_cancelled)

    progress(label)
    future = loop.run_in_executor(None, contextvars.copy_context().run, body)
    try:
        op = await asyncio.shield(future)
    except asyncio.CancelledError:
        await _after_cancel(node, label, message, future)
        raise
    except Exception as error:
        raise StepFailed(label, EDIT_FAILED_TITLE, error) from error
    node.app.post_message(OperationApplied(label, message(op), op))
    return op


async def _after_cancel(node: DOMNode, label: str, message: Callable[[AppliedOp], str],
                        future: asyncio.Future[AppliedOp]) -> None:
    """A write was cancelled: wait for its thread, and say what it ended with."""
    try:
        op = await future
    except Exception as error:
        notify_failure(node, failure_text(label, error), EDIT_FAILED_TITLE)
    else:  # it was done before it saw the cancellation
        node.app.post_message(OperationApplied(label, message(op), op))


def apply_proposal(proposal: Proposal, journal: Journal,
                   after: Callable[[AppliedOp], object] | None = None,
                   ) -> Callable[[Progress, Cancelled], AppliedOp]:
    """:func:`apply_step`'s ``run`` for a confirmed ``proposal``: the write path
    (:func:`memtui.core.write.apply.apply`, journaled), then ``after`` (what a decision
    records)."""

    def run(step: Progress, cancelled: Cancelled) -> AppliedOp:
        done = apply(proposal, journal, progress=step, cancelled=cancelled)
        if after is not None:
            after(done)
        return done

    return run


# --- the one failure handler ------------------------------------------------------------------


def notify_failure(node: DOMNode, text: str, title: str) -> None:
    node.app.notify(line(text), title=line(title), severity="error", timeout=FAILURE_SECONDS,
                    markup=False)


def describe_failure(worker: Worker[Any]) -> tuple[str, str] | None:
    """The words and title of a failed worker (None: it did not fail)."""
    error = worker.error
    if worker.state != WorkerState.ERROR or error is None or isinstance(error, WorkCancelled):
        return None
    if isinstance(error, StepFailed):
        return failure_text(error.label, error.error), error.title
    return failure_text(worker.name, error), worker.description or worker.name


class ReportsWork:
    """Mixed into every node that runs workers (the app, the screens, the dialogs, the detail
    pane): Textual posts ``Worker.StateChanged`` to the worker's node only, so this is the one
    handler, there. A failure is said; an ended worker leaves the header."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        assert isinstance(self, DOMNode)
        failure = describe_failure(worker)
        if failure is not None:
            notify_failure(self, *failure)
        self.post_message(JobEnded(worker))
        self.worker_ended(worker, failure[0] if failure is not None else None)

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        """A worker of this node ended (``failure``: its failure in words, already said)."""


def header_text(texts: dict[Worker[Any], str]) -> str:
    """What the header's ``jobs:`` shows: every running worker's latest text."""
    return " · ".join(
        text for worker, text in texts.items()
        if text and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
        and not worker.is_cancelled
    )
