"""The memories' bodies kept in the cache dir (:mod:`memtui.core.judge.body_cache`): a second
run on files that did not change opens none of them and gives exactly the items a read gives;
a changed file, a symlinked one and one written within the racy window are read again; a
broken or symlinked cache file is an empty cache; ``MEMTUI_NO_CACHE=1`` turns it off."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.demo.build import DemoHome
from memtui.core.judge import items as items_module
from memtui.core.judge.body_cache import BodyCache, default_path
from memtui.core.judge.run import collect_items
from memtui.core.judge.verdicts import JudgeItem
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context

LATER = 60.0
"""Seconds past the files' times the tests' caches take for now (out of the racy window)."""


@pytest.fixture
def ctx(demo: DemoHome, tmp_path: Path) -> Context:
    return demo_context(demo, XDG_CACHE_HOME=str(tmp_path / "cache"))


def cache_of(ctx: Context, now: float | None = None) -> BodyCache:
    cache = BodyCache.load(default_path(ctx.env, ctx.home))
    cache.now = time.time() + LATER if now is None else now
    return cache


def read_items(ctx: Context, cache: BodyCache | None) -> list[JudgeItem]:
    items, _problems = collect_items(ctx, scan(ctx), managed=ctx.home / "no-managed",
                                     claude_md=False, bodies=cache)
    return items


def refuse_to_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = items_module.load_full_text

    def load(memory: object, root: Path) -> tuple[str, list[str]]:
        read.append(str(getattr(memory, "file", "")))
        return real(memory, root)  # type: ignore[arg-type]

    monkeypatch.setattr(items_module, "load_full_text", load)
    return read


def test_unchanged_files_are_not_read_again(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = read_items(ctx, cache_of(ctx))
    assert len(first) > 10
    read = refuse_to_read(monkeypatch)
    again = read_items(ctx, cache_of(ctx))
    assert read == []
    assert again == first == read_items(ctx, None)  # exactly what reading gives


def test_a_changed_file_is_read_again(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    first = read_items(ctx, cache_of(ctx))
    changed = next(i for i in first if i.body)
    path = Path(changed.file)
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8") + "\nAlso: freeze on Fridays.\n",
                    encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same mtime: ctime tells
    read = refuse_to_read(monkeypatch)
    again = {i.key: i for i in read_items(ctx, cache_of(ctx))}
    assert read == [changed.file]
    assert again[changed.key].body.endswith("Also: freeze on Fridays.")
    assert again[changed.key].digest != changed.digest


def test_a_file_written_just_now_is_not_kept(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = read_items(ctx, cache_of(ctx, now=time.time() - LATER))  # every file looks new
    read = refuse_to_read(monkeypatch)
    read_items(ctx, cache_of(ctx))
    assert sorted(read) == sorted(i.file for i in first if i.body)


def test_a_symlinked_memory_is_always_read(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = read_items(ctx, cache_of(ctx))
    linked = next(i for i in first if i.body)
    path = Path(linked.file)
    target = path.with_name(".target-" + path.name)
    path.rename(target)
    path.symlink_to(target.name)
    read = refuse_to_read(monkeypatch)
    read_items(ctx, cache_of(ctx))
    read_items(ctx, cache_of(ctx))
    assert read.count(linked.file) == 2


@pytest.mark.parametrize("body", [b"", b"{", b"[1, 2]", b'{"version": 1, "files": []}',
                                  b'{"version": 1, "files": {"x": [1, 2]}}',
                                  b'{"version": 1, "files": {"x": [1,2,3,4,0,0,5,"",""]}}',
                                  b"\xff\xfe not utf-8"])
def test_a_broken_cache_is_an_empty_one(ctx: Context, body: bytes) -> None:
    path = default_path(ctx.env, ctx.home)
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(body)
    assert BodyCache.load(path).entries == {}
    first = read_items(ctx, cache_of(ctx))
    assert first == read_items(ctx, None)
    assert len(BodyCache.load(path).entries) == sum(1 for i in first if i.body)  # written anew


def test_a_symlinked_cache_file_is_not_followed(ctx: Context, tmp_path: Path) -> None:
    path = default_path(ctx.env, ctx.home)
    assert path is not None
    read_items(ctx, cache_of(ctx))
    real = tmp_path / "elsewhere.json"
    real.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(real)
    assert BodyCache.load(path).entries == {}


def test_no_cache_with_memtui_no_cache(demo: DemoHome, tmp_path: Path) -> None:
    ctx = demo_context(demo, XDG_CACHE_HOME=str(tmp_path / "cache"), MEMTUI_NO_CACHE="1")
    assert default_path(ctx.env, ctx.home) is None
    cache = cache_of(ctx)
    read_items(ctx, cache)
    assert cache.used and not (tmp_path / "cache" / "memtui" / "judge").exists()
