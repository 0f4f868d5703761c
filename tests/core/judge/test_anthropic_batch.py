"""The anthropic judge through the Message Batches API (``judge.batch``, ``--batch``): the real
SDK against the mocked API, no network. Half the price; a request that errored, a batch that
cannot be created and a cancelled run each fall back to the local judge, said in words."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.homes import Note, write_home
from core.judge.mock_api import MODEL, FakeMessagesAPI

from memtui.core.config import JudgeConfig, load_config
from memtui.core.judge.anthropic_judge import AnthropicJudge
from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.items import memory_items
from memtui.core.judge.providers import load_judge
from memtui.core.judge.verdicts import Candidate, Relation
from memtui.core.scan.scanner import scan

SECRET = "ghp_" + "PLANTEDbatchSECRET" + "0123456789abcdefgh"
"""A fake GitHub token (gitleaks' github-pat shape), built so no literal sits in the repo."""

NOTES = [
    Note("agent-user:reviewer", "test-db.md", "Test database: what tests run against",
         f"Integration tests run against a real Postgres 16; never SQLite.\nCI token: {SECRET}\n",
         40),
    Note("auto", "test-db.md", "Test database: what tests run against",
         "Integration tests run against SQLite in memory so the suite stays fast.", 2),
    Note("auto", "deploy-freeze.md", "No deploys on Fridays", "No production deploys on Fridays."),
    Note("team", "deploy-freeze.md", "No deploys on Fridays", "No production deploys on Fridays."),
]


@pytest.fixture
def candidates(tmp_path: Path) -> list[Candidate]:
    found = find_candidates(memory_items(scan(write_home(tmp_path, NOTES))))
    assert len(found) == 2
    return found


def make_judge(api: FakeMessagesAPI, batch: bool = True, **options: object) -> AnthropicJudge:
    judge = load_judge("anthropic", JudgeConfig(provider="anthropic", batch=batch),
                       env={"ANTHROPIC_API_KEY": "sk-test"}, http_client=api.client(),
                       poll_seconds=0.0, **options)
    assert isinstance(judge, AnthropicJudge)
    return judge


def test_a_batch_gives_the_models_verdicts_at_half_the_price(
    candidates: list[Candidate],
) -> None:
    api = FakeMessagesAPI(polls=2)
    judge = make_judge(api)
    steps: list[tuple[int, int]] = []
    verdicts = judge.judge(candidates, progress=lambda done, total: steps.append((done, total)))
    assert api.calls == 0 and len(api.batches) == 1  # no Messages call: one batch
    [requests] = api.batches.values()
    assert len(requests) == 1 and requests[0]["params"]["max_tokens"] > 0  # both pairs in one
    assert api.retrieved == 4  # in progress twice, ended, and once more by results()
    assert all(v is not None and v.relation is Relation.CONFLICTS_WITH and v.judge == MODEL
               for v in verdicts)
    assert steps[-1] == (2, 2)
    one = FakeMessagesAPI()
    unbatched = make_judge(one, batch=False)
    unbatched.judge(candidates)
    assert judge.usage.requests == 1
    assert judge.usage.cost_usd == pytest.approx(unbatched.usage.cost_usd / 2)
    assert all(SECRET not in body for body in api.bodies)
    assert any("[REDACTED:github-pat]" in body for body in api.bodies)


def test_the_estimate_of_a_batch_is_half_the_price_and_says_so(
    candidates: list[Candidate],
) -> None:
    batched = make_judge(FakeMessagesAPI()).estimate(candidates)
    direct = make_judge(FakeMessagesAPI(), batch=False).estimate(candidates)
    assert batched.cost_usd == pytest.approx(direct.cost_usd / 2)
    assert batched.provider == "anthropic batch"
    assert any("Message Batch" in note for note in batched.notes)


def test_an_errored_request_of_a_batch_falls_back_to_the_local_judge(
    candidates: list[Candidate],
) -> None:
    api = FakeMessagesAPI(batch_script=["ok", "errored"])
    judge = make_judge(api, pairs_per_request=1)
    first, second = judge.judge(candidates)
    assert first is not None and first.judge == MODEL and first.fallback is None
    assert second is not None and second.judge == "local"
    assert second.fallback == "the batch request errored (overloaded_error)"
    assert judge.notes == ["1 pair judged locally: the batch request errored (overloaded_error)"]


def test_a_malformed_or_expired_result_falls_back_too(candidates: list[Candidate]) -> None:
    judge = make_judge(FakeMessagesAPI(batch_script=["malformed", "expired"]),
                       pairs_per_request=1)
    reasons = [v.fallback for v in judge.judge(candidates) if v is not None]
    assert reasons == ["a malformed reply (batch)", "the batch request expired"]


def test_a_batch_that_cannot_be_created_falls_back_and_never_crashes(
    candidates: list[Candidate],
) -> None:
    api = FakeMessagesAPI(batch_status=529)
    judge = make_judge(api)
    verdicts = judge.judge(candidates)
    assert all(v is not None and v.judge == "local" for v in verdicts)
    assert all(v is not None and v.fallback is not None and "anthropic batch: HTTP 529"
               in v.fallback for v in verdicts)


def test_cancelling_the_run_cancels_the_batch(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI(polls=1000)
    judge = make_judge(api)
    verdicts = judge.judge(candidates, cancelled=lambda: api.retrieved >= 2)
    assert api.cancelled == 1
    assert all(v is not None and v.fallback is not None and "cancelled" in v.fallback
               for v in verdicts)


def test_judge_batch_is_a_config_key_and_a_variable(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[judge]\nbatch = true\n")
    assert load_config({"MEMTUI_CONFIG": str(config)}).judge.batch is True
    assert load_config({"MEMTUI_JUDGE_BATCH": "no", "MEMTUI_CONFIG": str(config)}).judge.batch \
        is False
    config.write_text('[judge]\nbatch = "sometimes"\n')
    loaded = load_config({"MEMTUI_CONFIG": str(config)})
    assert loaded.judge.batch is False
    assert any("judge.batch" in str(p) and "true or false" in str(p) for p in loaded.problems)
