"""What the keys that change files do, from the main screen: delete (``d``: the selected memory,
or every marked one as one operation), redact (``X``), undo (``u``), the history (``U``), and
the recovery of operations a crash interrupted (at start).

Each is one flow (:mod:`memtui.tui.work`) that reads top to bottom: plan in a thread → a
confirm dialog naming what will be deleted or overwritten → the write (:func:`apply_step`) →
:class:`~memtui.tui.messages.OperationApplied`, which the app answers with "Done" and a
rescan. The flows get the screen they run on, the context and the journal, never the main
screen itself; the refusals are the core's (:mod:`memtui.core.write.ops.refusals`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from textual.screen import Screen

from memtui.core.stores.locations import Context
from memtui.core.write.journal import Journal, OpRecord
from memtui.core.write.proposal import AppliedOp
from memtui.tui.nodes import NodeRef
from memtui.tui.plain import line
from memtui.tui.work import (
    Cancelled,
    Progress,
    StepFailed,
    apply_proposal,
    apply_step,
    ask,
    failure_text,
    in_thread,
    notify_failure,
    run_flow,
)

# The planners, the recovery and the dialogs are imported when a key needs them (issue 25: the
# first paint waits for the app's imports; the planners bring the secret rules with them).

# --- d: delete -------------------------------------------------------------------------------


def delete_refusal(ref: NodeRef | None) -> str | None:
    """Why the selection cannot be deleted (the core's words), or None."""
    if ref is None:
        return "Select a memory file to delete (stores and folders are not deleted)."
    from memtui.core.write.ops import memory as memory_ops

    return memory_ops.delete_refusal(ref.store, ref.memory)


def redact_refusal(ref: NodeRef | None) -> str | None:
    """Why the selection's secrets cannot be redacted (the core's words), or None."""
    if ref is None:
        return "Select a memory file that holds a secret (⚠ in its tree)."
    from memtui.core.write.ops import redact as redact_ops

    return redact_ops.redact_refusal(ref.store, ref.memory)


def delete_memory(
    screen: Screen[Any], context: Context, journal: Journal, ref: NodeRef | None
) -> None:
    """Plan the delete of ``ref``, show it, and apply it on confirmation."""
    why = delete_refusal(ref)
    if why is not None:
        screen.notify(why, title="Cannot delete", severity="warning")
        return
    assert ref is not None
    delete_memories(screen, context, journal, [ref])


def refuse_delete(screen: Screen[Any], refs: Sequence[NodeRef]) -> bool:
    """Say why a memory of ``refs`` cannot be deleted (True), or nothing (False)."""
    for ref in refs:
        why = delete_refusal(ref)
        if why is not None:
            name = line(ref.memory.rel_path) if ref.memory else line(ref.store.title)
            screen.notify(f"{name}: {why}", title="Cannot delete", severity="warning",
                          markup=False)
            return True
    return False


def delete_memories(
    screen: Screen[Any], context: Context, journal: Journal, refs: Sequence[NodeRef]
) -> None:
    """Plan the delete of every memory of ``refs`` as one operation, show its one preview,
    and apply it on confirmation: one journal entry, one undo."""
    if not refuse_delete(screen, refs):
        run_flow(screen, partial(delete_flow, screen, context, journal, refs), group="plan-delete",
                 label="planning the delete", title="Cannot delete")


async def delete_flow(
    screen: Screen[Any], context: Context, journal: Journal, refs: Sequence[NodeRef]
) -> AppliedOp | None:
    from memtui.core.write.ops import memory as memory_ops
    from memtui.tui.dialogs.confirm import ConfirmScreen, proposal_summary

    stores = list({id(r.store): r.store for r in refs}.values())
    memories = [r.memory for r in refs if r.memory is not None]
    proposal = await in_thread(lambda: memory_ops.plan_delete_memories(stores, memories))
    diffs = await in_thread(proposal.diff)
    summary = proposal_summary(proposal, diffs, context.show(proposal.base))
    index_diffs = [d for d in diffs if d.status == "changed"]
    deleted = [c.path for c in proposal.changes if c.action == "delete"]
    count = len(deleted)
    dialog = ConfirmScreen(
        "Delete this memory?" if count == 1 else f"Delete these {count} memories?",
        summary,
        yes="Delete",
        diffs=index_diffs,
        diffs_title=f"{', '.join(line(d.rel) for d in index_diffs)} after the delete:",
    )
    if not await ask(screen, dialog):
        return None
    name = line(deleted[0].name) if count == 1 else f"{count} memories"
    return await apply_step(screen, f"delete {name}", apply_proposal(proposal, journal),
                            lambda _op: f"deleted {name} · u to undo")


# --- X: redact the secrets of a memory --------------------------------------------------------

def redact_memory(
    screen: Screen[Any], context: Context, journal: Journal, ref: NodeRef | None
) -> None:
    """Plan the redaction of ``ref``'s secrets, preview it masked, apply on yes."""
    why = redact_refusal(ref)
    if why is not None:
        screen.notify(why, title="Cannot redact", severity="warning", markup=False)
        return
    assert ref is not None
    run_flow(screen, partial(redact_flow, screen, context, journal, ref), group="plan-redact",
             label="planning the redaction", title="Cannot redact")


async def redact_flow(
    screen: Screen[Any], context: Context, journal: Journal, ref: NodeRef
) -> AppliedOp | None:
    from memtui.core.write.ops import redact as redact_ops
    from memtui.tui.dialogs.confirm import ConfirmScreen, proposal_summary

    store, memory = ref.store, ref.memory
    assert memory is not None
    proposal = await in_thread(lambda: redact_ops.plan_redact(store, memory))
    diffs = await in_thread(proposal.diff)
    summary = proposal_summary(proposal, diffs, context.show(proposal.base))  # it says to
    # rotate the secret anyway (the core's note): once
    dialog = ConfirmScreen("Redact the secrets of this memory?", summary, yes="Redact",
                           diffs=diffs, diffs_title="The file after the redaction "
                           "(secrets shown masked):")
    if not await ask(screen, dialog):
        return None
    name = line(proposal.changes[0].path.name)
    return await apply_step(screen, f"redact {name}", apply_proposal(proposal, journal),
                            lambda _op: f"redacted {name} · u to undo · rotate the secret "
                            "anyway")


# --- u: undo the latest, U: the history ----------------------------------------------------------


def undo_latest(screen: Screen[Any], journal: Journal) -> None:
    """Find the latest undoable operation, confirm, undo."""
    run_flow(screen, partial(undo_latest_flow, screen, journal), group="plan-journal",
             label="reading the journal", title="Undo")


async def undo_latest_flow(screen: Screen[Any], journal: Journal) -> AppliedOp | None:
    record = await in_thread(journal.latest_undoable)
    if record is None:
        screen.notify("Nothing to undo.", title="Undo")
        return None
    return await undo_flow(screen, journal, record)


def open_undo_history(screen: Screen[Any], journal: Journal) -> None:
    run_flow(screen, partial(undo_history_flow, screen, journal), group="plan-journal",
             label="the undo history", title="Undo")


async def undo_history_flow(screen: Screen[Any], journal: Journal) -> AppliedOp | None:
    from memtui.tui.dialogs.undo import UndoHistoryScreen

    record = await ask(screen, UndoHistoryScreen(journal))
    if record is None:
        return None
    return await undo_flow(screen, journal, record)


async def undo_flow(screen: Screen[Any], journal: Journal, record: OpRecord) -> AppliedOp | None:
    from memtui.core.write import recovery as recovery_ops
    from memtui.tui.dialogs.confirm import ConfirmScreen
    from memtui.tui.dialogs.undo import undo_body

    if not await ask(screen, ConfirmScreen("Undo?", undo_body(record), yes="Undo")):
        return None

    def run(step: Progress, _cancelled: Cancelled) -> AppliedOp:
        return recovery_ops.undo(journal, record.id, progress=step)

    return await apply_step(screen, f"undo {line(record.kind)}", run,
                            lambda op: f"undid {line(record.title)} · U lists operations "
                            f"(undo {op.op_id} redoes)")


# --- interrupted operations at start -------------------------------------------------------------


def check_interrupted(screen: Screen[Any], journal: Journal) -> None:
    """At start: offer every interrupted operation of this home for roll back or finish, and
    name those of other homes, which are left alone."""
    run_flow(screen, partial(interrupted_flow, screen, journal), group="plan-interrupted",
             label="reading the journal's interrupted operations",
             title="Interrupted operations")


async def interrupted_flow(screen: Screen[Any], journal: Journal) -> None:
    from memtui.tui.dialogs.undo import InterruptedScreen, elsewhere_text, interrupted_of

    mine, elsewhere = await in_thread(lambda: interrupted_of(journal))
    if elsewhere:
        screen.notify(elsewhere_text(elsewhere), title="Interrupted elsewhere",
                      severity="warning", timeout=30, markup=False)
    for left, record in enumerate(mine, start=1):
        how = await ask(screen, InterruptedScreen(record, len(mine) - left))
        if how in ("rollback", "complete"):
            await recover(screen, journal, record, how)


async def recover(screen: Screen[Any], journal: Journal, record: OpRecord, how: str) -> None:
    """Roll back or finish ``record`` (then the app rescans); a failure is said, and the flow
    offers the next one all the same."""
    from memtui.core.write import recovery as recovery_ops

    finish = recovery_ops.rollback if how == "rollback" else recovery_ops.complete

    def run(_step: Progress, _cancelled: Cancelled) -> AppliedOp:
        done = finish(journal, record.id)
        return AppliedOp(done.id, done.kind, done.title, [], done)

    said = f"{'rolled back' if how == 'rollback' else 'finished'} {line(record.title)}"
    try:
        await apply_step(screen, f"{how} {line(record.kind)}", run, lambda _op: said)
    except StepFailed as failed:
        notify_failure(screen, failure_text(failed.label, failed.error), failed.title)
