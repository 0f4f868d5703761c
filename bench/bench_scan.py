"""Time ``memtui scan --json`` against a baseline that only reads headers, in the same run.

    python bench/bench_scan.py [HOME_DIR] [--runs 5]

HOME_DIR is a home made by ``bench/generate_home.py`` (one is generated in a temp dir when
omitted). The baseline is a fresh Python process that walks the same store directories and the
projects folder and reads the first 30 lines of every ``.md`` file: the least any scanner must
do (bench/baseline.py). Both run as subprocesses, alternating, after one warm-up each; the
figures that matter are the ratio of medians (target ≤ 1.5) and memtui's peak RSS (target
≤ 300 MB). memtui runs with a warm scan cache and without one (``MEMTUI_NO_CACHE=1``, the cold
start: target ≤ 4 × the baseline, issue 25); ``memtui --help`` is timed against ``python -c
pass`` in the same runs (target ≤ 2.5 ×); a last line compares the scanning work alone, in one
process.

Measured 2026-12-03 on the shared 2-core machine at load 11 to 13 (every figure inflated; the
same machine at load 0.2 gave 17 ms for the baseline on the demo home and 94 ms on the large
one), ``python bench/bench_scan.py HOME --runs 5``:

- demo home (``memtui demo``'s, 243 memories): warm 368 ms, cold 841 ms, baseline 88 ms:
  4.20 × and 9.60 ×;
- the large home's bench project (``bench/generate_home.py``, 5,012 memories in 513 stores):
  warm 552 ms, cold 2,089 ms, baseline 206 ms: 2.68 × and 10.14 ×.

Against the tree before issue 25's work, alternating runs, CPU medians (the wall clock at that
load says little): cold demo 247 ms against 272 ms, cold large project 867 ms against 882 ms.
The cold targets are not met: a cold run's imports (argparse, dataclasses, the parsers, ruamel
for one bad header) and the per-file parsing and secret scan of every memory dominate. Since
(README, "Then (2026-12-04, issue 25 item 1"): no ruamel for the demo's bad header, cold demo
CPU 402 → 339 ms at load 4 to 5; ``--help`` 2.61 → 2.40 × ``python -c pass``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import baseline  # noqa: E402  (bench/baseline.py, beside this script)
from scratch import scratch, subdir  # noqa: E402

from memtui.core.stores.locations import Context, locate  # noqa: E402


def store_roots(home: Path) -> tuple[Path, list[str]]:
    """The projects folder and every store root memtui scans for the bench project."""
    ctx = Context.create(project=home / "project", claude_home=home / "claude",
                         agent_memory_home=home / "agent-memory")
    loc = locate(ctx)
    roots = [loc.auto.path, *[s.path for s in loc.sessions], *[a.path for a in loc.agents],
             *[s.path for s in loc.snapshots], loc.agentmemory.path]
    return ctx.claude_home / "projects", [str(r) for r in roots]


def memtui_command() -> list[str]:
    """How a user runs memtui: the console script installed beside this Python, else
    ``python -m memtui``."""
    script = Path(sys.executable).parent / "memtui"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "memtui"]


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in bytes (the kernel's accounting of the child) and stdout."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{cmd[:4]} failed: {err.read().decode()[-2000:]}")
    return elapsed, usage.ru_maxrss * 1024, out.decode()


def in_process(
    home: Path, projects: Path, roots: list[str], runs: int, tmp: Path
) -> tuple[float, float, float]:
    """Medians (s) of scan() without cache, with a warm cache, and of the baseline walk, all in
    this process: interpreter start-up, imports and JSON output left out."""
    from memtui.core.cache import ScanCache
    from memtui.core.scan.scanner import scan

    ctx = Context.create(project=home / "project", claude_home=home / "claude",
                         agent_memory_home=home / "agent-memory")
    cache_file = Path(subdir(tmp, "in-process-cache")) / "scan.marshal"
    scan(ctx, cache=ScanCache(cache_file))
    cold, warm, base = [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        scan(ctx)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        scan(ctx, cache=ScanCache(cache_file))
        warm.append(time.perf_counter() - start)
        start = time.perf_counter()
        baseline.run(str(projects), roots)
        base.append(time.perf_counter() - start)
    return statistics.median(cold), statistics.median(warm), statistics.median(base)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("home", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with scratch("memtui-bench-scan-") as tmp:
        return run(args, tmp)


def run(args: argparse.Namespace, tmp: Path) -> int:
    home: Path = args.home
    if home is None:
        home = tmp / "home"
        print(f"generating a large home in {home} …", flush=True)
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate_home.py"), str(home)],
                       check=True)
    projects, roots = store_roots(home)
    env_cmd = [*memtui_command(), "--claude-home", str(home / "claude"),
               "--project", str(home / "project"), "--agent-memory-home",
               str(home / "agent-memory"), "scan", "--json"]
    base_cmd = [sys.executable, str(ROOT / "bench" / "baseline.py"), str(projects), *roots]
    cache_home = subdir(tmp, "cache")
    # Like an installed package, every child uses compiled bytecode (the warm-up runs write it
    # to a private prefix), even where PYTHONDONTWRITEBYTECODE is set in the environment.
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base_env["PYTHONPYCACHEPREFIX"] = subdir(tmp, "pyc")
    cold_env = {**base_env, "MEMTUI_NO_CACHE": "1"}
    warm_env = {**base_env, "MEMTUI_NO_CACHE": "0", "XDG_CACHE_HOME": cache_home}
    help_cmd, pass_cmd = [*memtui_command(), "--help"], [sys.executable, "-c", "pass"]
    timed(env_cmd, cold_env), timed(env_cmd, warm_env), timed(base_cmd, base_env)  # warm-up
    timed(help_cmd, base_env), timed(pass_cmd, base_env)
    memtui_times, cold_times, base_times, help_times, pass_times = [], [], [], [], []
    out, rss = "", 0
    for _ in range(args.runs):
        elapsed, run_rss, out = timed(env_cmd, warm_env)
        memtui_times.append(elapsed)
        rss = max(rss, run_rss)
        elapsed, run_rss, _ = timed(env_cmd, cold_env)
        cold_times.append(elapsed)
        rss = max(rss, run_rss)
        elapsed, _, _base_out = timed(base_cmd, base_env)
        base_times.append(elapsed)
        help_times.append(timed(help_cmd, base_env)[0])
        pass_times.append(timed(pass_cmd, base_env)[0])
    data = json.loads(out)
    memories = sum(len(s["memories"]) for s in data["stores"])
    m_med, b_med = statistics.median(memtui_times), statistics.median(base_times)
    c_med = statistics.median(cold_times)
    print(f"stores: {len(data['stores'])}, memories: {memories}, "
          f"projects listed: {len(data['projects'])}, baseline read {_base_out.strip()} files")
    print(f"command: {' '.join(env_cmd[:1])} … scan --json")
    print(f"memtui scan --json, cache warm: median {m_med * 1000:.0f} ms "
          f"(min {min(memtui_times) * 1000:.0f}, max {max(memtui_times) * 1000:.0f})")
    print(f"memtui scan --json, no cache (MEMTUI_NO_CACHE=1): median {c_med * 1000:.0f} ms "
          f"(min {min(cold_times) * 1000:.0f}, max {max(cold_times) * 1000:.0f})")
    print(f"baseline header read: median {b_med * 1000:.0f} ms "
          f"(min {min(base_times) * 1000:.0f}, max {max(base_times) * 1000:.0f})")
    print(f"ratio memtui / baseline: {m_med / b_med:.2f} with the cache (target ≤ 1.5), "
          f"{c_med / b_med:.2f} without")
    print(f"memtui peak RSS: {rss / 1_048_576:.0f} MB (target ≤ 300 MB)")
    h_med, p_med = statistics.median(help_times), statistics.median(pass_times)
    print(f"memtui --help: median {h_med * 1000:.0f} ms, python -c pass: median "
          f"{p_med * 1000:.0f} ms: ratio {h_med / p_med:.2f} (target ≤ 2.5)")
    cold, warm, base = in_process(home, projects, roots, args.runs, tmp)
    print(f"the TUI's scan() in one process (no start-up, imports or JSON): {cold * 1000:.0f} ms, "
          f"with warm cache {warm * 1000:.0f} ms, baseline walk {base * 1000:.0f} ms "
          f"→ ratios {cold / base:.2f} / {warm / base:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
