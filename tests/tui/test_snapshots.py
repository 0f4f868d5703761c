"""Snapshot tests of the main screens, on the demo home at a fixed path with a frozen clock.

Update the stored SVGs after an intended change with ``pytest tests/tui --snapshot-update``
and look at them (``snapshot_report.html`` shows the differences of a failed run).
"""

from __future__ import annotations

import fcntl
import inspect
import json
import shutil
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

import memtui.core.history.record as history_record
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import STORY_NOW
from memtui.core.judge.archive import Archive, ArchiveEntry
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.stores.locations import Context
from memtui.core.write import journal as journal_module
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memory
from memtui.core.write.proposal import sha256_hex
from memtui.tui import clock
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.dialogs import search as search_dialog
from memtui.tui.dialogs.archive import ArchiveScreen
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.decisions import MergeDialog, ScopedDialog
from memtui.tui.dialogs.help import HelpScreen
from memtui.tui.dialogs.history import HistoryScreen
from memtui.tui.dialogs.projects import ProjectsScreen
from memtui.tui.dialogs.search import SearchScreen
from memtui.tui.dialogs.undo import InterruptedScreen, UndoHistoryScreen
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.screens.distil import DistilScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.snapshot_diff import SnapshotDiffScreen
from memtui.tui.testing import settle, still_cursors
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

SNAP_ROOT = Path("/tmp/memtui-snap-home")
"""Fixed, so the sanitized auto-memory dir name and any absolute path are the same every run."""
NOW = STORY_NOW.timestamp()
WIDE = (160, 45)
NARROW = (100, 35)
SMALL = (80, 24)
CUT_MARK = "Claude stops reading here"

SnapCompare = Callable[..., bool]
RunBefore = Callable[[Pilot[None]], Awaitable[None] | None]

