"""The app's first scan forked before the app's imports (as ``memtui`` starts it): the trees,
the header and the detail pane are what a scan in the app's own process shows, on the demo
home and the hostile home; when the child fails, the app scans itself and shows the same.

Run in a fresh interpreter (``SCRIPT``): a pytest worker has threads of its own, and
``ForkedScan.start`` forks no process with more than one thread."""

from __future__ import annotations

import pytest
from helpers import run_script_on_home
from hostile import build_hostile_home

from memtui.core.demo.build import DemoHome, build_demo_home

SCRIPT = r'''
import asyncio, json, os, sys
from pathlib import Path

from memtui.core.scan import scanner
from memtui.core.scan.forked import ForkedScan
from memtui.core.stores.locations import Context

root, mode = Path(sys.argv[1]), sys.argv[2]
ctx = Context.create(project=Path(sys.argv[3]), claude_home=Path(sys.argv[4]),
                     agent_memory_home=Path(sys.argv[5]),
                     env={"HOME": str(root), "XDG_CACHE_HOME": str(root / f"cache-{mode}"),
                          "XDG_STATE_HOME": str(root / f"state-{mode}"),
                          "XDG_DATA_HOME": str(root / f"data-{mode}")})
if mode == "fail":  # the child's scan fails (the app's own would not)
    parent, real = os.getpid(), scanner.scan_progressively

    def failing(*args, **kwargs):
        if os.getpid() != parent:
            raise OSError("the child could not read")
        return real(*args, **kwargs)

    scanner.scan_progressively = failing
if mode == "stuck":  # the child's scan never ends (until it is killed)
    parent, real = os.getpid(), scanner.scan_progressively

    def stuck(*args, **kwargs):
        if os.getpid() != parent:
            import time

            time.sleep(3600)
        return real(*args, **kwargs)

    scanner.scan_progressively = stuck
first = None if mode == "here" else ForkedScan.start(ctx)
assert mode == "here" or first is not None, "no fork"
if mode == "finished":  # the child is done before the app starts: every message is waiting
    import time

    limit = time.monotonic() + 600
    while os.waitpid(first.pid, os.WNOHANG)[0] == 0:
        assert time.monotonic() < limit, "the child never ended"
        time.sleep(0.05)

from memtui.tui.app import make_app
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

shows = []
real_show = MainScreen.show_result


def show_result(self, result):
    shows.append(result.complete)
    real_show(self, result)


MainScreen.show_result = show_result


async def shown():
    app = make_app(ctx, watch=False, first_scan=first)
    async with app.run_test(size=(160, 45)) as pilot:
        if mode == "stuck":  # quit while the scan runs
            await pilot.pause()
            assert isinstance(app.screen, MainScreen) and app.screen.result is None
            return {"quit": True}
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        trees = {tree.id: [tree.render_line(y).text for y in range(tree.size.height)]
                 for tree in screen.query(StoreTree)}
        detail = screen.query_one(DetailPane)
        return {
            "trees": trees,
            "header": str(screen.query_one("#header").render()),
            "detail": [detail.render_line(y).text for y in range(detail.size.height)],
            "complete": screen.result is not None and screen.result.complete,
            "links": sorted(s.index.health.wikilinks_checked for s in screen.result.stores
                            if s.index is not None),
            "errors": [str(n.message) for n in app._notifications if n.severity == "error"],
            "shows": shows,
        }


print(json.dumps(asyncio.run(shown())))
if first is not None and mode != "finished":  # (that one was reaped above)
    try:
        os.waitpid(first.pid, os.WNOHANG)
        raise SystemExit("the forked scan's process was not reaped")
    except ChildProcessError:
        pass
'''


def shown(home: DemoHome, mode: str) -> dict[str, object]:
    return run_script_on_home(SCRIPT, home, mode, timeout=900)


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("first-scan") / "demo")


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_hostile_home(tmp_path_factory.mktemp("first-scan-hostile"))


@pytest.mark.parametrize(("which", "mode"), [("demo_home", "fork"), ("hostile_home", "fork"),
                                             ("demo_home", "fail")])
def test_the_app_shows_a_forked_first_scan_as_its_own(
    which: str, mode: str, request: pytest.FixtureRequest
) -> None:
    home: DemoHome = request.getfixturevalue(which)
    here, there = shown(home, "here"), shown(home, mode)
    assert here["complete"] is True and there["complete"] is True
    assert here["errors"] == there["errors"] == []
    assert there["trees"] == here["trees"]
    assert there["header"] == here["header"]
    assert there["detail"] == here["detail"]
    assert there["links"] == here["links"]
    assert set(here["links"]) == {"files"}  # type: ignore[arg-type]
    assert any(len([row for row in rows if row.strip()]) > 3  # type: ignore[attr-defined]
               for rows in here["trees"].values())  # type: ignore[attr-defined]
    assert here["shows"] == [False, False, False, True]  # each stage of the scan


def test_quitting_during_the_forked_scan_ends_its_process(demo_home: DemoHome) -> None:
    """The app quits while the child still scans (it never would end here): the child is
    killed and reaped when the main screen goes (the script checks it was reaped)."""
    assert shown(demo_home, "stuck") == {"quit": True}


def test_results_that_came_while_the_app_was_busy_are_shown_once(demo_home: DemoHome) -> None:
    """The child ended before the app started: of its four results only the complete one is
    shown (the panes are laid out from it), and the app shows what it shows otherwise."""
    here, there = shown(demo_home, "here"), shown(demo_home, "finished")
    assert there["shows"] == [True]
    assert there["trees"] == here["trees"]
    assert there["detail"] == here["detail"]
    assert there["links"] == here["links"]
