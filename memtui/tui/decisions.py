"""The steps of the judge's decisions that write, shared by the conflicts screen and the main
screen: confirm a planned proposal (its preview, the MEMORY.md and memory diffs) and apply it
(:func:`memtui.tui.work.apply_step`), with what the decision records once it is applied; and
the archive (``v`` / ``A``): pick an archived memory and put it back, previewed.

Like :mod:`memtui.tui.operations`, the flows get the screen they run on, the context and the
journal."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from rich.text import Text
from textual.screen import Screen

from memtui.core.judge.archive import Archive, lands_past_cut, plan_restore
from memtui.core.stores.locations import Context
from memtui.core.write.journal import Journal
from memtui.core.write.proposal import AppliedOp, FileDiff, Proposal
from memtui.tui.dialogs.archive import ArchiveScreen
from memtui.tui.dialogs.confirm import ConfirmScreen, proposal_summary
from memtui.tui.plain import line
from memtui.tui.work import apply_proposal, apply_step, ask, in_thread, run_flow


async def confirm_and_apply(
    screen: Screen[Any],
    context: Context,
    journal: Journal,
    proposal: Proposal,
    diffs: list[FileDiff],
    *,
    title: str,
    yes: str,
    label: str,
    message: Callable[[AppliedOp], str],
    after: Callable[[AppliedOp], object] | None = None,
    danger: bool = True,
) -> AppliedOp | None:
    """Preview ``proposal`` and apply it on yes; ``after`` runs (in the write's thread, once
    applied) what the decision records. None: declined."""
    summary = proposal_summary(proposal, diffs, context.show(proposal.base))
    changed = [d for d in diffs if d.status == "changed"]
    dialog = ConfirmScreen(title, summary, yes=yes, danger=danger, diffs=changed,
                           diffs_title="Files after:")
    if not await ask(screen, dialog):
        return None
    return await apply_step(screen, label, apply_proposal(proposal, journal, after), message)


def open_archive(screen: Screen[Any], context: Context, journal: Journal) -> None:
    """The archive dialog; the entry picked there is restored after its preview."""
    run_flow(screen, partial(archive_flow, screen, context, journal), group="plan-restore",
             label="the archive", title="Archive")


async def archive_flow(screen: Screen[Any], context: Context, journal: Journal,
                       ) -> AppliedOp | None:
    """Pick an archived memory and put it back (:func:`plan_restore`, as ``memtui judge
    restore`` does; refused over a file of that name), previewed. None: nothing changed."""
    archive = Archive.default(context.env)
    entry = await ask(screen, ArchiveScreen(archive, context.show(archive.root)))
    if entry is None:
        return None
    name = line(entry.rel_path)
    cut = await in_thread(lambda: lands_past_cut(entry), label="planning the restore",
                          title=f"Cannot restore {name}")
    above = False
    if cut is not None:
        question = ConfirmScreen(
            f"Restore {name}'s index line above the cut?",
            Text(f"At the end of MEMORY.md its line would land past the cut (loading stops at "
                 f"line {cut}): Claude Code would never load it. Put it as the last line Claude "
                 "Code still loads? (n: at the end, as it was)"),
            yes="Above the cut", danger=False)
        answer: bool = await ask(screen, question)
        above = answer
    proposal = await in_thread(lambda: plan_restore(archive, entry, above_cut=above),
                               label="planning the restore", title=f"Cannot restore {name}")
    diffs = await in_thread(proposal.diff, label="planning the restore",
                            title=f"Cannot restore {name}")
    return await confirm_and_apply(screen, context, journal, proposal, diffs,
                                   title=f"Restore {name} from the archive?", yes="Restore",
                                   label=f"restore {name}", danger=False,
                                   message=lambda _op: f"restored {name} · u to undo")
