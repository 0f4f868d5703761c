"""The incremental rescan of a live refresh: after each kind of change, the refreshed result
equals a full scan of the same tree, and every memory the change left alone is the previous
scan's object."""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import demo_context

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.contents import Memory, ScanResult, Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_memory
from memtui.core.model import StoreKind
from memtui.core.scan import incremental
from memtui.core.scan.cached_report import CachedReport
from memtui.core.scan.incremental import rescan_changed, touched
from memtui.core.scan.refresh import refresh
from memtui.core.scan.scanner import cache_for, read_memory_keyed, scan
from memtui.core.scan.store_index import check_store_links
from memtui.core.stores.locations import Context


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path)


@pytest.fixture
def ctx(home: DemoHome) -> Context:
    return demo_context(home)


def plain_memory(memory: Memory) -> dict[str, Any]:
    return {f.name: getattr(memory, f.name) for f in dataclasses.fields(memory)}


def plain_store(store: Store) -> dict[str, Any]:
    """Everything a store holds, as plain values (an index's entries may be lazy lists)."""
    index = None
    if store.index is not None:
        index = (CachedReport.of(store.index).to_plain(), store.index.health.wikilinks_checked)
    return {
        "location": store.location,
        "exists": store.exists,
        "memories": [plain_memory(m) for m in store.memories],
        "index": index,
        "snapshot": store.snapshot,
        "session_info": store.session_info,
        "problems": store.problems,
    }


def assert_same_as_full_scan(ctx: Context, refreshed: ScanResult) -> None:
    full = scan(ctx)
    assert [s.path for s in refreshed.stores] == [s.path for s in full.stores]
    for mine, theirs in zip(refreshed.stores, full.stores, strict=True):
        assert plain_store(mine) == plain_store(theirs), mine.title


def auto_of(result: ScanResult) -> Store:
    return next(s for s in result.stores if s.kind == StoreKind.AUTO)


def kept(before: Store, after: Store, changed: set[str]) -> None:
    """Every memory of ``after`` not in ``changed`` is ``before``'s object (a symlink is
    read again: its target may change unseen)."""
    old = {m.rel_path: m for m in before.memories}
    for memory in after.memories:
        if (memory.rel_path not in changed and memory.rel_path in old
                and not os.path.islink(memory.file)):
            assert memory is old[memory.rel_path], memory.rel_path


Change = Callable[[DemoHome], set[Path]]


def add_files(home: DemoHome) -> set[Path]:
    return {
        write_memory(home.auto_memory, "fresh_note.md", description="new", type="project"),
        write_memory(home.auto_memory, "deep/er/nested.md", description="nested"),
    }


def edit_description(home: DemoHome) -> set[Path]:
    return {write_memory(home.auto_memory, "sentry.md", description="a new description")}


def edit_name_and_links(home: DemoHome) -> set[Path]:
    return {write_memory(home.auto_memory, "sentry.md", name="renamed-sentry",
                         body="See [[logging]] and [[nowhere-at-all]].\n")}


def delete_file(home: DemoHome) -> set[Path]:
    path = home.auto_memory / "logging.md"
    path.unlink()
    return {path}


def rename_file(home: DemoHome) -> set[Path]:
    old, new = home.auto_memory / "pii.md", home.auto_memory / "pii-renamed.md"
    os.rename(old, new)
    return {old, new}


def break_file(home: DemoHome) -> set[Path]:
    broken = home.auto_memory / "tax-rules.md"
    broken.write_bytes(b"---\nname: [unclosed\n---\n\0\0binary\n")
    bad_yaml = home.auto_memory / "fresh-bad.md"
    bad_yaml.write_text("---\nname: x\ndescription: [oops\n---\nbody\n", encoding="utf-8")
    return {broken, bad_yaml}


def edit_index(home: DemoHome) -> set[Path]:
    index = home.auto_memory / "MEMORY.md"
    with index.open("a", encoding="utf-8") as handle:
        handle.write("- [Gone](gone.md) — a dangling entry\n")
    return {index}


def move_folder(home: DemoHome) -> set[Path]:
    folder = home.auto_memory / "area"
    write_memory(folder, "one.md", description="one")
    write_memory(folder, "two.md", description="two")
    return {folder}


