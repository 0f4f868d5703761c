"""The store watcher: real watchdog observers on real directories."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memtui.core.scan.watch import StoreWatcher, WatchPoint, watch_points


class Calls:
    """Every callback's paths, with a way to wait for one that satisfies a condition."""

    def __init__(self) -> None:
        self.batches: list[set[Path]] = []
        self._event = threading.Condition()

    def __call__(self, paths: set[Path]) -> None:
        with self._event:
            self.batches.append(paths)
            self._event.notify_all()

    def wait_for(self, check: Callable[[set[Path]], bool], timeout: float = 2.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._event:
            while not check(set().union(*self.batches)):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._event.wait(left)
            return True


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def make_watcher(calls: Calls) -> Iterator[Callable[..., StoreWatcher]]:
    made: list[StoreWatcher] = []

    def make(roots: list[Path], **kwargs: float) -> StoreWatcher:
        watcher = StoreWatcher(roots, calls, **kwargs)
        watcher.start()
        made.append(watcher)
        return watcher

    yield make
    for watcher in made:
        watcher.stop()


def test_watch_points_collapse_nested_roots(tmp_path: Path) -> None:
    outer = tmp_path / "projects" / "p"
    inner = outer / "memory"
    inner.mkdir(parents=True)
    missing = tmp_path / "agents" / "x"
    points = watch_points([outer, inner, inner / "team", missing])
    assert points == {WatchPoint(outer, True), WatchPoint(tmp_path, False)}


def test_a_write_is_reported(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    make_watcher([tmp_path])
    target = tmp_path / "sub" / "note.md"
    target.parent.mkdir()
    target.write_text("hello", encoding="utf-8")
    assert calls.wait_for(lambda seen: target in seen)


def test_a_burst_is_one_callback(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    make_watcher([tmp_path], debounce=0.2, max_delay=2.0)
    files = [tmp_path / f"n{i}.md" for i in range(50)]
    for path in files:
        path.write_text("x", encoding="utf-8")
    assert calls.wait_for(lambda seen: set(files) <= seen)
    time.sleep(0.4)
    assert len(calls.batches) == 1


def test_a_long_burst_still_reports_within_max_delay(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    make_watcher([tmp_path], debounce=0.2, max_delay=0.5)
    first = tmp_path / "first.md"
    started = time.monotonic()
    first.write_text("x", encoding="utf-8")
    reported_at = None
    while time.monotonic() - started < 1.5:  # keep writing faster than the debounce
        (tmp_path / "busy.md").write_text(str(time.monotonic()), encoding="utf-8")
        if reported_at is None and calls.batches:
            reported_at = time.monotonic() - started
        time.sleep(0.05)
    assert reported_at is not None and reported_at < 0.8
    assert first in calls.batches[0]


def test_missing_root_is_watched_once_it_appears(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    root = tmp_path / "store"
    watcher = make_watcher([root], debounce=0.1)
    assert watcher.watched() == {WatchPoint(tmp_path, False)}
    (tmp_path / "unrelated.txt").write_text("x", encoding="utf-8")
    root.mkdir()
    assert calls.wait_for(lambda seen: root in seen)
    assert watcher.watched() == {WatchPoint(root, True)}
    deep = root / "logs" / "a.md"
    deep.parent.mkdir()
    deep.write_text("x", encoding="utf-8")
    assert calls.wait_for(lambda seen: deep in seen)


def test_set_roots_moves_the_watch(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    watcher = make_watcher([first], debounce=0.1)
    watcher.set_roots([second])
    assert watcher.watched() == {WatchPoint(second, True)}
    (first / "old.md").write_text("x", encoding="utf-8")
    (second / "new.md").write_text("x", encoding="utf-8")
    assert calls.wait_for(lambda seen: second / "new.md" in seen)
    assert first / "old.md" not in set().union(*calls.batches)


def test_stop_silences(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    watcher = make_watcher([tmp_path], debounce=0.1)
    watcher.stop()
    (tmp_path / "late.md").write_text("x", encoding="utf-8")
    time.sleep(0.3)
    assert calls.batches == []
    assert not watcher.running
