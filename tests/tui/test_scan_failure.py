"""A store that cannot be read, or a scan step that fails, never leaves the TUI stuck on
"scan: …" with empty panes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from helpers import copy_demo, demo_app
from pilots import notified
from rich.console import Console
from textual.widgets import Static

from memtui.core.demo.build import DemoHome
from memtui.core.scan import scanner as core_scan
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (160, 45)


@pytest.fixture
def home(pristine: DemoHome, tmp_path: Path) -> DemoHome:
    return copy_demo(pristine, tmp_path / "home")


def plain(widget: Static) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def header(screen: MainScreen) -> str:
    return plain(screen.query_one("#header", Static))


def stores_shown(screen: MainScreen, pane: str) -> int:
    return len(list(screen.query_one(f"#tree-{pane}", StoreTree).stores))


async def test_an_unreadable_auto_memory_dir_shows_its_problem_and_the_rest_loads(
    home: DemoHome,
) -> None:
    """Root gets ENAMETOOLONG as any user gets EACCES: listing the auto memory dir fails with
    an OSError that pathlib does not swallow (it crashed the scan of the first stage)."""
    too_long = home.root / ("x" * 300)
    settings = home.project / ".claude" / "settings.local.json"
    settings.write_text(json.dumps({"autoMemoryDirectory": str(too_long)}), encoding="utf-8")
    app = demo_app(home, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert "scan:" not in header(screen)
        assert screen.result is not None and screen.result.complete
        auto = next(s for s in screen.result.stores if s.kind.value == "auto")
        assert "cannot read: file name too long" in auto.problems
        detail = screen.query_one(DetailPane)
        shown = "\n".join(plain(w) for w in detail.query(Static) if w.display)
        assert "cannot read: file name too long" in shown
        for pane in ("agents", "snapshots", "agentmemory"):
            assert stores_shown(screen, pane) > 0, pane


async def test_a_scan_step_that_raises_clears_the_header_and_says_so(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> object:
        raise OSError(5, "Input/output error [bold]not markup[/bold]")

    monkeypatch.setattr(core_scan, "discover_projects", broken)
    app = demo_app(home, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert "scan:" not in header(screen)
        messages = [n for n in notified(app) if n.severity == "error"]
        assert len(messages) == 1
        assert messages[0].message == (
            "scan failed: OSError: [Errno 5] Input/output error [bold]not markup[/bold]"
        )
        assert messages[0].markup is False
        # the stages before the failure are shown
        assert stores_shown(screen, "auto") == 1 and stores_shown(screen, "agents") > 0
