"""The main screen lays its panes out once (issue 25, item 4): no frame, from the first, shows
a pane at a width other than the one it settles at (the first partial result used to show a
zoomed Auto pane and the other panes squashed to one column until the scan was complete)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import demo_app
from textual.pilot import Pilot

from memtui.core.contents import ScanResult, SecretMark
from memtui.core.demo.build import DemoHome
from memtui.core.model import StoreKind
from memtui.core.scan import scanner
from memtui.core.scan.scanner import scan_progressively
from memtui.tui.panes import PANES
from memtui.tui.screens import main as main_module
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (160, 45)


class Stages:
    """The real progressive scan, held after each stage's result was shown until the test
    has looked at the frame it made (the scan's thread resumes the generator only after the
    screen showed what it yielded)."""

    def __init__(self) -> None:
        self.shown = 0
        self.complete: list[bool] = []
        self.go = threading.Semaphore(0)
        self.released = False

    def wrap(self, real: Any) -> Any:
        def progressively(*args: Any, **kwargs: Any) -> Iterator[ScanResult]:
            for result in real(*args, **kwargs):
                yield result
                self.complete.append(result.complete)
                self.shown += 1  # the screen showed it: the thread asks for the next one
                if not self.released:
                    self.go.acquire()

        return progressively

    def release(self) -> None:
        self.released = True
        self.go.release()


def pane_widths(screen: MainScreen) -> dict[str, int]:
    """The width of every pane the frame shows (a pane not laid out has an empty region)."""
    widths = {}
    for spec in PANES:
        region = screen.query_one(f"#pane-{spec.id}").region
        if region.width > 0:
            widths[spec.id] = region.width
    return widths


def filled_trees(screen: MainScreen) -> set[str]:
    """The panes whose trees show stores."""
    return {spec.id for spec in PANES if screen.query_one(f"#tree-{spec.id}", StoreTree).stores}


async def frame(pilot: Pilot[None]) -> dict[str, int]:
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return pane_widths(screen)


async def test_every_frame_shows_the_panes_at_their_settled_widths(
    demo: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    stages = Stages()
    monkeypatch.setattr(main_module, "scan_progressively", stages.wrap(scan_progressively))
    app = demo_app(demo, MEMTUI_NO_CACHE="1")
    frames: list[dict[str, int]] = []
    async with app.run_test(size=SIZE) as pilot:
        try:
            frames.append(await frame(pilot))  # the first frame, before any result
            while not stages.complete or not stages.complete[-1]:
                looked = stages.shown
                if looked:
                    stages.go.release()  # on to the next stage
                while stages.shown == looked:
                    assert any(w.group == "scan" and w.is_running for w in app.workers)
                    await pilot.pause()
                frames.append(await frame(pilot))  # the frame of each result
        finally:
            stages.release()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        settled = pane_widths(screen)
    assert stages.complete.count(False) >= 2, "the scan showed partial results"
    assert set(settled) == {spec.id for spec in PANES}
    assert len(set(settled.values())) > 1, "the panes are sized by their content"
    for number, widths in enumerate(frames):
        for pane, width in widths.items():
            assert width == settled[pane], (
                f"frame {number}: the {pane} pane is {width} columns wide, "
                f"{settled[pane]} once settled")
    assert frames[-1] == settled, "the complete result's frame is the settled layout"


async def test_the_panes_are_shown_from_the_headers_before_any_secret_scan(
    demo: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25: the first paint needs every store's headers, not their secrets nor the other
    projects. The scan is held right after the result that has every store from its headers:
    the frame then shows every pane, filled, and no memory was scanned for secrets yet; the
    complete result follows once the scan goes on."""
    reached, go = threading.Event(), threading.Semaphore(0)
    scanned: list[str] = []
    real_marks = scanner.secret_marks

    def counting(text: str, rel_path: str) -> list[SecretMark]:
        scanned.append(rel_path)
        return real_marks(text, rel_path)

    def progressively(*args: Any, **kwargs: Any) -> Iterator[ScanResult]:
        for result in scan_progressively(*args, **kwargs):
            yield result  # resumed once the screen showed it
            if result.scanned >= set(StoreKind) and not result.complete:
                reached.set()
                go.acquire()

    monkeypatch.setattr(scanner, "secret_marks", counting)
    monkeypatch.setattr(main_module, "scan_progressively", progressively)
    app = demo_app(demo, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        try:
            while not reached.is_set():
                assert any(w.group == "scan" and w.is_running for w in app.workers), (
                    "the scan ended without a result of every store's headers")
                await pilot.pause()
            widths = await frame(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen)
            assert set(widths) == {spec.id for spec in PANES}
            filled = filled_trees(screen)
            assert {"auto", "team", "agents", "snapshots"} <= filled
            assert scanned == [] and screen.result is not None and not screen.result.complete
        finally:
            go.release()
        await settle(pilot)
        assert screen.result is not None and screen.result.complete
        assert scanned
        assert filled_trees(screen) == filled
        assert pane_widths(screen) == widths, "the panes were laid out at their widths"
