"""``memtui context``: every part Claude Code loads at session start, with its size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import copy_demo, home_args

from memtui.cli import main
from memtui.core.demo.build import DemoHome


@pytest.fixture
def home(pristine: DemoHome, tmp_path: Path) -> DemoHome:
    return copy_demo(pristine, tmp_path / "demo", keep_auto=True)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lists_every_part_with_its_size(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *home_args(home), "context", "--json")
    data = json.loads(out)
    assert code == 0 and data["agent"] is None
    kinds = [p["kind"] for p in data["parts"]]
    assert "claude_md" in kinds and kinds.count("memory_index") == 2
    for part in data["parts"]:
        assert {"path", "kind", "lines", "units", "tokens", "exact"} <= set(part)
        assert part["exact"] is False
    assert data["total"]["tokens"] == sum(p["tokens"] for p in data["parts"])
    code, text, _ = run(capsys, *home_args(home), "context")
    assert code == 0 and "(auto memory)" in text and "never loaded" in text
    assert "~ estimated" in text


def test_an_agents_context(home: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *home_args(home), "context", "--agent", "planner", "--json")
    kinds = [p["kind"] for p in json.loads(out)["parts"]]
    assert code == 0 and "agent_memory_index" in kinds and "memory_index" not in kinds
    code, _, err = run(capsys, *home_args(home), "context", "--agent", "nobody")
    assert code == 2 and "no agent memory named nobody" in err


def test_count_tokens_needs_a_key(
    home: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, _, err = run(capsys, *home_args(home), "context", "--count-tokens")
    assert code == 2 and "no API key" in err


def test_count_tokens_counts_each_part_redacted(
    home: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.recall.mock_selector import FakeSelector

    from memtui.core.recall import anthropic_recall

    api = FakeSelector()
    monkeypatch.setattr(anthropic_recall, "http_client_factory", api.client)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    code, out, _ = run(capsys, *home_args(home), "context", "--count-tokens", "--json")
    data = json.loads(out)
    assert code == 0 and data["total"]["exact"] is True
    assert all(p["tokens"] == 812 for p in data["parts"] if p["lines"])
    assert all("max_tokens" not in body for body in api.bodies)
