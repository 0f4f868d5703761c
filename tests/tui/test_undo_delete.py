"""Deleting a memory with ``d``, undo with ``u``, the history with ``U``, and recovery of an
operation a crash interrupted."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pilots import app_for, confirm, main_of, notifications, plain
from pilots import digest_state as tree_state
from textual.widgets import DataTable, Static

from memtui.cli import main as cli_main
from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memories
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.undo import InterruptedScreen, UndoHistoryScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle

VICTIM = "user-role.md"
VICTIM_LINE = "- [Who I work with](user-role.md)"


def store_of(main: MainScreen, kind: StoreKind) -> Store:
    assert main.result is not None
    return next(s for s in main.result.stores if s.kind == kind and s.memories)


async def test_delete_then_undo(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    auto = home.auto_memory
    before = tree_state(auto)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        main.select_path(store_of(main, StoreKind.AUTO), VICTIM)
        await pilot.pause()
        text = await confirm(pilot, "d")
        assert f"Deletes: {VICTIM}" in text
        assert f"-{VICTIM_LINE}" in text
        assert not (auto / VICTIM).exists()
        index = (auto / "MEMORY.md").read_text()
        assert VICTIM_LINE not in index and "[Editor setup](user-editor.md)" in index
        assert any(f"deleted {VICTIM} · u to undo" in m for m, _ in notifications(app))

        text = await confirm(pilot, "u")
        assert VICTIM in text
        assert tree_state(auto) == before


async def test_delete_refuses_index_and_snapshots(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    state = tree_state(home.root)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        main.select_path(store_of(main, StoreKind.AUTO), "MEMORY.md")
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        assert app.screen is main
        main.select_path(store_of(main, StoreKind.SNAPSHOT), "MEMORY.md")
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        assert app.screen is main
        warnings = [m for m, severity in notifications(app) if severity == "warning"]
        assert any("MEMORY.md is the index" in m for m in warnings)
        assert any("Snapshots ship with the project" in m for m in warnings)
    assert tree_state(home.root) == state


async def test_history_lists_operations_and_undoes_the_chosen_one(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    auto = home.auto_memory
    before = tree_state(auto)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        main.select_path(store_of(main, StoreKind.AUTO), VICTIM)
        await pilot.pause()
        await confirm(pilot, "d")
        await pilot.press("U")
        await settle(pilot)
        history = app.screen
        assert isinstance(history, UndoHistoryScreen)
        table = history.query_one("#undo-table", DataTable)
        assert table.row_count == 1
        row = [str(cell) for cell in table.get_row_at(0)]
        assert row[1] == "delete-memory" and row[3] == "2" and row[4] == "done"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert tree_state(auto) == before


def crash_mid_delete(home: DemoHome, state_home: Path) -> None:
    """Delete a memory in another process that dies between two journal steps (an operation
    of the demo's Claude Code home)."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from memtui.core.write.apply import apply\n"
        "from memtui.core.write.journal import Journal\n"
        "from memtui.core.write.ops.memory import plan_delete_memory\n"
        "from memtui.core.model import StoreKind, StoreLocation\n"
        "from memtui.core.scan.scanner import scan_store\n"
        "store = scan_store(StoreLocation(StoreKind.AUTO, Path(sys.argv[1]), 'test'))\n"
        "memory = next(m for m in store.memories if m.rel_path == sys.argv[2])\n"
        "apply(plan_delete_memory(store, memory), Journal.default(home=sys.argv[3]))\n"
    )
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(state_home),
        "MEMTUI_TEST_CRASH_AFTER": "4",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    subprocess.run(
        [sys.executable, "-c", script, str(home.auto_memory), VICTIM, str(home.claude_home)],
        env=env,
        check=False,
    )


