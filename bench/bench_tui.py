"""Time until the TUI shows its first trees, against ``memtui scan --json``, in the same run.

    python bench/bench_tui.py [HOME_DIR] [--runs 3]

HOME_DIR is a home made by ``bench/generate_home.py`` (generated in a temp dir when omitted).
The scan is timed from launch to exit; the TUI child runs the real app headless
(``App.run_test``) and reports when the compositor first paints a line of a filled tree
(plus the interpreter's start-up, measured alongside). The target is a ratio of at most 1.3
(issue 25). Both run with the scan cache off, so the ratio compares the same work; the TUI's
first trees (auto and team memory) are painted from their headers, their secrets scanned right
after (``scan_progressively``).

Measured 2026-12-04 (shared 2-core machine, load 3.7 to 4.7), ``python bench/bench_tui.py BIG
--runs 3`` on a copy of a ``bench/generate_home.py`` home, this tree and the one before issue
25's tree work (2759d39, run by this script) alternating, twice: scan 1,356 and 2,049 ms, first
painted tree 3,289 and 3,822 ms: 2.43 and 1.87 (before: 2.77 and 2.35; 3.46 with the script's
old poll, which woke the app every 5 ms). Not met: the trees are no longer the cost (their
5,500 nodes are made without Textual's per-node work, labels when drawn), but the panes are
laid out once, after the complete scan (issue 25, item 4), so the first paint still waits for
the whole scan on top of the app's imports (textual and the screen: about 1.1 s of CPU here).

Since 2026-12-08 the child starts the first scan as ``memtui`` does: forked before Textual is
imported (``memtui/core/scan/forked.py``), in a session of its own; ``--no-fork`` times the
app scanning in its own process. Alternating with the tree before (c98e87f) in the same runs,
10 rounds of each child at load 10 to 16 (two test suites running beside it), medians: first
painted tree 6.3 s forked, 7.9 s not forked, 8.6 s before, against ``scan --json`` 5.5 s: 1.15,
1.45 and 1.56 × (CPU of the app and its child 2.7 s, 2.3 s and 2.4 s: the fork costs the
transfer and the child's own imports, and pays where the child gets a core or a share of its
own); at load 3.2 to 3.6, 6 rounds: 1,378 ms forked, 1,407 ms not, 1,578 ms before, against
a scan of about 920 ms: 1.5 against 1.7 × (the app's own imports, compose and paint, about
1.1 s of CPU, are now most of it). The scheduler shares the CPU out by session (autogroup): a
child left in the app's session was slower than no fork at all at load 8 to 11 (5.1 s
against 3.6 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from scratch import scratch, subdir  # bench/scratch.py, beside this script

START = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent


def child(home: Path, fork: bool) -> None:
    """Run the app headless until the trees are filled, then print the seconds it took. The
    first scan is forked before Textual is imported, as ``memtui`` forks it (``fork``
    False: the app scans in its own process, as it does where no fork is possible)."""
    sys.path.insert(0, str(ROOT))
    from memtui.core.stores.locations import Context

    ctx = Context.create(project=home / "project", claude_home=home / "claude",
                         agent_memory_home=home / "agent-memory")
    first_scan = None
    if fork:
        from memtui.core.scan.forked import ForkedScan

        first_scan = ForkedScan.start(ctx)

    from textual.strip import Strip

    from memtui.tui.app import make_app
    from memtui.tui.screens.main import MainScreen
    from memtui.tui.widgets.store_tree import StoreTree

    drawn: list[float] = []
    original = StoreTree.render_line
    painted: asyncio.Event | None = None

    def render_line(self: StoreTree, y: int) -> Strip:
        # the first time the compositor paints a line of a filled tree: trees are on screen
        if not drawn and self.stores and self.last_line >= 0:
            drawn.append(time.perf_counter())
            if painted is not None:
                painted.set()
        return original(self, y)

    StoreTree.render_line = render_line  # type: ignore[method-assign, assignment]

    async def run() -> None:
        nonlocal painted
        painted = asyncio.Event()
        app = make_app(ctx, watch=False, first_scan=first_scan)
        async with app.run_test(size=(160, 45)):
            # waited for, not polled: a poll every few milliseconds woke the app's loop all
            # through the scan and took the interpreter from the scan's thread each time
            await painted.wait()
            screen = app.screen
            assert isinstance(screen, MainScreen) and screen.result is not None

    asyncio.run(run())
    print(f"{drawn[0] - START:.4f}")


def wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def first_paint(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds from the TUI child's first line of Python to its first painted tree line."""
    out = subprocess.run(cmd, check=True, env=env, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("home", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-fork", action="store_true",
                        help="the app scans in its own process (no forked first scan)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.home, not args.no_fork)
        return 0
    with scratch("memtui-bench-tui-") as tmp:
        return run(args, tmp)


def run(args: argparse.Namespace, tmp: Path) -> int:
    home: Path = args.home
    if home is None:
        home = tmp / "home"
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate_home.py"), str(home)],
                       check=True)
    # bytecode is used as an installed package would use it (private prefix), even where
    # PYTHONDONTWRITEBYTECODE is set in the environment
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({
        "MEMTUI_NO_CACHE": "1",
        "PYTHONPYCACHEPREFIX": subdir(tmp, "pyc"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    })
    scan_cmd = [sys.executable, "-m", "memtui", "--claude-home", str(home / "claude"),
                "--project", str(home / "project"), "--agent-memory-home",
                str(home / "agent-memory"), "scan", "--json"]
    tui_cmd = [sys.executable, str(Path(__file__).resolve()), str(home), "--child",
               *(["--no-fork"] if args.no_fork else [])]
    wall(scan_cmd, env), first_paint(tui_cmd, env)  # warm caches
    scans, tuis, starts = [], [], []
    for _ in range(args.runs):
        scans.append(wall(scan_cmd, env))
        tuis.append(first_paint(tui_cmd, env))
        starts.append(wall([sys.executable, "-c", "pass"], env))
    s, t = statistics.median(scans), statistics.median(tuis) + statistics.median(starts)
    print(f"memtui scan --json: median {s * 1000:.0f} ms")
    print(f"TUI launch to the first painted tree: median {t * 1000:.0f} ms "
          f"(interpreter start-up {statistics.median(starts) * 1000:.0f} ms included)")
    print(f"ratio TUI / scan: {t / s:.2f} (target ≤ 1.3)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
