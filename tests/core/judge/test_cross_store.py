"""Decisions across stores with separate roots (issue 12): the demo's planner agent memory
(``feature-flags.md``, a user agent memory) against the project's auto memory. "Keep both as
scoped" and "merge" write both stores as ONE operation (one preview naming both targets, one
journal entry, one undo), each store confined and locked on its own; a live lock or a
symlinked root in either store refuses the whole decision before anything is written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import copy_demo, demo_context, tree_state

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file
from memtui.core.judge.archive import Archive
from memtui.core.judge.items import memory_items
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.local import LocalJudge
from memtui.core.judge.merge import finish_merge, kept_side, plan_merge
from memtui.core.judge.run import JudgeRun, judge_pairs, pair_up
from memtui.core.judge.scoped import finish_scoped, plan_scoped, propose_notes
from memtui.core.judge.verdicts import JudgedPair
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.lock import LOCK_NAME
from memtui.core.write.proposal import Proposal
from memtui.core.write.recovery import undo_operation


@pytest.fixture
def shop(pristine: DemoHome, tmp_path: Path) -> tuple[DemoHome, Context]:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    return demo, demo_context(demo)


def planner(demo: DemoHome) -> Path:
    return demo.claude_home / "agent-memory" / "planner"


def flags_pair(ctx: Context, ledger: Ledger) -> JudgedPair:
    items = memory_items(scan(ctx))
    run = JudgeRun(items, pair_up(items, ledger))
    judge_pairs(run.pairs, LocalJudge(), ledger)
    ledger.save()
    [pair] = [p for p in run.pairs
              if {(p.candidate.a.kind, p.candidate.a.rel_path),
                  (p.candidate.b.kind, p.candidate.b.rel_path)}
              == {("agent", "feature-flags.md"), ("auto", "feature-flags.md")}]
    return pair


def stores(demo: DemoHome) -> dict[str, object]:
    return {"planner": tree_state(planner(demo)), "auto": tree_state(demo.auto_memory)}


def test_scoped_across_two_stores_is_one_operation_undone_byte_for_byte(
    shop: tuple[DemoHome, Context], tmp_path: Path
) -> None:
    demo, ctx = shop
    ledger = Ledger(tmp_path / "ledger.json")
    pair = flags_pair(ctx, ledger)
    assert pair.state == "judged"
    before = stores(demo)
    plan = plan_scoped(scan(ctx), pair.candidate, {"a": "planning a release",
                                                    "b": "deploying the shop"})
    proposal = plan.proposal
    assert {r.path for r in proposal.roots()} == {planner(demo), demo.auto_memory}
    assert {r.lock_dir for r in proposal.roots()} == {planner(demo), demo.auto_memory}
    assert proposal.target_text().count(" and ") == 1
    assert str(planner(demo)) in proposal.target_text()
    assert str(demo.auto_memory) in proposal.target_text()
    assert stores(demo) == before  # planning writes nothing

    journal = Journal(tmp_path / "journal", home=ctx.claude_home)
    done = apply(proposal, journal)
    finish_scoped(plan, ledger)
    for side in plan.sides:
        assert f"_Applies when: {side.note}_".encode() in side.memory.path.read_bytes()
    assert {s.memory.path.parent for s in plan.sides} == {planner(demo), demo.auto_memory}
    [record] = journal.list()
    assert record.id == done.op_id and len(record.roots()) == 2
    assert flags_pair(ctx, Ledger.load(ledger.path)).state == "decided"

    undo_operation(journal, done.record)
    assert stores(demo) == before
    assert flags_pair(ctx, Ledger.load(ledger.path)).state == "judged"  # the decision went too


def test_merge_across_two_stores_archives_one_and_undo_restores_both(
    shop: tuple[DemoHome, Context], tmp_path: Path
) -> None:
    demo, ctx = shop
    ledger = Ledger(tmp_path / "ledger.json")
    pair = flags_pair(ctx, ledger)
    before = stores(demo)
    keep = kept_side(pair.candidate)
    kept = pair.candidate.a if keep == "a" else pair.candidate.b
    kept_store = planner(demo) if kept.kind == "agent" else demo.auto_memory
    other_store = demo.auto_memory if kept_store == planner(demo) else planner(demo)
    merged = b"---\nname: feature-flags\ndescription: Feature flags\n---\nBoth sides.\n"
    plan = plan_merge(scan(ctx), pair.candidate, keep, merged)
    assert plan.proposal.root == kept_store
    assert [r.path for r in plan.proposal.more_roots] == [other_store]

    journal = Journal(tmp_path / "journal", home=ctx.claude_home)
    archive = Archive(tmp_path / "archive")
    done = apply(plan.proposal, journal)
    entry = finish_merge(plan, done, archive, ledger)
    assert (kept_store / "feature-flags.md").read_bytes() == merged
    assert not (other_store / "feature-flags.md").exists()
    assert "(feature-flags.md)" not in (other_store / "MEMORY.md").read_text()
    assert entry.op_id == done.op_id and entry.store_path == str(other_store)
    assert len(journal.list()) == 1

    undo_operation(journal, done.record)
    assert stores(demo) == before
    pair = flags_pair(ctx, Ledger.load(ledger.path))
    assert pair.state == "judged"


def plans(ctx: Context) -> dict[str, Proposal]:
    pair = flags_pair(ctx, Ledger(ctx.project.parent / "scratch-ledger.json"))
    result = scan(ctx)
    return {
        "scoped": plan_scoped(result, pair.candidate, {"a": "x", "b": "y"}).proposal,
        "merge": plan_merge(result, pair.candidate, kept_side(pair.candidate)).proposal,
    }


@pytest.mark.parametrize("side", ["planner", "auto"])
def test_a_live_lock_in_either_store_refuses_the_whole_decision(
    shop: tuple[DemoHome, Context], tmp_path: Path, side: str
) -> None:
    demo, ctx = shop
    locked = planner(demo) if side == "planner" else demo.auto_memory
    for decision, proposal in plans(ctx).items():
        write_file(locked / LOCK_NAME, str(os.getpid()))  # a live holder, just now
        before = stores(demo)
        journal = Journal(tmp_path / f"journal-{decision}")
        with pytest.raises(EditRefused, match=f"consolidating memory in {locked}"):
            apply(proposal, journal)
        assert stores(demo) == before, decision
        assert journal.list() == []


@pytest.mark.parametrize("side", ["planner", "auto"])
def test_a_symlinked_root_on_either_side_refuses_the_whole_decision(
    shop: tuple[DemoHome, Context], tmp_path: Path, side: str
) -> None:
    demo, ctx = shop
    swapped = planner(demo) if side == "planner" else demo.auto_memory
    for decision, proposal in plans(ctx).items():
        elsewhere = tmp_path / f"elsewhere-{decision}"
        shutil.copytree(swapped, elsewhere, symlinks=True)
        shutil.rmtree(swapped)
        swapped.symlink_to(elsewhere)  # swapped for a link after the plan
        before = {**stores(demo), "elsewhere": tree_state(elsewhere)}
        assert proposal.target_text().startswith("refused: ")
        assert str(elsewhere) in proposal.target_text()
        journal = Journal(tmp_path / f"journal-{decision}")
        with pytest.raises(EditRefused, match="is a symlink to"):
            apply(proposal, journal)
        assert {**stores(demo), "elsewhere": tree_state(elsewhere)} == before, decision
        assert journal.list() == []
        swapped.unlink()
        shutil.copytree(elsewhere, swapped, symlinks=True)


def test_notes_across_stores_say_where_each_store_applies(
    shop: tuple[DemoHome, Context], tmp_path: Path
) -> None:
    """The planner (a user agent) holds 100 % where the project's auto memory says 25 %: each
    proposed note names the context its store applies in, not a list of words."""
    _demo, ctx = shop
    pair = flags_pair(ctx, Ledger(tmp_path / "ledger.json"))
    proposed = propose_notes(pair.candidate, pair.verdict)
    side = {pair.candidate.a.kind: "a", pair.candidate.b.kind: "b"}
    assert proposed[side["agent"]] == "working as the planner agent"
    assert proposed[side["auto"]] == "in this project's main sessions"
