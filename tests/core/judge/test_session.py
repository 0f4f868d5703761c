"""The judge's use case (:mod:`memtui.core.judge.session`) on the demo home: the local judge
end to end, cancellation between steps and while judging, the anthropic provider through the
real SDK against a mocked Messages API (the estimate, the one pair limit, the one spend-cap
check), and the state after a decision wrote files."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.mock_api import FakeMessagesAPI
from helpers import copy_demo, demo_context, tree_state

from memtui.core.config import JudgeConfig
from memtui.core.demo.build import DemoHome
from memtui.core.demo.story import FAKE_AWS_KEY_ID, FAKE_GITHUB_PAT
from memtui.core.judge import anthropic_judge
from memtui.core.judge.ledger import Ledger, default_ledger_path
from memtui.core.judge.local import LocalJudge
from memtui.core.judge.providers import ProviderError
from memtui.core.judge.run import MAX_SENT_PAIRS
from memtui.core.judge.scoped import finish_scoped, plan_scoped
from memtui.core.judge.session import JudgeSession, SpendRefused
from memtui.core.judge.verdicts import JudgedPair
from memtui.core.model import StoreKind
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal

LOCAL = JudgeConfig()
PLANNER = ("agent", "feature-flags.md")
AUTO = ("auto", "feature-flags.md")
CHECKOUT = ("auto", "checkout-flags.md")


@pytest.fixture
def ctx(pristine: DemoHome, tmp_path: Path) -> Context:
    """The demo home (never written: judging writes only the ledger, in the test's state dir)."""
    return demo_context(pristine, XDG_STATE_HOME=str(tmp_path / "state"),
                        XDG_CACHE_HOME=str(tmp_path / "cache"), ANTHROPIC_API_KEY="sk-test")


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> FakeMessagesAPI:
    fake = FakeMessagesAPI()
    monkeypatch.setattr(anthropic_judge, "http_client_factory", fake.client)
    monkeypatch.setattr(anthropic_judge, "BATCH_POLL_SECONDS", 0.0)
    return fake


def ledger_file(ctx: Context) -> Path:
    return default_ledger_path(ctx.env)


def sides(pair: JudgedPair) -> frozenset[tuple[str, str]]:
    c = pair.candidate
    return frozenset(((c.a.kind, c.a.rel_path), (c.b.kind, c.b.rel_path)))


# ---------------------------------------------------------------------- the local judge


def test_the_local_judge_end_to_end_sends_nothing_and_records_every_pair(
    ctx: Context, pristine: DemoHome
) -> None:
    before = tree_state(pristine.root)
    steps: list[tuple[str, int, int]] = []
    session = JudgeSession.start(ctx, LOCAL, managed=ctx.home / "no-managed",
                                 progress=lambda *step: steps.append(step))
    assert session.judge.name == "local" and session.run.complete
    assert session.estimate is None and not session.asks_first
    assert session.spend_check() is None and session.held_back == 0
    todo = list(session.todo)
    assert todo and all(p.state == "new" for p in todo)
    assert len(todo) == len(session.run.pairs)  # a fresh ledger: every pair is new
    assert not ledger_file(ctx).exists()  # nothing recorded before send

    assert session.send(lambda *step: steps.append(step)) == len(todo)
    assert session.run.judged == len(todo) and session.todo == []
    assert all(p.state == "judged" and p.verdict is not None for p in session.run.pairs)
    assert session.open_pairs() and session.pairs() == session.open_pairs()
    assert session.pairs(every=True) == session.run.pairs
    assert ledger_file(ctx).exists()
    names = {step for step, _done, _total in steps}
    assert {"scanning the stores", "reading memories", "pairing", "judging (local)"} <= names
    assert session.send() == 0  # nothing left to send

    again = JudgeSession.start(ctx, LOCAL, managed=ctx.home / "no-managed")
    assert again.todo == [] and again.send() == 0 and again.run.judged == 0
    assert [p.state for p in again.run.pairs] == ["judged"] * len(todo)
    rejudged = JudgeSession.start(ctx, LOCAL, managed=ctx.home / "no-managed", rejudge=True)
    assert len(rejudged.todo) == len(todo)
    assert tree_state(pristine.root) == before  # judging writes no memory


def test_the_pair_limit_binds_only_a_provider_that_sends_text(ctx: Context) -> None:
    session = JudgeSession.start(ctx, LOCAL, provider=LocalJudge(), max_pairs=1)
    assert len(session.todo) > 1 and session.held_back == 0
    with pytest.raises(ValueError, match="max_pairs"):
        JudgeSession.start(ctx, LOCAL, max_pairs=0)


def test_kinds_and_claude_md_choose_the_items(ctx: Context) -> None:
    session = JudgeSession.start(ctx, LOCAL, kinds=[StoreKind.AUTO], claude_md=False)
    assert session.run.items
    assert {item.kind for item in session.run.items} == {"auto"}


def test_a_scan_given_is_the_one_read(ctx: Context) -> None:
    result = scan(ctx)
    session = JudgeSession.start(ctx, LOCAL, result=result)
    assert session.result is result


def test_a_provider_that_cannot_run_is_refused_before_anything_is_read(
    ctx: Context, pristine: DemoHome
) -> None:
    no_key = demo_context(pristine, XDG_STATE_HOME=ctx.env["XDG_STATE_HOME"])
    steps: list[tuple[str, int, int]] = []
    with pytest.raises(ProviderError, match="needs an API key"):
        JudgeSession.start(no_key, LOCAL, provider="anthropic",
                           progress=lambda *step: steps.append(step))
    with pytest.raises(ProviderError, match="unknown judge provider"):
        JudgeSession.start(no_key, JudgeConfig(provider="oracle"))
    assert steps == []


# ---------------------------------------------------------------------- cancellation


def test_cancelled_before_pairing_stops_there_with_nothing_to_send(ctx: Context) -> None:
    session = JudgeSession.start(ctx, LOCAL, cancelled=lambda: True)
    assert not session.run.complete
    assert session.run.pairs == [] and session.todo == [] and session.estimate is None
    assert session.send() == 0 and not ledger_file(ctx).exists()


def test_cancelled_while_judging_keeps_and_records_the_verdicts_it_got(ctx: Context) -> None:
    session = JudgeSession.start(ctx, LOCAL, managed=ctx.home / "no-managed")
    total = len(session.todo)
    seen: list[int] = []

    def progress(step: str, done: int, _total: int) -> None:
        if step.startswith("judging"):
            seen.append(done)

    judged = session.send(progress, cancelled=lambda: len(seen) > 2)
    assert 0 < judged < total and not session.run.complete
    assert session.run.judged == judged
    again = JudgeSession.start(ctx, LOCAL, managed=ctx.home / "no-managed")
    assert len(again.todo) == total - judged  # the ledger kept what was judged


# ---------------------------------------------------------------------- anthropic


def test_anthropic_estimates_the_best_pairs_and_sends_only_when_asked(
    ctx: Context, api: FakeMessagesAPI
) -> None:
    session = JudgeSession.start(ctx, LOCAL, provider="anthropic", max_pairs=9)
    assert session.asks_first and session.estimate is not None
    assert session.estimate.pairs == len(session.todo) == 9
    requests = session.estimate.requests
    assert api.calls == 0 and api.counted == requests + 1  # counted (and the prefix), not sent
    every = JudgeSession.start(ctx, LOCAL, provider="anthropic")
    assert len(every.todo) == MAX_SENT_PAIRS and every.held_back > 0  # the default limit
    assert session.held_back + 9 == every.held_back + MAX_SENT_PAIRS
    assert [p.candidate.id for p in session.todo] == [p.candidate.id for p in every.todo[:9]]
    assert api.calls == 0
    assert session.spend_check() is None

    assert session.send() == 9
    assert api.calls == requests  # the group requests the estimate counted
    assert session.usage is not None and session.usage.requests == requests
    assert session.todo == [] and not session.asks_first
    assert session.estimate is not None  # what was sent, for the report
    assert {p.verdict.judge for p in session.run.pairs if p.verdict} >= {"claude-haiku-5-5"}
    for body in api.bodies:
        assert FAKE_GITHUB_PAT not in body and FAKE_AWS_KEY_ID not in body
    assert session.send() == 0 and api.calls == requests


def test_one_spend_cap_check_refuses_and_send_refuses_the_same(
    ctx: Context, api: FakeMessagesAPI
) -> None:
    capped = JudgeConfig(provider="anthropic", spend_cap_usd=0.000001)
    session = JudgeSession.start(ctx, capped)
    assert session.asks_first
    assert session.spend_check() == "over judge.spend_cap_usd ($1e-06); nothing was sent"
    with pytest.raises(SpendRefused) as refused:
        session.send()
    assert refused.value.reason == session.spend_check()
    assert api.calls == 0 and not ledger_file(ctx).exists()
    assert session.todo  # still there: nothing was sent

    roomy = JudgeSession.start(ctx, JudgeConfig(provider="anthropic", spend_cap_usd=100.0),
                               max_pairs=3)
    assert roomy.spend_check() is None and roomy.send() == 3


def test_batch_over_the_config(ctx: Context, api: FakeMessagesAPI) -> None:
    session = JudgeSession.start(ctx, LOCAL, provider="anthropic", batch=True, max_pairs=9)
    assert session.estimate is not None and session.estimate.provider == "anthropic batch"
    assert session.send() == 9
    assert api.calls == 0 and len(api.batches) == 1


# ---------------------------------------------------------------------- after a decision


def test_after_a_decision_the_session_reads_the_changed_memories_again(
    pristine: DemoHome, tmp_path: Path
) -> None:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    ctx = demo_context(demo, XDG_STATE_HOME=str(tmp_path / "state"))
    session = JudgeSession.start(ctx, LOCAL, managed=tmp_path / "no-managed")
    session.send()
    pairs = {sides(p): p for p in session.run.pairs}
    scoped = pairs[frozenset((PLANNER, AUTO))]
    other = pairs[frozenset((AUTO, CHECKOUT))]
    assert other.state == "judged"

    plan = plan_scoped(session.result, scoped.candidate, {"a": "planning", "b": "shipping"})
    done = apply(plan.proposal, Journal(tmp_path / "journal", home=ctx.claude_home))
    finish_scoped(plan, session.ledger)
    session.scoped(scoped, plan)
    assert scoped.state == "decided" and scoped.candidate == plan.after
    assert scoped.verdict is not None and scoped.verdict.reason == (
        "decided: scoped (A applies when planning; B applies when shipping)")
    assert session.ledger.lookup(plan.after).verdict == scoped.verdict
    old_result, old_pairs = session.result, list(session.run.pairs)
    fresh = session.reread(done.files)
    assert session.result is old_result and session.run.pairs == old_pairs  # not yet taken in
    session.refresh(fresh)
    assert session.result is fresh.result
    pairs = {sides(p): p for p in session.run.pairs}
    assert pairs[frozenset((PLANNER, AUTO))].state == "decided"
    assert pairs[frozenset((AUTO, CHECKOUT))].state == "stale"
    assert sum(i.body.startswith("_Applies when: ") for i in session.run.items) == 2

    session.drop(other.candidate.b.key if other.candidate.b.rel_path == "checkout-flags.md"
                 else other.candidate.a.key)
    assert not any(CHECKOUT in sides(p) for p in session.run.pairs)


def test_a_decision_that_changes_no_file_is_recorded_and_kept(ctx: Context) -> None:
    session = JudgeSession.start(ctx, LOCAL, managed=ctx.home / "no-managed")
    session.send()
    pair = session.open_pairs()[0]
    verdict = session.decide(pair, "not_conflict")
    assert pair.state == "decided" and pair.verdict == verdict and verdict.judge == "user"
    assert pair not in session.open_pairs()
    again = JudgeSession.start(ctx, LOCAL, managed=ctx.home / "no-managed")
    [same] = [p for p in again.run.pairs if p.candidate.id == pair.candidate.id]
    assert same.state == "decided"
    assert Ledger.load(ledger_file(ctx)).lookup(pair.candidate).state == "decided"
