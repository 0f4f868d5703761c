"""The scan cache: reused only while a file's stat is unchanged, never trusted blindly."""

from __future__ import annotations

import os
import time
from pathlib import Path

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.demo.writers import write_memory
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store


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


def index_store(tmp_path: Path) -> Path:
    """A store whose index report has every kind of health problem."""
    store = tmp_path / "mem"
    write_memory(store, "a.md", name="alpha", description="a", body="see [[beta]] and [[nowhere]]")
    write_memory(store, "b.md", name="beta", description="b", body="`[[in code]]` [[alpha]]")
    write_memory(store, "orphan.md", name="orphan", description="o", body="x")
    long_hook = "h" * 210
    (store / "MEMORY.md").write_text(
        f"- [Alpha](a.md) — {long_hook}\n- [Gone](gone.md) — dangling\n- [Beta](b.md)\n"
        "[[ghost]]\n"
    )
    return store


def test_an_unchanged_store_index_comes_from_the_cache_exactly(tmp_path: Path) -> None:
    store = index_store(tmp_path)
    cache_file = tmp_path / "scan.marshal"
    computed = scan_store(store_at(store))
    cache = settle(ScanCache(cache_file))
    scan_store(store_at(store), cache=cache)
    cache.save()
    reused = settle(ScanCache(cache_file))
    from_cache = scan_store(store_at(store), cache=reused)
    assert not reused._dirty  # every read, the index report included, came from the cache
    assert computed.index is not None and computed.index.health.dangling
    assert computed.index.health.orphans and computed.index.health.long_entries
    assert [b.link for b in computed.index.health.broken_wikilinks] == ["nowhere", "ghost"]
    assert from_cache.index is not None and from_cache.index == computed.index
    assert all(any(d is e for e in from_cache.index.entries)
               for d in from_cache.index.health.dangling)


def test_a_changed_memory_recomputes_the_index_health(tmp_path: Path) -> None:
    store = index_store(tmp_path)
    cache_file = tmp_path / "scan.marshal"
    cache = settle(ScanCache(cache_file))
    scan_store(store_at(store), cache=cache)
    cache.save()
    path = store / "b.md"
    mtime = path.stat().st_mtime
    write_memory(store, "b.md", name="beta", description="b", body="now [[nothing-here]]")
    os.utime(path, (mtime, mtime))  # same mtime on purpose: ctime and size still differ
    after = scan_store(store_at(store), cache=settle(ScanCache(cache_file)))
    assert after.index is not None
    links = [(b.source, b.link) for b in after.index.health.broken_wikilinks]
    assert ("b.md", "nothing-here") in links
    assert after.index == scan_store(store_at(store)).index


def test_a_changed_index_is_read_again(tmp_path: Path) -> None:
    store = index_store(tmp_path)
    cache_file = tmp_path / "scan.marshal"
    cache = settle(ScanCache(cache_file))
    scan_store(store_at(store), cache=cache)
    cache.save()
    (store / "MEMORY.md").write_text("- [Alpha](a.md)\n- [Beta](b.md)\n- [Orphan](orphan.md)\n")
    after = scan_store(store_at(store), cache=settle(ScanCache(cache_file)))
    assert after.index is not None and after.index.lines == 3
    health = after.index.health
    assert not (health.dangling or health.orphans or health.long_entries)
    assert [b.link for b in health.broken_wikilinks] == ["nowhere"]


def test_a_recent_store_is_not_cached(tmp_path: Path) -> None:
    store = index_store(tmp_path)
    cache_file = tmp_path / "scan.marshal"
    cache = ScanCache(cache_file)  # "now" is now: the files are racily clean
    scan_store(store_at(store), cache=cache)
    cache.save()
    assert not cache_file.exists() or ScanCache(cache_file)._old.get("index") is None


def test_cached_memories_keep_their_links_and_summary_title(tmp_path: Path) -> None:
    store = tmp_path / "session-memory"
    store.mkdir()
    (store / "summary.md").write_text("\n# Session Title\n_hint_\nFix the [[login]] bug\n")
    cache_file = tmp_path / "scan.marshal"
    cache = settle(ScanCache(cache_file))
    first = scan_store(store_at(store), cache=cache)
    cache.save()
    second = scan_store(store_at(store), cache=ScanCache(cache_file))
    for memory in (first.memories[0], second.memories[0]):
        assert memory.links == ["login"]
        assert memory.summary_title == "Fix the [[login]] bug"
    assert second.memories[0] == first.memories[0]


def test_a_partial_scan_keeps_what_it_did_not_look_at(tmp_path: Path) -> None:
    cache_file = tmp_path / "cache" / "scan.marshal"
    first = settle(ScanCache(cache_file))
    for name in ("a/x.md", "a/gone.md", "b/y.md"):
        first.put_keyed("memory", f"/s/{name}", (1,), name, newest=0.0)
    first.save()
    partial = settle(ScanCache(cache_file))
    assert partial.get_keyed("memory", "/s/a/x.md", (1,)) == "a/x.md"  # store a read again
    partial.save(keep_unused=lambda path: not path.startswith("/s/a/"))
    kept = ScanCache(cache_file)
    assert kept.get_keyed("memory", "/s/a/x.md", (1,)) == "a/x.md"
    assert kept.get_keyed("memory", "/s/b/y.md", (1,)) == "b/y.md"  # not looked at: kept
    assert kept.get_keyed("memory", "/s/a/gone.md", (1,)) is None  # looked for, not found
