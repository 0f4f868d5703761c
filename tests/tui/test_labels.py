"""Legends and labels (issue 10, missing 4): a label's name is shortened before its badge is
cut, a wide (zoomed) tree shows each memory's size, age and description, the legend line under
the trees, and panes sized by their content."""

from __future__ import annotations

import pytest
from helpers import demo_app
from rich.text import Text
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.core.demo.build import DemoHome
from memtui.tui.app import MemtuiApp
from memtui.tui.labels import fit, legend
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.store_tree import StoreTree

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


def tree_rows(tree: StoreTree) -> list[str]:
    """The rows the tree draws, as text."""
    region = Region(0, 0, tree.size.width, tree.size.height)
    return [strip.text.rstrip() for strip in tree.render_lines(region)]


def test_fit_shortens_the_name_before_the_tail() -> None:
    label = Text("docs-writer (project)  ✕ invalid")
    tail = len(" (project)  ✕ invalid")
    assert fit(label, tail, 40).plain == label.plain
    assert fit(label, tail, 27).plain == "docs-… (project)  ✕ invalid"
    assert fit(label, tail, 27).plain == "docs-… (project)  ✕ invalid"
    # no room for MIN_NAME cells of the name: without a badge the whole label is cut
    assert fit(label, tail, 20).plain == "docs-writer (projec…"
    # with one, the tail before the badge goes next, the badge stays whole
    badge = len("  ✕ invalid")
    assert fit(label, tail, 22, badge).plain == "docs-… (pr…  ✕ invalid"
    assert fit(label, tail, 18, badge).plain == "docs-wr… ✕ invalid"
    assert fit(label, tail, 14, badge).plain == "doc… ✕ invalid"
    assert fit(label, tail, 12, badge).plain == "docs-writer…"
    korean = Text("메모리-색인-파일.md f ✂")
    fitted = fit(korean, len(" f ✂"), 12)
    assert fitted.plain.endswith("… f ✂") and fitted.cell_len <= 12


def test_the_legend_names_every_letter_and_mark() -> None:
    text = legend().plain
    for shown in ("u user", "f feedback", "p project", "r reference", "✂ cut: never loaded",
                  "◌ orphan", "⚠ problem", "▲ over the limit", "● update", "○ init", "· synced",
                  "✕ invalid"):
        assert shown in text


async def test_badges_stay_whole_in_narrow_panes(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await main_screen(pilot)
        for pane, badges in (("agents", ("✕ invalid", "● update", "○ init", "· synced")),
                             ("snapshots", ("✕ invalid", "● update", "○ init", "· synced"))):
            rows = [r for r in tree_rows(screen.query_one(f"#tree-{pane}", StoreTree)) if r]
            assert rows
            for badge in badges:
                assert any(r.endswith(badge) for r in rows), f"{pane}: {badge} cut in {rows}"
            assert not any(r.endswith(("✕ inval", "✕ in")) for r in rows)


async def test_a_zoomed_tree_shows_size_age_and_description(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await main_screen(pilot)
        tree = screen.query_one("#tree-auto", StoreTree)
        memory = next(m for s in tree.stores for m in s.memories
                      if m.rel_path == "accounts-backlog.md")
        assert memory.description
        narrow = next(r for r in tree_rows(tree) if r.startswith("accounts-backlog.md"))
        assert memory.description[:12] not in narrow
        await pilot.press("z")
        await settle(pilot)
        row = next(r for r in tree_rows(tree) if r.startswith("accounts-backlog.md"))
        assert f"{memory.size} B" in row and "days old" in row
        assert memory.description[:40] in row


async def test_the_legend_line_shows_when_there_is_room_and_l_toggles_it(
    home: DemoHome,
) -> None:
    app = app_for(home)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await main_screen(pilot)
        line = screen.query_one("#legend", Static)
        assert line.display and "f feedback" in str(line.render())
        await pilot.press("L")
        await pilot.pause()
        assert not line.display
    app = app_for(home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(pilot)
        line = screen.query_one("#legend", Static)
        assert not line.display, "no room for it at 80×24"
        await pilot.press("L")
        await pilot.pause()
        assert line.display
        await pilot.press("L")
        await pilot.pause()
        assert not line.display


async def test_panes_are_sized_by_their_content(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await main_screen(pilot)
        width = {pane: screen.query_one(f"#pane-{pane}").size.width
                 for pane in ("auto", "team", "agents", "snapshots", "agentmemory")}
        assert width["team"] < width["auto"] and width["team"] < width["agents"]
        assert width["agentmemory"] < width["snapshots"]
        rows = tree_rows(screen.query_one("#tree-snapshots", StoreTree))
        assert "▶ reviewer  ● update" in rows


async def test_a_relabelled_node_is_fitted_by_its_new_label(home: DemoHome) -> None:
    from memtui.tui.labels import Label

    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await main_screen(pilot)
        tree = screen.query_one("#tree-snapshots", StoreTree)
        node = tree.root.children[0]
        long_name = Text("a-very-long-agent-name-that-cannot-fit-in-the-pane", style="bold")
        tree.relabel(node, Label(long_name, badge=Text("  ✕ invalid")))
        await settle(pilot)
        row = tree_rows(tree)[0]
        assert row.startswith("▶ a-very-") and row.endswith("…  ✕ invalid")
