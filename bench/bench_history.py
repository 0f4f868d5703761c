"""Time ``memtui history record`` against a warm ``memtui scan --json`` on the large home.

    python bench/bench_history.py [HOME_DIR] [--runs 5] [--changed 10]

HOME_DIR is a home made by ``bench/generate_home.py`` (one is generated in a temp dir when
omitted; the history's data dir is always a fresh temp dir). After the first recording (every
file: reported, not a target), it measures, as subprocesses started the way a user starts
memtui, alternating after one warm-up each:

- ``scan --json`` with a warm scan cache;
- ``history record`` with nothing changed (target: at most 1.5 × the warm scan);
- ``history record`` after ``--changed`` memory files of the bench project's auto memory were
  rewritten (target: at most 100 ms more than with nothing changed).

Then ``history gc`` once within the default limits (nothing to prune: what checking costs) and
once with a size cap that prunes every version but the newest (the chain written again, git's
gc run): each reported with what it removed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from bench_scan import memtui_command, timed  # noqa: E402  (bench/, beside this script)
from scratch import scratch, subdir  # noqa: E402

from memtui.core.stores.locations import Context, locate  # noqa: E402


def auto_memories(home: Path, count: int) -> list[Path]:
    """``count`` memory files of the bench project's auto memory."""
    ctx = Context.create(project=home / "project", claude_home=home / "claude",
                         agent_memory_home=home / "agent-memory")
    auto = locate(ctx).auto.path
    files = sorted(p for p in auto.glob("*.md") if p.name != "MEMORY.md")
    if len(files) < count:
        raise SystemExit(f"the auto memory {auto} has only {len(files)} memory files")
    return files[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("home", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--changed", type=int, default=10)
    args = parser.parse_args()
    with scratch("memtui-bench-history-") as tmp:
        return run(args, tmp)


def run(args: argparse.Namespace, tmp: Path) -> int:
    home: Path = args.home
    if home is None:
        home = tmp / "home"
        print(f"generating a large home in {home} …", flush=True)
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate_home.py"), str(home)],
                       check=True)
    options = [*memtui_command(), "--claude-home", str(home / "claude"),
               "--project", str(home / "project"), "--agent-memory-home",
               str(home / "agent-memory")]
    scan_cmd = [*options, "scan", "--json"]
    record_cmd = [*options, "history", "record"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = subdir(tmp, "pyc")
    env.update(MEMTUI_NO_CACHE="0", XDG_CACHE_HOME=subdir(tmp, "cache"),
               MEMTUI_DATA_DIR=subdir(tmp, "data"), MEMTUI_STATE_DIR=subdir(tmp, "state"))
    first, _rss, _out = timed(record_cmd, env)
    print(f"first recording (every file of the project's stores): {first * 1000:.0f} ms")
    timed(scan_cmd, env), timed(record_cmd, env)  # warm-up
    scans, idle = [], []
    for _ in range(args.runs):
        scans.append(timed(scan_cmd, env)[0])
        idle.append(timed(record_cmd, env)[0])
    files = auto_memories(home, args.changed)
    changed = []
    for n in range(args.runs):
        for path in files:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(f"\nbench edit {n}\n")
        changed.append(timed(record_cmd, env)[0])
    s_med, i_med, c_med = (statistics.median(x) for x in (scans, idle, changed))
    print(f"command: {' '.join(options[:1])} … history record")
    print(f"scan --json, cache warm: median {s_med * 1000:.0f} ms "
          f"(min {min(scans) * 1000:.0f}, max {max(scans) * 1000:.0f})")
    print(f"history record, nothing changed: median {i_med * 1000:.0f} ms "
          f"(min {min(idle) * 1000:.0f}, max {max(idle) * 1000:.0f})")
    print(f"history record, {args.changed} files changed: median {c_med * 1000:.0f} ms "
          f"(min {min(changed) * 1000:.0f}, max {max(changed) * 1000:.0f})")
    print(f"ratio record (nothing changed) / warm scan: {i_med / s_med:.2f} (target ≤ 1.5)")
    print(f"{args.changed} changed files cost {(c_med - i_med) * 1000:+.0f} ms more than none "
          "(target ≤ 100 ms)")
    gc_cmd = [*options, "history", "gc", "--json"]
    for label, extra in (("within the limits", {}),
                         ("pruning all but the newest", {"MEMTUI_HISTORY_MAX_SIZE_MB": "0.001"})):
        took, _rss, out = timed(gc_cmd, {**env, **extra})
        report = json.loads(out)
        print(f"history gc, {label}: {took * 1000:.0f} ms, {len(report['removed'])} versions "
              f"removed, {report['bytes_before'] / 1e6:.1f} MB → "
              f"{report['bytes_after'] / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
