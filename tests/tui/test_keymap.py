"""The config in the app: the keymap remaps keys (and the help shows them), an unknown
binding id and a bad config are notifications; the config's theme; binding ids are unique."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from pilots import notified
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.dialogs.help import HelpScreen
from memtui.tui.keymap import (
    binding_classes,
    binding_ids_of,
    key_display,
    known_binding_ids,
    own_bindings,
)
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.themes import DEFAULT_THEME
from memtui.tui.widgets.footer import KeyFooter


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("keymap"))


def app_with_config(
    demo: DemoHome, tmp_path: Path, text: str, theme: str | None = None, **env: str
) -> MemtuiApp:
    config = tmp_path / "xdg" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(text, encoding="utf-8")
    ctx = Context.create(
        project=demo.project,
        claude_home=demo.claude_home,
        agent_memory_home=demo.agent_memory_home,
        env={"HOME": str(tmp_path), "MEMTUI_NO_CACHE": "1",
             "XDG_CONFIG_HOME": str(tmp_path / "xdg"), **env},
    )
    return make_app(ctx, watch=False, theme=theme)


def visible_panes(screen: MainScreen) -> list[str | None]:
    return [p.id for p in screen.query(".pane") if p.display and not p.has_class("hidden")]


def warnings(app: App[None], title: str) -> list[str]:
    return [n.message for n in notified(app) if n.severity == "warning" and n.title == title]


async def main_screen(pilot: Pilot[None]) -> MainScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


def test_binding_ids_are_unique_per_screen() -> None:
    """A keymap entry names one binding: no class declares an id twice, and no screen or
    widget reuses an id of the app's own bindings (active on every screen)."""
    classes = {cls.__name__: cls for cls in binding_classes()}
    assert {"MemtuiApp", "MainScreen", "SearchScreen", "ConfirmScreen"} <= set(classes)
    for cls in classes.values():
        repeated = [i for i, n in Counter(binding_ids_of(cls)).items() if n > 1]
        assert repeated == [], f"{cls.__name__} repeats binding ids {repeated}"
    app_ids = set(binding_ids_of(MemtuiApp))
    for name, cls in classes.items():
        if cls is not MemtuiApp:
            assert not app_ids & set(binding_ids_of(cls)), f"{name} reuses an app binding id"
    assert {"app.quit", "pane.zoom", "search.close"} <= known_binding_ids()


async def test_a_remapped_key_works_and_the_old_one_not(demo: DemoHome, tmp_path: Path) -> None:
    app = app_with_config(demo, tmp_path, '[keymap]\n"pane.zoom" = "Z"\n')
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await main_screen(pilot)
        await pilot.press("right")
        await pilot.press("z")
        await pilot.pause()
        assert len(visible_panes(screen)) > 1, "z no longer zooms"
        await pilot.press("Z")
        await pilot.pause()
        assert visible_panes(screen) == ["pane-team"]
        assert warnings(app, "Keymap") == [] and warnings(app, "Config") == []
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        console = Console(file=io.StringIO(), width=120, color_system=None)
        console.print(app.screen.query_one("#help-body", Static).content)
        keys = [line.split()[0] for line in console.file.getvalue().splitlines() if line.strip()]  # type: ignore[attr-defined]
        assert "Z" in keys, "the help shows the remapped key"
        assert "z" not in keys


async def test_an_unknown_binding_id_is_a_warning(demo: DemoHome, tmp_path: Path) -> None:
    text = '[keymap]\n"main.zoom" = "Z"\n"pane.prev" = "H"\n[judge]\nprovider = "openai"\n'
    app = app_with_config(demo, tmp_path, text)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await main_screen(pilot)
        assert warnings(app, "Keymap") == [
            "keymap: no binding has the id 'main.zoom'; did you mean pane.zoom? "
            "(memtui config lists the ids)"]
        [config_problem] = warnings(app, "Config")
        assert config_problem.endswith(
            "config.toml: key 'judge.provider': must be 'local' or 'anthropic', not \"openai\"; "
            "using \"local\"")
        assert all(not n.markup for n in notified(app))
        await pilot.press("right")
        await pilot.pause()
        assert screen.focused is not None and screen.focused.id != "tree-auto"
        await pilot.press("H")
        await pilot.pause()
        assert screen.focused is not None and screen.focused.id == "tree-auto", (
            "the valid entries still apply")


async def test_the_help_and_the_footer_show_the_keys_of_a_user_keymap(
    demo: DemoHome, tmp_path: Path
) -> None:
    """The app keeps the keymap it set (public, not Textual's private one); the footer, the
    footer's width, the help and the palette's key column all show the remapped keys."""
    text = '[keymap]\n"pane.zoom" = "ctrl+z"\n"memory.edit" = "E"\n'
    app = app_with_config(demo, tmp_path, text)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await main_screen(pilot)
        assert app.keymap == {"pane.zoom": "ctrl+z", "memory.edit": "E"}
        footer = screen.query_one(KeyFooter)
        shown = {key.description: key.key_display for key in footer.query(FooterKey)}
        assert shown["Zoom"] == "^z" and shown["Edit"] == "E"
        zoom = next(b for b in own_bindings(screen) if b.id == "pane.zoom")
        assert key_display(screen, zoom) == "^z"
        width = footer.natural_width()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        console = Console(file=io.StringIO(), width=120, color_system=None)
        console.print(app.screen.query_one("#help-body", Static).content)
        help_rows = [line.split("  ")[0].strip()
                     for line in console.file.getvalue().splitlines() if line.strip()]  # type: ignore[attr-defined]
        assert "^z" in help_rows and "E" in help_rows
        assert "z" not in help_rows and "e" not in help_rows
        app.update_keymap({"pane.zoom": "Z"})
        assert app.keymap == {"pane.zoom": "Z", "memory.edit": "E"}
        assert key_display(screen, zoom) == "Z", "a keymap updated later is followed too"
        assert footer.natural_width() == width - 1, "^z took one cell more than Z"


@pytest.mark.parametrize(
    ("theme", "env", "chosen"),
    [(None, {}, "memtui-paper"), (None, {"MEMTUI_THEME": "nord"}, "nord"),
     ("gruvbox", {"MEMTUI_THEME": "nord"}, "gruvbox")],
    ids=["file", "env over file", "--theme over env"],
)
async def test_the_theme_of_the_config(
    demo: DemoHome, tmp_path: Path, theme: str | None, env: dict[str, str], chosen: str
) -> None:
    app = app_with_config(demo, tmp_path, 'theme = "memtui-paper"\n', theme, **env)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.theme == chosen != DEFAULT_THEME


def test_the_config_accepts_every_key_memtui_binds() -> None:
    """The keymap's check of keys lets through each key memtui's own bindings use."""
    from memtui.core.config import keys_text
    from memtui.tui.keymap import default_keys

    keys = default_keys()
    assert len(keys) > 20
    assert {binding_id: keys_text(k) for binding_id, k in keys.items()} == keys
