"""A cache file read again while unchanged is not unmarshalled again (a live refresh makes a
new cache each time: on a large home the file is megabytes), and a changed one is."""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path

import pytest

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.demo.writers import write_memory
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store


def settled(path: Path) -> ScanCache:
    cache = ScanCache(path)
    cache._now = time.time() + RACY_SECONDS + 1  # the files were written "long ago"
    return cache


def test_an_unchanged_file_is_loaded_once_a_changed_one_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "mem"
    location = StoreLocation(kind=StoreKind.AUTO, path=store, rule="test")
    write_memory(store, "a.md", name="a", description="first", type="user", body="x")
    cache_file = tmp_path / "cache" / "scan.marshal"
    first = settled(cache_file)
    scan_store(location, cache=first)
    first.save()
    loads: list[int] = []
    real_loads = marshal.loads

    def counting(data: bytes) -> object:
        loads.append(len(data))
        return real_loads(data)

    monkeypatch.setattr(marshal, "loads", counting)
    a, b = ScanCache(cache_file), ScanCache(cache_file)
    st = os.stat(store / "a.md")
    assert a.get("memory", str(store / "a.md"), st) is not None
    assert b.get("memory", str(store / "a.md"), st) is not None
    assert len(loads) <= 1  # the second read of the same file reused the first's entries
    write_memory(store, "b.md", name="b", description="second", type="user", body="y")
    again = settled(cache_file)
    second = scan_store(location, cache=again)
    again.save()
    assert [m.description for m in second.memories] == ["first", "second"]
    before = len(loads)
    fresh = ScanCache(cache_file)
    b_stat = os.stat(store / "b.md")
    assert fresh.get("memory", str(store / "b.md"), b_stat) is not None
    assert len(loads) == before + 1  # a new file: read again, and it holds the new entry
