"""Deleting many memories as one operation: one preview, one journal entry, one undo."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from helpers import tree_state

from memtui.core.contents import Memory, Store
from memtui.core.demo.writers import index_entry, write_file, write_index
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write import recovery
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.lock import LOCK_NAME
from memtui.core.write.ops.memory import plan_delete_memories

pytestmark = pytest.mark.usefixtures("state_home")

STRAYS = 200


def auto_store(root: Path) -> Store:
    return scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"))


@pytest.fixture
def stray_store(tmp_path: Path) -> Path:
    """An auto memory an agent flooded: 200 stray files, 150 of them listed in MEMORY.md,
    a kept memory listed twice among them, and a subfolder of strays."""
    root = tmp_path / "auto"
    lines = ["# Memory", index_entry("Keep", "keep.md", "the one to keep")]
    for n in range(STRAYS):
        name = f"stray-{n:03}.md" if n < 180 else f"logs/stray-{n:03}.md"
        write_file(root / name, f"---\nname: stray {n}\n---\nnoise {n}\n", mode=0o640)
        if n % 4 != 3:
            lines.append(index_entry(f"Stray {n}", name, "written by a runaway agent"))
    lines.insert(60, index_entry("Keep too", "keep.md", "a second link, kept"))
    write_index(root, lines)
    write_file(root / "keep.md", "---\nname: keep\n---\nkeep me\n")
    return root


def test_200_files_are_deleted_in_one_operation_and_one_undo_restores_the_tree(
    stray_store: Path,
) -> None:
    journal = Journal.default()
    store = auto_store(stray_store)
    strays = [m for m in store.memories if "stray-" in m.rel_path]
    assert len(strays) == STRAYS
    before = tree_state(stray_store)
    old_index = (stray_store / "MEMORY.md").read_text()

    plan = plan_delete_memories(store, strays)
    assert plan.root == stray_store and plan.lock_dir == stray_store
    deletes = [c for c in plan.changes if c.action == "delete"]
    writes = [c for c in plan.changes if c.action == "write"]
    assert len(deletes) == STRAYS and all(c.expected for c in deletes)  # a check per file
    assert [c.path for c in writes] == [stray_store / "MEMORY.md"]  # rewritten once
    assert sum("removes MEMORY.md line" in n for n in plan.notes) == 150
    apply(plan, journal)

    assert len(journal.list()) == 1  # one journal entry
    left = sorted(p.relative_to(stray_store).as_posix() for p in stray_store.rglob("*.md"))
    assert left == ["MEMORY.md", "keep.md"]
    index = (stray_store / "MEMORY.md").read_text()
    assert "stray" not in index.lower()
    kept = [line for line in old_index.splitlines() if "stray" not in line.lower()]
    assert index.splitlines() == kept

    recovery.undo(journal, journal.list()[0].id)  # one undo
    assert tree_state(stray_store) == before


def test_a_file_changed_after_the_plan_refuses_the_whole_operation(stray_store: Path) -> None:
    journal = Journal.default()
    store = auto_store(stray_store)
    strays = [m for m in store.memories if "stray-" in m.rel_path][:20]
    before = tree_state(stray_store)
    plan = plan_delete_memories(store, strays)
    (stray_store / strays[-1].rel_path).write_text("an agent wrote this meanwhile\n")
    changed = tree_state(stray_store)
    with pytest.raises(EditRefused, match="changed on disk since the preview"):
        apply(plan, journal)
    assert tree_state(stray_store) == changed != before


def test_auto_and_its_team_folder_are_one_operation_and_one_root(
    tmp_path: Path,
) -> None:
    auto_root = tmp_path / "auto"
    write_index(auto_root, ["# Memory", index_entry("A", "a.md", "x")])
    write_file(auto_root / "a.md", "a\n")
    write_index(auto_root / "team", ["# Team", index_entry("T", "t.md", "y")])
    write_file(auto_root / "team" / "t.md", "t\n")
    auto = auto_store(auto_root)
    team = scan_store(StoreLocation(kind=StoreKind.TEAM, path=auto_root / "team", rule="test"))
    a = next(m for m in auto.memories if m.rel_path == "a.md")
    t = next(m for m in team.memories if m.rel_path == "t.md")

    plan = plan_delete_memories([auto, team], [a, t])
    assert plan.root == auto_root and plan.lock_dir == auto_root
    assert sorted(str(c.path.relative_to(auto_root)) for c in plan.changes) == [
        "MEMORY.md", "a.md", "team/MEMORY.md", "team/t.md"]
    before = tree_state(auto_root)
    journal = Journal.default()
    apply(plan, journal)
    assert not (auto_root / "a.md").exists() and not (auto_root / "team" / "t.md").exists()
    recovery.undo(journal, journal.list()[0].id)
    assert tree_state(auto_root) == before


def two_stores(base: Path) -> tuple[Store, Store]:
    """A project's auto memory and a user agent memory, each with an index, two memories and a
    stale lock of its own."""
    auto_root = base / "projects" / "-work-shop" / "memory"
    agent_root = base / "agent-memory" / "planner"
    for root in (auto_root, agent_root):
        write_index(root, ["# Memory", index_entry("Flags", "flags.md", "x"),
                           index_entry("Keep", "keep.md", "y")])
        write_file(root / "flags.md", f"flags of {root.name}\n", mode=0o640)
        write_file(root / "keep.md", "keep\n")
        stale_lock(root)
    agent = scan_store(StoreLocation(kind=StoreKind.AGENT, path=agent_root, rule="test"))
    return auto_store(auto_root), agent


def stale_lock(directory: Path, pid: int = 999_999_999, days: float = 3) -> Path:
    lock = write_file(directory / LOCK_NAME, str(pid))
    stamp = time.time() - days * 86_400
    os.utime(lock, (stamp, stamp))
    return lock


def flags(store: Store) -> Memory:
    return next(m for m in store.memories if m.rel_path == "flags.md")


def test_memories_of_stores_with_separate_roots_delete_as_one_operation(
    tmp_path: Path,
) -> None:
    auto, agent = two_stores(tmp_path / "home")
    plan = plan_delete_memories([auto, agent], [flags(auto), flags(agent)])
    assert [(r.path, r.lock_dir) for r in plan.roots()] == [
        (auto.path, auto.path), (agent.path, agent.path)]
    assert plan.target_text() == f"writes into {auto.path} and {agent.path}"
    assert sorted(d.rel for d in plan.diff()) == [
        "agent-memory/planner/MEMORY.md", "agent-memory/planner/flags.md",
        "projects/-work-shop/memory/MEMORY.md", "projects/-work-shop/memory/flags.md"]
    assert "removes agent-memory/planner/MEMORY.md line 2: - [Flags](flags.md) — x" in plan.notes
    assert plan.title == f"delete 2 memories from {auto.title} and {agent.title}"

    before = tree_state(tmp_path / "home")
    journal = Journal.default()
    apply(plan, journal)
    for store in (auto, agent):
        assert not (store.path / "flags.md").exists() and (store.path / "keep.md").exists()
        assert "flags.md" not in (store.path / "MEMORY.md").read_text()
    after = tree_state(tmp_path / "home")
    for store in (auto, agent):  # each store's lock is put back exactly
        rel = (store.path / LOCK_NAME).relative_to(tmp_path / "home").as_posix()
        assert after[rel] == before[rel]
    [record] = journal.list()  # one journal entry
    assert [r.root for r in record.roots()] == [str(auto.path), str(agent.path)]
    recovery.undo(journal, record.id)  # one undo restores both stores
    assert tree_state(tmp_path / "home") == before


def test_a_live_lock_in_either_store_refuses_the_whole_delete(tmp_path: Path) -> None:
    auto, agent = two_stores(tmp_path / "home")
    stale_lock(agent.path, pid=os.getpid(), days=0)  # Claude Code consolidating there
    plan = plan_delete_memories([auto, agent], [flags(auto), flags(agent)])
    before = tree_state(tmp_path / "home")
    journal = Journal.default()
    with pytest.raises(EditRefused, match=f"consolidating memory in {agent.path}"):
        apply(plan, journal)
    assert tree_state(tmp_path / "home") == before and journal.list() == []


def test_a_snapshot_memory_is_refused_alone_or_with_others(tmp_path: Path) -> None:
    auto, _agent = two_stores(tmp_path / "home")
    snap_root = tmp_path / "project" / ".claude" / "agent-memory-snapshots" / "planner"
    write_file(snap_root / "flags.md", "shipped\n")
    snap = scan_store(StoreLocation(kind=StoreKind.SNAPSHOT, path=snap_root, rule="test"))
    for stores, memories in (([snap], [flags(snap)]), ([auto, snap], [flags(auto), flags(snap)])):
        with pytest.raises(EditRefused, match="is a snapshot"):
            plan_delete_memories(stores, memories)
