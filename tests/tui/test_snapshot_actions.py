"""The snapshot review screen: preview, initialize / replace / mark synced, and undo with ``u``."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
from pathlib import Path

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind
from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.snapshot_diff import SnapshotDiffScreen
from memtui.tui.testing import settle

SYNCED = ".snapshot-synced.json"


def app_for(home: DemoHome) -> MemtuiApp:
    root = home.root
    ctx = Context.create(
        project=home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env={
            "HOME": str(root),
            "MEMTUI_NO_CACHE": "1",
            "XDG_CONFIG_HOME": str(root / "config"),
            "XDG_STATE_HOME": str(root / "state"),
        },
    )
    return make_app(ctx, watch=False)


def tree_state(directory: Path) -> dict[str, tuple[str, int]]:
    """sha256 and mode of every file under ``directory`` (absent dir: empty)."""
    state: dict[str, tuple[str, int]] = {}
    for dirpath, _dirs, files in os.walk(directory):
        for name in files:
            path = Path(dirpath) / name
            mode = stat.S_IMODE(path.lstat().st_mode)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            state[path.relative_to(directory).as_posix()] = (digest, mode)
    return state


def plain(widget: Static) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def option_texts(options: OptionList) -> list[str]:
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def main_of(pilot: Pilot[None]) -> MainScreen:
    screen = pilot.app.screen_stack[1]
    assert isinstance(screen, MainScreen)
    return screen


def snapshot_store(main: MainScreen, agent: str) -> Store:
    assert main.result is not None
    for store in main.result.stores:
        if store.kind == StoreKind.SNAPSHOT and store.snapshot and store.snapshot.agent == agent:
            return store
    raise AssertionError(agent)


async def open_review(pilot: Pilot[None], agent: str) -> SnapshotDiffScreen:
    await settle(pilot)
    main = main_of(pilot)
    main.select_path(snapshot_store(main, agent), None)
    await pilot.pause()
    await pilot.press("s")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SnapshotDiffScreen)
    return screen


async def confirm(pilot: Pilot[None], key: str) -> str:
    """Press an action key; return the confirmation's text (summary and diffs), then confirm
    with ``y``."""
    await pilot.press(key)
    await pilot.pause()
    modal = pilot.app.screen
    assert isinstance(modal, ConfirmScreen)
    text = "".join(plain(part) for part in modal.query_one("#confirm-scroll").query(Static))
    await pilot.press("y")
    await settle(pilot)
    return text


def snapshot_dir(home: DemoHome, agent: str) -> Path:
    return home.project / ".claude" / "agent-memory-snapshots" / agent


def user_dir(home: DemoHome, agent: str) -> Path:
    return home.claude_home / "agent-memory" / agent


def notifications(app: MemtuiApp) -> list[tuple[str, str]]:
    return [(n.message, n.severity) for n in app._notifications]


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
