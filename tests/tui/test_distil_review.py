"""The distil review (``D``): the plan of the selected store, toggles that re-render the
outcome, apply through the confirm dialog and ``u`` that puts every byte back."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilots import app_for, confirm, main_of, notifications, plain
from pilots import digest_state as tree_state
from textual.pilot import Pilot
from textual.widgets import SelectionList, Static

from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind
from memtui.core.parse.index import load_report
from memtui.tui.screens.distil import DistilScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.diff_view import DiffView

SIZE = (160, 45)


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    """A demo home of its own: the auto memory dir is named after the project's path, so a
    copy of another home would have none."""
    return build_demo_home(tmp_path / "demo")


def store_of(main: MainScreen, kind: StoreKind) -> Store:
    assert main.result is not None
    return next(s for s in main.result.stores if s.kind == kind)


async def open_distil(pilot: Pilot[None], kind: StoreKind = StoreKind.AUTO) -> DistilScreen:
    await settle(pilot)
    main = main_of(pilot)
    main.select_path(store_of(main, kind), None)
    await pilot.pause()
    await pilot.press("D")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, DistilScreen)
    assert screen.plan is not None and screen.shown is not None
    return screen


def meter(screen: DistilScreen) -> str:
    return plain(screen.query_one("#distil-meter", Static))


async def test_d_shows_the_plan_meter_and_diff_of_the_auto_index(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_distil(pilot)
        assert screen.plan is not None and screen.shown is not None
        text = meter(screen)
        assert "215 → " in text and "0 entries past the cut" in text
        assert screen.shown.outcome.after.fits
        rows = [str(o.prompt) for o in screen.query_one(SelectionList)._options]
        assert any("drop [Klarna pay-later](klarna.md)" in r for r in rows)
        assert any("add [legacy-coupons](legacy-coupons.md)" in r for r in rows)
        assert len(rows) == len(screen.plan.changes)
        diff = plain(screen.query_one("#distil-diff", DiffView))
        assert diff.lstrip().startswith("M MEMORY.md"), "the index comes first"
        assert "-- [Klarna pay-later](klarna.md)" in diff


async def test_a_disabled_change_keeps_its_line_and_the_meter_follows(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_distil(pilot)
        assert screen.plan is not None and screen.shown is not None
        changes = screen.query_one(SelectionList)
        moved = next(i for i, c in enumerate(screen.plan.changes) if c.group == "move-out")
        changes.focus()
        changes.highlighted = moved
        await pilot.press("space")
        await settle(pilot)
        shown = screen.shown
        assert shown is not None and screen.plan.changes[moved].id in shown.outcome.disabled
        assert not shown.outcome.after.fits
        assert "cannot fit" in plain(screen.query_one("#distil-notes", Static))
        old_lines = screen.plan.old_text.splitlines()
        for number in screen.plan.changes[moved].lines:
            assert old_lines[number - 1] in shown.outcome.index_text.splitlines()

        await pilot.press("A")  # some disabled: A enables every change
        await settle(pilot)
        assert screen.shown is not None and not screen.shown.outcome.disabled
        assert screen.shown.outcome.after.fits


async def test_apply_then_undo_restores_every_byte(home: DemoHome) -> None:
    before = tree_state(home.auto_memory)
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        await open_distil(pilot)
        text = await confirm(pilot, "a")
        assert "Overwrites: MEMORY.md" in text and "215 → " in text
        assert isinstance(app.screen, MainScreen)
        index = (home.auto_memory / "MEMORY.md").read_text()
        report = load_report(str(home.auto_memory / "MEMORY.md"), index, agent=False)
        assert report.dropped == [] and not report.line_truncated
        assert any("distilled auto · u to undo" in m for m, _ in notifications(app))
        assert tree_state(home.auto_memory) != before

        await confirm(pilot, "u")
        assert tree_state(home.auto_memory) == before


async def test_a_session_store_is_not_distilled(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        main.select_path(store_of(main, StoreKind.SESSION), None)
        await pilot.pause()
        await pilot.press("D")
        await pilot.pause()
        assert app.screen is main
        assert any("distil rebuilds the MEMORY.md" in m for m, _ in notifications(app))


async def test_esc_goes_back_and_nothing_is_written(home: DemoHome) -> None:
    before = tree_state(home.auto_memory)
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        await open_distil(pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("n")  # the preview declined
        await pilot.pause()
        assert isinstance(app.screen, DistilScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert tree_state(home.auto_memory) == before
