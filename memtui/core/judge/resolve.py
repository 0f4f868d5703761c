"""Applying a decision on a pair. "Keep A" (A supersedes B) and "keep B" archive the other
side: its file leaves its store with its MEMORY.md lines, through the one write path (the
plan is previewed, the operation journaled, ``u`` undoes it), and its bytes go to memtui's
archive (:mod:`memtui.core.judge.archive`). A CLAUDE.md rule is never archived: memtui does not
write CLAUDE.md files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memtui.core.contents import Memory, ScanResult, Store
from memtui.core.judge.archive import Archive, ArchiveEntry, archiving, entry_state_files
from memtui.core.judge.items import CLAUDE_MD
from memtui.core.judge.ledger import USER, Ledger, LedgerEntry, decision_file, new_entry
from memtui.core.judge.links import dangling_note
from memtui.core.judge.verdicts import Candidate, JudgeItem, Relation, Verdict
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import new_op_id
from memtui.core.write.ops.memory import INDEX_NAME, index_lines_for, plan_delete_memory
from memtui.core.write.proposal import AppliedOp, Proposal, read_regular

KEEP_DECISIONS = ("a", "b")


@dataclass
class KeepPlan:
    """A "keep one side" decision, planned: the proposal that removes the other side, and what
    the archive will hold of it."""

    candidate: Candidate
    keep: str
    loser: JudgeItem
    store: Store
    memory: Memory
    proposal: Proposal
    data: bytes
    index_lines: list[str]
    entry: ArchiveEntry | None = None
    """What the archive will hold (written by the operation: :func:`journal_records`)."""
    decision: LedgerEntry | None = None
    """The decision the ledger will hold (written by the operation too)."""

    @property
    def winner(self) -> JudgeItem:
        return self.candidate.a if self.keep == "a" else self.candidate.b


def find_memory(result: ScanResult, item: JudgeItem) -> tuple[Store, Memory]:
    for store in result.stores:
        for memory in store.memories:
            if memory.file == item.file:
                return store, memory
    raise EditRefused(f"{item.rel_path} is no longer in the scan: rescan and judge again",
                      Path(item.file))


def plan_keep(result: ScanResult, candidate: Candidate, keep: str) -> KeepPlan:
    """Plan keeping side ``keep`` (``"a"`` or ``"b"``) and archiving the other."""
    if keep not in KEEP_DECISIONS:
        raise ValueError(keep)
    winner, loser = (candidate.a, candidate.b) if keep == "a" else (candidate.b, candidate.a)
    if loser.kind == CLAUDE_MD:
        raise EditRefused(
            f"{loser.rel_path} is a CLAUDE.md rule: memtui does not edit CLAUDE.md files; keep "
            "the rule and archive the memory, or edit the file yourself", Path(loser.file))
    store, memory = find_memory(result, loser)
    data, _st = read_regular(memory.path)
    if data is None:
        raise EditRefused(f"{loser.rel_path} does not exist any more", Path(loser.file))
    proposal = plan_delete_memory(store, memory)
    proposal.kind = "archive-memory"
    proposal.title = (f"archive {memory.rel_path} of {store.title} "
                      f"(superseded by {winner.label})")
    proposal.notes.insert(0, f"keeps {winner.label}")
    proposal.notes.append("the archived file stays in memtui's archive (memtui judge restore)")
    dangling = dangling_note(store, memory)
    if dangling is not None:
        proposal.notes.insert(0, dangling)
    index_raw, _st = read_regular(store.path / INDEX_NAME)
    lines = [] if index_raw is None else [
        e.raw for e in index_lines_for(index_raw.decode("utf-8", "replace"), memory.rel_path)
    ]
    plan = KeepPlan(candidate, keep, loser, store, memory, proposal, data, lines)
    journal_records(plan)
    return plan


def journal_records(plan: KeepPlan, *, merged: bool = False) -> None:
    """Make the archive entry and the ledger's decision part of ``plan``'s operation (its
    state files, written once its changes are made: a merge finished by ``undo --complete``
    after a kill keeps its record), under the operation id they name."""
    op_id = new_op_id()
    how = "merged into" if merged else "superseded by"
    plan.entry = archiving(
        plan.store.kind, plan.store.path, plan.memory.rel_path, plan.data,
        reason=f"{how} {plan.winner.label}", op_id=op_id, pair=plan.candidate.id,
        superseded_by=plan.winner.key, index_lines=plan.index_lines)
    said = f"merge into {plan.winner.label}" if merged else f"keep {plan.winner.label}"
    verdict = Verdict(Relation.SUPERSEDES, 1.0, f"decided: {said}", USER, winner=plan.keep)
    # the note's "archived " prefix tells the ledger the decision lasts only while the archived
    # side stays out of its store (Ledger.lookup)
    plan.decision = new_entry(plan.candidate, verdict,
                              f"archived {plan.entry.id}" + (" (merged)" if merged else ""))
    plan.proposal.op_id = op_id
    plan.proposal.state_files = [*entry_state_files(plan.entry, plan.data),
                                 decision_file(plan.decision)]


def finish_keep(
    plan: KeepPlan, done: AppliedOp, archive: Archive, ledger: Ledger, *, merged: bool = False
) -> ArchiveEntry:
    """After the removal was applied: the archive entry and the decision its operation wrote
    (written here for an archive elsewhere than the journal's state dir), the decision taken
    into ``ledger`` and saved (``merged``: the kept side now holds both,
    :mod:`memtui.core.judge.merge`)."""
    if plan.entry is None or plan.decision is None or plan.entry.op_id != done.op_id:
        journal_records(plan, merged=merged)
        assert plan.entry is not None and plan.decision is not None
        plan.entry.op_id = done.op_id
    entry = plan.entry
    if not archive.holds(entry, plan.data):
        archive.add(entry, plan.data)
    ledger.adopt(plan.decision)
    ledger.save()
    return entry
