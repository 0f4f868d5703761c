"""A theme picked in the command palette is saved to the config file (issue 25): the file then
says it, every other byte kept, and a new app starts in it; a malformed config is reported,
not overwritten."""

from __future__ import annotations

from pathlib import Path

from pilots import notified, wait_until
from textual.command import CommandList, CommandPalette

from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.themes import DEFAULT_THEME

OTHER = """\
# mine
theme = "nord"

[journal]
max_age_days = 14
"""


def small_app(tmp_path: Path) -> MemtuiApp:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    context = Context.create(
        project=project, claude_home=tmp_path / "claude",
        agent_memory_home=tmp_path / "agent-memory",
        env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    return make_app(context, watch=False)


def config_path(tmp_path: Path) -> Path:
    return tmp_path / "config" / "memtui" / "config.toml"


def first_hit(app: MemtuiApp) -> str | None:
    """The palette's highlighted command (None: no palette, or nothing found yet)."""
    if not isinstance(app.screen, CommandPalette):
        return None
    commands = app.screen.query_one(CommandList)
    if commands.highlighted is None or not commands.option_count:
        return None
    return str(commands.get_option_at_index(commands.highlighted).prompt)


async def pick_in_palette(app: MemtuiApp, name: str) -> None:
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.theme != name
        app.action_change_theme()  # the palette's "Theme" command
        await pilot.pause()
        await pilot.press(*name)
        await wait_until(pilot, lambda: first_hit(app) == name, timeout=30)
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == name


async def test_a_picked_theme_is_saved_and_the_next_start_uses_it(tmp_path: Path) -> None:
    path = config_path(tmp_path)
    assert not path.exists()
    app = small_app(tmp_path)
    await pick_in_palette(app, "memtui-paper")
    assert path.read_text() == 'theme = "memtui-paper"\n'
    assert any(n.title == "Theme" and "saved to" in n.message for n in notified(app))
    again = small_app(tmp_path)
    async with again.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert again.theme == "memtui-paper"


async def test_the_rest_of_the_config_is_kept(tmp_path: Path) -> None:
    path = config_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(OTHER)
    app = small_app(tmp_path)
    await pick_in_palette(app, "dracula")
    assert path.read_text() == OTHER.replace('"nord"', '"dracula"')


async def test_a_malformed_config_is_reported_not_overwritten(tmp_path: Path) -> None:
    path = config_path(tmp_path)
    path.parent.mkdir(parents=True)
    broken = 'theme = "nord"\n[journal\n'
    path.write_text(broken)
    app = small_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.theme == DEFAULT_THEME  # the broken file gave no theme
        app.theme = "dracula"
        await pilot.pause()
        warnings = [n.message for n in notified(app)
                    if n.title == "Theme" and n.severity == "warning"]
        assert any("'dracula' not saved" in m and "not valid TOML" in m for m in warnings)
    assert path.read_text() == broken
