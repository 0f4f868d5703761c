"""``memtui recall --manifest``: the exact manifest text, its JSON, and a store past 200."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import copy_demo, home_args

from memtui.cli import main
from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_memory
from memtui.core.recall.manifest import build_manifest


@pytest.fixture
def home(pristine: DemoHome, tmp_path: Path) -> DemoHome:
    """A copy of the demo home with its auto memory."""
    return copy_demo(pristine, tmp_path / "demo", keep_auto=True)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_manifest_text_is_printed_exactly(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *home_args(home), "recall", "--manifest")
    assert code == 0
    auto = json.loads(run(capsys, *home_args(home), "recall", "--manifest", "--json")[1])
    assert out == auto["manifest"] + "\n"
    expected = build_manifest(Path(auto["store"])).text
    assert auto["manifest"] == expected and expected.startswith("- [")


def test_json_lists_files_and_the_invisible(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Path(json.loads(run(capsys, *home_args(home), "recall", "--manifest", "--json")[1])
                 ["store"])
    base = 1_764_000_000_000_000_000
    for i in range(210):
        path = write_memory(store, f"bulk/b{i:03d}.md", description=f"bulk {i}", type="project")
        os.utime(path, ns=(base + i * 10**9, base + i * 10**9))
    newest = write_memory(store, "newest.md", description="the newest")
    code, out, err = run(capsys, *home_args(home), "recall", "--manifest", "--json")
    data = json.loads(out)
    assert code == 0 and set(data) == {"store", "manifest", "files", "invisible", "problems"}
    assert len(data["files"]) == 200
    assert data["files"][0] == {"path": "newest.md", "type": None, "description": "the newest",
                                "mtime": data["files"][0]["mtime"]}
    assert newest.exists() and "bulk/b000.md" in data["invisible"]
    assert all(f["path"] not in data["invisible"] for f in data["files"])
    code, out, err = run(capsys, *home_args(home), "recall", "--manifest")
    assert out.count("\n") == 200
    assert "recall is never offered them" in err


def test_recall_without_manifest_says_what_to_do(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *home_args(home), "recall")
    assert code == 2 and "--manifest" in err


def test_an_unknown_store_is_a_usage_error(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *home_args(home), "recall", "--manifest", "--store", "agent:nope")
    assert code == 2 and "no such agent memory" in err


def test_a_prompt_previews_what_recall_attaches(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = "how do we roll out the checkout feature flag"
    code, out, _ = run(capsys, *home_args(home), "recall", prompt, "--json")
    data = json.loads(out)
    assert code == 0 and set(data) == {"provider", "exact", "selected", "near", "notes"}
    assert data["provider"] == "local" and data["exact"] is False
    assert 1 <= len(data["selected"]) <= 5
    first = data["selected"][0]
    assert first["path"] == "checkout-flags.md"
    assert first["attachment"].startswith("<system-reminder>\n")
    assert first["attachment"].endswith("\n</system-reminder>")
    code, text, _ = run(capsys, *home_args(home), "recall", prompt)
    assert code == 0 and "== checkout-flags.md" in text and "offline approximation" in text


def test_a_one_word_prompt_attaches_nothing(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *home_args(home), "recall", "checkout")
    assert code == 0 and "recall would attach nothing" in out and "one word" in out


def test_a_secret_in_a_chosen_memory_is_masked(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    store = Path(json.loads(run(capsys, *home_args(home), "recall", "--manifest", "--json")[1])
                 ["store"])
    write_memory(store, "zebra-token.md", description="zebra deploy token for the zebra bot",
                 body=f"token {token}\n")
    code, out, _ = run(capsys, *home_args(home), "recall", "zebra bot token", "--json")
    assert code == 0 and "zebra-token.md" in out and token not in out
    code, out, _ = run(capsys, *home_args(home), "recall", "zebra bot token")
    assert code == 0 and token not in out


def test_anthropic_sends_only_when_confirmed_and_redacts(
    home: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.recall.mock_selector import FakeSelector

    from memtui.core.recall import anthropic_recall

    api = FakeSelector(answer={"selected_memories": ["checkout-flags.md"]})
    monkeypatch.setattr(anthropic_recall, "http_client_factory", api.client)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    prompt = "how do we roll out the checkout feature flag"
    code, _, err = run(capsys, *home_args(home), "recall", prompt, "--provider", "anthropic")
    assert code == 1 and "nothing was sent" in err and "would send anthropic" in err
    assert all("max_tokens" not in body for body in api.bodies)  # counted, never sent
    code, out, err = run(capsys, *home_args(home), "recall", prompt, "--provider", "anthropic",
                         "--yes", "--json")
    data = json.loads(out)
    assert code == 0 and data["provider"] == "anthropic" and data["exact"] is True
    assert [s["path"] for s in data["selected"]] == ["checkout-flags.md"]
    assert any(body.get("max_tokens") == 256 for body in api.bodies)


def test_masked_lines_mask_each_path_and_keep_them_apart() -> None:
    from memtui.cli.recall_commands import masked_lines

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    paths = ["a.md", f"{token}.md", "b\nc.md", "d.md"]
    masked = masked_lines(paths)
    assert len(masked) == 4 and masked[0] == "a.md" and masked[3] == "d.md"
    assert token not in "".join(masked) and masked[2] == "b\nc.md"
    assert masked_lines(["x.md", f"{token}.md"])[1] != f"{token}.md"
    assert masked_lines([]) == []
