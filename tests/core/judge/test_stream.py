"""The judge's verdicts a batch at a time (:func:`memtui.core.judge.run.verdict_batches`,
:meth:`memtui.core.judge.session.JudgeSession.stream`), as the conflicts screen shows them
while they come in: the same verdicts as a whole run, the likeliest pairs first, each batch
recorded, the ledger saved when the stream stops early."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.config import JudgeConfig
from memtui.core.demo.build import DemoHome
from memtui.core.demo.judge_home import build_judge_home
from memtui.core.judge.finder import judge_candidates
from memtui.core.judge.ledger import USER, Ledger, default_ledger_path
from memtui.core.judge.local import LocalJudge
from memtui.core.judge.run import collect_items, judge_order
from memtui.core.judge.session import JudgeSession
from memtui.core.judge.verdicts import Relation, Verdict
from memtui.core.model import StoreKind
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context

KINDS = (StoreKind.AUTO, StoreKind.AGENT)


def context(pristine: DemoHome, tmp_path: Path, name: str) -> Context:
    return demo_context(pristine, XDG_STATE_HOME=str(tmp_path / name / "state"),
                        XDG_CACHE_HOME=str(tmp_path / name / "cache"))


def start(ctx: Context) -> JudgeSession:
    return JudgeSession.start(ctx, JudgeConfig(), provider="local", kinds=KINDS,
                              managed=ctx.home / "no-managed")


@pytest.fixture
def ctx(pristine: DemoHome, tmp_path: Path) -> Context:
    return context(pristine, tmp_path, "stream")


def test_the_stream_gives_the_verdicts_of_a_whole_run_a_batch_at_a_time(
    ctx: Context, pristine: DemoHome, tmp_path: Path
) -> None:
    whole = start(context(pristine, tmp_path, "whole"))
    expected = whole.todo
    verdicts = LocalJudge().judge([p.candidate for p in expected])  # one call, every pair
    session = start(ctx)
    todo = list(session.todo)
    assert [p.candidate.id for p in todo] == [p.candidate.id for p in expected]
    assert len(todo) > 8
    batches = list(session.stream(batch=4))
    assert all(0 < len(b) <= 4 for b in batches) and len(batches) >= len(todo) // 4
    streamed = [p for b in batches for p in b]
    assert sorted(p.candidate.id for p in streamed) == sorted(p.candidate.id for p in todo)
    by_id = {p.candidate.id: v for p, v in zip(expected, verdicts, strict=True)}
    assert all(p.verdict == by_id[p.candidate.id] and p.state == "judged" for p in streamed)
    assert session.run.judged == len(todo) and session.run.complete
    # the run's list keeps the candidates' order: the order of judging is not the list's
    assert [p.candidate.id for p in session.run.pairs] == [
        p.candidate.id for p in whole.run.pairs]
    saved = Ledger.load(default_ledger_path(ctx.env))
    assert all(saved.lookup(p.candidate).state == "judged" for p in todo)


def test_the_likeliest_pairs_are_judged_first(ctx: Context) -> None:
    session = start(ctx)
    order = judge_order(session.todo)

    def rank(i: int) -> int:
        a, b = order[i].candidate.a, order[i].candidate.b
        return 0 if a.digest == b.digest else 1 if a.name == b.name else 2

    ranks = [rank(i) for i in range(len(order))]
    assert ranks == sorted(ranks) and ranks[0] < 2  # the demo has same-name pairs
    first = next(iter(session.stream(batch=2)))
    assert [p.candidate.id for p in first] == [p.candidate.id for p in order[:2]]


def test_a_stream_stopped_early_keeps_and_saves_what_it_judged(ctx: Context) -> None:
    session = start(ctx)
    total = len(session.todo)
    seen: list[int] = []
    stream = session.stream(batch=3, cancelled=lambda: len(seen) >= 2)
    for batch in stream:
        seen.append(len(batch))
    assert seen == [3, 3] and session.run.judged == 6 < total
    assert not session.run.complete
    saved = Ledger.load(default_ledger_path(ctx.env))
    judged = [p for p in session.run.pairs if p.state == "judged"]
    assert len(judged) == 6 and all(saved.lookup(p.candidate).state == "judged" for p in judged)

    again = start(ctx)  # a caller that stops reading (the generator closed) saves too
    assert len(again.todo) == total - 6
    stream = again.stream(batch=5)
    next(stream)
    stream.close()
    assert not again.run.complete
    assert len(start(ctx).todo) == total - 11



def test_a_pair_judged_alone_gets_the_verdict_of_a_whole_run(tmp_path: Path) -> None:
    """How rare a word is, and whether two memories are each other's nearest, were counted
    among the pairs of the run: the pairs one edit made stale, judged again on their own, got
    other verdicts than a whole run gives (118 of the labelled home's 300 best pairs). Now
    both come from every item of the home."""
    home = build_judge_home(tmp_path / "home")
    items, _problems = collect_items(home.ctx, scan(home.ctx), managed=tmp_path / "none")
    candidates = judge_candidates(items)[:200]
    whole = LocalJudge().judge(candidates, items=items)
    for n in range(0, 200, 5):  # a sample: each alone counts the home's 406 items again
        assert LocalJudge().judge([candidates[n]], items=items) == [whole[n]], n


def test_a_stream_of_some_pairs_gives_the_verdicts_of_a_whole_run(ctx: Context) -> None:
    """The session judges the pairs to judge (after an edit: the stale ones) with every item
    of the home: their verdicts are those of a run of every pair."""
    session = start(ctx)
    candidates = [p.candidate for p in session.run.pairs][:400]
    whole = dict(zip((c.id for c in candidates),
                     LocalJudge().judge(candidates, items=session.run.items), strict=True))
    some = {c.id for c in candidates[::25]}
    session.todo = [p for p in session.todo if p.candidate.id in some]
    streamed = {p.candidate.id: p.verdict for b in session.stream(batch=3) for p in b}
    assert len(streamed) == len(some) and all(v == whole[k] for k, v in streamed.items())


def test_the_pairs_a_screen_shows_are_judged_first(ctx: Context, pristine: DemoHome,
                                                   tmp_path: Path) -> None:
    """``first`` (the rows the conflicts screen shows) is asked before each batch: those of
    its pairs not judged yet come first, in its order, then the others as before; each pair
    once, with the verdict a whole run gives it."""
    whole = start(context(pristine, tmp_path, "whole"))
    by_id = {p.candidate.id: v for p, v in zip(
        whole.todo, LocalJudge().judge([p.candidate for p in whole.todo],
                                       items=whole.run.items), strict=True)}
    session = start(ctx)
    order = [p.candidate.id for p in judge_order(session.todo)]
    assert len(order) > 12
    shown = [order[-1], order[-1], order[-5], "no such pair", order[0]]  # one named twice
    asked: list[int] = []

    def first() -> list[str]:
        asked.append(len(asked))
        return shown if len(asked) <= 2 else [order[-2]]  # the screen scrolled meanwhile

    batches = [[p.candidate.id for p in b] for b in session.stream(batch=2, first=first)]
    assert batches[0] == [order[-1], order[-5]]
    assert batches[1] == [order[0], order[1]]  # order[0] shown, then the likeliest
    assert batches[2] == [order[-2], order[2]]
    streamed = [i for b in batches for i in b]
    assert sorted(streamed) == sorted(order) and len(asked) == len(batches)
    assert all(p.verdict == by_id[p.candidate.id] for p in session.run.pairs
               if p.candidate.id in by_id)


def test_a_verdict_streamed_after_a_decision_does_not_overwrite_it(ctx: Context) -> None:
    """The user decides pairs while the stream judges (the conflicts screen's keys, another
    decision written into the ledger by an operation): a verdict that arrives after the
    decision is neither given to the pair nor recorded over the decision in the ledger."""
    session = start(ctx)
    order = judge_order(session.todo)
    assert len(order) > 6
    stream = session.stream(batch=2)
    first = next(stream)
    later = [p for p in order if p not in first]
    decided, archived = later[-1], later[-2]
    session.decide(decided, "not_conflict")  # in the session and its ledger
    keep = Verdict(Relation.DUPLICATE, 1.0, "decided: keep a", USER)
    with session.lock:  # as finish_keep adopts a keep operation's decision
        session.ledger.record(archived.candidate, keep, note="archived b")
    rest = [p for b in stream for p in b]
    assert session.run.complete
    assert decided.state == "decided" and decided.verdict is not None
    assert decided.verdict.judge == USER and decided.verdict.relation is Relation.NOT_CONFLICT
    assert archived.verdict is None and archived.state == "new"  # no late verdict given
    assert decided not in rest and archived not in rest
    saved = Ledger.load(default_ledger_path(ctx.env))
    for pair in (decided, archived):
        latest = saved.entries[pair.candidate.id][-1]
        assert latest.judge == USER, pair.candidate.id
    assert saved.lookup(decided.candidate).state == "decided"
