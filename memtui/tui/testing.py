"""Driving the app headless (tests and the screenshot script): wait until it is quiet."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every worker (scan, detail load, search index) has finished, the messages
    they posted are handled, and the screen has repainted."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
