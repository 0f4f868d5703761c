"""``d``: delete the selected memory and its MEMORY.md lines, previewed and undoable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from memtui.core.model import StoreKind
from memtui.core.write.apply import apply
from memtui.core.write.ops.memory import INDEX_NAME, plan_delete_memory
from memtui.core.write.proposal import AppliedOp, FileDiff, Proposal
from memtui.tui.nodes import NodeRef
from memtui.tui.plain import line
from memtui.tui.screens.confirm import (
    Cancelled,
    ConfirmScreen,
    EditJob,
    Progress,
    diff_group,
    journal_for,
    proposal_summary,
    run_in_thread,
    start_edit,
)

if TYPE_CHECKING:
    from memtui.tui.screens.main import MainScreen


def delete_refusal(ref: NodeRef | None) -> str | None:
    """Why the selection cannot be deleted, or None."""
    if ref is None or ref.memory is None:
        return "Select a memory file to delete (stores and folders are not deleted)."
    if ref.store.kind == StoreKind.SNAPSHOT:
        return "Snapshots ship with the project; memtui does not edit them."
    if ref.memory.is_index or ref.memory.rel_path == INDEX_NAME:
        return "MEMORY.md is the index; delete the memories it lists instead."
    return None


def delete_selected(main: MainScreen) -> None:
    """Plan the delete (worker), show it, and apply it on confirmation."""
    ref = main.selected()
    why = delete_refusal(ref)
    if why is not None:
        main.notify(why, title="Cannot delete", severity="warning")
        return
    assert ref is not None and ref.memory is not None
    store, memory = ref.store, ref.memory

    def plan() -> tuple[Proposal, list[FileDiff]]:
        proposal = plan_delete_memory(store, memory)
        return proposal, proposal.diff()

    def planned(result: tuple[Proposal, list[FileDiff]]) -> None:
        confirm_delete(main, *result)

    def failed(reason: str) -> None:
        main.notify(line(reason), title="Cannot delete", severity="error", markup=False)

    run_in_thread(main, "delete", plan, planned, failed)


def confirm_delete(main: MainScreen, proposal: Proposal, diffs: list[FileDiff]) -> None:
    summary = proposal_summary(proposal, diffs, main.context.show(proposal.root))
    index_diffs = [d for d in diffs if d.status == "changed"]
    parts: list[RenderableType] = [summary]
    if index_diffs:
        parts += [Text("\nMEMORY.md after the delete:", style="bold"), diff_group(index_diffs)]
    body = Group(*parts)

    def answered(yes: bool | None) -> None:
        if yes:
            start_delete(main, proposal)

    main.app.push_screen(ConfirmScreen("Delete this memory?", body, yes="Delete"), answered)


def start_delete(main: MainScreen, proposal: Proposal) -> None:
    journal = journal_for(main)

    def run(progress: Progress, cancelled: Cancelled) -> AppliedOp:
        return apply(proposal, journal, progress=progress, cancelled=cancelled)

    name = line(proposal.changes[0].path.name)
    job = EditJob(
        label=f"delete {name}",
        run=run,
        message=lambda _op: f"deleted {name} · u to undo",
    )
    start_edit(main, job)
