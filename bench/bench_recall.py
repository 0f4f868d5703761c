"""Time ``memtui recall --manifest --json`` and ``memtui context --json`` on a large project
against ``memtui scan --json`` (warm cache) and a header-only baseline, in the same run.

    python bench/bench_recall.py [HOME_DIR] [--runs 5]

HOME_DIR is a home made by ``bench/generate_home.py`` (one whose bench project has 20,000 auto
memories is generated in a temp dir when omitted). The baseline reads the first 30 lines of every
``.md`` of the project's auto memory (bench/baseline.py): what any header scan must do. All run
as subprocesses, alternating, after one warm-up each; the ratios of the medians are printed.

Measured 2026-12-03 (``python bench/bench_recall.py --runs 5``; 23,335 memory files; the shared
2-core machine at load 8.6, medians of 5 runs):

    baseline (30 lines of every auto memory)        812 ms   1.00 × baseline   0.53 × scan
    scan --json (warm cache)                       1526 ms   1.88 × baseline   1.00 × scan
    recall --manifest --json                        897 ms   1.11 × baseline   0.59 × scan
    context --json                                  665 ms   0.82 × baseline   0.44 × scan
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_scan import memtui_command, timed  # noqa: E402  (beside this script)
from scratch import scratch, subdir  # noqa: E402

from memtui.core.stores.locations import Context, locate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("home", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with scratch("memtui-bench-recall-") as tmp:
        home: Path = args.home
        if home is None:
            home = tmp / "home"
            print(f"generating a project with 20,000 auto memories in {home} …", flush=True)
            # the bench project's auto memory gets 15 % of --memories (bench/generate_home.py)
            subprocess.run([sys.executable, str(ROOT / "bench" / "generate_home.py"), str(home),
                            "--projects", "2", "--memories", "133334",
                            "--transcript-bytes", "1e6"], check=True)
        ctx = Context.create(project=home / "project", claude_home=home / "claude",
                             agent_memory_home=home / "agent-memory")
        auto = locate(ctx).auto.path
        where = [*memtui_command(), "--claude-home", str(home / "claude"), "--project",
                 str(home / "project"), "--agent-memory-home", str(home / "agent-memory")]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = subdir(tmp, "pyc")
        env["XDG_CACHE_HOME"] = subdir(tmp, "cache")
        commands = {
            "baseline (30 lines of every auto memory)": [
                sys.executable, str(ROOT / "bench" / "baseline.py"), str(tmp), str(auto)],
            "scan --json (warm cache)": [*where, "scan", "--json"],
            "recall --manifest --json": [*where, "recall", "--manifest", "--json"],
            "context --json": [*where, "context", "--json"],
        }
        for cmd in commands.values():
            timed(cmd, env)  # warm-up (and the scan cache)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(timed(cmd, env)[0])
        medians = {name: statistics.median(t) for name, t in times.items()}
        base = next(iter(medians.values()))
        scan = medians["scan --json (warm cache)"]
        load = os.getloadavg()[0]
        print(f"{sum(1 for _ in auto.rglob('*.md')):,} memory files; load {load:.1f}; "
              f"medians of {args.runs} runs")
        for name, median in medians.items():
            print(f"  {name:<42} {median * 1000:8.0f} ms  {median / base:5.2f} × baseline  "
                  f"{median / scan:5.2f} × scan")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
