"""Keyboard navigation, opening memories, zoom, narrow layout and broken files in the TUI."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle as quiet
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("nav"))


def app_for(demo: DemoHome) -> MemtuiApp:
    ctx = Context.create(
        project=demo.project,
        claude_home=demo.claude_home,
        agent_memory_home=demo.agent_memory_home,
        env={"HOME": str(demo.root), "MEMTUI_NO_CACHE": "1",
             "XDG_CONFIG_HOME": str(demo.root / "config")},
    )
    return make_app(ctx, watch=False)


async def settle(pilot: Pilot[None]) -> MainScreen:
    await quiet(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen

def plain(widget: Static) -> str:
    """The text a Static shows, rendered without styles."""
    console = Console(width=200, record=True, file=io.StringIO())
    content = widget.content
    console.print(content if not isinstance(content, str) else Text(content))
    return console.export_text()


def detail_text(screen: MainScreen) -> str:
    detail = screen.query_one(DetailPane)
    return "\n".join(plain(w) for w in detail.query(Static) if w.display)


async def select(pilot: Pilot[None], screen: MainScreen, pane: str, rel_path: str) -> None:
    store = next(s for s in screen.query_one(f"#tree-{pane}", StoreTree).stores)
    screen.select_path(store, rel_path)
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_arrow_keys_move_between_panes_and_stop_at_the_ends(demo: DemoHome) -> None:
    """They wrapped: ``h`` from Auto landed on agentmemory, and ``D`` then distilled
    agentmemory when Auto was meant (issue 25)."""
    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        assert app.focused is not None and app.focused.id == "tree-auto"
        await pilot.press("h")
        assert app.focused is not None and app.focused.id == "tree-auto"
        seen = []
        for _ in range(6):
            await pilot.press("right")
            seen.append(app.focused.id if app.focused else None)
        assert seen == [
            "tree-team", "tree-sessions", "tree-agents", "tree-snapshots", "tree-agentmemory",
            "tree-agentmemory",
        ]
        assert "agentmemory" in plain(screen.query_one("#pane-info", Static))
        await pilot.press("h")
        assert app.focused is not None and app.focused.id == "tree-snapshots"


async def test_the_detail_pane_forgets_the_title_of_what_it_showed_before(
    demo: DemoHome,
) -> None:
    """Moving to a pane with nothing selected kept the previous memory's name on the detail
    pane (issue 25: "psp-sandbox.md" over a snapshot)."""
    from memtui.tui.widgets.detail import DetailPane

    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        detail = screen.query_one(DetailPane)
        assert detail.border_title  # the first scan shows MEMORY.md
        detail.show(None)
        await pilot.pause()
        assert not detail.border_title


async def test_keys_typed_faster_than_the_focus_moves_still_step_pane_by_pane(
    demo: DemoHome,
) -> None:
    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        for _ in range(3):  # no refresh in between: the focus has not moved yet
            screen.action_pane(1)
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "tree-agents"


async def test_first_scan_shows_memory_md_with_its_meter(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        text = detail_text(screen)
        assert "215 lines / 200" in text and "binds: lines" in text
        assert "Claude stops reading here" in text
        assert "WARNING: MEMORY.md is 215 lines (limit: 200)" in text


async def test_opening_a_memory_shows_frontmatter_body_and_pointers(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        await select(pilot, screen, "auto", "refund-coupons.md")
        text = detail_text(screen)
        assert "Index entries pointing here" in text and "line 212" in text
        assert "description" in text and "Refunds recompute coupon discounts" in text
        assert "days old" in text
        await pilot.press("r")
        await pilot.pause()
        raw = screen.query_one("#detail-raw", Static)
        assert raw.display and "**Why:**" in plain(raw)


async def test_enter_expands_an_agent_store(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        for _ in range(3):
            await pilot.press("right")
        tree = app.screen.query_one("#tree-agents", StoreTree)
        assert app.focused is tree
        await pilot.press("enter")
        await pilot.pause()
        assert tree.cursor_node is not None and tree.cursor_node.is_expanded
        await pilot.press("down")
        await pilot.pause()
        node = tree.cursor_node
        assert node is not None and node.data is not None and node.data.memory is not None


async def test_zoom_shows_one_pane_and_back(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        await pilot.press("right")
        await pilot.press("z")
        await pilot.pause()
        visible = [p.id for p in screen.query(".pane") if p.display and not p.has_class("hidden")]
        assert visible == ["pane-team"]
        assert screen.query_one("#pane-team").size.width > 150
        await pilot.press("z")
        await pilot.pause()
        hidden = [p.id for p in screen.query(".pane") if p.has_class("hidden")]
        assert hidden == []


async def test_narrow_terminal_uses_tabs_without_overlap(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=(90, 30)) as pilot:
        screen = await settle(pilot)
        assert screen.has_class("narrow")
        assert screen.query_one("#pane-tabs").display
        shown = [p for p in screen.query(".pane") if not p.has_class("hidden")]
        assert [p.id for p in shown] == ["pane-auto"]
        await pilot.press("right")
        await pilot.pause()
        shown = [p for p in screen.query(".pane") if not p.has_class("hidden")]
        assert [p.id for p in shown] == ["pane-team"]
        assert shown[0].region.right <= 90


BROKEN = [
    ("binary.md", "binary file"),
    ("latin1.md", "invalid UTF-8"),
    ("bad-yaml.md", "bad YAML"),
    ("escape.md", "symlink leaves the store"),
    ("huge.md", "very large"),
]


async def test_broken_files_render_with_their_problem(demo: DemoHome) -> None:
    """Each broken file selected in turn in one app (five pilots before, a start each)."""
    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        for rel_path, problem in BROKEN:
            await select(pilot, screen, "auto", rel_path)
            assert problem in detail_text(screen), rel_path
            tree = screen.query_one("#tree-auto", StoreTree)
            assert tree.cursor_node is not None and "⚠" in str(tree.cursor_node.label), rel_path


async def test_a_huge_memory_shows_its_first_lines_as_text(demo: DemoHome) -> None:
    """The demo's 3 MB access log pasted into a memory: its first lines as text and how many
    more there are, not a Markdown render of all of it (it froze the pane for 18 s)."""
    from textual.widgets import Markdown

    app = app_for(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await settle(pilot)
        await select(pilot, screen, "auto", "huge.md")
        detail = screen.query_one(DetailPane)
        raw = detail.query_one("#detail-raw", Static)
        assert raw.display and not detail.query_one(Markdown).display
        assert not detail.query_one("#detail-long", Static).display
        shown = plain(raw)
        assert shown.startswith('10.0.0.7 - - [20/Nov/2026:10:00:00 +0000] "GET /api/cart')
        assert "more lines not shown" in shown
        assert shown.count("GET /api/cart") == 1_000


def test_demo_home_paths_are_real(demo: DemoHome) -> None:
    assert Path(demo.project, ".git").is_dir()
