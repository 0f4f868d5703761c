"""One operation across two store roots (a user agent memory and a project auto memory): each
root confined and locked on its own, one journal entry, one undo, and recovery of an operation
killed at every step leaves both roots exactly as before or exactly as after."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_killed, tree_state

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file
from memtui.core.write import recovery as recovery_ops
from memtui.core.write.apply import CRASH_EXIT_CODE, apply
from memtui.core.write.confine import confine_record
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import OP_FILE, Journal
from memtui.core.write.lock import LOCK_NAME
from memtui.core.write.proposal import FileChange, Proposal, combine, sha256_hex

pytestmark = pytest.mark.usefixtures("state_home")


def stale_lock(directory: Path, body: str = "999999999", days: float = 3) -> Path:
    lock = write_file(directory / LOCK_NAME, body)
    stamp = time.time() - days * 86_400
    os.utime(lock, (stamp, stamp))
    return lock


def two_stores(base: Path) -> tuple[Path, Path]:
    """An agent memory and an auto memory, each with a MEMORY.md, a memory and a stale lock."""
    agent = base / "agent-memory" / "planner"
    auto = base / "projects" / "-work-shop" / "memory"
    for store, text in ((agent, "flags live in LaunchDarkly\n"), (auto, "flags live in env\n")):
        write_file(store / "MEMORY.md", "- [Feature flags](feature-flags.md)\n", mode=0o644)
        write_file(store / "feature-flags.md", text, mode=0o640)
        stale_lock(store)
    return agent, auto


def note_both(agent: Path, auto: Path) -> Proposal:
    """Rewrite a memory in each store, delete the agent's index and add a file to the auto one."""

    def write(path: Path, data: bytes) -> FileChange:
        old = path.read_bytes() if path.exists() else None
        return FileChange(path, "write", data, None if old is None else sha256_hex(old))

    first = Proposal("test", "agent side", agent, agent, [
        write(agent / "feature-flags.md", b"_Applies when: planning_\n\nLaunchDarkly\n"),
        FileChange(agent / "MEMORY.md", "delete", None,
                   sha256_hex((agent / "MEMORY.md").read_bytes())),
    ])
    second = Proposal("test", "auto side", auto, auto, [
        write(auto / "feature-flags.md", b"_Applies when: deploying_\n\nenv\n"),
        write(auto / "new" / "added.md", b"added\n"),
    ])
    return combine("scope-test", "across two stores", [first, second])


def test_combine_keeps_each_root_and_lock_and_previews_both(tmp_path: Path) -> None:
    agent, auto = two_stores(tmp_path)
    plan = note_both(agent, auto)
    assert [(r.path, r.lock_dir) for r in plan.roots()] == [(agent, agent), (auto, auto)]
    assert plan.root_of(auto / "new" / "added.md").path == auto
    assert plan.base == tmp_path
    assert plan.target_text() == f"writes into {agent} and {auto}"
    assert plan.target() == (f"{agent} and {auto}", None)
    assert [d.rel for d in plan.diff()] == [
        "agent-memory/planner/feature-flags.md", "agent-memory/planner/MEMORY.md",
        "projects/-work-shop/memory/feature-flags.md", "projects/-work-shop/memory/new/added.md",
    ]
    single = Proposal("t", "t", agent, agent, [])
    assert combine("k", "t", [single, single]).more_roots == []  # one root named once


