"""The snapshot review screen: preview, initialize / replace / mark synced, and undo with ``u``."""

from __future__ import annotations

import json
from pathlib import Path

from pilots import (
    app_for,
    confirm,
    notifications,
    open_review,
    option_texts,
    plain,
)
from pilots import digest_state as tree_state
from textual.widgets import OptionList, Static

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.snapshot_diff import SnapshotDiffScreen

SYNCED = ".snapshot-synced.json"


def snapshot_dir(home: DemoHome, agent: str) -> Path:
    return home.project / ".claude" / "agent-memory-snapshots" / agent


def user_dir(home: DemoHome, agent: str) -> Path:
    return home.claude_home / "agent-memory" / agent


async def test_replace_then_undo_restores_every_byte(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    local = user_dir(home, "reviewer")
    before = tree_state(local)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_review(pilot, "reviewer")
        assert screen.scope.value == "user"
        assert "prompt-update" in plain(screen.query_one("#snap-scopes", Static))
        files = option_texts(screen.query_one("#snap-files", OptionList))
        assert "D common-bugs.md" in files and "D deploy-freeze.md" in files
        assert "A security-checklist.md" in files and "M MEMORY.md" in files
        diff = plain(screen.query_one("#snap-diff", Static))
        assert "deletes this local file" in diff or "MEMORY.md" in diff

        text = await confirm(pilot, "R")
        assert "Deletes: common-bugs.md, deploy-freeze.md" in text
        assert "undo this with u" in text
        assert isinstance(app.screen, MainScreen)
        shipped = {
            p.name: p.read_bytes()
            for p in snapshot_dir(home, "reviewer").iterdir()
            if p.is_file() and p.name != "snapshot.json"
        }
        now = {p.name: p.read_bytes() for p in local.iterdir()}
        assert set(now) == set(shipped) | {SYNCED}
        assert all(now[name] == data for name, data in shipped.items())
        assert json.loads(now[SYNCED]) == {"syncedFrom": "2026-11-25T09:00:00.000Z"}
        assert any("replaced reviewer (user) · u to undo" in m for m, _ in notifications(app))

        text = await confirm(pilot, "u")
        assert "common-bugs.md" in text
        assert tree_state(local) == before


async def test_initialize_qa(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    local = user_dir(home, "qa")
    assert not local.exists()
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_review(pilot, "qa")
        assert "A test-matrix.md" in option_texts(screen.query_one("#snap-files", OptionList))
        await confirm(pilot, "i")
        names = sorted(p.name for p in local.iterdir())
        assert names == [SYNCED, "MEMORY.md", "browsers.txt", "test-matrix.md"]
        assert any("initialized qa (user)" in m for m, _ in notifications(app))


async def test_mark_synced_writes_only_the_synced_file(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    local = user_dir(home, "reviewer")
    before = tree_state(local)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_review(pilot, "reviewer")
        await confirm(pilot, "m")
    after = tree_state(local)
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    assert changed == {SYNCED}
    assert (local / SYNCED).read_bytes() == b'{"syncedFrom":"2026-11-25T09:00:00.000Z"}'


async def test_file_changed_after_plan_is_refused(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    local = user_dir(home, "reviewer")
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_review(pilot, "reviewer")
        (local / "common-bugs.md").write_text("edited by another process\n")
        before = tree_state(local)
        await confirm(pilot, "R")
        assert tree_state(local) == before
        errors = [m for m, severity in notifications(app) if severity == "error"]
        assert any("common-bugs.md" in m for m in errors)
        assert isinstance(app.screen, SnapshotDiffScreen)


async def test_invalid_snapshot_is_explained_and_not_actionable(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    local = home.project / ".claude" / "agent-memory" / "docs-writer"
    before = tree_state(local)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_review(pilot, "docs-writer")
        assert "cannot be used" in plain(screen.query_one("#snap-message", Static))
        for key in ("i", "R", "m"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen
    assert tree_state(local) == before
