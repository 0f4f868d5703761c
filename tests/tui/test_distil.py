"""The distil review (``D``): the demo home's agentmemory home reviewed, a section toggled,
applied through the confirm dialog, undone with ``u``."""

from __future__ import annotations

from pathlib import Path

from pilots import app_for, confirm, digest_state, main_of, plain
from textual.widgets import SelectionList, Static

from memtui.core.demo.build import build_demo_home
from memtui.core.model import StoreKind
from memtui.tui.screens.distil import DistilScreen
from memtui.tui.testing import settle

PINNED = "## Pinned\n- Money is integer cents, always.\n"
OWN_NOTE = "My own note: ask Dana about the ERP sync window."


async def test_distil_the_agentmemory_home_toggle_apply_undo(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    am = home.agent_memory_home
    before = digest_state(am)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        assert main.result is not None
        store = next(s for s in main.result.stores if s.kind == StoreKind.AGENTMEMORY)
        main.select_path(store, "daily/2026-11-25.md")  # any file of the pane
        await pilot.pause()
        await pilot.press("D")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DistilScreen)
        assert screen.plan is not None and screen.shown is not None
        ids = [c.id for c in screen.plan.changes]
        assert ids == ["topics", "tag:#deploy", "tag:#payments", "tag:#testing", "tag:#ci",
                       "tag:#incident", "recent", "tags"]
        meter = plain(screen.query_one("#distil-meter", Static))
        assert "(not loaded by Claude Code)" in meter and "target" not in meter
        notes = plain(screen.query_one("#distil-notes", Static))
        assert "Claude Code does not load an agentmemory home's MEMORY.md" in notes
        assert "SCRATCHPAD.md line 7: open: rotate the staging key" in notes
        assert "## #deploy\n" in screen.shown.outcome.index_text

        changes = screen.query_one("#distil-changes", SelectionList)
        changes.highlighted = ids.index("tag:#deploy")
        await pilot.press("space")
        await settle(pilot)
        assert screen.shown is not None
        assert screen.shown.outcome.disabled == {"tag:#deploy"}
        assert "## #deploy\n" not in screen.shown.outcome.index_text
        assert "+## #deploy" not in screen.shown.diffs[0].unified
        assert "+## #incident" in screen.shown.diffs[0].unified

        text = await confirm(pilot, "a")
        assert "MEMORY.md" in text and "not loaded by Claude Code" in text
        assert app.screen is main
        index = (am / "MEMORY.md").read_text()
        assert "## #deploy\n" not in index and "## #incident\n" in index
        assert PINNED in index and OWN_NOTE in index
        assert digest_state(am).keys() == before.keys()  # MEMORY.md only: no file added
        assert [rel for rel in before if before[rel] != digest_state(am)[rel]] == ["MEMORY.md"]

        await confirm(pilot, "u")
        assert digest_state(am) == before


async def test_a_second_distil_has_nothing_to_apply(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    am = home.agent_memory_home
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        assert main.result is not None
        store = next(s for s in main.result.stores if s.kind == StoreKind.AGENTMEMORY)
        main.select_path(store, "MEMORY.md")
        await pilot.pause()
        await pilot.press("D")
        await settle(pilot)
        await confirm(pilot, "a")
        distilled = (am / "MEMORY.md").read_bytes()
        await pilot.press("D")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DistilScreen) and screen.plan is not None
        assert screen.plan.changes == []
        assert "Nothing to change" in plain(screen.query_one("#distil-notes", Static))
        await pilot.press("a")
        await settle(pilot)
        assert app.screen is screen  # no confirm dialog: nothing to apply
        assert (am / "MEMORY.md").read_bytes() == distilled
