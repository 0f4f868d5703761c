"""What the keys that change files do, from the main screen: delete (``d``: the selected memory,
or every marked one as one operation), redact (``X``), undo (``u``), the history (``U``), and
the recovery of operations a crash interrupted (at start).

Every write goes: plan (a job) → a confirm dialog naming what will be deleted or overwritten →
:func:`memtui.tui.jobs.start_edit` (a job through :func:`memtui.core.write.apply.apply` or the
journal) → :class:`~memtui.tui.messages.OperationApplied`, which the app answers with "Done"
and a rescan. The flows get the screen they run on, the job runner and the context, never the
main screen itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.screen import Screen

from memtui.core.model import StoreKind
from memtui.core.stores.locations import Context
from memtui.core.write import recovery as recovery_ops
from memtui.core.write.journal import Journal, OpRecord
from memtui.core.write.ops.memory import INDEX_NAME, plan_delete_memories
from memtui.core.write.ops.redact import plan_redact
from memtui.core.write.proposal import AppliedOp, FileDiff, Proposal
from memtui.tui.dialogs.confirm import ConfirmScreen, proposal_summary
from memtui.tui.dialogs.undo import (
    InterruptedScreen,
    Recovery,
    UndoHistoryScreen,
    elsewhere_text,
    interrupted_of,
    undo_body,
)
from memtui.tui.jobs import (
    Cancelled,
    EditJob,
    Job,
    JobControl,
    JobRunner,
    Progress,
    journal_for,
    start_apply,
    start_edit,
)
from memtui.tui.nodes import NodeRef
from memtui.tui.plain import line

# --- d: delete -------------------------------------------------------------------------------


def delete_refusal(ref: NodeRef | None) -> str | None:
    """Why the selection cannot be deleted, or None."""
    if ref is None or ref.memory is None:
        return "Select a memory file to delete (stores and folders are not deleted)."
    if ref.store.kind == StoreKind.SNAPSHOT:
        return "Snapshots ship with the project; memtui does not edit them."
    if ref.memory.is_index or ref.memory.rel_path == INDEX_NAME:
        return "MEMORY.md is the index; delete the memories it lists instead."
    return None


def delete_memory(
    screen: Screen[Any], jobs: JobRunner, context: Context, ref: NodeRef | None
) -> None:
    """Plan the delete of ``ref`` (a job), show it, and apply it on confirmation."""
    why = delete_refusal(ref)
    if why is not None:
        screen.notify(why, title="Cannot delete", severity="warning")
        return
    assert ref is not None
    delete_memories(screen, jobs, context, [ref])


def delete_memories(
    screen: Screen[Any],
    jobs: JobRunner,
    context: Context,
    refs: Sequence[NodeRef],
    done: Callable[[AppliedOp | None], object] | None = None,
) -> None:
    """Plan the delete of every memory of ``refs`` as one operation (a job), show its one
    preview, and apply it on confirmation: one journal entry, one undo. ``done`` follows the
    operation (None: nothing changed)."""
    for ref in refs:
        why = delete_refusal(ref)
        if why is not None:
            name = line(ref.memory.rel_path) if ref.memory else line(ref.store.title)
            screen.notify(f"{name}: {why}", title="Cannot delete", severity="warning",
                          markup=False)
            return
    stores = list({id(r.store): r.store for r in refs}.values())
    memories = [r.memory for r in refs if r.memory is not None]

    def plan(_control: JobControl) -> tuple[Proposal, list[FileDiff]]:
        proposal = plan_delete_memories(stores, memories)
        return proposal, proposal.diff()

    def planned(result: tuple[Proposal, list[FileDiff]]) -> None:
        confirm_delete(screen, jobs, context, *result, done=done)

    job = Job("planning the delete", plan, group="plan-delete", title="Cannot delete",
              done=planned)
    jobs.start(job, screen)


def confirm_delete(
    screen: Screen[Any],
    jobs: JobRunner,
    context: Context,
    proposal: Proposal,
    diffs: list[FileDiff],
    done: Callable[[AppliedOp | None], object] | None = None,
) -> None:
    summary = proposal_summary(proposal, diffs, context.show(proposal.base))
    index_diffs = [d for d in diffs if d.status == "changed"]
    count = sum(1 for c in proposal.changes if c.action == "delete")

    def answered(yes: bool | None) -> None:
        if yes:
            start_delete(screen, jobs, context, proposal, done)

    dialog = ConfirmScreen(
        "Delete this memory?" if count == 1 else f"Delete these {count} memories?",
        summary,
        yes="Delete",
        diffs=index_diffs,
        diffs_title="MEMORY.md after the delete:",
    )
    screen.app.push_screen(dialog, answered)


def start_delete(
    screen: Screen[Any],
    jobs: JobRunner,
    context: Context,
    proposal: Proposal,
    done: Callable[[AppliedOp | None], object] | None = None,
) -> None:
    deleted = [c.path for c in proposal.changes if c.action == "delete"]
    name = line(deleted[0].name) if len(deleted) == 1 else f"{len(deleted)} memories"
    start_apply(jobs, context, proposal, label=f"delete {name}",
                message=lambda _op: f"deleted {name} · u to undo", node=screen, finished=done)


# --- X: redact the secrets of a memory --------------------------------------------------------

ROTATE_HINT = "Redacting does not revoke a secret: rotate the secret anyway."


def redact_refusal(ref: NodeRef | None) -> str | None:
    """Why the selection's secrets cannot be redacted, or None."""
    if ref is None or ref.memory is None:
        return "Select a memory file that holds a secret (⚠ in its tree)."
    if ref.store.kind == StoreKind.SNAPSHOT:
        return "Snapshots ship with the project; memtui does not edit them."
    if not ref.memory.secrets:
        return f"No secret found in {line(ref.memory.rel_path)}."
    return None


