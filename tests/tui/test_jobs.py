"""Long work on Textual's workers (:mod:`memtui.tui.work`): whatever a worker raises, the
header's job text goes and the failure is said in words by the one handler; progress messages
of one worker replace each other; a write cancelled halfway says every file was put back."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers import demo_app, tree_state
from pilots import notified
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind
from memtui.core.scan import scanner as core_scan
from memtui.core.write import apply as core_apply
from memtui.core.write.proposal import Proposal
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle

SIZE = (160, 45)
VICTIM = "user-role.md"


@pytest.fixture
def home(tmp_path: Path, state_home: Path) -> DemoHome:
    """A demo home of its own (its auto memory dir is named after its project's path)."""
    return build_demo_home(tmp_path / "home")


def header(screen: MainScreen) -> str:
    console = Console(width=300, record=True, file=io.StringIO())
    console.print(screen.query_one("#header", Static).content)
    return console.export_text()


def errors(app: MemtuiApp) -> list[str]:
    return [n.message for n in notified(app) if n.severity == "error"]


def auto_store(main: MainScreen) -> Store:
    assert main.result is not None
    return next(s for s in main.result.stores if s.kind == StoreKind.AUTO and s.memories)


async def main_screen(pilot: Pilot[None]) -> MainScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


async def test_an_edit_that_raises_clears_the_header_and_says_what_failed(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the write path (not a refusal): the header kept "jobs: delete user-role.md"
    for good and nothing was said (only EditRefused, OSError and KeyError were handled)."""

    def broken(*_args: object, **_kwargs: object) -> object:
        raise RuntimeError("disk on fire [bold]not markup[/bold]")

    monkeypatch.setattr(core_apply, "_plan", broken)
    before = tree_state(home.auto_memory)
    app = demo_app(home, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        main = await main_screen(pilot)
        main.select_path(auto_store(main), VICTIM)
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is main
        assert "jobs:" not in header(main)
        assert errors(app) == [
            f"delete {VICTIM} failed: RuntimeError: disk on fire [bold]not markup[/bold]"
        ]
        assert all(n.markup is False for n in notified(app) if n.severity == "error")
    assert tree_state(home.auto_memory) == before


async def test_a_plan_that_raises_says_what_failed(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug while planning a delete: the worker died silently and ``d`` did nothing."""

    def broken(_self: object) -> object:
        raise ValueError("cannot diff")

    monkeypatch.setattr(Proposal, "diff", broken)
    app = demo_app(home, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        main = await main_screen(pilot)
        main.select_path(auto_store(main), VICTIM)
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        assert app.screen is main
        assert "jobs:" not in header(main)
        assert len(errors(app)) == 1
        assert "ValueError: cannot diff" in errors(app)[0]


async def test_a_scan_that_raises_after_a_project_switch_clears_the_header(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The switch puts "scan: switching project" in the header before the scan starts."""
    app = demo_app(home, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        main = await main_screen(pilot)

        def broken(*_args: object, **_kwargs: object) -> object:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(core_scan, "discover_projects", broken)
        main.switch_project(home.project)
        await settle(pilot)
        assert "jobs:" not in header(main)
        assert errors(app) == ["scan failed: OSError: [Errno 5] Input/output error"]


def test_a_newer_progress_message_of_the_same_worker_replaces_an_older_one() -> None:
    from textual.widget import Widget
    from textual.worker import Worker

    from memtui.tui.messages import JobProgress

    node = Widget()
    one, other = Worker(node, lambda: None), Worker(node, lambda: None)
    older = JobProgress(one, "delete x 1/3", 1, 3)
    assert older.can_replace(JobProgress(one, "delete x 2/3", 2, 3))
    assert not older.can_replace(JobProgress(other, "delete y 1/3", 1, 3))


async def test_the_header_shows_a_worker_while_it_runs_and_forgets_a_cancelled_one(
    home: DemoHome,
) -> None:
    import threading

    from memtui.tui.work import check, progress, run_thread

    app = demo_app(home, MEMTUI_NO_CACHE="1")
    release = threading.Event()
    async with app.run_test(size=SIZE) as pilot:
        main = await main_screen(pilot)

        def slow() -> None:
            progress("work 1/2", 1, 2)
            while not release.wait(0.01):
                check()

        worker = run_thread(main, slow, group="test", label="work")
        for _ in range(2000):
            await pilot.pause(0.01)
            if "work 1/2" in header(main):
                break
        assert "jobs: work 1/2" in header(main)
        worker.cancel()  # the worker ends at once, its thread at its next check
        for _ in range(2000):
            await pilot.pause(0.01)
            if "jobs:" not in header(main):
                break
        assert "jobs:" not in header(main)
        assert errors(app) == []
        release.set()


async def test_an_edit_cancelled_halfway_still_says_that_nothing_changed(home: DemoHome) -> None:
    """A cancelled worker is silent, except a write that was stopped and put back: its refusal
    is said (the snapshot review then plans again)."""
    import threading

    from memtui.core.write.apply import EditCancelled
    from memtui.core.write.proposal import AppliedOp
    from memtui.tui.work import Cancelled, Progress, apply_step, run_flow

    app = demo_app(home, MEMTUI_NO_CACHE="1")
    started = threading.Event()
    async with app.run_test(size=SIZE) as pilot:
        main = await main_screen(pilot)

        def write(_step: Progress, cancelled: Cancelled) -> AppliedOp:
            started.set()
            while not cancelled():
                threading.Event().wait(0.01)
            raise EditCancelled("cancelled: every file was put back")

        async def flow() -> None:
            await apply_step(main, "replace x", write, lambda _op: "replaced x")

        worker = run_flow(main, flow, group="edit", label="replace x", title="Nothing changed")
        for _ in range(3000):
            await pilot.pause(0.01)
            if started.is_set() and "jobs: replace x" in header(main):
                break
        assert started.is_set() and "jobs: replace x" in header(main)
        worker.cancel()
        for _ in range(3000):
            await pilot.pause(0.01)
            if errors(app):
                break
        assert errors(app) == ["cancelled: every file was put back"]
        assert "jobs:" not in header(main)


async def test_a_detail_read_that_raises_says_so_in_the_pane(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug while reading the selected memory: the pane said "reading user-role.md …" for
    good."""
    from memtui.tui.widgets import detail as detail_module

    def broken(*_args: object, **_kwargs: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(detail_module, "load_full_text", broken)
    app = demo_app(home, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        main = await main_screen(pilot)
        main.select_path(auto_store(main), VICTIM)
        await settle(pilot)
        console = Console(width=300, record=True, file=io.StringIO())
        console.print(main.query_one("#detail-head", Static).content)
        shown = console.export_text()
        assert f"reading {VICTIM} failed: RuntimeError: boom" in shown
        assert f"reading {VICTIM} failed: RuntimeError: boom" in errors(app)  # and earlier ones
