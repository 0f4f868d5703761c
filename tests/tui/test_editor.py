"""``e`` hands the selected memory to $VISUAL / $EDITOR, then reloads the store and detail."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from helpers import demo_app
from pilots import notified
from textual.pilot import Pilot

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.tui.app import MemtuiApp
from memtui.tui.editor import FALLBACK_EDITOR, editor_command
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle as quiet
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (160, 45)
APPENDED = "Appended by the scripted editor."

EDITOR_SCRIPT = f"""
import sys
from pathlib import Path

target = Path(sys.argv[-1])
log = Path(__file__).with_name("editor.log")
with log.open("a", encoding="utf-8") as handle:
    handle.write(repr(sys.argv[1:]) + "\\n")
with target.open("a", encoding="utf-8") as handle:
    handle.write("\\n{APPENDED}\\n")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 2 else 0)
"""


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path / "home")


@pytest.fixture
def editor_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scripted editor (in a folder with a space in its name) set as $VISUAL."""
    folder = tmp_path / "my editor"
    folder.mkdir()
    script = folder / "editor.py"
    script.write_text(EDITOR_SCRIPT, encoding="utf-8")
    monkeypatch.setenv("VISUAL", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    monkeypatch.setenv("EDITOR", "false")
    return folder / "editor.log"


def app_for(home: DemoHome) -> MemtuiApp:
    return demo_app(home, watch=False)


async def settle(pilot: Pilot[None]) -> MainScreen:
    await quiet(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen

async def select(pilot: Pilot[None], pane: str, key: str) -> MainScreen:
    screen = await settle(pilot)
    tree = screen.query_one(f"#tree-{pane}", StoreTree)
    tree.focus()
    await pilot.pause()
    assert tree.select_key(key)
    screen = await settle(pilot)
    detail = screen.query_one(DetailPane)
    assert detail.ref is not None and detail.ref.key == key
    return screen


def notifications(pilot: Pilot[None]) -> list[str]:
    return [n.message for n in notified(pilot.app)]


async def test_edit_appends_and_detail_shows_it(home: DemoHome, editor_log: Path) -> None:
    target = home.auto_memory / "architecture.md"
    before = target.read_text(encoding="utf-8")
    async with app_for(home).run_test(size=SIZE) as pilot:
        await select(pilot, "auto", f"{home.auto_memory}::architecture.md")
        await pilot.press("e")
        screen = await settle(pilot)
        assert target.read_text(encoding="utf-8") == before + f"\n{APPENDED}\n"
        assert editor_log.read_text(encoding="utf-8").strip() == repr([str(target)])
        detail = screen.query_one(DetailPane)
        assert detail.loaded is not None and APPENDED in detail.loaded.text
        assert APPENDED in detail.loaded.body
        fresh = next(m for m in detail.loaded.ref.store.memories if m.rel_path == "architecture.md")
        assert fresh.size == len(target.read_bytes())
        assert notifications(pilot) == []


async def test_failing_editor_is_reported_and_store_still_reloads(
    home: DemoHome, editor_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = editor_log.with_name("editor.py")
    monkeypatch.setenv("VISUAL", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} 3")
    target = home.team_memory / "MEMORY.md"
    async with app_for(home).run_test(size=SIZE) as pilot:
        await select(pilot, "team", f"{home.team_memory}::MEMORY.md")
        await pilot.press("e")
        screen = await settle(pilot)
        assert APPENDED in target.read_text(encoding="utf-8")
        assert any("exited with status 3" in n for n in notifications(pilot))
        detail = screen.query_one(DetailPane)
        assert detail.loaded is not None and APPENDED in detail.loaded.text


@pytest.mark.parametrize(
    ("pane", "rel", "reason"),
    [
        ("auto", "escape.md", "symlink leaves the store"),
        ("auto", "binary.md", "binary file"),
        ("auto", "logs", "not a file"),
    ],
)
async def test_refused_selections_leave_files_alone(
    home: DemoHome, editor_log: Path, pane: str, rel: str, reason: str
) -> None:
    async with app_for(home).run_test(size=SIZE) as pilot:
        outside_before = home.outside_file.read_bytes()
        await select(pilot, pane, f"{home.auto_memory}::{rel}")
        await pilot.press("e")
        await settle(pilot)
        assert not editor_log.exists()
        assert home.outside_file.read_bytes() == outside_before
        assert any(reason in n for n in notifications(pilot)), notifications(pilot)


async def test_store_node_is_refused(home: DemoHome, editor_log: Path) -> None:
    planner = home.claude_home / "agent-memory" / "planner"
    async with app_for(home).run_test(size=SIZE) as pilot:
        await select(pilot, "agents", f"{planner}::")
        await pilot.press("e")
        await settle(pilot)
        assert not editor_log.exists()
        assert any("not a file" in n for n in notifications(pilot))


async def test_missing_editor_is_reported(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", "/nonexistent/editor-binary --wait")
    async with app_for(home).run_test(size=SIZE) as pilot:
        await select(pilot, "auto", f"{home.auto_memory}::architecture.md")
        await pilot.press("e")
        await settle(pilot)
        assert any("cannot start /nonexistent/editor-binary" in n for n in notifications(pilot))


def test_editor_command_precedence() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "nano"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": "  ", "EDITOR": "nano -w"}) == ["nano", "-w"]
    assert editor_command({"EDITOR": "'/opt/my editor/ed' -x"}) == ["/opt/my editor/ed", "-x"]
    assert editor_command({}) == [FALLBACK_EDITOR]
    with pytest.raises(ValueError, match="VISUAL"):
        editor_command({"VISUAL": "vim 'unclosed"})


async def test_no_editor_set_says_which_editor_opened_and_how_to_choose(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``e`` with no $VISUAL or $EDITOR opened vi without a word (issue 25)."""
    from memtui.tui import editor as editor_module

    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    ran: list[list[str]] = []
    monkeypatch.setattr(editor_module, "run_editor", lambda _app, command: ran.append(command) or 0)
    async with app_for(home).run_test(size=SIZE) as pilot:
        await select(pilot, "auto", f"{home.auto_memory}::architecture.md")
        await pilot.press("e")
        await settle(pilot)
        assert ran and ran[0][0] == FALLBACK_EDITOR
        said = [n for n in notifications(pilot) if FALLBACK_EDITOR in n]
        assert said and "export EDITOR=" in said[0]