def redact_memory(
    screen: Screen[Any], jobs: JobRunner, context: Context, ref: NodeRef | None
) -> None:
    """Plan the redaction of ``ref``'s secrets (a job), preview it masked, apply on yes."""
    why = redact_refusal(ref)
    if why is not None:
        screen.notify(why, title="Cannot redact", severity="warning", markup=False)
        return
    assert ref is not None and ref.memory is not None
    store, memory = ref.store, ref.memory

    def plan(_control: JobControl) -> tuple[Proposal, list[FileDiff]]:
        proposal = plan_redact(store, memory)
        return proposal, proposal.diff()

    def planned(result: tuple[Proposal, list[FileDiff]]) -> None:
        proposal, diffs = result
        summary = proposal_summary(proposal, diffs, context.show(proposal.base))
        summary.append(f"\n{ROTATE_HINT}", style="bold yellow")

        def answered(yes: bool | None) -> None:
            if yes:
                start_redact(screen, jobs, context, proposal)

        dialog = ConfirmScreen("Redact the secrets of this memory?", summary, yes="Redact",
                               diffs=diffs, diffs_title="The file after the redaction "
                               "(secrets shown masked):")
        screen.app.push_screen(dialog, answered)

    jobs.start(Job("planning the redaction", plan, group="plan-redact", title="Cannot redact",
                   done=planned), screen)


def start_redact(
    screen: Screen[Any], jobs: JobRunner, context: Context, proposal: Proposal
) -> None:
    name = line(proposal.changes[0].path.name)
    start_apply(jobs, context, proposal, label=f"redact {name}",
                message=lambda _op: f"redacted {name} · u to undo · rotate the secret anyway",
                node=screen)


# --- u: undo the latest ------------------------------------------------------------------------


def undo_latest(screen: Screen[Any], jobs: JobRunner, context: Context) -> None:
    """Find the latest undoable operation (a job), confirm, undo."""
    journal = journal_for(context)

    def found(record: OpRecord | None) -> None:
        if record is None:
            screen.notify("Nothing to undo.", title="Undo")
            return
        confirm_undo(screen, jobs, journal, record)

    job = Job("reading the journal", lambda _control: journal.latest_undoable(),
              group="plan-journal", title="Undo", done=found)
    jobs.start(job, screen)


def confirm_undo(screen: Screen[Any], jobs: JobRunner, journal: Journal, record: OpRecord) -> None:
    def answered(yes: bool | None) -> None:
        if yes:
            start_undo(screen, jobs, journal, record)

    screen.app.push_screen(ConfirmScreen("Undo?", undo_body(record), yes="Undo"), answered)


def start_undo(screen: Screen[Any], jobs: JobRunner, journal: Journal, record: OpRecord) -> None:
    def run(progress: Progress, _cancelled: Cancelled) -> AppliedOp:
        return recovery_ops.undo(journal, record.id, progress=progress)

    edit = EditJob(
        label=f"undo {line(record.kind)}",
        run=run,
        message=lambda op: f"undid {line(record.title)} · U lists operations "
        f"(undo {op.op_id} redoes)",
    )
    start_edit(jobs, edit, screen)


# --- U: the history ----------------------------------------------------------------------------


def open_undo_history(screen: Screen[Any], jobs: JobRunner, context: Context) -> None:
    journal = journal_for(context)

    def chosen(record: OpRecord | None) -> None:
        if record is not None:
            confirm_undo(screen, jobs, journal, record)

    screen.app.push_screen(UndoHistoryScreen(journal), chosen)


# --- interrupted operations at start -------------------------------------------------------------


def check_interrupted(screen: Screen[Any], jobs: JobRunner, context: Context) -> None:
    """At start: offer every interrupted operation of this home for roll back or finish, and
    name those of other homes, which are left alone (read in a job)."""
    journal = journal_for(context)

    def found(interrupted: tuple[list[OpRecord], list[OpRecord]]) -> None:
        mine, elsewhere = interrupted
        if elsewhere:
            screen.notify(elsewhere_text(elsewhere), title="Interrupted elsewhere",
                          severity="warning", timeout=30, markup=False)
        offer(screen, jobs, journal, mine)

    job = Job("reading the journal's interrupted operations", lambda _c: interrupted_of(journal),
              group="plan-interrupted", title="Interrupted operations", done=found)
    jobs.start(job, screen)


def offer(screen: Screen[Any], jobs: JobRunner, journal: Journal, records: list[OpRecord]) -> None:
    if not records:
        return
    record, rest = records[0], records[1:]

    def chosen(choice: Recovery | None) -> None:
        if choice in ("rollback", "complete"):
            recover(screen, jobs, journal, record, choice,
                    lambda: offer(screen, jobs, journal, rest))
        else:
            offer(screen, jobs, journal, rest)

    screen.app.push_screen(InterruptedScreen(record, len(rest)), chosen)


def recover(
    screen: Screen[Any],
    jobs: JobRunner,
    journal: Journal,
    record: OpRecord,
    how: Recovery,
    then: Callable[[], None],
) -> None:
    """Roll back or finish ``record`` in the edit job, then (rescanned) offer the next."""

    def run(_progress: Progress, _cancelled: Cancelled) -> AppliedOp:
        finish = recovery_ops.rollback if how == "rollback" else recovery_ops.complete
        done = finish(journal, record.id)
        return AppliedOp(done.id, done.kind, done.title, [], done)

    verb = "rolled back" if how == "rollback" else "finished"
    edit = EditJob(
        label=f"{how} {line(record.kind)}",
        run=run,
        message=lambda _op: f"{verb} {line(record.title)}",
        finished=lambda _op: then(),
    )
    start_edit(jobs, edit, screen)

