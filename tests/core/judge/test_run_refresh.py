"""A judge run brought up to date after a decision changed files
(:mod:`memtui.core.judge.refresh`): the demo's three feature-flag memories make three pairs, each
two sharing one memory. Scoping one pair rewrites two memories; the other pairs of those show the
new text and are stale; archiving a memory takes its pairs out; an undo brings the old verdicts
back."""

from __future__ import annotations

from pathlib import Path

from helpers import copy_demo, demo_context

from memtui.core.demo.build import DemoHome
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.local import LocalJudge
from memtui.core.judge.refresh import refresh_run, reread
from memtui.core.judge.resolve import plan_keep
from memtui.core.judge.run import JudgeRun, collect_items, judge_pairs, pair_up
from memtui.core.judge.scoped import finish_scoped, plan_scoped
from memtui.core.judge.verdicts import JudgedPair
from memtui.core.scan.scanner import scan
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.core.write.recovery import undo_operation

PLANNER = ("agent", "feature-flags.md")
AUTO = ("auto", "feature-flags.md")
CHECKOUT = ("auto", "checkout-flags.md")


def sides(pair: JudgedPair) -> frozenset[tuple[str, str]]:
    c = pair.candidate
    return frozenset(((c.a.kind, c.a.rel_path), (c.b.kind, c.b.rel_path)))


def by_sides(run: JudgeRun) -> dict[frozenset[tuple[str, str]], JudgedPair]:
    return {sides(p): p for p in run.pairs}


def test_the_other_pairs_of_a_rewritten_memory_read_it_again_and_are_stale(
    pristine: DemoHome, tmp_path: Path
) -> None:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    ctx = demo_context(demo)
    result = scan(ctx)
    items, _problems = collect_items(ctx, result, managed=tmp_path / "no-managed")
    ledger = Ledger(tmp_path / "ledger.json")
    run = JudgeRun(items, pair_up(items, ledger))
    judge_pairs(run.pairs, LocalJudge(), ledger)
    journal = Journal(tmp_path / "journal", home=ctx.claude_home)
    pairs = by_sides(run)
    scoped_pair = pairs[frozenset((PLANNER, AUTO))]
    other = pairs[frozenset((AUTO, CHECKOUT))]
    third = pairs[frozenset((PLANNER, CHECKOUT))]
    untouched = [p for p in run.pairs if not sides(p) & {PLANNER, AUTO}]
    assert other.state == third.state == "judged" and untouched
    old_verdict = other.verdict

    plan = plan_scoped(result, scoped_pair.candidate, {"a": "planning", "b": "shipping"})
    done = apply(plan.proposal, journal)
    finish_scoped(plan, ledger)
    fresh = reread(ctx, result, run.items, done.files)
    assert set(fresh.items) == {scoped_pair.candidate.a.key, scoped_pair.candidate.b.key}
    refresh_run(run, fresh.items, ledger)

    pairs = by_sides(run)
    assert pairs[frozenset((PLANNER, AUTO))].state == "decided"  # for the contents it wrote
    for pair in (pairs[frozenset((AUTO, CHECKOUT))], pairs[frozenset((PLANNER, CHECKOUT))]):
        assert pair.state == "stale" and pair.verdict is None
        flags = pair.candidate.a if pair.candidate.a.rel_path == "feature-flags.md" \
            else pair.candidate.b
        assert flags.body.startswith("_Applies when: ")
    assert pairs[frozenset((AUTO, CHECKOUT))].previous == old_verdict
    assert all(any(p is q for q in run.pairs) for p in untouched)  # the same objects
    assert sum(i.body.startswith("_Applies when: ") for i in run.items) == 2
    # the new scan holds the new content: a plan on it archives what is on disk
    stale = pairs[frozenset((AUTO, CHECKOUT))]
    keep = "a" if stale.candidate.a.rel_path == "checkout-flags.md" else "b"
    archived = apply(plan_keep(fresh.result, stale.candidate, keep).proposal, journal)
    after = reread(ctx, fresh.result, run.items, archived.files)
    assert list(after.items.values()) == [None]  # the auto feature-flags.md is gone
    refresh_run(run, after.items, ledger)
    assert not any(AUTO in sides(p) for p in run.pairs)
    assert all(i.file != str(demo.auto_memory / "feature-flags.md") for i in run.items)

    # undone, latest first: the file is back (its pairs come with the next run), the notes go
    # and with them the decision: the old verdict is current again
    files = [*undo_operation(journal, archived.record).files,
             *undo_operation(journal, done.record).files]
    back = reread(ctx, after.result, run.items, files)
    refresh_run(run, back.items, ledger)
    [third] = [p for p in run.pairs if sides(p) == frozenset((PLANNER, CHECKOUT))]
    assert third.state == "judged" and not any(
        i.body.startswith("_Applies when: ") for i in (third.candidate.a, third.candidate.b))
    assert any(m.file == str(demo.auto_memory / "feature-flags.md")
               for s in back.result.stores for m in s.memories)
