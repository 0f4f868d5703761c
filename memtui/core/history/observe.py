"""Recording before and after memtui's own operations: an observer of the write path
(:mod:`memtui.core.write.observers`) that records the stores an operation touches just before
it (what others changed, attributed as it is known) and the files it changed just after it
(attributed to memtui with the operation's id). It records only once the history repository
exists (``memtui history record`` makes it), and never fails an operation."""

from __future__ import annotations

from memtui.core.history.attribution import Attribution
from memtui.core.history.paths import HistoryError
from memtui.core.history.record import record
from memtui.core.stores.locations import Context
from memtui.core.write.observers import Observer, Phase, Registration, observe
from memtui.core.write.proposal import AppliedOp, Proposal

PROBLEMS: list[str] = []
"""Why a recording around an operation failed (the operation itself went on)."""


def operation_observer(ctx: Context) -> Observer:
    def observer(phase: Phase, proposal: Proposal, applied: AppliedOp | None) -> None:
        paths = [c.path for c in proposal.changes]
        try:
            if phase == "before":
                who = Attribution("unknown", op_title=proposal.title, phase="before",
                                  source="operation")
                record(ctx, who, touching=paths, create=False)
            elif applied is not None:
                who = Attribution.memtui(applied.op_id, applied.title)
                record(ctx, who, touching=paths, only=applied.files, create=False)
        except (HistoryError, OSError) as exc:
            PROBLEMS.append(f"history not recorded {phase} {proposal.kind}: {exc}")

    return observer


def record_operations(ctx: Context) -> Registration:
    """Record around every operation applied from now on in this process."""
    return observe(operation_observer(ctx))
