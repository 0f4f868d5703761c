"""One help per screen (issue 10, bug 4): ``?`` opens memtui's help, ``?`` and esc close it, on
the main screen and the snapshot review; it lists each binding with what it really does (a
user keymap's key), the keys that work everywhere and the legend. And the command palette
offers every binding of the screen it was opened from (issue 10, missing 6)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers import demo_app
from pilots import open_review, plain
from textual.actions import parse
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from memtui.core.demo.build import DemoHome
from memtui.core.model import Scope, StoreKind
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs.help import HelpScreen
from memtui.tui.dialogs.undo import UndoHistoryScreen
from memtui.tui.keymap import meaning, own_bindings
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.screens.distil import DistilScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.snapshot_diff import SnapshotDiffScreen
from memtui.tui.testing import settle

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py

SIZE = (160, 45)


def app_for(home: DemoHome) -> MemtuiApp:
    return demo_app(home, MEMTUI_NO_CACHE="1")


async def main_screen(pilot: Pilot[None]) -> MainScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


def help_text(app: MemtuiApp) -> str:
    screen = app.screen
    assert isinstance(screen, HelpScreen)
    return plain(screen.query_one("#help-body", Static))


def rows(text: str) -> list[list[str]]:
    """The help's rows, split at runs of two or more spaces (key, meaning)."""
    return [re.split(r"\s{2,}", row.strip()) for row in text.splitlines() if row.strip()]


async def review(pilot: Pilot[None]) -> SnapshotDiffScreen:
    return await open_review(pilot, "reviewer")


async def conflicts(pilot: Pilot[None]) -> ConflictsScreen:
    await main_screen(pilot)
    await pilot.press("J")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    return screen


async def distil(pilot: Pilot[None]) -> DistilScreen:
    """The distil review of the planner's user memory (the copied demo keeps agent stores)."""
    main = await main_screen(pilot)
    assert main.result is not None
    store = next(s for s in main.result.stores
                 if s.kind == StoreKind.AGENT and s.location.agent == "planner"
                 and s.location.scope == Scope.USER)
    main.select_path(store, None)
    await pilot.pause()
    await pilot.press("D")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, DistilScreen)
    return screen


async def open_screen(pilot: Pilot[None], where: str) -> Screen[Any]:
    if where == "main":
        return await main_screen(pilot)
    if where == "distil":
        return await distil(pilot)
    return await review(pilot) if where == "review" else await conflicts(pilot)




async def test_the_main_help_says_what_each_key_does(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=SIZE) as pilot:
        await main_screen(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = help_text(app)
        table = rows(text)
        assert ["← h", "Move to the pane on the left"] in table
        assert ["→ l", "Move to the pane on the right"] in table
        assert "Scroll" not in text
        for binding in own_bindings(app.screen_stack[1]):
            assert meaning(binding) in text, binding.id
        keys = [row[0] for row in table]
        assert ["q", "Quit"] in table and "^p" in keys
        assert "f feedback" in text and "✂ cut: never loaded" in text and "✕ invalid" in text


async def test_the_review_help_lists_its_own_keys(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=SIZE) as pilot:
        await review(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        table = rows(help_text(app))
        meanings = {r[0]: r[1] for r in table if len(r) > 1}
        assert meanings["R"].startswith("Replace the local memory with the snapshot")
        assert meanings["esc"].startswith("Back to the main screen")
        keys = [r[0] for r in table]
        assert {"esc", "i", "R", "m", "?"} <= set(keys)
        assert "z" not in keys, "the main screen's keys are not the review's"


async def test_a_dialog_has_its_help_too(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=SIZE) as pilot:
        await main_screen(pilot)
        await pilot.press("U")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, UndoHistoryScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        keys = [r[0] for r in rows(help_text(app))]
        assert "esc" in keys and "?" in keys and "z" not in keys
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is dialog


async def test_the_help_shows_the_keys_of_a_user_keymap(demo: DemoHome) -> None:
    config = demo.root / "xdg-keymap" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[keymap]\n"pane.zoom" = "Z"\n"app.keys" = "f1"\n', encoding="utf-8")
    app = demo_app(demo, MEMTUI_NO_CACHE="1", XDG_CONFIG_HOME=str(config.parent.parent))
    async with app.run_test(size=SIZE) as pilot:
        screen = await main_screen(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is screen, "? was remapped to f1"
        await pilot.press("f1")
        await pilot.pause()
        keys = {r[0]: r[1] for r in rows(help_text(app)) if len(r) > 1}
        assert keys.get("Z", "").startswith("Zoom the current pane") and "z" not in keys
        assert "f1" in keys
        await pilot.press("f1")
        await pilot.pause()
        assert app.screen is screen, "the key that opened the help closes it"


# ------------------------------------------------------------------------ the palette


async def palette_prompts(pilot: Pilot[None]) -> list[str]:
    """Every command the palette lists before anything is typed."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    palette = pilot.app.screen
    assert isinstance(palette, CommandPalette)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.3)
    options = palette.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


@pytest.mark.parametrize("where", ["main", "review", "conflicts", "distil"])
async def test_every_binding_of_a_screen_is_in_its_palette_and_question_mark_toggles_its_help(
    demo: DemoHome, where: str
) -> None:
    """One app per screen for both checks (each start and screen opened cost seconds of CPU:
    these were twelve tests, a start each): the palette first, as the screen opened, then ``?``
    opens the help and ``?`` closes it, and again with esc."""
    app = app_for(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, where)
        bindings = own_bindings(screen)
        assert len(bindings) >= {"main": 15, "review": 5, "conflicts": 10, "distil": 5}[where]
        # a key the highlighted row has no use for is not offered (a conflicts group's row:
        # no "Keep A" / "Keep B"; a pair's: no "Keep one"), as its footer hides it
        hidden = {b.id for b in bindings if screen.check_action(*parse(b.action)[1:]) is False}
        assert hidden <= {"conflicts.keep_a", "conflicts.keep_b", "conflicts.keep_one"}
        prompts = "\n".join(await palette_prompts(pilot))
        for binding in bindings:
            if binding.id not in hidden:
                assert meaning(binding) in prompts, f"{binding.id} is not in the palette"
        assert "Theme" in prompts and "Keys" not in prompts.split("\n")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen, "esc does not close the palette"
        for close in ("question_mark", "escape"):
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen), f"? opens no help on the {where} screen"
            await pilot.press(close)
            await pilot.pause()
            assert app.screen is screen, f"{close} does not close the help"


async def test_the_palette_runs_an_action_of_the_review(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=SIZE) as pilot:
        await review(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        palette.query_one(Input).value = "help: every key"
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_the_main_palette_offers_every_action_the_issue_names(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await main_screen(pilot)
        actions = {b.action for b in own_bindings(screen)}
        assert {"delete", "undo", "undo_history", "snapshot_review", "edit", "raw", "zoom",
                "projects", "search", "help"} <= actions
        prompts = await palette_prompts(pilot)
        assert len(prompts) >= len(actions) + 1  # and Textual's theme
