"""Marking memories (``space``, a search's ``ctrl+t``) and deleting them with ``d`` as one
previewed operation that one ``u`` undoes."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import demo_app, tree_state
from pilots import confirm, main_of, notifications, rendered
from textual.widgets import Input, Static

from memtui.core.demo.build import build_demo_home
from memtui.core.model import StoreKind
from memtui.core.write.journal import journal_for
from memtui.tui.dialogs.search import SearchScreen
from memtui.tui.marks import MARK_GLYPH
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.store_tree import StoreTree

pytestmark = pytest.mark.usefixtures("state_home")

SIZE = (160, 45)


def labels(tree: StoreTree) -> dict[str, str]:
    """Each memory node's label text, by its memory's path."""
    out: dict[str, str] = {}
    stack = [tree.root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.data is not None and node.data.memory is not None:
            out[node.data.memory.rel_path] = str(node.label)
    return out


def marked(tree: StoreTree) -> list[str]:
    return sorted(rel for rel, label in labels(tree).items() if label.startswith(MARK_GLYPH))


def info(screen: MainScreen) -> str:
    """The info line's text, never wrapped: it names the demo's temporary path, whose length
    varies from run to run (pytest's numbered base directory, the test's name), and a line
    wrapped at ``plain``'s 200 columns would split the phrase a test looks for."""
    return "\n".join(rendered(screen.query_one("#pane-info", Static).content, 10_000))


async def test_mark_with_space_and_a_search_then_one_delete_and_one_undo(
    tmp_path: Path,
) -> None:
    demo = build_demo_home(tmp_path / "demo")
    auto = demo.auto_memory
    before = tree_state(demo.claude_home)
    backlogs = sorted(p.name for p in auto.glob("*-backlog.md"))
    assert len(backlogs) >= 20
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        tree = main.query_one("#tree-auto", StoreTree)
        assert main.result is not None
        store = next(s for s in main.result.stores if s.kind == StoreKind.AUTO)
        main.select_path(store, "user-role.md")
        await settle(pilot)
        await pilot.press("space", "space")  # marks user-role.md, the cursor moves on
        await pilot.pause()
        assert marked(tree) == ["user-role.md", "user-timezone.md"]
        assert "2 marked memories (d deletes them, esc clears)" in info(main)
        await pilot.press("up", "space")  # back on user-timezone.md: unmarks it
        await pilot.pause()
        assert marked(tree) == ["user-role.md"]
        assert "1 marked memory (d deletes" in info(main)

        await pilot.press("escape")
        await pilot.pause()
        assert marked(tree) == [] and "marked" not in info(main)
        main.select_path(store, "user-role.md")
        await settle(pilot)
        await pilot.press("space")

        await pilot.press("slash")
        await app.workers.wait_for_complete()
        await pilot.pause()
        search = app.screen
        assert isinstance(search, SearchScreen)
        search.query_one("#search-input", Input).value = "backlog.md"
        await pilot.pause()
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.screen is main
        assert marked(tree) == sorted([*backlogs, "user-role.md"])
        count = len(backlogs) + 1
        assert f"{count} marked memories" in info(main)

        text = await confirm(pilot, "d")
        assert f"delete {count} memories from" in text
        assert all(name in text for name in backlogs)
        assert text.count("-- a/MEMORY.md") == 1  # one index diff
        assert any(f"deleted {count} memories · u to undo" in m for m, _ in notifications(app))
        assert not (auto / "user-role.md").exists()
        assert not any(auto.glob("*-backlog.md"))
        assert [op.kind for op in journal_for(main.context).list()] == ["delete-memories"]
        assert marked(tree) == [] and "marked" not in info(main)

        text = await confirm(pilot, "u")
        assert f"delete {count} memories" in text
    assert tree_state(demo.claude_home) == before


async def test_marks_in_an_auto_memory_and_an_agent_memory_delete_as_one_operation(
    tmp_path: Path,
) -> None:
    """Stores with separate roots: one preview naming both targets, one journal entry (each
    store's MEMORY.md line removed), one undo that restores both."""
    demo = build_demo_home(tmp_path / "demo")
    planner = demo.claude_home / "agent-memory" / "planner"
    before = tree_state(demo.claude_home)
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        assert main.result is not None
        auto = next(s for s in main.result.stores if s.kind == StoreKind.AUTO)
        agent = next(s for s in main.result.stores if s.path == planner)
        for store, rel in ((auto, "user-role.md"), (agent, "roadmap.md")):
            main.select_path(store, rel)
            await settle(pilot)
            await pilot.press("space")
            await pilot.pause()
        assert "2 marked memories" in info(main)

        text = await confirm(pilot, "d")
        assert "delete 2 memories from" in text
        # the preview wraps: at a space (then gone with the newline) or inside a long path
        unwrapped = "".join(text.split())
        assert f"writesinto{demo.auto_memory}and{planner}" in unwrapped
        assert not (demo.auto_memory / "user-role.md").exists()
        assert not (planner / "roadmap.md").exists()
        assert "(user-role.md)" not in (demo.auto_memory / "MEMORY.md").read_text()
        assert "(roadmap.md)" not in (planner / "MEMORY.md").read_text()
        [op] = journal_for(main.context).list()
        assert op.kind == "delete-memories"
        assert [r.root for r in op.roots()] == [str(demo.auto_memory), str(planner)]

        text = await confirm(pilot, "u")
        assert "delete 2 memories" in text
    assert tree_state(demo.claude_home) == before
