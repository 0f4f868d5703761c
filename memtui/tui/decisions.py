"""The flows of the judge's decisions that write, shared by the conflicts screen and the main
screen: confirm a planned proposal (its preview, the MEMORY.md and memory diffs) and apply it
through :func:`memtui.tui.jobs.start_edit`, with what the decision records once it is applied;
and the archive (``v`` / ``A``): pick an archived memory and put it back, previewed.

Like :mod:`memtui.tui.operations`, the flows get the screen they run on, the job runner and
the context."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from memtui.core.judge.archive import Archive, ArchiveEntry, plan_restore
from memtui.core.stores.locations import Context
from memtui.core.write.proposal import AppliedOp, FileDiff, Proposal
from memtui.tui.dialogs.archive import ArchiveScreen
from memtui.tui.dialogs.confirm import ConfirmScreen, proposal_summary
from memtui.tui.jobs import (
    Job,
    JobControl,
    JobRunner,
    start_apply,
)
from memtui.tui.plain import line


def confirm_proposal(
    screen: Screen[Any],
    jobs: JobRunner,
    context: Context,
    proposal: Proposal,
    diffs: list[FileDiff],
    *,
    title: str,
    yes: str,
    label: str,
    message: Callable[[AppliedOp], str],
    after: Callable[[AppliedOp], object] | None = None,
    finished: Callable[[AppliedOp | None], object] | None = None,
    danger: bool = True,
) -> None:
    """Preview ``proposal`` and apply it on yes; ``after`` runs (in the job, once applied) what
    the decision records, ``finished`` follows on the app thread (None: nothing changed)."""
    summary = proposal_summary(proposal, diffs, context.show(proposal.base))
    changed = [d for d in diffs if d.status == "changed"]

    def answered(confirmed: bool | None) -> None:
        if not confirmed:
            return
        start_apply(jobs, context, proposal, label=label, message=message, node=screen,
                    finished=finished, after=after)

    dialog = ConfirmScreen(title, summary, yes=yes, danger=danger, diffs=changed,
                           diffs_title="Files after:")
    screen.app.push_screen(dialog, answered)


def open_archive(
    screen: Screen[Any],
    jobs: JobRunner,
    context: Context,
    finished: Callable[[AppliedOp | None], object] | None = None,
) -> None:
    """The archive dialog; the entry picked there is restored after its preview."""
    archive = Archive.default(context.env)

    def picked(entry: ArchiveEntry | None) -> None:
        if entry is not None:
            restore_archived(screen, jobs, context, archive, entry, finished)

    screen.app.push_screen(ArchiveScreen(archive, context.show(archive.root)), picked)


def restore_archived(
    screen: Screen[Any],
    jobs: JobRunner,
    context: Context,
    archive: Archive,
    entry: ArchiveEntry,
    finished: Callable[[AppliedOp | None], object] | None = None,
) -> None:
    """Plan putting ``entry`` back (:func:`memtui.core.judge.archive.plan_restore`, as
    ``memtui judge restore`` does; refused over a file of that name), preview, apply."""
    name = line(entry.rel_path)

    def plan(_control: JobControl) -> tuple[Proposal, list[FileDiff]]:
        proposal = plan_restore(archive, entry)
        return proposal, proposal.diff()

    def planned(result: tuple[Proposal, list[FileDiff]]) -> None:
        proposal, diffs = result
        confirm_proposal(screen, jobs, context, proposal, diffs,
                         title=f"Restore {name} from the archive?", yes="Restore",
                         label=f"restore {name}", danger=False,
                         message=lambda _op: f"restored {name} · u to undo", finished=finished)

    jobs.start(Job("planning the restore", plan, group="plan-restore",
                   title=f"Cannot restore {name}", done=planned), screen)
