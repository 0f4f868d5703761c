"""A decision's records are part of its journaled operation (issue 25 item 5): a merge, a "keep
one side" or a scoped decision killed at any step and finished by recovery (``undo
--complete``) still has its archive entry and its ledger decision; rolled back, neither."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from core.judge.homes import store_dir, write_timeout_home
from helpers import run_killed, tree_state

from memtui.core.judge.archive import Archive
from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.items import memory_items
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.merge import kept_side, plan_merge
from memtui.core.judge.resolve import plan_keep
from memtui.core.judge.scoped import plan_scoped
from memtui.core.judge.verdicts import Candidate
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context
from memtui.core.write import journal as journal_module
from memtui.core.write.apply import CRASH_EXIT_CODE, apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.recovery import complete_operation, rollback_operation, undo_operation

MERGED = b"---\nname: gateway-timeout\n---\nBoth.\n"


def the_candidate(ctx: Context) -> Candidate:
    [candidate] = [c for c in find_candidates(memory_items(scan(ctx)))
                   if {c.a.rel_path, c.b.rel_path} == {"api-timeout.md", "gateway-timeout.md"}]
    return candidate


def plan_of(kind: str, ctx: Context, candidate: Candidate):  # type: ignore[no-untyped-def]
    result = scan(ctx)
    if kind == "merge":
        return plan_merge(result, candidate, kept_side(candidate), MERGED)
    if kind == "keep":
        return plan_keep(result, candidate, "a")
    return plan_scoped(result, candidate, {"a": "on staging", "b": "in production"})


def decisions(state: Path) -> list[str]:
    """The notes of the user's decisions in the ledger of ``state``, loaded and saved (which
    takes in the decisions operations wrote) and loaded again."""
    path = state / "judge" / "ledger.json"
    assert Ledger.load(path).save() is None
    assert not any((state / "judge" / "decisions").glob("*"))  # in the ledger now, gone
    ledger = Ledger.load(path)
    return [e.note or "" for history in ledger.entries.values() for e in history if e.decided]


@pytest.mark.parametrize("kind", ["merge", "keep", "scoped"])
def test_a_decision_killed_at_any_step_and_completed_keeps_its_records(
    tmp_path: Path, kind: str
) -> None:
    completed = 0
    for step in range(1, 60):
        root = tmp_path / f"{kind}-{step}"
        ctx = write_timeout_home(root / "home")
        state = root / "state"
        journal = Journal(state / "journal", home=ctx.claude_home)
        plan = plan_of(kind, ctx, the_candidate(ctx))
        code = run_killed(plan.proposal, journal, step)
        if code == 0:
            break  # the operation has fewer steps: every crash point was tried
        assert code == CRASH_EXIT_CODE
        [record] = journal.list()
        if record.incomplete:  # (killed after its last step, it is done already)
            complete_operation(journal, record)
            completed += 1
        archive = Archive(state / "archive")
        entries = archive.entries()
        assert archive.problems == []
        noted = decisions(state)
        if kind == "scoped":
            assert entries == [] and noted == ["scoped"], step
            continue
        [entry] = entries
        assert entry.op_id == record.id and entry.rel_path in ("api-timeout.md",
                                                                "gateway-timeout.md")
        assert noted == [f"archived {entry.id}" + (" (merged)" if kind == "merge" else "")]
        assert not (store_dir(root / "home", "auto") / entry.rel_path).exists()
        assert archive.data(entry)  # the bytes, checked against the entry's sha256
    assert completed >= 3


@pytest.mark.parametrize("kind", ["merge", "keep", "scoped"])
def test_a_decision_killed_and_rolled_back_leaves_no_record(tmp_path: Path, kind: str) -> None:
    ctx = write_timeout_home(tmp_path / "home")
    before = tree_state(tmp_path / "home")
    state = tmp_path / "state"
    journal = Journal(state / "journal", home=ctx.claude_home)
    plan = plan_of(kind, ctx, the_candidate(ctx))
    steps = len(plan.proposal.changes) * 2 + 4  # past the store's files: the records too
    assert run_killed(plan.proposal, journal, steps) == CRASH_EXIT_CODE
    [record] = journal.incomplete()
    rollback_operation(journal, record)
    assert tree_state(tmp_path / "home") == before
    assert not (state / "archive").exists() and not (state / "judge").exists()
    assert Archive(state / "archive").entries() == [] and decisions(state) == []


def test_an_applied_decision_writes_its_records_once_and_undo_leaves_them(
    tmp_path: Path,
) -> None:
    ctx = write_timeout_home(tmp_path / "home")
    state = tmp_path / "state"
    journal = Journal(state / "journal", home=ctx.claude_home)
    plan = plan_of("merge", ctx, the_candidate(ctx))
    done = apply(plan.proposal, journal)
    [entry] = Archive(state / "archive").entries()
    assert entry.op_id == done.op_id
    undo_operation(journal, done.record)
    assert Archive(state / "archive").entries() == [entry]  # restorable as before


@pytest.mark.parametrize("kind", ["merge", "keep"])
def test_a_decision_on_a_full_disk_cleans_up_and_says_every_file_is_back(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal fills the disk once the operation is prepared: its next write (the state
    ``applying``) fails, the rollback has nothing to put back and cannot record that either.
    No ``.op.json.tmp`` stays, no interrupted operation, and the refusal says the truth."""
    ctx = write_timeout_home(tmp_path / "home")
    before = tree_state(tmp_path / "home")
    state = tmp_path / "state"
    journal = Journal(state / "journal", home=ctx.claude_home)
    plan = plan_of(kind, ctx, the_candidate(ctx))
    full = []
    real_write, real_prepare = journal_module.write_synced, Journal.prepare

    def write_synced(tmp: Path, data: bytes, mode: int, *, flags: int = 0) -> None:
        if full:
            with open(tmp, "xb") as half:  # what a full disk leaves: a part of the file
                half.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))
        real_write(tmp, data, mode, flags=flags)

    def prepare(self: Journal, **kwargs: object) -> object:
        record = real_prepare(self, **kwargs)  # type: ignore[arg-type]
        full.append(True)
        return record

    monkeypatch.setattr(journal_module, "write_synced", write_synced)
    monkeypatch.setattr(Journal, "prepare", prepare)
    with pytest.raises(EditRefused) as refused:
        apply(plan.proposal, journal)
    reason = refused.value.reason
    assert "No space left on device" in reason and "every file was put back as it was" in reason
    assert "also failed" not in reason
    assert tree_state(tmp_path / "home") == before
    assert [p.name for p in state.rglob("*.tmp")] == []
    assert journal.incomplete() == [] and journal.list() == []
    assert not (state / "archive").exists()
