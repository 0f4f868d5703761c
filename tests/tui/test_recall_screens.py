"""The recall and context screens: a prompt's preview, the manifest, the session's parts."""

from __future__ import annotations

from pathlib import Path

from helpers import copy_demo, demo_app

from memtui.core.demo.build import DemoHome
from memtui.tui.screens.recall import ContextScreen, RecallScreen
from memtui.tui.testing import settle


def static_text(screen: object, selector: str) -> str:
    from textual.widgets import Static

    return str(screen.query_one(selector, Static).render())  # type: ignore[attr-defined]


async def test_a_prompt_shows_what_recall_attaches(pristine: DemoHome, tmp_path: Path) -> None:
    home = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    app = demo_app(home)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = RecallScreen(app.context)
        app.push_screen(screen)
        await settle(pilot)
        assert "memories offered to recall" in static_text(screen, "#recall-result")
        await pilot.click("#recall-prompt")
        for key in "checkout feature flag rollout":
            await pilot.press("space" if key == " " else key)
        await pilot.press("enter")
        await settle(pilot)
        shown = static_text(screen, "#recall-result")
        assert "checkout-flags.md" in shown and "<system-reminder>" in shown
        await pilot.press("ctrl+t")
        assert "files offered to recall" in static_text(screen, "#recall-result")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is not screen


async def test_the_context_screen_lists_every_part(pristine: DemoHome, tmp_path: Path) -> None:
    from textual.widgets import DataTable

    home = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    app = demo_app(home)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = ContextScreen(app.context)
        app.push_screen(screen)
        await settle(pilot)
        table = screen.query_one("#context-table", DataTable)
        rows = [str(table.get_row_at(i)[5]) for i in range(table.row_count)]
        assert any("auto memory" in row for row in rows)
        assert any(row.startswith("project") for row in rows)
        assert "total" in static_text(screen, "#context-total")


async def test_r_and_c_open_them_from_the_main_screen(pristine: DemoHome, tmp_path: Path) -> None:
    from memtui.tui.screens.main import MainScreen

    home = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    app = demo_app(home)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, RecallScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen) and app.screen.agent is None


async def test_memories_past_the_200_newest_are_marked_and_counted(
    pristine: DemoHome, tmp_path: Path
) -> None:
    from helpers import demo_context

    from memtui.core.demo.writers import write_memory
    from memtui.core.recall.manifest import build_manifest
    from memtui.core.stores.locations import locate
    from memtui.tui.widgets.store_tree import UNRECALLED_GLYPH, StoreTree

    home = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    auto = locate(demo_context(home)).auto.path
    for i in range(40):
        write_memory(auto, f"old-note-{i:02d}.md", description=f"old note {i}",
                     mtime_days_ago=900 + i)
    invisible = build_manifest(auto).invisible
    assert invisible
    app = demo_app(home)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree-auto", StoreTree)
        assert tree.unrecalled == frozenset(str(auto / rel) for rel in invisible)
        subtitle = str(app.screen.query_one("#pane-auto").border_subtitle)
        assert f"{len(invisible)} invisible to recall" in subtitle
        target = str(auto / invisible[0])
        stack = list(tree.root.children)
        labels: dict[str, str] = {}
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if node.data is not None and node.data.memory is not None:
                labels[node.data.memory.file] = str(node.label)
        assert UNRECALLED_GLYPH in labels[target]
        fresh = next(f for f in labels if f not in tree.unrecalled)
        assert UNRECALLED_GLYPH not in labels[fresh]
