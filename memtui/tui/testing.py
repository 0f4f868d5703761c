"""Driving the app headless (tests and the screenshot script): wait until it is quiet."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every worker (scan, detail load, search index) has finished, the messages
    they posted are handled, and the screen has repainted."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


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
