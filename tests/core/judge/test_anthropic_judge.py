"""The anthropic judge through the real SDK, against a mocked Messages API (no network)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from core.judge.homes import Note, write_home
from core.judge.mock_api import MODEL, FakeMessagesAPI

from memtui.core.config import JudgeConfig
from memtui.core.judge import anthropic_judge
from memtui.core.judge.anthropic_judge import AnthropicJudge, cost
from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.items import memory_items
from memtui.core.judge.providers import ProviderError, load_judge
from memtui.core.judge.verdicts import Candidate, Relation
from memtui.core.scan.scanner import scan

SECRET = "ghp_" + "PLANTEDjudgeSECRET" + "0123456789abcdefgh"
"""A fake GitHub token (gitleaks' github-pat shape), built so no literal sits in the repo."""

NOTES = [
    Note(
        "agent-user:reviewer",
        "test-db.md",
        "Test database: what tests run against",
        f"Integration tests run against a real Postgres 16; never SQLite.\nCI token: {SECRET}\n",
        40,
    ),
    Note(
        "auto",
        "test-db.md",
        "Test database: what tests run against",
        "Integration tests run against SQLite in memory so the suite stays fast.",
        2,
    ),
    Note("auto", "deploy-freeze.md", "No deploys on Fridays", "No production deploys on Fridays."),
    Note("team", "deploy-freeze.md", "No deploys on Fridays", "No production deploys on Fridays."),
]


@pytest.fixture
def candidates(tmp_path: Path) -> list[Candidate]:
    ctx = write_home(tmp_path, NOTES)
    found = find_candidates(memory_items(scan(ctx)))
    assert len(found) == 2
    return found


def make_judge(api: FakeMessagesAPI, **options: object) -> AnthropicJudge:
    judge = load_judge(
        "anthropic",
        JudgeConfig(provider="anthropic"),
        env={"ANTHROPIC_API_KEY": "sk-test"},
        http_client=api.client(),
        **options,
    )
    assert isinstance(judge, AnthropicJudge)
    return judge


def test_a_good_reply_gives_the_models_verdicts_and_its_usage(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI()
    judge = make_judge(api)
    verdicts = judge.judge(candidates)
    assert api.calls == 1  # both pairs in one request
    assert all(v is not None and v.relation is Relation.CONFLICTS_WITH for v in verdicts)
    assert {v.judge for v in verdicts if v} == {MODEL}
    assert verdicts[0] is not None and verdicts[0].winner == "b"
    assert verdicts[0].evidence == ("never SQLite", "SQLite in memory")
    assert judge.usage.requests == 1 and judge.usage.cache_read_tokens == 900
    assert judge.usage.cost_usd == pytest.approx(
        (1200 * 0.10 + 900 * 0.10 * 0.1 + 160 * 0.50) / 1e6
    )


def test_the_estimate_counts_tokens_with_the_api_before_anything_is_judged(
    candidates: list[Candidate],
) -> None:
    api = FakeMessagesAPI()
    estimate = make_judge(api).estimate(candidates)
    assert (api.counted, api.calls) == (2, 0)  # the one request, and the cached prefix
    assert estimate.requests == 1 and estimate.pairs == 2 and estimate.memories == 4
    assert estimate.input_tokens > 1000
    # one request of a model whose cache minimum is not known: priced as if its prefix were
    # written to the cache (1.25 times), the dearer case
    assert 0 < estimate.cache_write_tokens < estimate.input_tokens
    assert estimate.cache_read_tokens == 0
    assert estimate.cost_usd == pytest.approx(
        cost(MODEL, estimate.input_tokens + estimate.cache_write_tokens // 4,
             estimate.output_tokens), rel=1e-3
    )
    assert estimate.redactions == 1
    assert "at most $" in estimate.describe()


def test_no_request_body_holds_a_planted_secret(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI()
    judge = make_judge(api)
    judge.estimate(candidates)
    judge.judge(candidates)
    assert len(api.bodies) == 3  # two counts, one request
    for body in api.bodies:
        assert SECRET not in body
        assert SECRET[4:20] not in body
    assert "[REDACTED:github-pat]" in api.bodies[-1]


def test_a_malformed_reply_is_asked_again_then_judged_locally(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI(script=["malformed"])
    judge = make_judge(api)
    verdicts = judge.judge(candidates)
    assert api.calls == 2
    assert all(v is not None and v.judge == "local" for v in verdicts)
    assert all(v is not None and v.fallback == "a malformed reply (asked twice)" for v in verdicts)
    assert judge.notes == ["2 pairs judged locally: a malformed reply (asked twice)"]


@pytest.mark.parametrize("step", ["not-json", "not-a-message"])
def test_a_200_reply_that_is_no_message_falls_back_to_the_local_judge(
    candidates: list[Candidate], step: str
) -> None:
    api = FakeMessagesAPI(script=[step])
    judge = make_judge(api)
    verdicts = judge.judge(candidates)
    assert all(v is not None and v.judge == "local" for v in verdicts)
    assert all(v is not None and v.fallback is not None and "anthropic: " in v.fallback
               for v in verdicts)


def test_a_reply_that_breaks_the_schema_counts_as_malformed(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI(script=["bad-json", "ok"])
    verdicts = make_judge(api).judge(candidates)
    assert api.calls == 2
    assert all(v is not None and v.judge == MODEL for v in verdicts)


def test_a_partial_reply_asks_again_for_the_missing_pairs_only(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI(script=["partial", "ok"])
    verdicts = make_judge(api).judge(candidates)
    assert api.calls == 2
    asked = json.loads(api.bodies[-1])["messages"][0]["content"]
    assert asked.count("<pair ") == 1 and asked.count("<memory ") == 2
    assert asked.startswith("Here are 2 memories. Judge this pair among them.")
    assert all(v is not None and v.judge == MODEL for v in verdicts)


def test_a_429_is_retried_by_the_sdk_then_succeeds(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI(script=[429, "ok"])
    verdicts = make_judge(api).judge(candidates)
    assert api.calls == 2
    assert all(v is not None and v.judge == MODEL for v in verdicts)


def test_a_529_that_persists_falls_back_to_the_local_judge(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI(script=[529])
    judge = make_judge(api)
    verdicts = judge.judge(candidates)
    assert api.calls == anthropic_judge.MAX_RETRIES + 1
    assert all(v is not None and v.judge == "local" for v in verdicts)
    assert all(
        v is not None and v.fallback is not None and "HTTP 529" in v.fallback for v in verdicts
    )
    kinds = {v.relation for v in verdicts if v}
    assert Relation.DUPLICATE in kinds  # the local judge's own verdicts, not placeholders


def test_the_spend_cap_stops_sending(candidates: list[Candidate]) -> None:
    api = FakeMessagesAPI()
    judge = make_judge(api, pairs_per_request=1)
    judge.spend_cap_usd = 0.0000001
    verdicts = judge.judge(candidates)
    assert api.calls == 1  # the second request would pass the cap
    assert verdicts[1] is not None and verdicts[1].fallback is not None
    assert "spend cap" in verdicts[1].fallback


def test_without_a_key_nothing_is_built_or_sent() -> None:
    with pytest.raises(ProviderError, match=r"\$ANTHROPIC_API_KEY"):
        load_judge("anthropic", JudgeConfig(provider="anthropic"), env={})


def test_the_local_judge_never_imports_anthropic() -> None:
    code = (
        "import sys\n"
        "from memtui.core.config import JudgeConfig\n"
        "from memtui.core.judge.providers import load_judge\n"
        "load_judge('local', JudgeConfig())\n"
        "import memtui.core.judge.run\n"
        "print('anthropic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
