"""Small terminals and the same look on every screen (issue 10, missing 7): at 80×24 the footer
keeps ``?`` and ``q`` and the load meter breaks no bar; under 120 columns each pane's tab carries
its worst mark; the snapshot review stacks its panes; the focus colour is the main screen's."""

from __future__ import annotations

import pytest
from helpers import demo_app
from pilots import index_view, open_review, plain, rendered
from textual.pilot import Pilot
from textual.widgets import Footer, Static, Tab
from textual.widgets._footer import FooterKey

from memtui.core.demo.build import DemoHome
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs.help import HelpScreen
from memtui.tui.keymap import meaning, own_bindings
from memtui.tui.labels import LegendLine, legend
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.footer import compact_cells
from memtui.tui.widgets.index_view import meter

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


@pytest.fixture
def home(pristine: DemoHome) -> DemoHome:
    """The demo home as built (these tests write nothing; a copy would lose auto memory)."""
    return pristine


def app_for(home: DemoHome) -> MemtuiApp:
    return demo_app(home, MEMTUI_NO_CACHE="1")


async def main_screen(pilot: Pilot[None]) -> MainScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_footer_keeps_help_and_quit(home: DemoHome, size: tuple[int, int]) -> None:
    app = app_for(home)
    async with app.run_test(size=size) as pilot:
        screen = await main_screen(pilot)
        keys = {k.key: k for k in screen.query_one(Footer).query(FooterKey)}
        for key in ("question_mark", "q"):
            assert key in keys
            region = keys[key].region
            assert region.width > 0 and region.right <= size[0], f"{key} is off screen"


