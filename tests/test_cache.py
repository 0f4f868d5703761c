"""The scan cache: reused only while a file's stat is unchanged, never trusted blindly."""

from __future__ import annotations

import os
import time
from pathlib import Path

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.demo import write_memory
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan import scan_store


def settle(cache: ScanCache) -> ScanCache:
    cache._now = time.time() + RACY_SECONDS + 1  # the files were written "long ago"
    return cache


def store_at(path: Path) -> StoreLocation:
    return StoreLocation(kind=StoreKind.AUTO, path=path, rule="test")


def test_unchanged_files_come_from_the_cache(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    write_memory(store, "a.md", name="a", description="first", type="user", body="x")
    cache_file = tmp_path / "cache" / "scan.marshal"
    cache = settle(ScanCache(cache_file))
    first = scan_store(store_at(store), cache=cache)
    cache.save()
    assert cache_file.is_file() and cache_file.stat().st_mode & 0o777 == 0o600
    reused = ScanCache(cache_file)
    # the cached payload is returned as long as the stat matches
    payload = reused.get("memory", str(store / "a.md"), os.stat(store / "a.md"))
    assert payload is not None
    second = scan_store(store_at(store), cache=ScanCache(cache_file))
    assert [m.description for m in second.memories] == [m.description for m in first.memories]
    assert second.memories[0].frontmatter == first.memories[0].frontmatter


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    path = write_memory(store, "a.md", name="a", description="old words", body="x")
    cache_file = tmp_path / "scan.marshal"
    cache = settle(ScanCache(cache_file))
    scan_store(store_at(store), cache=cache)
    cache.save()
    mtime = path.stat().st_mtime
    write_memory(store, "a.md", name="a", description="new words", body="x")
    os.utime(path, (mtime, mtime))  # same mtime on purpose: ctime and size still differ
    store_after = scan_store(store_at(store), cache=ScanCache(cache_file))
    assert store_after.memories[0].description == "new words"


def test_recently_written_files_are_not_cached(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    write_memory(store, "a.md", name="a", description="d", body="x")
    cache_file = tmp_path / "scan.marshal"
    cache = ScanCache(cache_file)  # "now" is now: the file is racily clean
    scan_store(store_at(store), cache=cache)
    cache.save()
    assert ScanCache(cache_file).get("memory", str(store / "a.md"), os.stat(store / "a.md")) is None


def test_a_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    store = tmp_path / "mem"
    write_memory(store, "a.md", name="a", description="d", body="x")
    cache_file = tmp_path / "scan.marshal"
    cache_file.write_bytes(b"\x00garbage")
    result = scan_store(store_at(store), cache=ScanCache(cache_file))
    assert result.memories[0].description == "d"


def test_no_cache_env_disables_it(tmp_path: Path) -> None:
    cache = ScanCache.for_scan({"MEMTUI_NO_CACHE": "1"}, tmp_path, tmp_path)
    assert cache.path is None
    cache = ScanCache.for_scan({"XDG_CACHE_HOME": str(tmp_path / "c")}, tmp_path, tmp_path)
    assert cache.path is not None and cache.path.parent == tmp_path / "c" / "memtui"
