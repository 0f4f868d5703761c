"""The TUI's first scan in a child process (issue 25, item 1: the stores are read while the
app imports Textual): what the parent gets is what a scan in its own process gives, object
for object, on the demo home and the hostile home; a child that fails leaves the scan to the
caller; the parent's unpickler builds nothing but a scan's own classes.

The forks run in a fresh interpreter (``SCRIPT``): a pytest worker has threads of its own,
and ``ForkedScan.start`` forks no process with more than one thread."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
from pathlib import Path

import pytest
from helpers import demo_context, run_script_on_home
from hostile import build_hostile_home

from memtui.core.cache import ScanCache
from memtui.core.contents import Memory, SecretMark
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.lazylist import LazyList
from memtui.core.model import StoreKind
from memtui.core.scan.forked import ResultUnpickler, secrets_found

SCRIPT = r'''
import json, os, sys
from pathlib import Path

from memtui.core.scan import scanner
from memtui.core.scan.forked import ForkedScan, ForkedScanFailed
from memtui.core.scan.scanner import cache_for, scan_progressively
from memtui.core.scan.store_index import check_store_links
from memtui.core.stores.locations import Context

root, mode = Path(sys.argv[1]), sys.argv[2]
env = {"HOME": str(root), "XDG_CACHE_HOME": str(root / mode)}
if mode == "nocache":
    env["MEMTUI_NO_CACHE"] = "1"
ctx = Context.create(project=Path(sys.argv[3]), claude_home=Path(sys.argv[4]),
                     agent_memory_home=Path(sys.argv[5]), env=env)
if mode == "fail":  # the child's scan fails (the parent's would not)
    parent, real = os.getpid(), scanner.scan_progressively

    def failing(*args, **kwargs):
        if os.getpid() != parent:
            raise OSError("the child could not read")
        return real(*args, **kwargs)

    scanner.scan_progressively = failing
forked = ForkedScan.start(ctx)
assert forked is not None, "no fork"
out = {"pid": forked.pid}
try:
    got = list(forked.messages())
except ForkedScanFailed as error:
    out["failed"] = str(error)
    got = []
try:
    os.waitpid(forked.pid, os.WNOHANG)
    out["reaped"] = False
except ChildProcessError:
    out["reaped"] = True
if mode == "fail":
    print(json.dumps(out))
    raise SystemExit(0)

stages = []
here = list(scan_progressively(ctx, stages.append, cache_for(ctx)))
cache = cache_for(ctx)
links = check_store_links(here[-1].stores, cache)
results = [m[1] for m in got if m[0] == "result"]


def pattern(results):
    """Which objects are the same between the results: stores, their memories' lists, the
    memories and their secret marks, numbered in order of first sight."""
    seen = {}
    number = lambda obj: seen.setdefault(id(obj), len(seen))
    return [[(number(s), number(s.memories), [(number(m), number(m.secrets)) for m in s.memories])
             for s in r.stores] for r in results]


def link_view(updates, result):
    index = {id(s): i for i, s in enumerate(result.stores)}
    return [(index.get(id(store)), old is store.index, old == store.index, new)
            for store, old, new in updates]


out.update({
    "kinds": [m[0] for m in got],
    "stages": [m[1] for m in got if m[0] == "progress"],
    "stages_here": stages,
    "count": len(results),
    "count_here": len(here),
    "equal": [a == b for a, b in zip(results, here)],
    "same_pattern": pattern(results) == pattern(here),
    "complete": results[-1].complete,
    "memories": sum(len(s.memories) for s in results[-1].stores),
    "secrets": sorted((m.rel_path, [(s.rule, s.line) for s in m.secrets])
                      for s in results[-1].stores for m in s.memories if m.secrets),
    "secrets_here": sorted((m.rel_path, [(s.rule, s.line) for s in m.secrets])
                           for s in here[-1].stores for m in s.memories if m.secrets),
    "links": len(got[-1][1]),
    "links_equal": repr(link_view(got[-1][1], results[-1])) == repr(link_view(links, here[-1])),
    "links_refer_to_shown": all(old is store.index for store, old, _new in got[-1][1]),
})
print(json.dumps(out))
'''


def run_script(home: DemoHome, mode: str) -> dict[str, object]:
    return run_script_on_home(SCRIPT, home, mode, timeout=600)


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("forked") / "demo")


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_hostile_home(tmp_path_factory.mktemp("forked-hostile"))


@pytest.mark.parametrize("which", ["demo_home", "hostile_home"])
def test_the_forked_scan_gives_what_a_scan_here_gives(
    which: str, request: pytest.FixtureRequest
) -> None:
    home: DemoHome = request.getfixturevalue(which)
    found = run_script(home, "cache")
    assert found["kinds"] == ["progress", "result"] * 3 + ["progress", "progress", "result",
                                                          "links"]
    assert found["stages"] == found["stages_here"]
    assert found["count"] == found["count_here"] == 4
    assert found["equal"] == [True] * 4
    assert found["same_pattern"] is True  # stores shared between results as here
    assert found["complete"] is True
    assert found["secrets"] == found["secrets_here"]
    assert found["secrets"], "the home holds secrets: set on the memories already shown"
    assert found["links"] and found["links_equal"] is True
    assert found["links_refer_to_shown"] is True
    assert found["reaped"] is True


def test_the_hostile_home_has_every_memory_through_the_fork(hostile_home: DemoHome) -> None:
    found = run_script(hostile_home, "nocache")
    assert found["equal"] == [True] * 4
    assert isinstance(found["memories"], int) and found["memories"] > 20


def test_a_failing_child_leaves_the_scan_to_the_caller(demo_home: DemoHome) -> None:
    found = run_script(demo_home, "fail")
    assert found["failed"] == "OSError: the child could not read"
    assert found["reaped"] is True


def unpickled(data: bytes) -> object:
    return ResultUnpickler(io.BytesIO(data)).load()


@pytest.mark.parametrize("refused", [os.system, eval, ScanCache, subprocess.Popen])
def test_the_unpickler_builds_no_other_class(refused: object) -> None:
    with pytest.raises(pickle.UnpicklingError, match="a scan result holds no"):
        unpickled(pickle.dumps(refused))


def test_the_unpickler_builds_a_scans_classes(tmp_path: Path) -> None:
    memory = Memory(str(tmp_path / "a.md"), "a.md", 3, 1.5, secrets=[SecretMark("rule", 2)])
    items = LazyList(3, lambda i: i * i)
    again = unpickled(pickle.dumps((memory, StoreKind.TEAM, tmp_path, items)))
    assert again == (memory, StoreKind.TEAM, tmp_path, [0, 1, 4])


def test_secrets_found_names_the_memories_holding_secrets(demo_home: DemoHome) -> None:
    from memtui.core.scan.scanner import scan

    result = scan(demo_context(demo_home))
    found = secrets_found(result)
    assert found and all(marks is memory.secrets and marks for memory, marks in found)
    assert len(found) == sum(1 for s in result.stores for m in s.memories if m.secrets)
