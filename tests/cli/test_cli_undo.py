"""``memtui undo`` per Claude Code home, asking first, pruning the journal, I/O errors in words;
``--demo`` keeps its journal (and its home) to itself."""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import home_args, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome
from memtui.core.write import journal as journal_module
from memtui.core.write.journal import Journal

AGENT = "reviewer"


pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


def home_b(demo: DemoHome, tmp_path: Path) -> list[str]:
    """Another Claude Code home, same project."""
    return ["--claude-home", str(tmp_path / "home-b"), "--project", str(demo.project)]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def replace_in_a(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> str:
    """``snapshot replace`` in home A; the operation's id."""
    code, out, err = run(capsys, *home_args(demo), "snapshot", "replace", AGENT, "--yes")
    assert code == 0, err
    return out.split("memtui undo ")[-1].strip()


def test_an_operation_of_home_a_is_not_undone_from_home_b(
    demo: DemoHome, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    op_id = replace_in_a(demo, capsys)
    after = tree_state(demo.root)

    for confirmed in ([], ["--yes"]):
        code, _, err = run(capsys, *home_b(demo, tmp_path), "undo", *confirmed)
        assert code == 1
        assert f"nothing to undo in Claude Code home {tmp_path / 'home-b'}" in err
        assert "1 operation(s) of other homes are not undone from here" in err
        assert tree_state(demo.root) == after
    code, _, err = run(capsys, *home_b(demo, tmp_path), "undo", op_id, "--yes")
    assert code == 1
    assert f"made in Claude Code home {demo.claude_home}" in err
    assert f"--claude-home {demo.claude_home}" in err
    assert tree_state(demo.root) == after

    code, out, _ = run(capsys, *home_b(demo, tmp_path), "undo", "--list")
    assert code == 0
    assert f"this Claude Code home is {tmp_path / 'home-b'}" in out
    assert f"    home   {demo.claude_home} (another home)" in out
    code, out, _ = run(capsys, *home_args(demo), "undo", "--list")
    assert f"    home   {demo.claude_home} (this home)" in out
    code, out, _ = run(capsys, *home_b(demo, tmp_path), "undo", "--list", "--json")
    (listed,) = json.loads(out)
    assert (listed["id"], listed["home"], listed["this_home"]) == (
        op_id, str(demo.claude_home), False)


def test_undo_asks_first_and_refuses_without_a_terminal(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_state(demo.root)
    op_id = replace_in_a(demo, capsys)
    after = tree_state(demo.root)
    code, out, err = run(capsys, *home_args(demo), "undo")
    assert code == 1
    assert "re-run with --yes to undo" in err
    assert f"undo snapshot-replace: replace {AGENT} memory" in out
    assert f"  restore  {demo.claude_home / 'agent-memory' / AGENT / 'common-bugs.md'}" in out
    assert tree_state(demo.root) == after

    code, out, _ = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 0
    assert out.startswith(f"undid {op_id} ")
    assert tree_state(demo.root) == before


def crashed_in_a(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> str:
    """An operation of home A left ``applying`` by a process that is gone."""
    op_id = replace_in_a(demo, capsys)
    journal = Journal.default()
    record = journal.get(op_id)
    record.state, record.pid = "applying", 0
    journal.save(record)
    return op_id


def test_an_interrupted_operation_of_another_home_is_named_never_recovered(
    demo: DemoHome, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    op_id = crashed_in_a(demo, capsys)
    code, _, err = run(capsys, *home_b(demo, tmp_path), "undo", "--rollback", op_id)
    assert code == 1
    assert f"made in Claude Code home {demo.claude_home}" in err
    code, _, err = run(capsys, *home_b(demo, tmp_path), "undo", "--yes")
    assert code == 1
    assert f"operation {op_id} (snapshot-replace" in err
    assert f"{demo.claude_home} (another home) was interrupted and is left as it is" in err
    assert f"`memtui --claude-home {demo.claude_home} undo --rollback {op_id}`" in err
    code, _, err = run(capsys, *home_b(demo, tmp_path), "snapshot", "status")
    assert f"in Claude Code {demo.claude_home} (another home) was interrupted" in err
    assert Journal.default().get(op_id).state == "applying"


def no_space(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every journal write from now on fails: the disk is full."""

    def full(tmp: Path, data: bytes, mode: int, *, flags: int = 0) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))

    monkeypatch.setattr(journal_module, "write_synced", full)


@pytest.mark.parametrize("action", ["--rollback", "--complete"])
def test_recovery_on_a_full_disk_says_so_in_words(
    demo: DemoHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    action: str,
) -> None:
    op_id = crashed_in_a(demo, capsys)
    no_space(monkeypatch)
    code, out, err = run(capsys, *home_args(demo), "undo", action, op_id)
    assert code == 1
    assert "memtui undo: stopped by an I/O error: No space left on device (" in err
    assert "Traceback" not in err + out


def test_undo_on_a_full_disk_says_so_and_leaves_no_partial_operation(
    demo: DemoHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    state_home: Path,
) -> None:
    replace_in_a(demo, capsys)
    after = tree_state(demo.root)
    no_space(monkeypatch)
    code, _, err = run(capsys, *home_args(demo), "undo", "--yes")
    assert code == 1
    assert "cannot write the undo journal" in err and "No space left on device" in err
    assert len(os.listdir(state_home / "memtui" / "journal")) == 1
    assert tree_state(demo.root) == after


def test_gc_prunes_old_operations_and_says_what_it_freed(
    demo: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    op_id = replace_in_a(demo, capsys)
    journal = Journal.default()
    record = journal.get(op_id)
    record.time = "2025-01-01T00:00:00.000000Z"
    journal.save(record)
    monkeypatch.setenv("MEMTUI_JOURNAL_MAX_AGE_DAYS", "30")
    monkeypatch.setenv("MEMTUI_JOURNAL_MAX_MB", "50")
    code, out, err = run(capsys, *home_args(demo), "undo", "--gc")
    assert code == 0, err
    assert out.startswith("removed 1 journal entries, freed ")
    assert " KB (limits: 30 days, 50.0 MB):\n" in out
    assert f"  {op_id}  2025-01-01 00:00:00 UTC  snapshot-replace: replace {AGENT}" in out
    assert "older than 30 days)" in out
    assert "kept 0 operation(s)" in out
    assert journal.list() == []
    code, out, _ = run(capsys, *home_args(demo), "undo", "--gc")
    assert out.startswith("nothing to remove (limits: 30 days, 50.0 MB)")


def test_gc_reports_an_unreadable_journal_in_words(
    demo: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    replace_in_a(demo, capsys)

    def unreadable(path: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))

    monkeypatch.setattr(os, "scandir", unreadable)
    code, out, err = run(capsys, *home_args(demo), "undo", "--gc")
    assert code == 1
    assert "memtui undo: stopped by an I/O error: Input/output error (" in err
    assert "Traceback" not in err + out


def test_gc_names_what_it_could_not_remove(
    demo: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    op_id = replace_in_a(demo, capsys)
    journal = Journal.default()
    record = journal.get(op_id)
    record.time = "2025-01-01T00:00:00.000000Z"
    journal.save(record)

    def fails(path: object, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))

    monkeypatch.setattr(shutil, "rmtree", fails)
    monkeypatch.setenv("MEMTUI_JOURNAL_MAX_MB", "lots")
    code, out, err = run(capsys, *home_args(demo), "undo", "--gc")
    assert code == 1
    assert "memtui: MEMTUI_JOURNAL_MAX_MB='lots' is not a number of 0 or more; using 100" in err
    assert "memtui undo --gc: cannot remove " in err and "Input/output error" in err
    assert "out of the journal; `memtui undo --gc` tries again" in err
    assert out.startswith("nothing to remove")  # nothing was freed
    assert journal.list() == []


@pytest.mark.parametrize("keep", [False, True])
def test_demo_keeps_its_journal_to_itself_and_cleans_up(
    tmp_path: Path,
    state_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    keep: bool,
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    flag = "--keep-demo" if keep else "--demo"
    code, out, err = run(capsys, flag, "snapshot", "replace", AGENT, "--yes")
    assert code == 0, err
    assert "undo with: memtui undo " in out
    assert not state_home.exists()  # nothing in $XDG_STATE_HOME/memtui
    left = list(temp.iterdir())
    if not keep:
        assert left == []
        assert "removed on exit; --keep-demo keeps it" in err
        return
    (root,) = left
    assert f"memtui: demo home kept in {root}" in err
    (record,) = Journal(root / "state" / "journal").list()
    assert record.home == str(root / "home" / "claude")
    assert record.kind == "snapshot-replace"


def test_an_interrupted_operation_of_another_home_across_stores_names_every_root(
    demo: DemoHome, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviewer = demo.claude_home / "agent-memory" / AGENT
    planner = demo.claude_home / "agent-memory" / "planner"
    code, _, err = run(capsys, *home_args(demo), "delete", str(reviewer), "common-bugs.md",
                         str(planner / "roadmap.md"), "--yes")
    assert code == 0, err
    journal = Journal.default()
    [record] = journal.list()
    record.state, record.pid = "applying", 0
    journal.save(record)
    code, _, err = run(capsys, *home_b(demo, tmp_path), "snapshot", "status")
    assert f"{record.progress} of 4 files done, in {reviewer} and {planner}); it is left" in err
