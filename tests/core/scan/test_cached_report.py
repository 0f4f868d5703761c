"""The load report the scan cache keeps: a ``CachedReport`` by field name, and anything else
under a report's digest (an older positional tuple, a foreign value) a miss, never an error."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.demo.writers import huge_index_lines, write_index, write_memory
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.cached_report import CachedReport
from memtui.core.scan.scanner import scan_store
from memtui.core.scan.serialize import load_report_json


def settle(cache: ScanCache) -> ScanCache:
    cache._now = time.time() + RACY_SECONDS + 1  # the files were written "long ago"
    return cache


def a_store(root: Path) -> StoreLocation:
    write_index(root, [*huge_index_lines(250), "- [A](a.md) — a", "- [Gone](gone.md) — no file"])
    write_memory(root, "a.md", description="a [[ghost]] link")
    write_memory(root, "orphan.md", description="no entry")
    return StoreLocation(kind=StoreKind.AUTO, path=root, rule="test")


def test_a_report_survives_the_round_trip(tmp_path: Path) -> None:
    report = scan_store(a_store(tmp_path / "mem")).index
    assert report is not None and report.dropped and report.health.dangling
    plain = CachedReport.of(report).to_plain()
    cached = CachedReport.from_plain(plain)
    assert cached is not None
    again = cached.report()
    assert load_report_json(again) == load_report_json(report)
    assert again.health.dangling[0] is again.entries[0]  # the same objects, as when computed


@pytest.mark.parametrize("stored", [
    "positional",  # the shape before the dataclass (21 values)
    "missing-field", "not-a-pair", "wrong-values",
])
def test_a_report_kept_in_another_shape_is_computed_again(tmp_path: Path, stored: str) -> None:
    location = a_store(tmp_path / "mem")
    cache_file = tmp_path / "scan.marshal"
    cache = settle(ScanCache(cache_file))
    first = scan_store(location, cache=cache).index
    cache.save()
    assert first is not None
    key = str(location.path)
    digest, (plain, folders) = ScanCache(cache_file)._old["index"][key]
    bad: Any = {
        "positional": (tuple(plain.values()), folders),
        "missing-field": ({k: v for k, v in plain.items() if k != "orphans"}, folders),
        "not-a-pair": plain,
        "wrong-values": ({**plain, "entries": [1, 2, 3]}, folders),
    }[stored]
    tampered = settle(ScanCache(cache_file))
    tampered.put_keyed("index", key, digest, bad, newest=0.0)
    tampered.save()
    assert ScanCache(cache_file)._old["index"][key] == (digest, bad)  # what the scan finds
    again = scan_store(location, cache=settle(ScanCache(cache_file))).index
    assert again is not None and load_report_json(again) == load_report_json(first)
