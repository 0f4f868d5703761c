"""A snapshot action that would change no file is not applied: the CLI says there is nothing
to do, exits 0 and journals nothing (issue 10, bug 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import home_args, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome
from memtui.core.write.journal import Journal

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


def journal_ops(state_home: Path) -> list[str]:
    directory = state_home / "memtui" / "journal"
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_mark_synced_on_a_synced_agent_does_nothing(
    demo: DemoHome, state_home: Path, capsys: pytest.CaptureFixture[str], json_flag: list[str]
) -> None:
    """The planner's memory already records the snapshot's updatedAt: mark-synced --yes would
    rewrite the same bytes and journal an operation that changed nothing."""
    before = tree_state(demo.root)
    code = main([*home_args(demo), "snapshot", "mark-synced", "planner", "--yes", *json_flag])
    out, err = capsys.readouterr()
    assert code == 0, err
    if json_flag:
        plan = json.loads(out)
        assert plan["nothing_to_do"].startswith("nothing to do")
        assert [f["status"] for f in plan["files"]] == ["unchanged"]
    else:
        assert "nothing to do" in out and "nothing was written" in out
        assert "undo with" not in out
    assert tree_state(demo.root) == before
    assert journal_ops(state_home) == []


def test_initialize_twice_does_nothing_the_second_time(
    demo: DemoHome, state_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*home_args(demo), "snapshot", "init", "qa", "--yes"]
    assert main(args) == 0
    first, _ = capsys.readouterr()
    assert "undo with: memtui undo " in first
    done = journal_ops(state_home)
    assert len(done) == 1
    after_first = tree_state(demo.root)
    assert main(args) == 0
    second, _ = capsys.readouterr()
    assert "nothing to do" in second
    assert tree_state(demo.root) == after_first
    assert journal_ops(state_home) == done
    assert len(Journal(state_home / "memtui" / "journal").list()) == 1


def test_one_file_is_counted_in_the_singular(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    """mark-synced on qa (no memory dir yet) writes one file: "(1 file)", not "(1 files)"."""
    code = main([*home_args(demo), "snapshot", "mark-synced", "qa", "--yes"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "(1 file); undo with: memtui undo " in out