pytestmark = pytest.mark.xdist_group("snapshots")  # one worker: they share SNAP_ROOT


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> Iterator[DemoHome]:
    """A fresh demo home at ``SNAP_ROOT`` (locked against a parallel run) and a frozen clock."""
    monkeypatch.setattr(clock, "now", lambda: NOW)
    with open(f"{SNAP_ROOT}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(SNAP_ROOT, ignore_errors=True)
        SNAP_ROOT.mkdir(parents=True)
        yield build_demo_home(SNAP_ROOT, now=NOW)
        shutil.rmtree(SNAP_ROOT, ignore_errors=True)


@pytest.fixture
def snap_compare(snap_compare: SnapCompare) -> SnapCompare:
    """The plugin's ``snap_compare``, every text cursor made still after ``run_before``: a
    blinking one is drawn or not by the wall clock, and a loaded machine takes the picture
    late (the merge dialog's lost its cursor)."""

    def compare(app: MemtuiApp, *, run_before: RunBefore | None = None, **kwargs: object) -> bool:
        async def before(pilot: Pilot[None]) -> None:
            result = None if run_before is None else run_before(pilot)
            if inspect.isawaitable(result):
                await result
            still_cursors(pilot.app)

        return snap_compare(app, run_before=before, **kwargs)

    return compare


def demo_app(home: DemoHome) -> MemtuiApp:
    """The app as the user whose HOME is the demo root (paths show as ``~/...``)."""
    env = {"HOME": str(home.root), "XDG_CONFIG_HOME": str(home.root / ".config")}
    context = Context.create(
        project=home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env=env,
    )
    return make_app(context, watch=False)


def main_screen(pilot: Pilot[None]) -> MainScreen:
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


async def select(pilot: Pilot[None], pane: str, path: Path, rel_path: str = "") -> None:
    """Cursor on a store (``rel_path`` empty) or a file of ``pane``'s tree, shown in detail."""
    screen = main_screen(pilot)
    tree = screen.query_one(f"#tree-{pane}", StoreTree)
    tree.focus()
    await pilot.pause()
    assert tree.select_key(f"{path}::{rel_path}")
    await settle(pilot)
    node = tree.cursor_node
    assert node is not None and node.data is not None and node.data.key == f"{path}::{rel_path}"
    detail = screen.query_one(DetailPane)
    if detail.ref is None or detail.ref.key != node.data.key:
        detail.show(node.data)  # the cursor did not move, so no highlight event showed it
        await settle(pilot)


async def scroll_detail_to(pilot: Pilot[None], mark: str, lines_above: int = 6) -> None:
    detail = main_screen(pilot).query_one(DetailPane)
    # a MEMORY.md's health (#detail-health) comes first, its numbered lines (#detail-head) next
    parts = [w for w in (detail.query_one("#detail-health", Static),
                         detail.query_one("#detail-head", Static)) if w.display]
    top = parts[0].virtual_region.y
    found = [widget.virtual_region.y - top + y for widget in parts
             for y, strip in enumerate(widget.render_lines(widget.size.region))
             if mark in strip.text]
    assert found, f"{mark!r} is not in the detail pane"
    detail.scroll_to(y=max(0, found[0] - lines_above), animate=False, immediate=True)
    await settle(pilot)


def test_main_screen(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """Every pane of the demo home side by side; a memory open in the detail, its age frozen."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await select(pilot, "auto", demo.auto_memory, "refund-coupons.md")

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_memory_index_meter(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """The auto MEMORY.md over its 200 lines: meter, CC's warning, health, dropped entries."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await select(pilot, "auto", demo.auto_memory, "MEMORY.md")

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_memory_index_cut_line(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """The same MEMORY.md scrolled to the cut line, the entries below it struck through."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await select(pilot, "auto", demo.auto_memory, "MEMORY.md")
        await scroll_detail_to(pilot, CUT_MARK)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_snapshot_pane_zoomed(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """The snapshot pane focused and zoomed, the reviewer's prompt-update snapshot selected."""
    reviewer = demo.project / ".claude" / "agent-memory-snapshots" / "reviewer"

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await select(pilot, "snapshots", reviewer)
        await pilot.press("z")
        await settle(pilot)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_narrow_terminal(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """Under 120 columns: tabs instead of side-by-side panes, one pane at a time."""
    assert snap_compare(demo_app(demo), terminal_size=NARROW, run_before=settle)


# --- every dialog and the snapshot review --------------------------------------------------

FROZEN_OP_TIME = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


class _FrozenDatetime(datetime):
    @classmethod
    def now(cls, tz: tzinfo | None = None) -> _FrozenDatetime:  # type: ignore[override]
        return cls.fromtimestamp(FROZEN_OP_TIME.timestamp(), tz)


@pytest.fixture
def frozen_journal(monkeypatch: pytest.MonkeyPatch, state_home: Path) -> Path:
    """Journal operations made in the test get a fixed time and id."""
    monkeypatch.setattr(journal_module, "datetime", _FrozenDatetime)
    monkeypatch.setattr(journal_module, "secrets", SimpleNamespace(token_hex=lambda _n: "c0de"))
    return state_home


def delete_in_the_journal(home: DemoHome, rel: str) -> str:
    """Delete ``rel`` of the auto store through the write path; the operation's id."""
    store = scan_store(StoreLocation(StoreKind.AUTO, home.auto_memory, "test"))
    memory = next(m for m in store.memories if m.rel_path == rel)
    return apply(plan_delete_memory(store, memory), app_journal(home)).op_id


def app_journal(home: DemoHome) -> Journal:
    """The journal :func:`demo_app`'s app uses (the demo root is its user's HOME)."""
    return Journal.default({"HOME": str(home.root)}, home=home.claude_home)


def test_confirm_dialog_previews_a_delete(snap_compare: SnapCompare, demo: DemoHome,
                                          state_home: Path) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await select(pilot, "auto", demo.auto_memory, "deploy-freeze.md")
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_search_dialog(snap_compare: SnapCompare, demo: DemoHome,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    still = SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if name[0] != "_"})
    still.perf_counter = lambda: 0.0  # "in 0 ms": the search's timing is not part of the look
    monkeypatch.setattr(search_dialog, "time", still)

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        assert isinstance(pilot.app.screen, SearchScreen)
        pilot.app.screen.query_one(Input).value = "deploy freeze"
        await settle(pilot)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_projects_dialog(snap_compare: SnapCompare, demo: DemoHome) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ProjectsScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


async def open_reviewer(pilot: Pilot[None]) -> None:
    await settle(pilot)
    screen = main_screen(pilot)
    assert screen.result is not None
    store = next(
        s for s in screen.result.stores
        if s.kind == StoreKind.SNAPSHOT and s.snapshot and s.snapshot.agent == "reviewer"
    )
    screen.select_path(store, None)
    await settle(pilot)
    await pilot.press("s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, SnapshotDiffScreen)


def test_snapshot_review_screen(snap_compare: SnapCompare, demo: DemoHome) -> None:
    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=open_reviewer)


def test_snapshot_review_at_80x24(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """A small terminal: the file list stacked over the diff, one line per scope."""
    assert snap_compare(demo_app(demo), terminal_size=SMALL, run_before=open_reviewer)


def test_main_screen_at_80x24(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """A small terminal: one pane with its size, age and description columns, tabs with each
    pane's worst mark, the meter unbroken, a compact footer that keeps ? and q."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await select(pilot, "auto", demo.auto_memory, "MEMORY.md")

    assert snap_compare(demo_app(demo), terminal_size=SMALL, run_before=run_before)


def test_main_screen_help(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """``?``: every key of the main screen with its meaning, the keys of its trees, the keys
    that work everywhere, and the legend."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HelpScreen)

    assert snap_compare(demo_app(demo), terminal_size=(160, 48), run_before=run_before)


def test_snapshot_review_help(snap_compare: SnapCompare, demo: DemoHome) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await open_reviewer(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HelpScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_undo_history_dialog(snap_compare: SnapCompare, demo: DemoHome,
                             frozen_journal: Path) -> None:
    delete_in_the_journal(demo, "deploy-freeze.md")

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("U")
        await settle(pilot)
        assert isinstance(pilot.app.screen, UndoHistoryScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_interrupted_operation_dialog(snap_compare: SnapCompare, demo: DemoHome,
                                      frozen_journal: Path) -> None:
    """An operation whose process died halfway (its record says so, its pid is gone)."""
    op_id = delete_in_the_journal(demo, "deploy-freeze.md")
    record = app_journal(demo).directory / op_id / "op.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    gone = subprocess.Popen(["true"])
    gone.wait()
    data.update(state="applying", pid=gone.pid)
    record.write_text(json.dumps(data), encoding="utf-8")

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        assert isinstance(pilot.app.screen, InterruptedScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_conflicts_screen(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """``J``: the planted pairs, the test-database contradiction selected."""

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=open_test_db_pair)


def test_archive_dialog(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """``A``: the judge's archive, one memory a decision took out of the auto store."""
    archive = Archive.default({"HOME": str(demo.root)})
    data = b"---\nname: deploy-days\ndescription: Deploy days\n---\nDeploys on Tuesdays.\n"
    archive.add(ArchiveEntry(
        id="20261129T120000-0badc0de-deploy-days", time=FROZEN_OP_TIME.timestamp(),
        store_kind="auto", store_path=str(demo.auto_memory), rel_path="deploy-days.md",
        sha256=sha256_hex(data), reason="superseded by auto · deploy-freeze.md",
        index_lines=["- [Deploy days](deploy-days.md) — Tuesdays"]), data)

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ArchiveScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


async def open_test_db_pair(pilot: Pilot[None]) -> None:
    """``J``, and the demo's test-database contradiction (both in auto memory) selected."""
    await settle(pilot)
    await pilot.press("J")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    pairs = screen.query_one("#conf-pairs", OptionList)
    rows = [str(pairs.get_option_at_index(i).prompt) for i in range(pairs.option_count)]
    pairs.highlighted = next(i for i, r in enumerate(rows) if "test-db-postgres.md" in r)
    await settle(pilot)


async def open_decision(pilot: Pilot[None], key: str) -> None:
    """On the conflicts screen, the test-database pair, then ``key``."""
    await open_test_db_pair(pilot)
    await pilot.press(key)
    await settle(pilot)


def test_scoped_dialog(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """``s``: the proposed "applies when" note of each side, to edit."""

    async def run_before(pilot: Pilot[None]) -> None:
        await open_decision(pilot, "s")
        assert isinstance(pilot.app.screen, ScopedDialog)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_merge_dialog(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """``e``: the proposed merged memory (the newer side's frontmatter, both bodies), to edit."""

    async def run_before(pilot: Pilot[None]) -> None:
        await open_decision(pilot, "e")
        assert isinstance(pilot.app.screen, MergeDialog)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_distil_review(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """``D`` on the auto store: the meter before → after, the changes, the index's diff."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen) and screen.result is not None
        store = next(s for s in screen.result.stores if s.kind == StoreKind.AUTO)
        screen.select_path(store, None)
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(pilot.app.screen, DistilScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


def test_agentmemory_distil_review(snap_compare: SnapCompare, demo: DemoHome) -> None:
    """``D`` on the agentmemory pane: the raw meter (not loaded by Claude Code), each generated
    section a change, the scratchpad's open items, the new index's diff (its stamp from the
    frozen clock)."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen) and screen.result is not None
        store = next(s for s in screen.result.stores if s.kind == StoreKind.AGENTMEMORY)
        screen.select_path(store, None)
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(pilot.app.screen, DistilScreen)

    assert snap_compare(demo_app(demo), terminal_size=WIDE, run_before=run_before)


# --- H: the history of a memory, a version marked ----------------------------------------------


def test_history_dialog_with_a_marked_version(
        snap_compare: SnapCompare, demo: DemoHome, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three versions of a memory recorded at fixed times, the oldest marked (``m``) and the
    newest highlighted: the diff is between those two."""
    clock = [NOW - 3 * 3600.0]
    monkeypatch.setattr(history_record, "time", SimpleNamespace(time=lambda: clock[0]))
    ctx = Context.create(project=demo.project, claude_home=demo.claude_home,
                         agent_memory_home=demo.agent_memory_home,
                         env={"HOME": str(demo.root)})
    target = demo.auto_memory / "user-role.md"
    original = target.read_bytes()
    history_record.record(ctx)
    for hours, line in ((2, b"Prefers small pull requests.\n"),
                        (1, b"Prefers small pull requests.\nReviews before lunch.\n")):
        clock[0] = NOW - hours * 3600.0
        target.write_bytes(original + b"\n" + line)
        history_record.record(ctx)

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
