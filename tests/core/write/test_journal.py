"""The journal: records, undo (and undo of undo), and recovery of an operation killed at every
step (forked children that exit via the test-only MEMTUI_TEST_CRASH_AFTER hook)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_killed, tree_state

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file
from memtui.core.write import journal as journal_module
from memtui.core.write import recovery as recovery_ops
from memtui.core.write.apply import CRASH_EXIT_CODE, apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal, default_journal_dir
from memtui.core.write.lock import LOCK_NAME
from memtui.core.write.ops.snapshot import plan_snapshot
from memtui.core.write.proposal import FileChange, Proposal, sha256_hex

pytestmark = pytest.mark.usefixtures("state_home")


def small_tree(root: Path) -> Path:
    write_file(root / "a.md", "alpha\n", mode=0o644)
    write_file(root / "b.md", "beta\n", mode=0o640)
    return root


def edit(root: Path, a: bytes = b"ALPHA\n") -> Proposal:
    return Proposal(
        "test",
        "edit a, add c",
        root,
        root,
        [
            FileChange(root / "a.md", "write", a, sha256_hex((root / "a.md").read_bytes())),
            FileChange(root / "sub" / "c.md", "write", b"gamma\n", None),
        ],
    )


# --- records ------------------------------------------------------------------------------


def test_the_record_holds_everything_needed_to_restore(tmp_path: Path, state_home: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal.default()
    op = apply(edit(root), journal)
    op_dir = state_home / "memtui" / "journal" / op.op_id
    assert op_dir.is_dir()
    for directory in (state_home / "memtui", state_home / "memtui" / "journal", op_dir):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    for path in op_dir.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads((op_dir / "op.json").read_text())
    assert data["id"] == op.op_id
    assert data["kind"] == "test"
    assert data["title"] == "edit a, add c"
    assert data["root"] == str(root)
    assert data["state"] == "done"
    assert data["progress"] == 2
    a, c = data["files"]
    assert a["path"] == str(root / "a.md")
    assert a["existed"] is True
    assert a["mode"] == 0o644
    assert a["sha256_before"] == sha256_hex(b"alpha\n")
    assert a["sha256_after"] == sha256_hex(b"ALPHA\n")
    assert c["existed"] is False
    assert c["sha256_before"] is None
    assert data["created_dirs"] == [str(root / "sub")]
    assert (op_dir / "0.old").read_bytes() == b"alpha\n"
    assert (op_dir / "0.new").read_bytes() == b"ALPHA\n"
    assert not (op_dir / "1.old").exists()
    assert (op_dir / "1.new").read_bytes() == b"gamma\n"
    assert data["time"].endswith("Z")


def test_list_is_newest_first(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal.default()
    first = apply(edit(root), journal)
    second = apply(
        Proposal(
            "test",
            "second",
            root,
            root,
            [FileChange(root / "b.md", "delete", None, sha256_hex(b"beta\n"))],
        ),
        journal,
    )
    assert [r.id for r in journal.list()] == [second.op_id, first.op_id]
    assert Journal(tmp_path / "nowhere").list() == []


def test_default_dir_follows_xdg(tmp_path: Path) -> None:
    assert default_journal_dir({"XDG_STATE_HOME": "/s", "HOME": "/h"}) == Path("/s/memtui/journal")
    assert default_journal_dir({"HOME": "/h"}) == Path("/h/.local/state/memtui/journal")
    assert default_journal_dir({"XDG_STATE_HOME": "rel", "HOME": "/h"}) == Path(
        "/h/.local/state/memtui/journal"
    )
    own = {"MEMTUI_STATE_DIR": "/demo/state", "XDG_STATE_HOME": "/s"}
    assert default_journal_dir(own) == Path("/demo/state/journal")


# --- undo ---------------------------------------------------------------------------------


def test_undo_restores_bytes_modes_mtimes_and_removes_created_dirs(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    before = tree_state(root)
    journal = Journal.default()
    op = apply(edit(root), journal)
    undo = recovery_ops.undo(journal, op.op_id)
    assert tree_state(root) == before
    assert journal.get(op.op_id).undone_by == undo.op_id
    assert journal.get(undo.op_id).undoes == op.op_id
    assert journal.is_undone(journal.get(op.op_id))


def test_undo_of_an_undo_redoes(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal.default()
    op = apply(edit(root), journal)
    after = tree_state(root, mtimes=False)
    undo = recovery_ops.undo(journal, op.op_id)
    recovery_ops.undo(journal, undo.op_id)
    assert tree_state(root, mtimes=False) == after
    assert not journal.is_undone(journal.get(op.op_id))


def test_latest_undoable_walks_back_through_history(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    before = tree_state(root)
    journal = Journal.default()
    first = apply(edit(root), journal)
    b_delete = Proposal(
        "test",
        "delete b",
        root,
        root,
        [FileChange(root / "b.md", "delete", None, sha256_hex(b"beta\n"))],
    )
    second_op = apply(b_delete, journal)
    latest = journal.latest_undoable()
    assert latest is not None
    assert latest.id == second_op.op_id
    recovery_ops.undo(journal, latest.id)
    latest = journal.latest_undoable()
    assert latest is not None
    assert latest.id == first.op_id
    recovery_ops.undo(journal, latest.id)
    assert journal.latest_undoable() is None
    assert tree_state(root) == before


def test_undo_is_refused_when_a_file_changed_since_unless_forced(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal.default()
    op = apply(edit(root), journal)
    (root / "a.md").write_bytes(b"the agent's newer text\n")
    with pytest.raises(EditRefused, match="changed on disk since the preview"):
        recovery_ops.undo(journal, op.op_id)
    assert (root / "a.md").read_bytes() == b"the agent's newer text\n"
    assert (root / "sub" / "c.md").exists()
    recovery_ops.undo(journal, op.op_id, force=True)
    assert (root / "a.md").read_bytes() == b"alpha\n"
    assert not (root / "sub").exists()


def test_undo_respects_a_live_lock(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal.default()
    op = apply(edit(root), journal)
    (root / LOCK_NAME).write_text(str(os.getpid()))
    with pytest.raises(EditRefused, match="Claude Code is consolidating memory"):
        recovery_ops.undo(journal, op.op_id)


def test_recovery_commands_check_the_state(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal.default()
    op = apply(edit(root), journal)
    with pytest.raises(EditRefused, match="not interrupted"):
        recovery_ops.rollback(journal, op.op_id)
    with pytest.raises(EditRefused, match="not interrupted"):
        recovery_ops.complete(journal, op.op_id)
    with pytest.raises(KeyError):
        recovery_ops.undo(journal, "no-such-op")
    with pytest.raises(KeyError):
        journal.get("../escape")


# --- killed mid-operation -----------------------------------------------------------------


def reviewer_case(pristine: DemoHome, base: Path) -> tuple[Path, Callable[[], Proposal]]:
    """Replace on the demo reviewer (deletes, overwrites, adds) with a stale lock present."""
    snap = base / "snapshots" / "reviewer"
    local = base / "agent-memory" / "reviewer"
    shutil.copytree(pristine.project / ".claude" / "agent-memory-snapshots" / "reviewer", snap)
    shutil.copytree(pristine.claude_home / "agent-memory" / "reviewer", local)
    lock = write_file(local / LOCK_NAME, "999999999")
    stamp = time.time() - 3 * 86_400
    os.utime(lock, (stamp, stamp))
    return base, lambda: plan_snapshot(snap, local, "replace")


def qa_case(pristine: DemoHome, base: Path) -> tuple[Path, Callable[[], Proposal]]:
    """Initialize into a missing dir (directories created, no lock to take)."""
    snap = base / "snapshots" / "qa"
    shutil.copytree(pristine.project / ".claude" / "agent-memory-snapshots" / "qa", snap)
    local = base / "agent-memory" / "qa"
    return base, lambda: plan_snapshot(snap, local, "initialize")


CASES = {"replace-with-lock": reviewer_case, "initialize-new-dir": qa_case}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("recovery", ["rollback", "complete"])
def test_an_operation_killed_after_any_step_is_recovered_exactly(
    pristine: DemoHome, tmp_path: Path, case: str, recovery: str
) -> None:
    journal = Journal(tmp_path / "journal")
    reference, make = CASES[case](pristine, tmp_path / "reference")
    apply(make(), Journal(tmp_path / "reference-journal"))
    finished = tree_state(reference, mtimes=False)
    step = 0
    while True:
        step += 1
        assert step < 100, "the operation never finished"
        base, make = CASES[case](pristine, tmp_path / f"run-{step}")
        before = tree_state(base)
        code = run_killed(make(), journal, step)
        if code == 0:
            break  # past the last step: the operation ran to the end
        assert code == CRASH_EXIT_CODE
        stuck = journal.incomplete()
        if not stuck:  # killed after the record said done: the result is complete
            assert journal.list()[0].state == "done"
            assert tree_state(base, mtimes=False) == finished
            continue
        assert len(stuck) == 1
        if recovery == "rollback":
            recovery_ops.rollback(journal, stuck[0].id)
            assert tree_state(base) == before, f"rollback after step {step}"
            assert journal.get(stuck[0].id).state == "rolled-back"
        else:
            recovery_ops.complete(journal, stuck[0].id)
            assert tree_state(base, mtimes=False) == finished, f"complete after step {step}"
            lock = base / "agent-memory" / "reviewer" / LOCK_NAME
            if lock.exists():
                assert lock.stat().st_mtime_ns == before[f"agent-memory/reviewer/{LOCK_NAME}"][3]
            assert journal.get(stuck[0].id).state == "done"
        assert journal.incomplete() == []
        assert not list(base.rglob("*.tmp")), "temp files left behind"
    assert step > 10  # the hook really interrupted the operation at many points


def test_rollback_refuses_a_file_someone_else_changed(pristine: DemoHome, tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    _base, make = reviewer_case(pristine, tmp_path / "run")
    assert run_killed(make(), journal, 12) == CRASH_EXIT_CODE
    (stuck,) = journal.incomplete()
    victim = Path(stuck.files[0].path)  # deleted by the killed replace
    write_file(victim, "the agent recreated it\n")
    with pytest.raises(EditRefused, match="changed by another process"):
        recovery_ops.rollback(journal, stuck.id)
    assert victim.read_text() == "the agent recreated it\n"
    recovery_ops.rollback(journal, stuck.id, force=True)
    assert victim.read_bytes() == journal.old_bytes(stuck, 0)


def test_an_operation_of_a_live_process_is_not_incomplete(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    root = small_tree(tmp_path / "mem")
    assert run_killed(edit(root), journal, 3) == CRASH_EXIT_CODE
    (record,) = journal.incomplete()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        record.pid = sleeper.pid
        journal.save(record)
        assert journal.incomplete() == []
        with pytest.raises(EditRefused, match="still running"):
            recovery_ops.rollback(journal, record.id)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert [r.id for r in journal.incomplete()] == [record.id]


# --- homes --------------------------------------------------------------------------------


def test_a_journal_with_a_home_stamps_it_and_sees_only_its_operations(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    home_a, home_b = tmp_path / "A", tmp_path / "B"
    journal_a = Journal(tmp_path / "journal", home=home_a)
    journal_b = Journal(tmp_path / "journal", home=home_b)
    op = apply(edit(root), journal_a)
    record = journal_b.get(op.op_id)
    assert record.home == os.path.realpath(home_a)
    assert journal_a.latest_undoable() == record
    assert journal_b.latest_undoable() is None
    assert journal_b.mine() == [] and journal_b.list() == [record]
    with pytest.raises(EditRefused, match=f"made in Claude Code home {record.home}"):
        recovery_ops.undo(journal_b, op.op_id)
    assert (root / "a.md").read_bytes() == b"ALPHA\n"


def test_an_older_record_without_a_home_loads_as_unknown(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal(tmp_path / "journal", home=tmp_path / "A")
    op = apply(edit(root), journal)
    path = journal.directory / op.op_id / "op.json"
    data = json.loads(path.read_text())
    del data["home"]
    data["a_key_from_a_later_version"] = 1
    path.write_text(json.dumps(data))
    record = journal.get(op.op_id)
    assert record.home is None
    assert not journal.of_home(record)  # offered nowhere on its own ...
    assert journal.home_problem(record) is None  # ... but undone when named
    recovery_ops.undo(journal, op.op_id)
    assert (root / "a.md").read_bytes() == b"alpha\n"


def test_interrupted_operations_are_split_by_home(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "mem")
    journal_a = Journal(tmp_path / "journal", home=tmp_path / "A")
    journal_b = Journal(tmp_path / "journal", home=tmp_path / "B")
    assert run_killed(edit(root), journal_a, 3) == CRASH_EXIT_CODE
    (stuck,) = journal_a.incomplete()
    assert journal_b.incomplete() == []
    assert [r.id for r in journal_b.incomplete_elsewhere()] == [stuck.id]
    with pytest.raises(EditRefused, match="made in Claude Code home"):
        recovery_ops.rollback(journal_b, stuck.id)
    assert journal_b.get(stuck.id).state == "applying"


# --- a full disk while journaling -----------------------------------------------------------


def test_a_journal_write_failing_in_prepare_leaves_no_operation_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = small_tree(tmp_path / "mem")
    journal = Journal(tmp_path / "journal")
    apply(edit(root, b"first\n"), journal)  # the journal directory exists, one operation in it
    (root / "sub" / "c.md").unlink()
    (root / "sub").rmdir()
    before = tree_state(root)
    real_write = journal_module.write_synced
    calls = 0

    def disk_fills_up(tmp: Path, data: bytes, mode: int, *, flags: int = 0) -> None:
        nonlocal calls
        calls += 1
        if calls < 2:
            real_write(tmp, data, mode, flags=flags)
            return
        real_write(tmp, data[: len(data) // 2], mode, flags=flags)  # a partial write ...
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))  # ... then ENOSPC

    monkeypatch.setattr(journal_module, "write_synced", disk_fills_up)
    with pytest.raises(EditRefused, match="No space left on device"):
        apply(edit(root, b"second\n"), journal)
    assert calls == 2
    assert len(os.listdir(journal.directory)) == 1  # only the first operation
    assert tree_state(root) == before
