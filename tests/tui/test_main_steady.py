"""A rescan that finds what the main screen shows leaves its tabs and info line as they are:
a tab relabelled, or a ``Static`` updated, is laid out again (and the tab bar moves its
underline) even with the same text. What changes still shows (the header names the scan while
it runs, so it changes twice). And the header, one line, shows each job's progress without
laying the screen out again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilots import app_on, plain
from textual.screen import Screen
from textual.widgets import Static, Tab

from memtui.core.demo.build import DemoHome
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle


def shown(screen: MainScreen) -> dict[str, object]:
    """What the tabs and the info line draw (their visuals, by identity)."""
    parts: dict[str, object] = {f"#{tab.id}": tab.visual for tab in screen.query(Tab)}
    parts["#pane-info"] = screen.query_one("#pane-info", Static).visual
    return parts


async def test_a_rescan_finding_the_same_keeps_the_tabs_and_the_info_line(
    pristine: DemoHome, tmp_path: Path
) -> None:
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        before = shown(screen)
        labels = {tab.id: tab.label.plain for tab in screen.query(Tab)}
        header = plain(screen.query_one("#header", Static))
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert [name for name, visual in shown(screen).items() if visual is not before[name]] \
            == []
        assert {tab.id: tab.label.plain for tab in screen.query(Tab)} == labels
        assert plain(screen.query_one("#header", Static)) == header

        screen.set_jobs("scanning")  # what changes shows
        await settle(pilot)
        assert "jobs: scanning" in plain(screen.query_one("#header", Static))


async def test_the_headers_job_progress_is_drawn_without_laying_the_screen_out(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layouts: list[Screen[Any]] = []
    refresh_layout = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        layouts.append(self)
        refresh_layout(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert layouts, "the screen was laid out"
        layouts.clear()
        for done in range(1, 4):
            screen.set_jobs(f"scanning {done} of 3")
            await settle(pilot)
            assert f"jobs: scanning {done} of 3" in plain(screen.query_one("#header", Static))
        assert layouts == []
