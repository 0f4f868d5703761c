"""The TUI's notion of "now", so ages can be frozen for snapshot tests and screenshots."""

from __future__ import annotations

import time

_frozen: float | None = None


def now() -> float:
    """Seconds since the epoch: the frozen moment when one is set, else the real time."""
    return time.time() if _frozen is None else _frozen


def freeze(moment: float | None) -> None:
    """Make :func:`now` return ``moment`` (None returns to the real time)."""
    global _frozen
    _frozen = moment
