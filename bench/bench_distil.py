"""Distil at scale against the scan of the same store, in the same run (issue 13).

    python bench/bench_distil.py [--memories 2000] [--days 365] [--runs 5]

Builds two homes in a temp dir, each holding one store so that ``memtui scan --json`` scans
just that store:

* a Claude Code auto store of ``--memories`` memories (``write_big_store``: a MEMORY.md far
  over the 200-line and 25 KB limits, with hand-written ``## Area`` sections, an entry for
  almost every memory, one dangling pointer per area, long hooks, a few orphans);
* an agentmemory home of ``--days`` daily logs of 10 entries each (tags, a few superseded or
  expired entries), 24 topic files and a scratchpad, ending today; its MEMORY.md is the one
  distil made a week before, plus a hand-written section.

Measures, alternating, medians of ``--runs`` (after one warm-up of each):

* in-process: ``plan_distil``; ``plan.outcome()`` with nothing disabled and with the plan's
  largest group disabled; a toggle as the distil screen renders it (the outcome with one
  change left out, and its proposal's diffs against the disk); the baseline ``scan_store``
  of the same store and reading the first 30 lines of every ``.md`` file below it (the least
  a plan must read: bench/baseline.py);
* processes: ``memtui distil auto --json`` / ``memtui distil agentmemory --json`` against
  ``memtui scan --json`` of the same home and ``python bench/baseline.py`` on the same store
  (all with ``MEMTUI_NO_CACHE=1``: distil keeps no cache).

Each figure is printed in ms and as a ratio to its baseline. Targets: distil is a background
job, so a plan costs at most a small multiple (≤ 3 ×) of the scan of the same store; an outcome
per toggle must feel instant: < 50 ms at 2,000 memories.

Figures (two runs of ``python bench/bench_distil.py --runs 9``, 2 cores, load about 10): the
agentmemory plan 38-41 ms = 2.14-2.28 × its scan (18 ms), ``memtui distil agentmemory --json``
1.53-1.62 × ``memtui scan --json``; the tree before the one-pass entry parser, run in
alternation with them: 62-63 ms = 3.42-3.51 × (3.1 × at load 1), 1.79-1.80 ×. The auto store's
plan (code unchanged) 1.50-1.63 × its scan in all four.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import baseline  # noqa: E402  (bench/baseline.py, beside this script)
from bench_scan import memtui_command, timed  # noqa: E402
from scratch import scratch, subdir  # noqa: E402

from memtui.core.contents import Store  # noqa: E402
from memtui.core.demo.writers import (  # noqa: E402
    BIG_INDEX_AREAS,
    make_git_repo,
    write_agentmemory_daily,
    write_agentmemory_scratchpad,
    write_agentmemory_topic,
    write_big_store,
    write_file,
)
from memtui.core.distil.model import DistilPlan  # noqa: E402
from memtui.core.distil.plan import plan_distil  # noqa: E402
from memtui.core.model import StoreLocation  # noqa: E402
from memtui.core.scan.scanner import scan_store  # noqa: E402
from memtui.core.stores.locations import Context, locate  # noqa: E402

TAGS = ("auth", "deploy", "billing", "search", "cache", "oncall", "schema", "release")
TOPICS = 24
ENTRIES_PER_DAY = 10
FRESH_DAYS = 7
OUTCOME_TARGET_MS = 50.0
PLAN_TARGET = 3.0


def context(home: Path) -> Context:
    return Context.create(project=home / "project", claude_home=home / "claude",
                          agent_memory_home=home / "agent-memory", env={"HOME": str(home)})


def build_auto(home: Path, memories: int) -> StoreLocation:
    """The auto store of ``home``'s project: ``memories`` memories in ``write_big_store``'s
    shape (8 corrections, six areas, the rest orphans)."""
    make_git_repo(home / "project", message="bench: distil")
    location = locate(context(home)).auto
    orphans_at_least = max(5, memories // 100)
    per_area = max(1, (memories - 8 - orphans_at_least) // len(BIG_INDEX_AREAS))
    orphans = max(0, memories - 8 - per_area * len(BIG_INDEX_AREAS))
    write_big_store(location.path, per_area=per_area, orphans=orphans)
    return location


def write_days(am: Path, today: datetime, backs: range, rng: random.Random,
               topics: dict[str, list[tuple[str, str, str, str]]]) -> None:
    """The daily logs ``backs`` days before ``today``; every fourth entry also in a topic."""
    for back in backs:
        day = (today - timedelta(days=back)).strftime("%Y-%m-%d")
        entries = []
        for n in range(ENTRIES_PER_DAY):
            stamp = f"{day} {8 + n:02d}:{rng.randrange(60):02d}:00"
            sid = f"{rng.getrandbits(32):08x}"
            tags = " ".join(f"#{t}" for t in rng.sample(TAGS, rng.randint(0, 2)))
            body = f"Day {day} note {n}: the {rng.choice(TAGS)} rule and why it holds {tags}"
            if n == 0 and back % 30 == 7:
                body = f"Status: superseded\n{body}"
            elif n == 1 and back % 45 == 3:
                body = f"Valid until: {day}\n{body}"
            elif n == 2:
                body += "\nMore detail on a second line, with a [[link]] to another page."
            entries.append((stamp, sid, body))
            if n == 3:
                topics.setdefault(f"topic-{rng.randrange(TOPICS):02d}", []).append(
                    (stamp, sid, body, day))
        write_agentmemory_daily(am, day, entries)


def build_agentmemory(home: Path, days: int, today: datetime, seed: int) -> StoreLocation:
    """``days`` daily logs ending ``today``, ``ENTRIES_PER_DAY`` entries each, ``TOPICS``
    topic files whose entries point back at them, a scratchpad, and the MEMORY.md distil
    made a week ago with a hand-written section: the plan rebuilds stale sections."""
    rng = random.Random(seed)
    (home / "project").mkdir(parents=True, exist_ok=True)  # the CLI wants a project
    location = locate(context(home)).agentmemory
    am = location.path
    topics: dict[str, list[tuple[str, str, str, str]]] = {}
    write_days(am, today, range(days - 1, FRESH_DAYS - 1, -1), rng, topics)
    for slug, entries in sorted(topics.items()):
        write_agentmemory_topic(am, slug, slug.replace("-", " ").title(), entries)
    write_agentmemory_scratchpad(am, [(i % 3 == 0, f"follow up on item {i}", "")
                                      for i in range(20)])
    week_ago = today - timedelta(days=FRESH_DAYS)
    old = plan_distil(Store(location=location, exists=True), now=week_ago).outcome()
    write_file(am / "MEMORY.md", old.index_text + "\n## Kept by hand\n- ask before deploys\n")
    write_days(am, today, range(FRESH_DAYS - 1, -1, -1), rng, {})
    return location


def largest_group(plan: DistilPlan) -> tuple[str, frozenset[str]]:
    """The group with the most changes, and their ids (what one toggle disables)."""
    groups: dict[str, set[str]] = {}
    for change in plan.changes:
        groups.setdefault(change.group, set()).add(change.id)
    name = max(sorted(groups), key=lambda g: len(groups[g]))
    return name, frozenset(groups[name])


def toggle(plan: DistilPlan) -> None:
    """What one toggle in the TUI computes (``render_outcome`` of the distil screen): the
    outcome with the first change left out, and its diffs against the disk."""
    outcome = plan.outcome({plan.changes[0].id} if plan.changes else ())
    if outcome.proposal is not None:
        outcome.proposal.diff()


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


class Timings:
    """Named lists of wall seconds, filled in alternation."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}

    def time(self, name: str, work: Callable[[], object]) -> None:
        start = time.perf_counter()
        work()
        self.times.setdefault(name, []).append(time.perf_counter() - start)

    def ms(self, name: str) -> float:
        return median_ms(self.times[name])


