"""The distil review (``D``): the plan of the selected store, toggles that re-render the
outcome, apply through the confirm dialog and ``u`` that puts every byte back."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import home_args
from pilots import app_for, confirm, detail_rows, main_of, notifications, plain
from pilots import digest_state as tree_state
from textual.pilot import Pilot
from textual.widgets import SelectionList, Static

from memtui.cli import main as cli_main
from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_big_store, write_memory
from memtui.core.distil.agentmemory_plan import AgentmemoryPlan
from memtui.core.model import StoreKind
from memtui.core.parse.load_report import load_report
from memtui.tui import clock
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.screens.distil import DistilScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.diff_view import DiffView
from memtui.tui.widgets.store_tree import StoreTree

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
        change_id = screen.plan.changes[moved].id
        assert str(changes.get_option(change_id).prompt).endswith("  off")  # not colour alone
        others = [c.id for c in screen.plan.changes if c.id != change_id]
        assert not any(str(changes.get_option(i).prompt).endswith("off") for i in others)
        assert not shown.outcome.after.fits
        assert "cannot fit" in plain(screen.query_one("#distil-notes", Static))
        old_lines = screen.plan.old_text.splitlines()
        for number in screen.plan.changes[moved].lines:
            assert old_lines[number - 1] in shown.outcome.index_text.splitlines()

        await pilot.press("A")  # some disabled: A enables every change
        await settle(pilot)
        assert screen.shown is not None and not screen.shown.outcome.disabled
        assert screen.shown.outcome.after.fits
        assert not str(changes.get_option(change_id).prompt).endswith("off")


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

        text = await confirm(pilot, "u")
        # each file named from the directory the operation wrote into, said above the list
        assert f"writes into {home.auto_memory}\n" in text
        assert "  revert  MEMORY.md\n" in text
        assert "  remove  memory-section-area-notes.md\n" in text
        assert str(home.auto_memory / "MEMORY.md") not in text
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


def orphan_marks(main: MainScreen) -> list[str]:
    """The memories of the Auto tree marked ◌."""
    tree = main.query_one("#tree-auto", StoreTree)
    return sorted(node.data.memory.rel_path for node in tree._all_nodes()
                  if node.data is not None and node.data.memory is not None
                  and "◌" in node.label.plain)


async def detail_of(pilot: Pilot[None], home: DemoHome, rel: str) -> list[str]:
    """The rows of the detail pane's head with the Auto store's ``rel`` selected."""
    main = main_of(pilot)
    tree = main.query_one("#tree-auto", StoreTree)
    tree.focus()
    assert tree.select_key(f"{home.auto_memory}::{rel}")
    await settle(pilot)
    return detail_rows(main.query_one(DetailPane), 120)


@pytest.mark.usefixtures("state_home")  # the CLI's scan cache in the test's directory
async def test_after_a_distil_the_trees_mark_what_scan_json_reports(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(pilot)
        await settle(pilot)
        assert orphan_marks(main) == ["legacy-coupons.md", "user-timezone.md"]
        await open_distil(pilot)
        await confirm(pilot, "a")
        assert isinstance(app.screen, MainScreen)
        assert orphan_marks(main) == []  # the 140 memories of "Area notes" are listed
        rows = await detail_of(pilot, home, "accounts-backlog.md")
        assert "Listed in memory-section-area-notes.md, a topic file distil wrote; MEMORY.md " \
               "points to it:" in rows
        assert not any("No MEMORY.md entry points" in row for row in rows)
        rows = await detail_of(pilot, home, "MEMORY.md")
        assert "  ↳ 140 memories listed in memory-section-area-notes.md (a topic file " \
               "MEMORY.md points to)" in rows
        assert not any("◌" in row for row in rows)

        write_memory(home.auto_memory, "fresh-note.md", description="no file points here")
        await pilot.press("ctrl+r")
        await settle(pilot)
        marked = orphan_marks(main)
        rows = await detail_of(pilot, home, "fresh-note.md")
        assert "No MEMORY.md entry points to this file." in rows
    capsys.readouterr()
    assert cli_main([*home_args(home), "scan", "--json"]) == 0
    auto = next(s for s in json.loads(capsys.readouterr().out)["stores"] if s["kind"] == "auto")
    assert marked == auto["index"]["health"]["orphans"] == ["fresh-note.md"]


async def test_the_confirmation_of_a_big_distil_counts_the_changes_per_group(
    tmp_path: Path,
) -> None:
    home = build_demo_home(tmp_path / "demo")
    for path in home.auto_memory.glob("*.md"):  # the auto store becomes a big one
        path.unlink()
    write_big_store(home.auto_memory)
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_distil(pilot)
        assert screen.plan is not None and len(screen.plan.changes) > 20
        await pilot.press("a")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, ConfirmScreen)
        body = plain(modal.query_one("#confirm-body", Static))
        notes = [row for row in body.splitlines() if row.startswith("• ")]
        groups = screen.plan.groups()
        assert len(notes) == 1 + len(groups), body
        assert notes[0].startswith("• 232 → ") and body.count("232 → ") == 1
        assert f"• orphans added ({len(groups['orphans'])})" in notes
        assert not any(c.summary in body for c in screen.plan.changes)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, DistilScreen)


AM_PINNED = "## Pinned\n- Money is integer cents, always.\n"
AM_OWN_NOTE = "My own note: ask Dana about the ERP sync window."


async def test_the_agentmemory_home_toggle_apply_undo(home: DemoHome) -> None:
    am = home.agent_memory_home
    before = tree_state(am)
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        main.select_path(store_of(main, StoreKind.AGENTMEMORY), "daily/2026-11-25.md")
        await pilot.pause()
        await pilot.press("D")  # on any file of the pane
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DistilScreen)
        assert screen.plan is not None and screen.shown is not None
        ids = [c.id for c in screen.plan.changes]
        assert ids == ["topics", "tag:#deploy", "tag:#payments", "tag:#testing", "tag:#ci",
                       "tag:#incident", "recent", "tags"]
        assert "(not loaded by Claude Code)" in meter(screen) and "target" not in meter(screen)
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
        assert "Overwrites: MEMORY.md" in text and "not loaded by Claude Code" in text
        assert isinstance(app.screen, MainScreen)
        index = (am / "MEMORY.md").read_text()
        assert "## #deploy\n" not in index and "## #incident\n" in index
        assert AM_PINNED in index and AM_OWN_NOTE in index
        after = tree_state(am)
        assert [rel for rel in after if after[rel] != before.get(rel)] == ["MEMORY.md"]

        await confirm(pilot, "u")
        assert tree_state(am) == before


async def test_a_second_agentmemory_distil_has_nothing_to_apply(home: DemoHome) -> None:
    am = home.agent_memory_home
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        await open_distil(pilot, StoreKind.AGENTMEMORY)
        await confirm(pilot, "a")
        distilled = (am / "MEMORY.md").read_bytes()
        screen = await open_distil(pilot, StoreKind.AGENTMEMORY)
        assert screen.plan is not None and screen.plan.changes == []
        assert "Nothing to change" in plain(screen.query_one("#distil-notes", Static))
        await pilot.press("a")
        await settle(pilot)
        assert app.screen is screen  # no confirm dialog: nothing to apply
        assert (am / "MEMORY.md").read_bytes() == distilled


async def test_the_plan_takes_its_now_from_the_tui_clock(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stamp and the lifecycle's today come from ``memtui.tui.clock`` (frozen: a snapshot
    of the review is the same every run)."""
    moment = datetime(2026, 11, 26, 9, 30, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", moment.timestamp)
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_distil(pilot, StoreKind.AGENTMEMORY)
        assert isinstance(screen.plan, AgentmemoryPlan) and screen.plan.now == moment
        assert screen.shown is not None
        assert "<!-- last distilled: 2026-11-26 09:30:00 -->" in screen.shown.outcome.index_text


async def test_esc_while_applying_cancels_and_puts_every_file_back(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The apply is held before its second file (the first already written) until ``esc``
    was pressed: the operation stops, every file is as it was, and the review plans again."""
    import threading

    from memtui.core.write import apply as apply_module

    before = tree_state(home.auto_memory)
    reached, release = threading.Event(), threading.Event()
    checked: list[object] = []
    original = apply_module._recheck

    def held_recheck(tree: object, target: object) -> None:
        checked.append(target)
        if len(checked) == 2:
            reached.set()
            release.wait(10)
        original(tree, target)  # type: ignore[arg-type]

    monkeypatch.setattr(apply_module, "_recheck", held_recheck)
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_distil(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        for _ in range(500):
            if reached.is_set():
                break
            await pilot.pause(0.01)
        assert reached.is_set() and screen.applying
        await pilot.press("escape")
        assert any("Cancelling" in m for m, _ in notifications(app))
        release.set()
        await settle(pilot)
        assert app.screen is screen and not screen.applying  # planned again, still open
        assert tree_state(home.auto_memory) == before
