"""Driving the app headless (tests and the screenshot script): wait until it is quiet."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from textual.worker import WorkerCancelled, WorkerState


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every worker (scan, detail load, search index) has finished, the messages
    they posted are handled, and the screen has repainted. A worker cancelled meanwhile (a
    newer one of its group replaced it: a detail load by the next selection, a scan by a
    refresh) is over too, not a failure: the wait goes on for the others."""
    for _ in range(3):
        await _workers_done(pilot)
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def _workers_done(pilot: Pilot[Any]) -> None:
    """``workers.wait_for_complete()`` for the workers not cancelled (waiting for a cancelled
    one raises, and a thread worker stays in the pool until its thread ends); asked again when
    one is cancelled while it waits, up to 100 times (then the cancellation is raised)."""
    for attempt in range(100):
        pending = [w for w in pilot.app.workers if w.state != WorkerState.CANCELLED]
        if not pending:
            return
        try:
            await pilot.app.workers.wait_for_complete(pending)
            return
        except WorkerCancelled:
            if attempt == 99:
                raise


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
