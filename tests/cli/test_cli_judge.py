"""``memtui judge`` on the demo home: the pairs that need a decision, JSON, decisions, and the
anthropic provider through the real SDK against a mocked Messages API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core.judge.mock_api import FakeMessagesAPI
from helpers import home_args, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome
from memtui.core.demo.story import FAKE_AWS_KEY_ID, FAKE_GITHUB_PAT
from memtui.core.judge import anthropic_judge

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


@pytest.fixture
def home(pristine: DemoHome) -> DemoHome:
    """The demo home itself: judging writes no memory (a test checks it), only the ledger in
    the test's state dir. (A copy would lose auto memory: its folder is named after the
    project's path.)"""
    return pristine


def judge_json(home: DemoHome, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:
    code = main([*home_args(home), "judge", "--json", *extra])
    out, _err = capsys.readouterr()
    return code, json.loads(out)


def names(pair: dict) -> set[str]:
    return {Path(pair["a"]["path"]).name, Path(pair["b"]["path"]).name}


def test_judge_lists_the_pairs_that_need_a_decision_and_exits_1(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_state(home.root)
    code = main([*home_args(home), "judge"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "need a decision" in out.splitlines()[0]
    assert "duplicate 1.00 by local" in out
    assert "A agent:reviewer (user) · deploy-freeze.md" in out
    assert "“not sqlite” vs “sqlite”" in out
    assert "memtui judge resolve PAIR" in out
    assert tree_state(home.root) == before  # judging writes no memory


def test_judge_json_and_a_decision_that_stops_a_pair_being_raised(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = judge_json(home, capsys)
    assert code == 1 and data["provider"] == "local" and data["estimate"] is None
    assert data["open"] == len(data["pairs"]) >= 3
    test_db = next(p for p in data["pairs"] if names(p) == {"test-db-postgres.md",
                                                            "test-db-sqlite.md"})
    assert test_db["verdict"]["relation"] == "conflicts_with"
    assert test_db["a"]["kind"] == test_db["b"]["kind"] == "auto"
    assert test_db["state"] == "judged"

    assert main([*home_args(home), "judge", "resolve", test_db["id"], "not_conflict"]) == 0
    assert "not raised again until one side changes" in capsys.readouterr()[0]
    _, again = judge_json(home, capsys)
    assert test_db["id"] not in {p["id"] for p in again["pairs"]}
    assert again["judged"] == 0  # every pair kept its verdict from the first run
    _, every = judge_json(home, capsys, "--all")
    decided = next(p for p in every["pairs"] if p["id"] == test_db["id"])
    assert decided["state"] == "decided" and decided["verdict"]["judge"] == "user"


def test_resolve_an_unknown_pair_is_bad_usage(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*home_args(home), "judge", "resolve", "0000000000", "related"]) == 2
    assert "no candidate pair 0000000000" in capsys.readouterr()[1]


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> FakeMessagesAPI:
    fake = FakeMessagesAPI()
    monkeypatch.setattr(anthropic_judge, "http_client_factory", fake.client)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    return fake


def test_the_anthropic_provider_shows_its_estimate_and_sends_nothing_unasked(
    home: DemoHome, api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*home_args(home), "judge", "--provider", "anthropic", "--max-pairs", "5"])
    _out, err = capsys.readouterr()
    assert code == 1
    assert "would send anthropic (claude-haiku-5-5): 5 pairs" in err
    assert "nothing was sent; re-run with --yes" in err
    assert api.calls == 0 and api.counted == 2  # one group request, and the cached prefix


def test_the_anthropic_provider_with_yes_judges_and_reports_usage(
    home: DemoHome, api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = judge_json(home, capsys, "--provider", "anthropic", "--max-pairs", "9", "--yes")
    assert code == 1
    assert api.calls == data["estimate"]["requests"]  # the group requests counted
    assert data["estimate"]["pairs"] == 9 and data["usage"]["requests"] == api.calls
    estimate = data["estimate"]
    assert estimate["groups"] >= 1 and estimate["requests"] >= 1  # the groups the requests carry
    cached = estimate["cache_read_tokens"] + estimate["cache_write_tokens"]
    assert 0 <= cached <= estimate["input_tokens"]  # of the input, what is priced as cached
    assert data["judged"] == 9
    judged_by = {p["verdict"]["judge"] for p in data["pairs"] if p["verdict"]}
    assert "claude-haiku-5-5" in judged_by
    assert "only the best 9 pairs sent (--max-pairs)" in data["notes"]
    for text in [*api.bodies, json.dumps(data)]:
        assert FAKE_GITHUB_PAT not in text and FAKE_AWS_KEY_ID not in text


def test_batch_sends_one_message_batch(
    home: DemoHome, api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(anthropic_judge, "BATCH_POLL_SECONDS", 0.0)
    code, data = judge_json(home, capsys, "--provider", "anthropic", "--max-pairs", "9",
                            "--batch", "--yes")
    assert code == 1
    assert api.calls == 0 and len(api.batches) == 1  # no Messages call: one batch
    assert len(next(iter(api.batches.values()))) == data["estimate"]["requests"]
    assert data["estimate"]["provider"] == "anthropic batch"
    assert any("half the price" in note for note in data["estimate"]["notes"])
    assert data["judged"] == 9 and data["usage"]["requests"] == data["estimate"]["requests"]
    for text in api.bodies:
        assert FAKE_GITHUB_PAT not in text and FAKE_AWS_KEY_ID not in text


def test_a_spend_cap_below_the_estimate_sends_nothing(
    home: DemoHome, api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[judge]\nprovider = "anthropic"\nspend_cap_usd = 0.000001\n')
    code = main([*home_args(home), "--config", str(config), "judge", "--yes"])
    err = capsys.readouterr()[1]
    assert code == 1
    assert "over judge.spend_cap_usd ($1e-06); nothing was sent" in err
    assert api.calls == 0


def test_the_cli_default_of_pairs_sent_is_the_cores() -> None:
    from memtui.cli import judge_commands
    from memtui.core.judge import run

    assert judge_commands.MAX_SENT_PAIRS == run.MAX_SENT_PAIRS
