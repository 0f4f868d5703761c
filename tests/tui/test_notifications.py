"""The tests' record of notifications (``pilots.notified``, kept by ``tests/tui/conftest.py``):
a toast expires by the wall clock, so a pilot that reads Textual's own list on a busy machine
can find it gone (issue 25: ``test_apply_then_undo_restores_every_byte``)."""

from __future__ import annotations

import time

import pytest
import textual.notifications
from pilots import notifications, notified
from textual.app import App


class Bare(App[None]):
    pass


async def test_a_notification_is_still_read_after_its_toast_expired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = Bare()
    async with app.run_test() as pilot:
        app.notify("distilled auto · u to undo", timeout=5)
        app.notify("a warning", severity="warning", title="Theme", markup=False)
        await pilot.pause()
        later = time.time() + 60  # the pilot was slow: both toasts expired
        monkeypatch.setattr(textual.notifications, "time", lambda: later)
        assert list(app._notifications) == []  # Textual reaped them
        assert notifications(app) == [
            ("distilled auto · u to undo", "information"), ("a warning", "warning")]
        assert [(n.title, n.markup) for n in notified(app)] == [("", True), ("Theme", False)]


async def test_each_app_has_its_own_record() -> None:
    first, second = Bare(), Bare()
    async with first.run_test(), second.run_test():
        first.notify("one")
        assert notifications(first) == [("one", "information")]
        assert notifications(second) == []
