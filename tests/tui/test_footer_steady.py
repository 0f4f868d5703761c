"""The footer is laid out again only when the keys it shows change: a move from pane to pane
keeps its key widgets (Textual's footer built and styled them all anew on every focus move,
most of the time such a move took), and a change of what a screen offers still shows."""

from __future__ import annotations

from pathlib import Path

from pilots import app_on, open_conflicts
from textual.screen import Screen
from textual.widgets._footer import FooterKey

from memtui.core.demo.build import DemoHome
from memtui.core.judge.verdicts import JudgedPair
from memtui.tui.testing import settle
from memtui.tui.widgets.footer import KeyFooter


def shown(screen: Screen[object]) -> set[tuple[str, bool]]:
    """The keys the footer shows: each action once, with whether it is disabled."""
    footer = screen.query_one(KeyFooter)
    return {(key.action, key.has_class("-disabled")) for key in footer.query(FooterKey)}


def offered(screen: Screen[object]) -> set[tuple[str, bool]]:
    """The keys the screen's active bindings say the footer should show."""
    return {
        (binding.action, not enabled)
        for key, (_node, binding, enabled, _tip) in screen.active_bindings.items()
        if binding.show or key == screen.app.COMMAND_PALETTE_BINDING
    }


async def test_moving_from_pane_to_pane_keeps_the_footers_keys(
    pristine: DemoHome, tmp_path: Path
) -> None:
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        footer = screen.query_one(KeyFooter)
        keys_before = list(footer.query(FooterKey))
        assert keys_before, "the footer shows keys"
        focused = []
        for _ in range(4):
            await pilot.press("l")
            await settle(pilot)
            focused.append(screen.focused)
        assert len({id(w) for w in focused}) == 4, "each press moved to another pane"
        assert list(footer.query(FooterKey)) == keys_before  # the same widgets: not recomposed
        assert shown(screen) == offered(screen)


async def test_what_a_screen_offers_anew_shows_in_its_footer(
    pristine: DemoHome, tmp_path: Path
) -> None:
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        # the decisions are hidden while the judge pairs, and offered once the rows are in
        assert ("merge", False) in offered(screen)
        assert shown(screen) == offered(screen)
        # the keys of the highlighted row: a group's offers "Keep one" (K) and no "Keep A" /
        # "Keep B" (its members have no sides); a pair's row offers "Keep A" / "Keep B"
        kinds = set()
        for _ in range(len(screen.rows)):
            pair = isinstance(screen.current_row(), JudgedPair)
            kinds.add(pair)
            actions = {action for action, _disabled in shown(screen)}
            if pair:
                assert {("keep('a')", False), ("keep('b')", False)} <= shown(screen)
                assert "keep_one" not in actions
            else:
                assert ("keep_one", False) in shown(screen)
                assert not {"keep('a')", "keep('b')"} & actions
            assert shown(screen) == offered(screen)
            if kinds == {True, False}:
                break
            await pilot.press("down")
            await settle(pilot)
        assert kinds == {True, False}, "the demo's list holds a group and a pair"
        await pilot.press("escape")
        await settle(pilot)
        assert shown(app.screen) == offered(app.screen)