async def test_help_and_quit_stay_when_more_keys_are_shown(home: DemoHome) -> None:
    """Keys added to the footer later push others off its right end, never ? and q."""
    app = app_for(home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(pilot)
        for n in (5, 6, 7):
            screen._bindings.bind(f"f{n}", "rescan", description=f"Extra key {n}")
        screen.refresh_bindings()
        await settle(pilot)
        keys = {k.key: k for k in screen.query_one(Footer).query(FooterKey)}
        assert "f5" in keys
        for key in ("question_mark", "q"):
            region = keys[key].region
            assert region.width > 0 and region.right <= 80, f"{key} is off screen"


async def test_the_load_meter_breaks_no_piece_at_80_columns(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await main_screen(pilot)
        detail, _tree, _key = await index_view(pilot, home)
        assert detail.loaded is not None
        report = detail.loaded.ref.store.index
        assert report is not None
        rows = rendered(meter(report), 76)
        assert 1 < len(rows) <= 3
        for row in rows:
            assert row.count("▕") == row.count("▏")
        assert any("units ▕" in row for row in rows), "a bar is apart from its numbers"
        assert any("lines / 200 ▕" in row for row in rows)
        assert rendered(meter(report), 200)[0].endswith("UTF-8 bytes)"), "one line when wide"


async def test_tabs_carry_the_worst_mark_of_their_pane(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await main_screen(pilot)
        labels = {tab.id: tab.label.plain for tab in screen.query(Tab)}
        assert labels["tab-auto"] == "Auto ▲"  # MEMORY.md past 200 lines
        assert labels["tab-snapshots"] == "Snapshots ✕"  # docs-writer's snapshot.json
        assert labels["tab-team"] == "Team"


async def test_the_snapshot_review_stacks_its_panes_at_80x24(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=(80, 24)) as pilot:
        review = await open_review(pilot, "reviewer")
        files = review.query_one("#snap-files").region
        diff = review.query_one("#snap-diff-scroll").region
        assert files.bottom <= diff.y and files.x == diff.x, "the list is above the diff"
        assert diff.height >= 10, f"the diff has {diff.height} rows"
    app = app_for(home)
    async with app.run_test(size=(160, 48)) as pilot:
        review = await open_review(pilot, "reviewer")
        files = review.query_one("#snap-files").region
        diff = review.query_one("#snap-diff-scroll").region
        assert files.right <= diff.x, "side by side when there is room"


async def test_the_focus_colour_is_the_same_on_every_screen(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await main_screen(pilot)
        focused = screen.query_one("#pane-auto").styles.border_top
        blurred = screen.query_one("#pane-team").styles.border_top
        assert focused[1] != blurred[1]
        review = await open_review(pilot, "reviewer")
        assert review.query_one("#snap-files").has_focus
        assert review.query_one("#snap-files").styles.border_top == focused
        assert review.query_one("#snap-diff-scroll").styles.border_top == blurred


@pytest.mark.parametrize("size", [(130, 40), (150, 40)])
async def test_the_conflicts_footer_keeps_help_and_quit(home: DemoHome,
                                                        size: tuple[int, int]) -> None:
    """The conflicts screen has more keys than 130 or 150 columns hold laid out in full: the
    footer goes compact there too (it did only under 100 columns, and q was off screen)."""
    app = app_for(home)
    async with app.run_test(size=size) as pilot:
        await main_screen(pilot)
        await pilot.press("J")
        await settle(pilot)
        assert isinstance(app.screen, ConflictsScreen)
        keys = {k.key: k for k in app.screen.query_one(Footer).query(FooterKey)}
        for key in ("question_mark", "q"):
            assert key in keys
            region = keys[key].region
            assert region.width > 0 and region.right <= size[0], f"{key} is off screen"


def screen_rows(pilot: Pilot[None]) -> list[str]:
    """The terminal's rows as text, each piece of the screenshot at its column."""
    import html
    import re

    svg = pilot.app.export_screenshot()
    found = re.findall(r'<text [^>]*?x="([\d.]+)" y="([\d.]+)" textLength="([\d.]+)"[^>]*>'
                       r"([^<]*)</text>", svg)
    cell = min(float(length) / len(html.unescape(text))
               for _x, _y, length, text in found if text)
    rows: dict[float, dict[int, str]] = {}
    for x, y, _length, text in found:
        row = rows.setdefault(float(y), {})
        for i, char in enumerate(html.unescape(text)):
            row[round(float(x) / cell) + i] = char
    return ["".join(row.get(col, " ") for col in range(max(row, default=-1) + 1))
            .replace("\xa0", " ") for _y, row in sorted(rows.items())]


@pytest.mark.parametrize("size", [(80, 24), (90, 30), (100, 30)])
async def test_the_compact_footer_shows_only_whole_keys(
    home: DemoHome, size: tuple[int, int]
) -> None:
    """At 80×24 the footer ended in "… d De" (issue 25): every key it shows now fits whole,
    help and quit among them, and each key left out is in the help."""
    app = app_for(home)
    async with app.run_test(size=size) as pilot:
        screen = await main_screen(pilot)
        footer = screen.query_one(Footer)
        keys = list(footer.query(FooterKey))
        assert {"question_mark", "q"} <= {k.key for k in keys}
        for key in keys:
            region = key.region
            assert region.width == compact_cells(key) and region.right <= size[0], key.key
        last = screen_rows(pilot)[-1].rstrip()
        assert last.endswith(f"{keys[-1].key_display} {keys[-1].description}"), last
        shown = {k.action for k in keys}
        left_out = [b for b in own_bindings(screen) if b.show and b.action not in shown]
        assert left_out or size[0] >= 100  # at 80 columns not every key fits
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        help_text = plain(app.screen.query_one("#help-body", Static))
        flat = " ".join(help_text.split())  # a long meaning may wrap
        for binding in left_out:
            assert " ".join(meaning(binding).split()) in flat, binding.id


@pytest.mark.parametrize("size", [(100, 40), (120, 40), (160, 45), (210, 45)])
async def test_the_legend_line_fits_its_width(home: DemoHome, size: tuple[int, int]) -> None:
    """At 160 columns the legend ended in "● up…" (issue 25): the line shown fits, whole."""
    app = app_for(home)
    async with app.run_test(size=size) as pilot:
        screen = await main_screen(pilot)
        line = screen.query_one("#legend", LegendLine)
        assert line.display
        shown = legend(width=line.content_size.width)
        assert shown.cell_len <= line.content_size.width
        assert not shown.plain.endswith("…")
        assert any(row.strip() == shown.plain for row in screen_rows(pilot))
        if size[0] >= 210:
            assert shown.plain == legend().plain  # room for every word
