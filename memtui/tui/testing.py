"""Driving the app headless (tests and the screenshot script): wait until it is quiet."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from textual.worker import Worker, WorkerCancelled, WorkerError, WorkerFailed, WorkerState

from memtui.tui.work import WAITING


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every worker (scan, detail load, search index) has finished, the messages
    they posted are handled, and the screen has repainted. A worker cancelled meanwhile (a
    newer one of its group replaced it: a detail load by the next selection, a scan by a
    refresh) is over too, not a failure: the wait goes on for the others. A flow waiting for
    the user's answer in a dialog is not busy: it is not waited for."""
    for _ in range(3):
        await _workers_done(pilot)
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


WAIT_ROUNDS = 6000
"""How many times :func:`_workers_done` looks again (each look waits up to ``LOOK_SECONDS``
for a busy worker to end): minutes, for a loaded machine."""
LOOK_SECONDS = 0.1


def busy_workers(app: App[Any]) -> list[Worker[Any]]:
    """The workers still at work: not over, not waiting for the user. A cancelled async
    worker may still be finishing (a write putting every file back): it counts until its
    task ends; a cancelled thread worker is over at once (its state says so)."""
    return [w for w in app.workers
            if w.state in (WorkerState.PENDING, WorkerState.RUNNING) and w not in WAITING]


async def _ended(worker: Worker[Any]) -> None:
    """Wait for ``worker`` to end, whatever it ends with (its failure was said)."""
    with contextlib.suppress(WorkerCancelled, WorkerFailed, WorkerError):
        await worker.wait()


async def _looking_at(worker: Worker[Any]) -> None:
    """:func:`_ended`, shielded: giving up the look must not cancel the worker (cancelling a
    task cancels what it awaits)."""
    await asyncio.shield(asyncio.ensure_future(_ended(worker)))


async def _workers_done(pilot: Pilot[Any]) -> None:
    """Until no worker is busy: each look waits for one of the busy ones to end (or a moment:
    one may start waiting for the user meanwhile), then looks again."""
    for _ in range(WAIT_ROUNDS):
        busy = busy_workers(pilot.app)
        if not busy:
            return
        waits = [asyncio.ensure_future(_looking_at(w)) for w in busy]
        try:
            await asyncio.wait(waits, timeout=LOOK_SECONDS, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
    raise TimeoutError(f"workers still busy: {[w.name for w in busy_workers(pilot.app)]}")


def still_cursors(app: App[Any]) -> None:
    """Stop every text cursor blinking, on every screen of the stack: a blinking cursor is
    drawn or not by the wall clock (half a second each), so a picture taken later than that
    after the focus moved (a loaded machine) would lose it. A focused field's cursor stays
    drawn. The fields' cached lines go too: a TextArea keys them by the cursor only while it
    blinks, so a line drawn in the off half of a blink would be reused without the cursor."""
    for screen in app.screen_stack:
        for field in (*screen.query(Input), *screen.query(TextArea)):
            field.cursor_blink = False
            field.notify_style_update()
            field.refresh()
