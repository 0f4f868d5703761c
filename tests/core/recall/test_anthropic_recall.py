"""Recall's selector through the real anthropic SDK against ``httpx2.MockTransport``: the side
query Claude Code sends (its system prompt, ``Query: … Available memories: …``, 256 tokens, the
JSON schema), redacted; the answer's names attached; 429, 529, a reply that is no JSON and a
missing key fall back to the offline ranking, said in the notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from core.recall.mock_selector import FakeSelector

from memtui.core.config import JudgeConfig
from memtui.core.demo.story import FAKE_GITHUB_PAT
from memtui.core.demo.writers import write_memory
from memtui.core.judge.providers import ProviderError
from memtui.core.recall.anthropic_recall import (
    MAX_TOKENS,
    SYSTEM,
    AnthropicRecall,
    preview_anthropic,
)
from memtui.core.recall.manifest import build_manifest

NOW = 1_800_000_000_000.0


def home(tmp_path: Path) -> Path:
    write_memory(tmp_path, "pgbouncer.md", type="reference",
                 description=f"Postgres via pgbouncer on 6432; token {FAKE_GITHUB_PAT}")
    write_memory(tmp_path, "style.md", type="feedback", description="Line length is 100")
    return tmp_path


def recall(api: FakeSelector) -> AnthropicRecall:
    return AnthropicRecall.from_config(JudgeConfig(), env={"ANTHROPIC_API_KEY": "sk-test"},
                                       http_client=api.client())


def test_the_side_query_is_claude_codes_and_redacted(tmp_path: Path) -> None:
    api = FakeSelector()
    manifest = build_manifest(home(tmp_path))
    preview = preview_anthropic(recall(api), manifest, "why is pgbouncer slow", NOW)
    body = api.bodies[-1]
    assert body["system"] == SYSTEM and body["max_tokens"] == MAX_TOKENS
    assert body["output_config"]["format"]["schema"]["required"] == ["selected_memories"]
    content = body["messages"][0]["content"]
    assert content.startswith("Query: why is pgbouncer slow\n\nAvailable memories:\n- [")
    assert FAKE_GITHUB_PAT not in json.dumps(api.bodies) and "[REDACTED:" in content
    assert preview.exact and preview.provider == "anthropic"
    assert [c.file.rel_path for c in preview.chosen] == ["pgbouncer.md"]


def test_the_estimate_counts_before_sending(tmp_path: Path) -> None:
    api = FakeSelector()
    estimate = recall(api).estimate(build_manifest(home(tmp_path)), "why is pgbouncer slow")
    assert estimate.exact_tokens and estimate.input_tokens == 812
    assert estimate.redactions == 1 and estimate.cost_usd > 0
    assert all(not b.get("max_tokens") for b in api.bodies)  # only count_tokens was called


def test_names_the_manifest_lacks_are_dropped(tmp_path: Path) -> None:
    api = FakeSelector(answer={"selected_memories": ["nope.md", "style.md", 3]})
    preview = preview_anthropic(recall(api), build_manifest(home(tmp_path)), "line length?", NOW)
    assert [c.file.rel_path for c in preview.chosen] == ["style.md"]


@pytest.mark.parametrize("answer", [429, 529, "not json at all", {"other": []}])
def test_a_failed_request_falls_back_to_the_offline_ranking(tmp_path: Path, answer: Any) -> None:
    api = FakeSelector(answer=answer)
    preview = preview_anthropic(recall(api), build_manifest(home(tmp_path)),
                                "why is pgbouncer slow", NOW)
    assert preview.provider == "local" and not preview.exact
    assert preview.notes[0].startswith("anthropic failed (")
    assert [c.file.rel_path for c in preview.chosen] == ["pgbouncer.md"]


def test_no_key_sends_nothing() -> None:
    with pytest.raises(ProviderError, match="no API key"):
        AnthropicRecall.from_config(JudgeConfig(), env={})
