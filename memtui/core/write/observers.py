"""Who is told before and after :func:`memtui.core.write.apply.apply` changes files.

The write path knows no feature; a feature that must see every operation (history records the
stores before and after each one) registers an observer here. An observer never changes the
outcome of an operation: whatever it raises is kept in :data:`FAILURES` (the last few, for a
caller to report) and the operation goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from memtui.core.write.proposal import AppliedOp, Proposal

Phase = Literal["before", "after"]
Observer = Callable[[Phase, Proposal, "AppliedOp | None"], None]
"""Called with ``"before"`` (the checks passed, nothing written yet) and ``"after"`` (the
operation is done; its :class:`AppliedOp`)."""

_OBSERVERS: list[Observer] = []
FAILURES: list[str] = []
"""What the observers raised, newest last (at most :data:`MAX_FAILURES`)."""
MAX_FAILURES = 20


@dataclass
class Registration:
    """An observer's registration: :meth:`remove` ends it."""

    observer: Observer

    def remove(self) -> None:
        if self.observer in _OBSERVERS:
            _OBSERVERS.remove(self.observer)


def observe(observer: Observer) -> Registration:
    """Tell ``observer`` about every operation from now on (once, however often it is
    registered)."""
    if observer not in _OBSERVERS:
        _OBSERVERS.append(observer)
    return Registration(observer)


def notify(phase: Phase, proposal: Proposal, applied: AppliedOp | None = None) -> None:
    """Call every observer; a failure is kept in :data:`FAILURES`, never raised."""
    for observer in list(_OBSERVERS):
        try:
            observer(phase, proposal, applied)
        except Exception as exc:  # an observer never breaks an operation
            FAILURES.append(f"{phase} {proposal.kind}: {type(exc).__name__}: {exc}")
            del FAILURES[:-MAX_FAILURES]
