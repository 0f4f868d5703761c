"""Fixtures of every TUI test."""

from __future__ import annotations

import pytest
from pilots import record_notifications


@pytest.fixture(autouse=True)
def _notifications_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``App.notify`` call recorded, read by ``pilots.notified`` and
    ``pilots.notifications``: a toast can expire or be reaped before a slow pilot reads it."""
    record_notifications(monkeypatch)
