"""Snapshot of the history dialog (``H``) on the demo home at its fixed path: three versions of
a memory recorded at fixed times, the oldest marked (``m``) and the newest highlighted, so the
diff shown is between those two."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from textual.pilot import Pilot

import memtui.core.history.record as record_module
from memtui.core.demo.build import DemoHome
from memtui.core.model import StoreKind
from memtui.core.stores.locations import Context
from memtui.tui.dialogs.history import HistoryScreen
from memtui.tui.testing import settle

from .test_snapshots import NOW, WIDE, SnapCompare, demo, demo_app, main_screen, snap_compare

__all__ = ["demo", "snap_compare"]  # the fixtures, from the main snapshot module

pytestmark = pytest.mark.xdist_group("snapshots")  # one worker: they share SNAP_ROOT


def test_history_dialog_with_a_marked_version(
        snap_compare: SnapCompare, demo: DemoHome, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [NOW - 3 * 3600.0]
    monkeypatch.setattr(record_module, "time", SimpleNamespace(time=lambda: clock[0]))
    ctx = Context.create(project=demo.project, claude_home=demo.claude_home,
                         agent_memory_home=demo.agent_memory_home,
                         env={"HOME": str(demo.root)})
    target = demo.auto_memory / "user-role.md"
    original = target.read_bytes()
    record_module.record(ctx)
    for hours, line in ((2, b"Prefers small pull requests.\n"),
                        (1, b"Prefers small pull requests.\nReviews before lunch.\n")):
        clock[0] = NOW - hours * 3600.0
        target.write_bytes(original + b"\n" + line)
        record_module.record(ctx)

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        screen = main_screen(pilot)
        assert screen.result is not None
        store = next(s for s in screen.result.stores if s.kind == StoreKind.AUTO)
        screen.select_path(store, "user-role.md")
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, HistoryScreen) and len(dialog.rows) == 3
        await pilot.press("down", "down", "m", "up", "up")
        await settle(pilot)
        assert dialog.marked == 2

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)
