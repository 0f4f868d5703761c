"""The CLI of the write path: snapshot init/replace/mark-synced, delete, undo, recovery."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import REPO, copy_demo, home_args, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import index_entry
from memtui.core.stores.snapshot import SYNCED_JSON
from memtui.core.write.apply import CRASH_ENV, CRASH_EXIT_CODE
from memtui.core.write.journal import Journal
from memtui.core.write.lock import LOCK_NAME

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


class Terminal(io.StringIO):
    """A stdin that says it is a terminal, with the user's typed answer."""

    def isatty(self) -> bool:
        return True


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def reviewer_dir(demo: DemoHome) -> Path:
    return demo.claude_home / "agent-memory" / "reviewer"


def test_without_yes_the_plan_is_shown_and_nothing_changes(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_state(demo.root)
    code, out, err = run(capsys, *home_args(demo), "snapshot", "replace", "reviewer")
    assert code == 1
    assert "re-run with --yes to apply" in err
    assert "replace reviewer memory with its snapshot (user scope)" in out
    assert "deleted   common-bugs.md" in out
    assert "added     house-style.txt" in out
    assert "deletes your local memories: common-bugs.md, deploy-freeze.md" in out
    assert "--- a/common-bugs.md\n+++ /dev/null\n" in out  # the deleted memory's text
    assert "-Check refund paths for double execution on retries.\n" in out
    assert "--- a/MEMORY.md\n+++ b/MEMORY.md\n" in out
    assert "house-style.txt\n+++" not in out  # only .md files get a diff
    assert tree_state(demo.root) == before
    assert Journal.default().list() == []


def test_json_plan(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *home_args(demo), "snapshot", "init", "qa", "--json")
    assert code == 1
    plan = json.loads(out)
    assert plan["kind"] == "snapshot-initialize"
    assert plan["root"] == str(demo.claude_home / "agent-memory" / "qa")
    assert {f["rel"]: f["status"] for f in plan["files"]} == {
        "MEMORY.md": "added",
        "browsers.txt": "added",
        "test-matrix.md": "added",
        SYNCED_JSON: "added",
    }


def test_yes_applies_and_undo_restores(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree_state(demo.root)
    code, out, err = run(capsys, *home_args(demo), "snapshot", "replace", "reviewer", "--yes")
    assert code == 0, err
    assert "undo with: memtui undo " in out
    local = reviewer_dir(demo)
    assert not (local / "common-bugs.md").exists()
    assert (local / SYNCED_JSON).read_bytes() == b'{"syncedFrom":"2026-11-25T09:00:00.000Z"}'

    code, out, _ = run(capsys, *home_args(demo), "undo", "--list")
    assert code == 0
    assert "snapshot-replace" in out
    assert "replace reviewer memory with its snapshot (user scope)" in out
    assert f"delete {local / 'common-bugs.md'}" in out
    assert " UTC " in out

    code, out, _ = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 0
    assert out.startswith("undid ")
    assert tree_state(demo.root) == before

    code, _, err = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 1
    assert "nothing to undo" in err
    code, out, _ = run(capsys, *home_args(demo), "undo", "--list", "--json")
    records = json.loads(out)
    assert [(r["kind"], r["undone"]) for r in records] == [
        ("undo", False),
        ("snapshot-replace", True),
    ]


def test_the_prompt_applies_on_yes_only(
    demo: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    local = demo.claude_home / "agent-memory" / "qa"
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    code, _, err = run(capsys, *home_args(demo), "snapshot", "init", "qa")
    assert code == 1
    assert "Apply? [y/N]" in err
    assert not local.exists()
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    code, _, _ = run(capsys, *home_args(demo), "snapshot", "init", "qa")
    assert code == 0
    assert (local / "test-matrix.md").is_file()


def test_scope_option_picks_the_local_dir(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys,
        *home_args(demo),
        "snapshot",
        "mark-synced",
        "reviewer",
        "--scope",
        "local",
        "--yes",
    )
    assert code == 0, err
    local = demo.project / ".claude" / "agent-memory-local" / "reviewer"
    assert sorted(p.name for p in local.iterdir()) == [SYNCED_JSON]


def test_refusals_and_usage_errors(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *home_args(demo), "snapshot", "init", "nobody", "--yes")
    assert code == 2
    assert "no snapshot for agent 'nobody'" in err
    code, _, err = run(capsys, *home_args(demo), "snapshot", "init", "docs-writer", "--yes")
    assert code == 1
    assert "snapshot.json is not valid JSON" in err
    (reviewer_dir(demo) / LOCK_NAME).write_text(str(os.getpid()))
    code, _, err = run(capsys, *home_args(demo), "snapshot", "replace", "reviewer", "--yes")
    assert code == 1
    assert "Claude Code is consolidating memory in" in err
    code, _, err = run(capsys, "undo", "no-such-op")
    assert code == 2
    code, _, err = run(capsys, "undo", "--list", "x")
    assert code == 2


def test_delete_memory_and_undo(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    store = reviewer_dir(demo)
    before = tree_state(demo.root)
    code, out, _ = run(capsys, *home_args(demo), "delete", str(store), "common-bugs.md")
    assert code == 1
    assert "removes MEMORY.md line" in out
    code, _, err = run(capsys, *home_args(demo), "delete", str(store), "common-bugs.md", "--yes")
    assert code == 0, err
    assert not (store / "common-bugs.md").exists()
    line = index_entry("Common bugs", "common-bugs.md", "bugs seen more than twice")
    assert line not in (store / "MEMORY.md").read_text()
    code, _, _ = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 0
    assert tree_state(demo.root) == before
    code, _, err = run(capsys, *home_args(demo), "delete", str(store), "nope.md", "--yes")
    assert code == 2


def test_delete_of_several_memories_is_one_operation_with_one_undo(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    store = reviewer_dir(demo)
    before = tree_state(demo.root)
    names = ["common-bugs.md", "deploy-freeze.md", "review-checklist.md"]
    code, out, _ = run(capsys, *home_args(demo), "delete", str(store), *names)
    assert code == 1  # not a terminal: the one plan is shown, nothing written
    assert out.count("delete 3 memories from") == 1
    assert all(f"deleted   {name}" in out for name in names)
    assert out.count("changed   MEMORY.md") == 1
    assert tree_state(demo.root) == before

    code, _, err = run(capsys, *home_args(demo), "delete", str(store), "common-bugs.md", "nope.md",
                       "--yes")
    assert code == 2 and "'nope.md'" in err and "nothing was written" in err
    assert tree_state(demo.root) == before

    code, _, err = run(capsys, *home_args(demo), "delete", str(store), *names, "--yes")
    assert code == 0, err
    assert sorted(p.name for p in store.glob("*.md")) == ["MEMORY.md"]
    code, out, _ = run(capsys, *home_args(demo), "undo", "--list", "--json")
    assert code == 0
    assert [op["kind"] for op in json.loads(out)] == ["delete-memories"]
    code, _, _ = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 0
    assert tree_state(demo.root) == before


def test_a_huge_sparse_file_is_refused_before_it_is_read(
    demo: DemoHome, capsys: pytest.CaptureFixture[str], state_home: Path
) -> None:
    """A 2 GB sparse file an agent left behind: delete and a snapshot replace that would remove
    it refuse at once (it would be copied whole into the journal), and nothing changes."""
    store = reviewer_dir(demo)
    huge = store / "huge.md"
    with huge.open("wb") as f:
        f.truncate(2 * 1024**3)
    before = (huge.stat().st_size, huge.stat().st_mtime_ns, (store / "MEMORY.md").read_bytes())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    code, _, err = run(capsys, *home_args(demo), "delete", str(store), "huge.md", "--yes")
    assert code == 1
    assert f"{huge} is 2048.0 MB: memtui keeps the old bytes of every file it changes" in err
    assert "changes no file over 64 MB; nothing was written" in err
    code, _, err = run(capsys, *home_args(demo), "snapshot", "replace", "reviewer", "--yes")
    assert code == 1
    assert f"{huge} is 2048.0 MB" in err
    assert time.monotonic() - started < 20
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 256 * 1024  # KB
    after = (huge.stat().st_size, huge.stat().st_mtime_ns, (store / "MEMORY.md").read_bytes())
    assert after == before
    assert not (state_home / "memtui" / "journal").exists() or not any(
        (state_home / "memtui" / "journal").iterdir()
    )


def test_a_killed_cli_run_is_reported_and_rolled_back(
    demo: DemoHome, capsys: pytest.CaptureFixture[str], state_home: Path
) -> None:
    before = tree_state(demo.root)
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(state_home),
        CRASH_ENV: "9",
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memtui",
            *home_args(demo),
            "snapshot",
            "replace",
            "reviewer",
            "--yes",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == CRASH_EXIT_CODE, done.stderr
    assert tree_state(demo.root) != before  # killed halfway: some files already changed
    (record,) = Journal.default().incomplete()

    code, _, err = run(capsys, *home_args(demo), "snapshot", "status")
    assert code == 0
    assert f"operation {record.id} (snapshot-replace" in err
    assert f"memtui undo --rollback {record.id}" in err
    assert f"memtui undo --complete {record.id}" in err

    code, out, _ = run(capsys, *home_args(demo), "undo", "--rollback", record.id)
    assert code == 0
    assert "rolled back" in out
    assert tree_state(demo.root) == before
    _, _, err = run(capsys, *home_args(demo), "snapshot", "status")
    assert "interrupted" not in err


def test_delete_across_stores_with_separate_roots_is_one_operation_with_one_undo(
    pristine: DemoHome, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An auto memory and an agent memory (named by its path) in one call: one plan naming
    both targets, one journal entry, one undo; a snapshot's memory is refused."""
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    auto, reviewer = demo.auto_memory, reviewer_dir(demo)
    other = str(reviewer / "common-bugs.md")
    before = tree_state(demo.root)
    code, out, _ = run(capsys, *home_args(demo), "delete", str(auto), "user-role.md", other)
    assert code == 1  # not a terminal: the one plan is shown, nothing written
    assert out.count("delete 2 memories from") == 1
    assert f"writes into {auto} and {reviewer}" in out
    assert tree_state(demo.root) == before

    code, _, err = run(capsys, *home_args(demo), "delete", str(auto), "user-role.md", other,
                       "--yes")
    assert code == 0, err
    assert not (auto / "user-role.md").exists() and not (reviewer / "common-bugs.md").exists()
    line = index_entry("Common bugs", "common-bugs.md", "bugs seen more than twice")
    assert line not in (reviewer / "MEMORY.md").read_text()
    assert "(user-role.md)" not in (auto / "MEMORY.md").read_text()
    code, out, _ = run(capsys, *home_args(demo), "undo", "--list", "--json")
    assert [op["kind"] for op in json.loads(out)] == ["delete-memories"]
    code, _, _ = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 0
    assert tree_state(demo.root) == before

    shipped = demo.project / ".claude" / "agent-memory-snapshots" / "docs-writer" / "style-guide.md"
    code, _, err = run(capsys, *home_args(demo), "delete", str(auto), "user-role.md",
                       str(shipped), "--yes")
    assert code == 1 and "is a snapshot" in err
    assert tree_state(demo.root) == before
