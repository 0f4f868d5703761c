"""``memtui distil``: the preview, --json, --apply (asked, --yes), undo, refusals, STORE forms."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from helpers import demo_context, home_args, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_big_store, write_file
from memtui.core.stores.locations import locate
from memtui.core.write.lock import LOCK_NAME

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


@pytest.fixture
def demo(tmp_path: Path) -> DemoHome:
    """A demo home of this test's own, auto memory included (its directory is named after the
    project's path, which a copy would change)."""
    return build_demo_home(tmp_path / "demo")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def auto_dir(demo: DemoHome) -> Path:
    return locate(demo_context(demo)).auto.path


def test_the_preview_prints_the_proposal_and_writes_nothing(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_state(demo.root)
    code, out, err = run(capsys, *home_args(demo), "distil", "auto")
    assert code == 0, err
    assert "215 → 78 lines, 16,202 → 4,973 units, 0 entries past the cut, 61 % headroom" in out
    assert "dropped pointers (their files are gone) (2):" in out
    assert "line 29: drop [Klarna pay-later](klarna.md): the file is gone" in out
    assert "add [user-timezone](user-timezone.md) under ## User" in out
    assert "line 52: move [Architecture] under ## Project" in out
    assert 'move the section "Area notes" (143 lines) to memory-section-area-notes.md' in out
    assert "--- a/MEMORY.md\n+++ b/MEMORY.md\n" in out
    assert "+++ b/memory-section-area-notes.md" in out
    assert "preview only" in out
    assert tree_state(demo.root) == before


def test_json(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *home_args(demo), "distil", "auto", "--json")
    assert code == 0
    plan = json.loads(out)
    assert plan["store"]["kind"] == "auto"
    assert (plan["before"]["lines"], plan["before"]["dropped"]) == (215, 13)
    assert plan["after"]["fits"] and plan["after"]["dropped"] == 0
    assert plan["meter"].startswith("215 → 78 lines")
    kinds = {c["kind"] for c in plan["changes"]}
    assert kinds == {"shorten-hook", "drop-dangling", "regroup", "add-orphan", "move-section"}
    assert {f["rel"]: f["status"] for f in plan["files"]} == {
        "MEMORY.md": "changed", "stripe-webhooks.md": "changed",
        "memory-section-area-notes.md": "added"}


def test_apply_asks_then_yes_applies_and_undo_restores(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_state(demo.root)
    code, out, err = run(capsys, *home_args(demo), "distil", "auto", "--apply")
    assert code == 1 and "re-run with --yes to apply" in err
    assert "215 → 78 lines" in out  # the plan's notes carry the meter
    assert tree_state(demo.root) == before
    code, out, err = run(capsys, *home_args(demo), "distil", "auto", "--apply", "--yes")
    assert code == 0, err
    assert "undo with: memtui undo " in out
    assert (auto_dir(demo) / "memory-section-area-notes.md").is_file()
    code, out, _ = run(capsys, *home_args(demo), "distil", "auto", "--json")
    assert json.loads(out)["before"]["lines"] == 78
    code, _, err = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 0, err
    assert tree_state(demo.root) == before


def test_a_live_lock_refuses_the_apply(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    write_file(auto_dir(demo) / LOCK_NAME, str(os.getpid()))
    before = tree_state(demo.root)
    code, out, _ = run(capsys, *home_args(demo), "distil", "auto")
    assert code == 0 and f"held by PID {os.getpid()}" in out
    code, _, err = run(capsys, *home_args(demo), "distil", "auto", "--apply", "--yes")
    assert code == 1 and "refused: a live .consolidate-lock is held" in err
    assert tree_state(demo.root) == before


def test_store_forms(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *home_args(demo), "distil", "agent:reviewer:user")
    assert code == 0 and out.startswith("distil agent reviewer (user):")
    index = auto_dir(demo) / "MEMORY.md"
    code, out, _ = run(capsys, *home_args(demo), "distil", str(index))
    assert code == 0 and out.startswith("distil auto:")
    code, out, _ = run(capsys, *home_args(demo), "distil", "team")
    assert code == 0 and out.startswith("distil team:")
    code, out, _ = run(capsys, *home_args(demo), "distil", "agentmemory")
    assert code == 0 and out.startswith("distil agentmemory:")
    code, out, _ = run(capsys, *home_args(demo), "distil", str(demo.agent_memory_home))
    assert code == 0 and out.startswith("distil agentmemory:")
    code, _, err = run(capsys, *home_args(demo), "distil", "agent:nobody")
    assert code == 2 and "no such agent memory (known: agent:acme-lint:user" in err
    code, _, err = run(capsys, *home_args(demo), "distil", str(demo.root / "nowhere"))
    assert code == 2 and "is no store directory" in err


def test_a_progress_bar_on_a_terminal_for_a_large_store(
    demo: DemoHome, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = tmp_path / "big"
    write_big_store(store)
    code, _, err = run(capsys, *home_args(demo), "distil", str(store))
    assert code == 0 and "reading memories" not in err  # not a terminal: no bar
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main([*home_args(demo), "distil", str(store)])
    assert code == 0
    bar = terminal.getvalue()
    assert "\rreading memories [" in bar and bar.endswith("] 211/211\n")


def test_agentmemory_preview_json_apply_undo_and_a_second_distil(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    home = demo.agent_memory_home
    before = tree_state(demo.root)
    code, out, err = run(capsys, *home_args(demo), "distil", "agentmemory")
    assert code == 0, err
    assert out.startswith(f"distil agentmemory: {home / 'MEMORY.md'}\n  23 → 50 lines, 500 → ")
    assert "units (not loaded by Claude Code)\n" in out
    assert "  * Claude Code does not load an agentmemory home's MEMORY.md" in out
    assert "  * SCRATCHPAD.md line 7: open: rotate the staging key" in out
    assert "sections added (4):\n  ## #deploy: added, 2 entries\n" in out
    assert "  ## Recent: 5 entries (was 1), 1 line of yours kept\n" in out
    assert "+## #incident\n" in out and " My own note: ask Dana about the ERP sync window.\n" in out
    assert tree_state(demo.root) == before

    code, out, _ = run(capsys, *home_args(demo), "distil", "agentmemory", "--json")
    plan = json.loads(out)
    assert plan["store"]["kind"] == "agentmemory" and plan["cut"] == []
    assert {c["kind"] for c in plan["changes"]} == {"generate-section"}
    assert {c["group"] for c in plan["changes"]} == {"added", "changed"}
    assert [f["rel"] for f in plan["files"]] == ["MEMORY.md"]
    assert plan["meter"].endswith("(not loaded by Claude Code)")

    code, _, err = run(capsys, *home_args(demo), "distil", "agentmemory", "--apply")
    assert code == 1 and "re-run with --yes to apply" in err
    assert tree_state(demo.root) == before
    code, out, err = run(capsys, *home_args(demo), "distil", "agentmemory", "--apply", "--yes")
    assert code == 0, err
    index = (home / "MEMORY.md").read_text()
    assert "## #incident\n" in index and "## Pinned\n- Money is integer cents, always.\n" in index
    code, out, _ = run(capsys, *home_args(demo), "distil", "agentmemory", "--apply", "--yes")
    assert code == 0 and "is already distilled; nothing was written" in out
    assert (home / "MEMORY.md").read_text() == index
    code, _, err = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 0, err
    assert tree_state(demo.root) == before
