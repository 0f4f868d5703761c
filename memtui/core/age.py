"""Memory ages, counted the way Claude Code's recall header counts them."""

from __future__ import annotations

import math
import time

DAY_SECONDS = 86_400


def age_days(mtime: float, now: float | None = None) -> int:
    """Whole days since ``mtime`` (floor), never negative."""
    now = time.time() if now is None else now
    return max(0, math.floor((now - mtime) / DAY_SECONDS))


UNKNOWN_AGE = "age unknown"


def age_text(mtime: float, now: float | None = None) -> str:
    """``today``, ``yesterday`` or ``N days old``; ``age unknown`` for a file whose stat could
    not be taken (mtime 0, never shown as the epoch)."""
    if mtime <= 0:
        return UNKNOWN_AGE
    days = age_days(mtime, now)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days old"