def measure_store(label: str, location: StoreLocation, home: Path, runs: int, now: datetime,
                  env: dict[str, str], spec: str) -> list[str]:
    """Every figure for one store, as report lines."""
    store = Store(location=location, exists=True)  # as `memtui distil` makes it

    def plan() -> DistilPlan:
        return plan_distil(store, now=now)

    first = plan()
    group, disabled = largest_group(first)
    opts = ["--claude-home", str(home / "claude"), "--project", str(home / "project"),
            "--agent-memory-home", str(home / "agent-memory")]
    distil_cmd = [*memtui_command(), *opts, "distil", spec, "--json"]
    scan_cmd = [*memtui_command(), *opts, "scan", "--json"]
    base_cmd = [sys.executable, str(ROOT / "bench" / "baseline.py"), str(home),
                str(location.path)]
    steps: list[tuple[str, Callable[[], object]]] = [
        ("plan", plan),
        ("scan", lambda: scan_store(location)),
        ("headers", lambda: baseline.walk(str(location.path))),
        ("outcome", lambda: first.outcome()),
        ("outcome-1", lambda: first.outcome(disabled)),
        ("toggle", lambda: toggle(first)),
        ("distil process", lambda: timed(distil_cmd, env)),
        ("scan process", lambda: timed(scan_cmd, env)),
        ("headers process", lambda: timed(base_cmd, env)),
    ]
    for _name, work in steps:  # warm-up
        work()
    timings = Timings()
    for _ in range(runs):
        for name, work in steps:
            timings.time(name, work)
    t = timings.ms
    files = baseline.walk(str(location.path))
    lines = [
        f"{label}: {files:,} .md files, {len(first.changes):,} changes "
        f"(largest group: {group}, {len(disabled):,}); before {first.before.lines:,} lines, "
        f"{first.before.bytes:,} bytes; after {first.outcome().after.lines:,} lines",
        f"  baseline scan_store {t('scan'):.0f} ms, header read {t('headers'):.0f} ms",
        f"  plan_distil {t('plan'):.0f} ms = {t('plan') / t('scan'):.2f} × the scan "
        f"(target ≤ {PLAN_TARGET:.0f} ×), {t('plan') / t('headers'):.1f} × the header read",
        f"  outcome() {t('outcome'):.1f} ms, with {group} disabled {t('outcome-1'):.1f} ms "
        f"(target < {OUTCOME_TARGET_MS:.0f} ms) = {t('outcome-1') / t('scan'):.2f} × the scan",
        f"  a toggle as the TUI renders it (one change off, outcome + diffs) {t('toggle'):.1f} ms "
        f"(target < {OUTCOME_TARGET_MS:.0f} ms) = {t('toggle') / t('scan'):.2f} × the scan",
        f"  memtui distil {spec} --json {t('distil process'):.0f} ms = "
        f"{t('distil process') / t('scan process'):.2f} × memtui scan --json "
        f"({t('scan process'):.0f} ms), {t('distil process') / t('headers process'):.1f} × "
        f"the header-read process ({t('headers process'):.0f} ms)",
    ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--memories", type=int, default=2_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with scratch("memtui-bench-distil-") as tmp:
        return run(args, tmp)


def run(args: argparse.Namespace, tmp: Path) -> int:
    now = datetime.now(UTC)
    cc_home, am_home = Path(subdir(tmp, "cc")), Path(subdir(tmp, "am"))
    started = time.perf_counter()
    auto = build_auto(cc_home, args.memories)
    am = build_agentmemory(am_home, args.days, now, args.seed)
    print(f"built both homes in {time.perf_counter() - started:.1f} s; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs", flush=True)
    # like an installed package: compiled bytecode (written by the warm-up to a private prefix)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=subdir(tmp, "pyc"), MEMTUI_NO_CACHE="1",
               XDG_CACHE_HOME=subdir(tmp, "cache"), XDG_STATE_HOME=subdir(tmp, "state"),
               XDG_CONFIG_HOME=subdir(tmp, "config"))
    for line in measure_store(f"auto store, {args.memories:,} memories", auto, cc_home,
                              args.runs, now, env, "auto"):
        print(line, flush=True)
    for line in measure_store(f"agentmemory home, {args.days} daily logs", am, am_home,
                              args.runs, now, env, "agentmemory"):
        print(line, flush=True)
    print(f"medians of {args.runs} alternating runs; load average at the end "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