def test_apply_writes_both_roots_as_one_operation_and_undo_restores_every_byte(
    tmp_path: Path,
) -> None:
    agent, auto = two_stores(tmp_path / "home")
    before = tree_state(tmp_path / "home")
    journal = Journal(tmp_path / "journal")
    done = apply(note_both(agent, auto), journal)
    assert (agent / "feature-flags.md").read_bytes().startswith(b"_Applies when: planning_")
    assert not (agent / "MEMORY.md").exists()
    assert (auto / "new" / "added.md").read_bytes() == b"added\n"
    after = tree_state(tmp_path / "home")
    for store in (agent, auto):  # each lock put back exactly (bytes, mode, mtime)
        rel = (store / LOCK_NAME).relative_to(tmp_path / "home").as_posix()
        assert after[rel] == before[rel]
    [record] = journal.list()
    assert record.id == done.op_id and record.state == "done"
    assert [r.root for r in record.roots()] == [str(agent), str(auto)]
    assert [f.root for f in record.files] == [str(agent)] * 2 + [str(auto)] * 2
    assert [lock.path for _n, lock in record.locks()] == sorted(
        [str(agent / LOCK_NAME), str(auto / LOCK_NAME)])
    assert journal.lock_old_bytes(record, 1) == b"999999999"

    undone = recovery_ops.undo(journal, done.op_id)
    assert tree_state(tmp_path / "home") == before
    assert journal.get(undone.op_id).more_roots[0].root == str(auto)
    recovery_ops.undo(journal, undone.op_id)  # the undo of the undo redoes, in both roots
    assert tree_state(tmp_path / "home", mtimes=False) == {
        k: (*v[:3], None) if v[0] == "file" else v for k, v in after.items()}


@pytest.mark.parametrize("side", ["agent", "auto"])
def test_a_live_lock_in_either_root_refuses_everything(tmp_path: Path, side: str) -> None:
    agent, auto = two_stores(tmp_path / "home")
    locked = agent if side == "agent" else auto
    stale_lock(locked, body=str(os.getpid()), days=0)  # a live Claude Code pid, fresh
    plan = note_both(agent, auto)
    before = tree_state(tmp_path / "home")
    journal = Journal(tmp_path / "journal")
    with pytest.raises(EditRefused, match=f"consolidating memory in {locked}"):
        apply(plan, journal)
    assert tree_state(tmp_path / "home") == before
    assert journal.list() == []


@pytest.mark.parametrize("side", ["agent", "auto"])
def test_a_symlinked_root_on_either_side_refuses_naming_its_target(
    tmp_path: Path, side: str
) -> None:
    agent, auto = two_stores(tmp_path / "real")
    elsewhere = tmp_path / "elsewhere"
    link_at = tmp_path / "home" / side
    shutil.move(agent if side == "agent" else auto, elsewhere)
    link_at.parent.mkdir(parents=True)
    link_at.symlink_to(elsewhere)
    agent, auto = (link_at, auto) if side == "agent" else (agent, link_at)
    plan = note_both(agent, auto)
    assert plan.target_text().startswith("refused: ")
    assert str(elsewhere) in plan.target_text()
    before = tree_state(tmp_path)
    journal = Journal(tmp_path / "journal")
    with pytest.raises(EditRefused, match="is a symlink to") as refused:
        apply(plan, journal)
    assert str(elsewhere) in str(refused.value)
    assert tree_state(tmp_path) == before
    assert journal.list() == []


def test_two_roots_sharing_a_lock_dir_are_refused(tmp_path: Path) -> None:
    agent, auto = two_stores(tmp_path)
    plan = note_both(agent, auto)
    plan.more_roots = [type(plan.more_roots[0])(auto, agent)]
    with pytest.raises(EditRefused, match="named twice as a lock dir"):
        apply(plan, Journal(tmp_path / "journal"))


def test_a_tampered_record_is_confined_per_root_before_anything_is_written(
    tmp_path: Path,
) -> None:
    agent, auto = two_stores(tmp_path / "home")
    journal = Journal(tmp_path / "journal")
    done = apply(note_both(agent, auto), journal)
    op_json = journal.directory / done.op_id / OP_FILE
    pristine = json.loads(op_json.read_bytes())
    after = tree_state(tmp_path / "home")

    def tampered(change: Callable[[dict[str, object]], None], match: str) -> None:
        data = json.loads(json.dumps(pristine))
        change(data)
        op_json.write_text(json.dumps(data))
        record = journal.get(done.op_id)
        with pytest.raises(EditRefused, match=match):
            confine_record(record)
        with pytest.raises(EditRefused, match=match):
            recovery_ops.undo(journal, done.op_id)
        assert tree_state(tmp_path / "home") == after

    def file_of_auto_claims_agent_root(data: dict[str, object]) -> None:
        files = data["files"]
        assert isinstance(files, list)
        files[2]["root"] = str(agent)

    def file_root_is_no_root_of_the_record(data: dict[str, object]) -> None:
        files = data["files"]
        assert isinstance(files, list)
        files[2]["root"] = str(tmp_path)

    def lock_outside_its_root(data: dict[str, object]) -> None:
        more = data["more_roots"]
        assert isinstance(more, list)
        more[0]["lock_dir"] = str(tmp_path / "elsewhere")

    tampered(file_of_auto_claims_agent_root, "outside its store")
    tampered(file_root_is_no_root_of_the_record, "outside its store")
    tampered(lock_outside_its_root, "outside its store")


