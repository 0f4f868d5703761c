"""The app with themes: a bad user theme is a notification, never a crash; --theme selects."""

from __future__ import annotations

from pathlib import Path

from pilots import notified

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.screens.main import MainScreen
from memtui.tui.themes import DEFAULT_THEME
from memtui.tui.widgets.store_tree import StoreTree

CUSTOM = """\
name = "my-dusk"
primary = "#336699"
background = "#101418"
"""


def app_for(tmp_path: Path, env: dict[str, str], theme: str | None = None) -> MemtuiApp:
    home: DemoHome = build_demo_home(tmp_path / "demo")
    context = Context.create(
        project=home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env={"HOME": str(tmp_path), **env},
    )
    return make_app(context, watch=False, theme=theme)


def user_themes(tmp_path: Path) -> Path:
    directory = tmp_path / "config" / "memtui" / "themes"
    directory.mkdir(parents=True)
    return directory


async def test_bad_user_theme_notifies_and_the_app_still_runs(tmp_path: Path) -> None:
    themes = user_themes(tmp_path)
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "#12345"\n')
    (themes / "oops.toml").write_text('name = "oops"\nprimary = [\n')
    (themes / "mine.toml").write_text(CUSTOM)
    app = app_for(tmp_path, {"XDG_CONFIG_HOME": str(tmp_path / "config")})
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        warnings = [n for n in notified(app) if n.severity == "warning"]
        messages = sorted(n.message for n in warnings)
        assert len(messages) == 2
        assert messages[0].startswith(f"{themes / 'broken.toml'}: key 'primary': ")
        assert messages[1].startswith(f"{themes / 'oops.toml'}: not valid TOML")
        assert all(n.title == "Theme" for n in warnings)
        assert app.theme == DEFAULT_THEME
        assert "my-dusk" in app.available_themes
        assert isinstance(app.screen, MainScreen)
        tree = app.screen.query_one("#tree-auto", StoreTree)
        assert tree.stores, "the scan still ran and filled the panes"
        app.theme = "my-dusk"
        await pilot.pause()
        assert app.current_theme.primary == "#336699"


async def test_theme_option_beats_env(tmp_path: Path) -> None:
    app = app_for(tmp_path, {"MEMTUI_THEME": "nord"}, theme="memtui-paper")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "memtui-paper"
        assert app.current_theme.dark is False
        assert notified(app) == []


async def test_unknown_env_theme_falls_back_with_a_warning(tmp_path: Path) -> None:
    app = app_for(tmp_path, {"MEMTUI_THEME": "no-such-theme"})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == DEFAULT_THEME
        [note] = notified(app)
        assert note.severity == "warning"
        assert "'no-such-theme' not found" in note.message