def symlink_file(home: DemoHome) -> set[Path]:
    link = home.auto_memory / "linked.md"
    link.symlink_to(home.auto_memory / "sentry.md")
    return {link}


def agent_edit(home: DemoHome) -> set[Path]:
    agent_root = home.project / ".claude" / "agent-memory"
    store = next(p for p in sorted(agent_root.iterdir()) if p.is_dir())
    return {write_memory(store, "fresh-agent-note.md", description="agent note")}


@pytest.mark.parametrize("change", [
    add_files, edit_description, edit_name_and_links, delete_file, rename_file, break_file,
    edit_index, move_folder, symlink_file, agent_edit,
], ids=lambda change: change.__name__)
def test_refresh_equals_a_full_scan(ctx: Context, home: DemoHome, change: Change) -> None:
    before = scan(ctx)
    changed = change(home)
    after = refresh(ctx, before, changed)
    assert after is not before
    assert_same_as_full_scan(ctx, after)
    rels = {os.path.relpath(p, home.auto_memory).replace(os.sep, "/") for p in changed}
    kept(auto_of(before), auto_of(after), rels)


def test_a_second_change_on_top_of_a_refresh(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    first = refresh(ctx, before, add_files(home))
    second = refresh(ctx, first, rename_file(home) | delete_file(home))
    assert_same_as_full_scan(ctx, second)


def test_a_folder_moved_away_and_back(ctx: Context, home: DemoHome) -> None:
    before = refresh(ctx, scan(ctx), move_folder(home))
    folder, moved = home.auto_memory / "area", home.auto_memory / "moved"
    os.rename(folder, moved)
    after = refresh(ctx, before, {folder, moved})
    assert_same_as_full_scan(ctx, after)
    assert any(m.rel_path == "moved/one.md" for m in auto_of(after).memories)
    shutil.rmtree(moved)
    gone = refresh(ctx, after, {moved})
    assert_same_as_full_scan(ctx, gone)


def test_an_unchanged_index_is_kept(ctx: Context, home: DemoHome) -> None:
    """A description edited: the header is read again, the index report is the previous one."""
    before = scan(ctx)
    after = refresh(ctx, before, edit_description(home))
    assert auto_of(after).index is auto_of(before).index
    assert_same_as_full_scan(ctx, after)


def test_an_index_checked_in_whole_files_goes_back_to_headers(
    ctx: Context, home: DemoHome
) -> None:
    """The TUI checks wikilinks in whole files after a scan; a file's body then changes (its
    header does not): the refreshed report is the scan's, from the headers, to check again."""
    before = scan(ctx)
    for store, old, new in check_store_links(before.stores):
        assert store.index is old
        store.index = new
    assert auto_of(before).index is not None
    assert auto_of(before).index.health.wikilinks_checked == "files"  # type: ignore[union-attr]
    body = "\n".join(f"line {i}" for i in range(60)) + "\nSee [[no-such-memory]].\n"
    path = write_memory(home.auto_memory, "sentry.md", body=body)
    after = refresh(ctx, before, {path})
    assert plain_store(auto_of(after)) == plain_store(auto_of(scan(ctx)))  # the others: checked


def test_only_changed_files_are_read(
    ctx: Context, home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = scan(ctx)
    read: list[str] = []
    real = read_memory_keyed

    def counting(entry: Any, *args: Any, **kwargs: Any) -> Any:
        read.append(entry.rel_path)
        return real(entry, *args, **kwargs)

    monkeypatch.setattr(incremental, "read_memory_keyed", counting)
    changed = edit_description(home) | add_files(home)
    refresh(ctx, before, changed)
    links = [m.rel_path for m in auto_of(before).memories if not os.path.isfile(m.file)
             or os.path.islink(m.file)]
    assert sorted(read) == sorted(["sentry.md", "fresh_note.md", "deep/er/nested.md", *links])


def test_touched_follows_folders() -> None:
    assert touched("a/b/c.md", {"a"})
    assert touched("a/b/c.md", {"a/b"})
    assert touched("a/b/c.md", {"a/b/c.md"})
    assert not touched("a/b/c.md", {"a/b/c"})
    assert not touched("ab/c.md", {"a"})


def test_a_store_that_went_away(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    auto = auto_of(before)
    shutil.rmtree(auto.path)
    store = rescan_changed(auto.location, auto, {"MEMORY.md"})
    assert not store.exists and store.memories == []


def test_a_report_from_the_cache_gets_its_health_again(
    ctx: Context, home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The previous report came from the scan cache (its entries a plain list, not the
    parser's): a new file's refresh computes its health again all the same."""
    monkeypatch.setattr(ScanCache, "clock", staticmethod(lambda: time.time() + 2 * RACY_SECONDS))
    scan(ctx, cache=cache_for(ctx))
    before = scan(ctx, cache=cache_for(ctx))
    cached = [s for s in before.stores if s.index is not None and type(s.index.entries) is list]
    assert cached, "some report came from the cache"
    changed = set()
    for store in cached:
        first = next(m for m in store.memories if not m.is_index)
        os.unlink(first.file)
        changed |= {Path(first.file), write_memory(store.path, "fresh-one.md", description="x")}
    after = refresh(ctx, before, changed, cache=cache_for(ctx))
    assert_same_as_full_scan(ctx, after)


def test_a_refresh_with_the_locations_found_before(
    ctx: Context, home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``locations`` given (as a live refresh gives the ones it found last): they are not
    found again, and the result is a full scan's all the same."""
    from memtui.core.scan import refresh as refresh_module
    from memtui.core.stores.locations import locate

    before = scan(ctx)
    locations = locate(ctx)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("located again")

    monkeypatch.setattr(refresh_module, "locate", refused)
    after = refresh(ctx, before, add_files(home) | edit_description(home), locations=locations)
    monkeypatch.undo()
    assert_same_as_full_scan(ctx, after)


def rename_folder(home: DemoHome) -> set[Path]:
    folder, moved = home.auto_memory / "area", home.auto_memory / "moved"
    os.rename(folder, moved)
    return {folder, moved}


def remove_folder(home: DemoHome) -> set[Path]:
    moved = home.auto_memory / "moved"
    shutil.rmtree(moved)
    return {moved}


def test_refreshes_from_the_watchers_own_reports_equal_full_scans(
    ctx: Context, home: DemoHome
) -> None:
    """Each change above in turn, on top of the previous refresh, with the paths a real
    watcher reports for it (not the ones the change names: a folder's events, no folder's
    own "modified", the first close reported at once and the rest after it): each refresh
    equals a full scan. A new marker written after each change, in the auto memory folder
    and the folder of each path the change names, is reported after all of the change's
    events there: inotify delivers one watch's events in order, but watchdog gives each
    watched root its own inotify instance and thread, so an agent store's events can come
    after the auto memory folder's marker. Each step's marker has a name of its own: the
    close of the previous step's marker, reported after its creation, once ended the next
    step's wait before that step's events came (both failures seen in CI on 2026-12-07)."""
    import threading

    from memtui.core.scan.refresh import watch_targets
    from memtui.core.scan.watch import StoreWatcher

    reported: list[Path] = []
    arrived = threading.Condition()

    def collect(paths: set[Path]) -> None:
        with arrived:
            reported.extend(paths)
            arrived.notify_all()

    result = scan(ctx)
    watcher = StoreWatcher(watch_targets(ctx, result).roots, collect)
    watcher.start()
    try:
        for step, change in enumerate([
            add_files, edit_description, edit_name_and_links, delete_file, rename_file,
            break_file, edit_index, move_folder, symlink_file, agent_edit, rename_folder,
            remove_folder,
        ]):
            named = change(home)
            folders = {home.auto_memory} | {p.parent for p in named if p.parent.is_dir()}
            markers = {write_memory(folder, f"zz-marker-{step}.md", description="marker")
                       for folder in sorted(folders)}
            deadline = time.monotonic() + 60
            with arrived:
                while not markers <= set(reported) and time.monotonic() < deadline:
                    arrived.wait(deadline - time.monotonic())
                assert markers <= set(reported), (change.__name__, markers - set(reported))
                changed = set(reported)
                reported.clear()
            result = refresh(ctx, result, changed)
            assert_same_as_full_scan(ctx, result)
    finally:
        watcher.stop()
