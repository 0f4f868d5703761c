"""Fixtures of every TUI test."""

from __future__ import annotations

import pytest
from pilots import css_parsed_once, idle_by_state, record_notifications


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


@pytest.fixture(autouse=True)
def _css_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each app's CSS parsed once per process for every pilot, not once per app
    (``pilots.css_parsed_once``)."""
    css_parsed_once(monkeypatch)
