"""Time memtui's full-text search on a large home: index build, then one query per keystroke.

    python bench/bench_search.py [HOME_DIR] [--memories 20000] [--projects 300] [--repeat 5]

HOME_DIR is a home written by ``bench/generate_home.py`` (generated into a temp dir when
omitted). Every memory of the home is indexed, the bench project's stores plus every other
project's auto and team memory, so the index holds all ``--memories`` files. Each query is timed
"cold" (the index's narrowing cache cleared: the worst case of a keystroke) and while "typing"
(each prefix of a word in turn, as a user types it). Prints ms per query, median and max.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_home import generate

from memtui.core.contents import ScanResult
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan, scan_store
from memtui.core.scan.search import SearchIndex, build_search_index
from memtui.core.stores.locations import Context

QUERIES = (
    "e", "p", "x", "po", "re", "pos", "ref", "zq", "post", "refu", "dash",
    "postgres", "refund", "webhook retry", "deploy freeze canary", "nothing-like-this",
)  # fmt: skip
TYPED_WORDS = ("postgres", "refund coupon", "rollback")


def whole_home(root: Path) -> ScanResult:
    """The bench project's scan plus every other project's memory stores as extra stores."""
    claude_home, project = root / "claude", root / "project"
    ctx = Context.create(project=project, claude_home=claude_home, env={"HOME": str(root)})
    result = scan(ctx)
    own = {store.path for store in result.stores}
    for memory_dir in sorted((claude_home / "projects").glob("*/memory")):
        for path, kind in ((memory_dir, StoreKind.AUTO), (memory_dir / "team", StoreKind.TEAM)):
            if path in own or not path.is_dir():
                continue
            skip = {"team"} if kind == StoreKind.AUTO else None
            result.stores.append(scan_store(StoreLocation(kind, path, "bench"), skip))
    return result


def time_query(index: SearchIndex, text: str, *, cold: bool) -> float:
    if cold:
        index.clear_cache()
    started = time.perf_counter()
    index.query(text)
    return (time.perf_counter() - started) * 1000


def report(label: str, samples: list[float]) -> str:
    return f"{label:<24} median {statistics.median(samples):6.2f} ms   max {max(samples):6.2f} ms"


def run(root: Path, repeat: int) -> None:
    started = time.perf_counter()
    result = whole_home(root)
    memories = sum(len(s.memories) for s in result.stores)
    print(
        f"scan:   {memories:,} files in {len(result.stores)} stores, "
        f"{time.perf_counter() - started:.1f} s"
    )
    started = time.perf_counter()
    index = build_search_index(result)
    print(f"index:  {len(index):,} documents in {time.perf_counter() - started:.1f} s")
    every: list[float] = []
    print("cold queries (cache cleared before each):")
    for text in QUERIES:
        samples = [time_query(index, text, cold=True) for _ in range(repeat)]
        every += samples
        hits = len(index.query(text))
        print("  " + report(f"{text!r} ({hits} hits)", samples))
    typed: list[float] = []
    for word in TYPED_WORDS:
        index.clear_cache()
        typed += [time_query(index, word[:n], cold=False) for n in range(1, len(word) + 1)]
    print(report("all cold queries", every))
    print(report("typing, per keystroke", typed))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("home", type=Path, nargs="?", help="a home from generate_home.py")
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--projects", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    if args.home is not None:
        run(args.home, args.repeat)
        return 0
    with tempfile.TemporaryDirectory(prefix="memtui-bench-search-") as tmp:
        root = Path(tmp) / "home"
        started = time.perf_counter()
        generate(
            root, projects=args.projects, memories=args.memories, transcript_bytes=10**8, seed=1
        )
        print(f"generated {root} in {time.perf_counter() - started:.1f} s")
        run(root, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