def test_an_old_single_root_record_still_loads_and_undoes(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    write_file(root / "a.md", "alpha\n")
    journal = Journal(tmp_path / "journal")
    before = tree_state(root)
    done = apply(Proposal("test", "edit a", root, root, [
        FileChange(root / "a.md", "write", b"ALPHA\n", sha256_hex(b"alpha\n"))]), journal)
    op_json = journal.directory / done.op_id / OP_FILE
    data = json.loads(op_json.read_bytes())
    del data["more_roots"]  # as written before operations could span roots
    for item in data["files"]:
        del item["root"]
    op_json.write_text(json.dumps(data))
    record = journal.get(done.op_id)
    assert record.more_roots == [] and record.files[0].root is None
    assert record.file_root(record.files[0]) == str(root)
    recovery_ops.undo(journal, done.op_id)
    assert tree_state(root) == before


# --- killed mid-operation -----------------------------------------------------------------


def demo_two_stores(pristine: DemoHome, base: Path) -> tuple[Path, Callable[[], Proposal]]:
    """The demo's planner agent memory and the project's auto memory (each with a stale
    lock), copied under ``base``; the plan rewrites feature-flags.md in both, deletes a memory
    of the planner with its index line and adds a file in a new auto directory."""
    agent = base / "agent-memory" / "planner"
    auto = base / "projects" / "shop" / "memory"
    shutil.copytree(pristine.claude_home / "agent-memory" / "planner", agent)
    shutil.copytree(pristine.auto_memory, auto)
    stale_lock(agent)
    stale_lock(auto, body="12345")

    def make() -> Proposal:
        def rewrite(path: Path, tag: bytes) -> FileChange:
            old = path.read_bytes()
            return FileChange(path, "write", tag + old, sha256_hex(old))

        index = agent / "MEMORY.md"
        index_old = index.read_bytes()
        kept = b"".join(line for line in index_old.splitlines(keepends=True)
                        if b"(sizing.md)" not in line)
        first = Proposal("t", "agent", agent, agent, [
            rewrite(agent / "feature-flags.md", b"_Applies when: planning_\n"),
            FileChange(agent / "sizing.md", "delete", None,
                       sha256_hex((agent / "sizing.md").read_bytes())),
            FileChange(index, "write", kept, sha256_hex(index_old)),
        ])
        second = Proposal("t", "auto", auto, auto, [
            rewrite(auto / "feature-flags.md", b"_Applies when: deploying_\n"),
            FileChange(auto / "notes" / "new.md", "write", b"new\n", None),
        ])
        return combine("scope-memories", "two stores", [first, second])

    return base, make


@pytest.mark.parametrize("recovery", ["rollback", "complete"])
def test_a_two_root_operation_killed_after_any_step_is_recovered_exactly_in_both(
    pristine: DemoHome, tmp_path: Path, recovery: str
) -> None:
    journal = Journal(tmp_path / "journal")
    reference, make = demo_two_stores(pristine, tmp_path / "reference")
    apply(make(), Journal(tmp_path / "reference-journal"))
    finished = tree_state(reference, mtimes=False)
    step = 0
    while True:
        step += 1
        assert step < 100, "the operation never finished"
        base, make = demo_two_stores(pristine, tmp_path / f"run-{step}")
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
        else:
            recovery_ops.complete(journal, stuck[0].id)
            assert tree_state(base, mtimes=False) == finished, f"complete after step {step}"
            for rel in ("agent-memory/planner", "projects/shop/memory"):
                key = f"{rel}/{LOCK_NAME}"
                assert tree_state(base)[key] == before[key], f"lock of {rel}, step {step}"
        assert journal.incomplete() == []
        assert not list(base.rglob("*.tmp")), "temp files left behind"
    assert step > 14  # both locks, every file and both restores were interrupted