async def test_interrupted_operation_is_rolled_back_at_start(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    auto = home.auto_memory
    before = tree_state(auto)
    crash_mid_delete(home, home.root / "state")
    journal = Journal(home.root / "state" / "memtui" / "journal")
    assert len(journal.incomplete()) == 1
    assert not (auto / VICTIM).exists()  # killed halfway: the file is gone, its index line not
    assert VICTIM_LINE in (auto / "MEMORY.md").read_text()
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, InterruptedScreen)
        assert "delete-memory" in plain(modal.query_one("#interrupted-body", Static))
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert tree_state(auto) == before
    assert journal.incomplete() == []


# --- operations of another Claude Code home ---------------------------------------------------


def delete_in_other_home(
    home: DemoHome, other: Path, monkeypatch: pytest.MonkeyPatch, crash_after: int | None = None
) -> None:
    """``memtui --claude-home OTHER delete`` of a memory in the demo's auto memory, journaled in
    the demo's state dir (killed after ``crash_after`` steps, in a child process, if given)."""
    argv = ["--claude-home", str(other), "--project", str(home.project),
            "delete", str(home.auto_memory), VICTIM, "--yes"]
    if crash_after is None:
        monkeypatch.setenv("XDG_STATE_HOME", str(home.root / "state"))
        monkeypatch.setenv("XDG_CACHE_HOME", str(home.root / "cache"))
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        assert cli_main(argv) == 0
        return
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(home.root / "state"),
        "XDG_CACHE_HOME": str(home.root / "cache"),
        "MEMTUI_TEST_CRASH_AFTER": str(crash_after),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    subprocess.run([sys.executable, "-m", "memtui", *argv], env=env, check=False,
                   capture_output=True)


async def test_u_and_history_do_not_offer_an_operation_of_another_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = build_demo_home(tmp_path / "demo")
    delete_in_other_home(home, tmp_path / "other-home", monkeypatch)
    after = tree_state(home.auto_memory)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert app.screen is main
        assert ("Nothing to undo.", "information") in notifications(app)
        await pilot.press("U")
        await settle(pilot)
        history = app.screen
        assert isinstance(history, UndoHistoryScreen)
        assert history.query_one("#undo-table", DataTable).row_count == 0
        where = plain(history.query_one("#undo-where", Static))
        assert "1 operation(s) of other Claude Code homes not shown" in where
    assert tree_state(home.auto_memory) == after


async def test_an_interrupted_operation_of_another_home_is_named_not_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = build_demo_home(tmp_path / "demo")
    other = tmp_path / "other-home"
    delete_in_other_home(home, other, monkeypatch, crash_after=4)
    journal = Journal(home.root / "state" / "memtui" / "journal")
    (stuck,) = [r for r in journal.list() if r.incomplete]
    halfway = tree_state(home.auto_memory)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        warnings = [m for m, severity in notifications(app) if severity == "warning"]
        assert any(
            f"in {other}" in m and f"memtui --claude-home {other} undo --rollback {stuck.id}" in m
            for m in warnings
        ), warnings
    assert tree_state(home.auto_memory) == halfway
    assert journal.get(stuck.id).state == stuck.state


async def test_an_interrupted_operation_of_another_home_across_stores_names_every_root(
    tmp_path: Path,
) -> None:
    home = build_demo_home(tmp_path / "demo")
    planner = home.claude_home / "agent-memory" / "planner"
    stores = [scan_store(StoreLocation(StoreKind.AUTO, home.auto_memory, "test")),
              scan_store(StoreLocation(StoreKind.AGENT, planner, "test"))]
    memories = [next(m for m in s.memories if m.rel_path == rel)
                for s, rel in zip(stores, (VICTIM, "roadmap.md"), strict=True)]
    other = tmp_path / "other-home"
    journal = Journal(home.root / "state" / "memtui" / "journal", home=str(other))
    record = journal.get(apply(plan_delete_memories(stores, memories), journal).op_id)
    record.state, record.pid = "applying", 0  # killed halfway, its process gone
    journal.save(record)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        warnings = [m for m, severity in notifications(app) if severity == "warning"]
        assert any(f"in {other} ({home.auto_memory} and {planner})" in m for m in warnings), (
            warnings)
