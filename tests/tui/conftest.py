"""Fixtures of every TUI test."""

from __future__ import annotations

import pytest
from pilots import idle_by_state, record_notifications


@pytest.fixture(autouse=True)
def _notifications_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``App.notify`` call recorded, read by ``pilots.notified`` and
    ``pilots.notifications``: a toast can expire or be reaped before a slow pilot reads it."""
    record_notifications(monkeypatch)


@pytest.fixture(autouse=True)
def _idle_by_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Key presses and ``pilot.pause()`` wait for the app's message queues to empty, not for
    the process to look idle by the clock (``pilots.until_idle``)."""
    idle_by_state(monkeypatch)
