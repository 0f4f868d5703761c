"""The pilots' wait for a refresh (``pilots._refreshed``) ends when the callback it handed the
screen is dropped: Textual gives an ``InvokeLater`` to whichever screen is current when it is
handled, so a dialog pushed before that takes it, and popped before it refreshes, drops it.
Waiting for the callback alone hung a conflicts pilot twice under load."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pilots
import pytest


class DroppingScreen:
    """A screen that takes a ``call_after_refresh`` callback and never calls it (a dialog took
    it and was popped), running until the test ends."""

    def __init__(self) -> None:
        self.is_running = True
        self.task: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def call_after_refresh(self, callback: Callable[[], Any]) -> bool:
        return True


class StackApp:
    def __init__(self) -> None:
        self.screen = DroppingScreen()
        self.screen_stack: list[object] = [self.screen]
        self.is_running = True


async def test_a_dropped_callback_ends_the_wait_once_the_stack_changed() -> None:
    app = StackApp()
    waiting = asyncio.ensure_future(pilots._refreshed(app))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    app.screen_stack.append(object())  # a dialog pushed: the callback went to it
    # a hang guard, not a timing assertion: the wait ends at its next look
    await asyncio.wait_for(waiting, timeout=600)
    app.screen.task.cancel()


async def test_a_dropped_callback_ends_the_wait_after_its_looks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dialog pushed and popped between two looks leaves the stack as it was: the wait still
    ends, after its looks."""
    monkeypatch.setattr(pilots, "REFRESH_LOOKS", 3)
    app = StackApp()
    await asyncio.wait_for(pilots._refreshed(app), timeout=600)  # type: ignore[arg-type]
    assert app.screen_stack == [app.screen]
    app.screen.task.cancel()
