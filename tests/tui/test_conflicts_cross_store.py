"""The conflicts screen's ``s`` (keep both as scoped) and ``e`` (merge) on a pair across stores
with separate roots: the demo's planner agent memory against the project's auto memory. One
preview naming both targets, one operation, and ``u`` restores both stores byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import copy_demo, tree_state
from pilots import app_on, notifications, open_conflicts, plain
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file
from memtui.core.write.journal import Journal
from memtui.core.write.lock import LOCK_NAME
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.decisions import MergeDialog, ScopedDialog
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle


def stores(demo: DemoHome) -> dict[str, object]:
    planner = demo.claude_home / "agent-memory" / "planner"
    return {"planner": tree_state(planner), "auto": tree_state(demo.auto_memory)}


async def on_flags_pair(pilot: Pilot[None]) -> ConflictsScreen:
    """The conflicts screen with the planner-vs-auto feature-flags pair highlighted."""
    screen = await open_conflicts(pilot)
    [pair] = [p for p in screen.shown
              if {(p.candidate.a.kind, p.candidate.a.rel_path),
                  (p.candidate.b.kind, p.candidate.b.rel_path)}
              == {("agent", "feature-flags.md"), ("auto", "feature-flags.md")}]
    assert screen.highlight(pair.candidate.id)  # its group expanded
    await settle(pilot)
    return screen


def confirm_text(app: MemtuiApp) -> str:
    modal = app.screen
    assert isinstance(modal, ConfirmScreen)
    return "".join(plain(s) for s in modal.query_one("#confirm-scroll").query(Static))


async def decide(pilot: Pilot[None], key: str) -> str:
    """Press ``key`` (s or e), accept the proposed notes or merged text, return the preview."""
    await pilot.press(key)
    await settle(pilot)
    assert isinstance(pilot.app.screen, ScopedDialog if key == "s" else MergeDialog)
    await pilot.press("ctrl+s")
    await settle(pilot)
    return confirm_text(pilot.app)


async def test_s_and_e_across_two_stores_write_both_and_u_puts_every_byte_back(
    pristine: DemoHome, tmp_path: Path
) -> None:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    planner = demo.claude_home / "agent-memory" / "planner"
    before = stores(demo)
    state = tmp_path / "state"
    app = app_on(demo, state)
    async with app.run_test(size=(160, 45)) as pilot:
        for key in ("s", "e"):
            await on_flags_pair(pilot)
            text = " ".join((await decide(pilot, key)).split())  # the preview wraps
            assert f"writes into {planner} and {demo.auto_memory}" in text \
                or f"writes into {demo.auto_memory} and {planner}" in text
            await pilot.press("y")
            await settle(pilot)
            assert isinstance(app.screen, ConflictsScreen)
            after = stores(demo)
            assert after["planner"] != before["planner"] and after["auto"] != before["auto"]
            latest = Journal(state / "journal").list()[0]
            assert len(latest.roots()) == 2, key  # one operation for both stores
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, MainScreen)
            await pilot.press("u")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            await settle(pilot)
            assert stores(demo) == before, key
            await pilot.press("J")  # back to the conflicts for the next decision
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)


async def test_a_live_lock_in_the_other_store_refuses_the_scoped_decision(
    pristine: DemoHome, tmp_path: Path
) -> None:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    write_file(demo.auto_memory / LOCK_NAME, str(os.getpid()))  # Claude Code consolidating
    before = stores(demo)
    state = tmp_path / "state"
    app = app_on(demo, state)
    async with app.run_test(size=(160, 45)) as pilot:
        await on_flags_pair(pilot)
        await decide(pilot, "s")
        await pilot.press("y")
        await settle(pilot)
        assert any("Claude Code is consolidating memory in " in message
                   for message, _severity in notifications(app))
    assert stores(demo) == before
    assert Journal(state / "journal").list() == []
