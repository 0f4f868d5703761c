"""The store watcher: real watchdog observers on real directories."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import overflow_inotify
from watchdog.events import FileSystemEvent

from memtui.core.scan.watch import Burst, StoreWatcher, WatchPoint, watch_points

PATIENCE = 20.0
"""Seconds a test waits for a report before it fails: only a failing run waits that long, so
it is far beyond what a loaded machine may delay a report."""
LONGER_THAN_PATIENCE = 60.0
"""A debounce no test outlasts: a report while it runs can only come from the max delay."""


class Calls:
    """Every callback's paths, with a way to wait for one that satisfies a condition."""

    def __init__(self) -> None:
        self.batches: list[set[Path]] = []
        self._event = threading.Condition()

    def __call__(self, paths: set[Path]) -> None:
        with self._event:
            self.batches.append(paths)
            self._event.notify_all()

    def wait_for(self, check: Callable[[set[Path]], bool], timeout: float = PATIENCE) -> bool:
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


def test_a_burst_is_due_a_debounce_after_its_last_event_or_max_delay_after_its_first() -> None:
    burst = Burst(debounce=0.2, max_delay=0.5)
    assert burst.event(10.0) == pytest.approx(10.2)
    assert burst.event(10.1) == pytest.approx(10.3)  # a quiet 0.2 s after the last event
    assert burst.event(10.25) == pytest.approx(10.45)
    assert burst.event(10.35) == pytest.approx(10.5)  # capped: 0.5 s after the first
    assert burst.event(10.4) is None  # still due then: the timer is left alone
    assert burst.event(10.49) is None
    burst.reported()
    assert burst.event(11.0) == pytest.approx(11.2)  # a new burst
    long = Burst(debounce=LONGER_THAN_PATIENCE, max_delay=0.3)
    assert long.event(5.0) == pytest.approx(5.3)  # the max delay wins from the first event


def test_the_first_finished_change_after_a_quiet_period_is_due_at_once() -> None:
    burst = Burst(debounce=0.2, max_delay=0.5)
    assert burst.event(10.0) == pytest.approx(10.2)  # created: still being written
    assert burst.event(10.001, finishes=True) == pytest.approx(10.001)  # closed: at once
    assert burst.event(10.002) is None  # an event before the report joins it
    assert burst.event(10.003, finishes=True) is None
    burst.reported()
    # what follows closely is a burst of its own, reported the usual way
    assert burst.event(10.01) == pytest.approx(10.21)
    assert burst.event(10.02, finishes=True) == pytest.approx(10.22)
    assert burst.event(10.1, finishes=True) == pytest.approx(10.3)
    burst.reported()
    assert burst.event(10.15, finishes=True) == pytest.approx(10.35)  # not quiet yet
    burst.reported()
    assert burst.event(11.0, finishes=True) == pytest.approx(11.0)  # quiet again: at once
    burst.reported()
    # a burst begun in a quiet period but reported by its timer leads no more
    assert burst.event(12.0) == pytest.approx(12.2)
    burst.reported()
    assert burst.event(12.25, finishes=True) == pytest.approx(12.25)


def test_a_lone_write_is_reported_without_waiting_for_the_quiet_after_it(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    """Neither the debounce nor the max delay ends within the test's patience: only the
    report at once of a finished change can come."""
    make_watcher([tmp_path], debounce=LONGER_THAN_PATIENCE, max_delay=LONGER_THAN_PATIENCE)
    note = tmp_path / "note.md"
    note.write_text("hello", encoding="utf-8")
    assert calls.wait_for(lambda seen: note in seen)
    assert len(calls.batches) == 1


def test_a_burst_is_at_most_two_callbacks(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    """The first file written may be reported at once (unless the next write's events came
    before the report was made: then it is merged with them), the rest of the burst in one
    callback. The debounce is generous (a stall that long between two writes would split the
    burst), and no sleep waits for another callback: a marker written after the burst's
    report is reported alone, so nothing of the burst was left over (inotify delivers in
    order)."""
    make_watcher([tmp_path], debounce=1.0, max_delay=LONGER_THAN_PATIENCE)
    files = [tmp_path / f"n{i}.md" for i in range(50)]
    for path in files:
        path.write_text("x", encoding="utf-8")
    assert calls.wait_for(lambda seen: set(files) <= seen)
    marker = tmp_path / "marker.md"
    marker.write_text("x", encoding="utf-8")
    assert calls.wait_for(lambda seen: marker in seen)
    *burst, last = calls.batches
    assert 1 <= len(burst) <= 2
    assert files[0] in burst[0]
    assert set(files) <= set().union(*burst)
    assert marker in last and not set(files) & last


def test_a_long_burst_still_reports_within_max_delay(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    """Writes go on until a report comes (at most ``PATIENCE`` seconds). The debounce outlasts
    that, so a report that waits for the burst to end fails; no wall-clock bound is needed (a
    loaded machine only makes the report later; the due times are the test above's)."""
    make_watcher([tmp_path], debounce=LONGER_THAN_PATIENCE, max_delay=0.3)
    first = tmp_path / "first.md"
    first.write_text("x", encoding="utf-8")
    deadline = time.monotonic() + PATIENCE
    while not calls.batches and time.monotonic() < deadline:
        (tmp_path / "busy.md").write_text(str(time.monotonic()), encoding="utf-8")
        calls.wait_for(bool, timeout=0.05)  # the next write 50 ms on, or at the report
    assert calls.batches, "no report while the burst went on"
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


def test_reads_queue_no_events(tmp_path: Path, calls: Calls) -> None:
    """Reading watched files (a rescan, the links check) makes no event at all: inotify is
    not asked for opens and closes without a write, so thousands of reads never delay the
    report of a write behind them (nor overflow the queue). The marker written after the reads
    comes after any event they made (inotify delivers in order)."""
    note = tmp_path / "note.md"
    note.write_text("x", encoding="utf-8")
    seen_types: list[str] = []
    watcher = StoreWatcher([tmp_path], calls, debounce=0.05)
    dispatch = watcher._handler.dispatch

    def recording(event: object) -> None:
        seen_types.append(getattr(event, "event_type", ""))
        dispatch(event)  # type: ignore[arg-type]

    watcher._handler.dispatch = recording  # type: ignore[method-assign]
    watcher.start()
    try:
        for _ in range(3):
            note.read_text(encoding="utf-8")
            list(tmp_path.iterdir())
        marker = tmp_path / "marker.md"
        marker.write_text("x", encoding="utf-8")
        assert calls.wait_for(lambda seen: marker in seen)
    finally:
        watcher.stop()
    assert "opened" not in seen_types and "closed_no_write" not in seen_types, seen_types
    assert note not in set().union(*calls.batches)


def test_a_burst_inside_the_roots_leaves_the_watches_alone(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Files written inside a watched root move no watch: they are reported without the
    watches being recomputed (which resolves every root); a root that appears still gets its
    own watch (``test_missing_root_is_watched_once_it_appears``)."""
    from memtui.core.scan import watch as watch_module

    root, missing = tmp_path / "store", tmp_path / "later" / "store"
    root.mkdir()
    watcher = make_watcher([root, missing], debounce=0.05)
    computed: list[int] = []
    real_points = watch_module.watch_points

    def counting(roots: object) -> set[WatchPoint]:
        computed.append(1)
        return real_points(roots)  # type: ignore[arg-type]

    monkeypatch.setattr(watch_module, "watch_points", counting)
    note = root / "sub" / "note.md"
    note.parent.mkdir()
    note.write_text("x", encoding="utf-8")
    assert calls.wait_for(lambda seen: note in seen)
    assert computed == []
    missing.mkdir(parents=True)
    assert calls.wait_for(lambda seen: missing.parent in seen or missing in seen)
    assert computed
    assert WatchPoint(missing, True) in watcher.watched()


def test_lost_events_are_one_report_to_rescan_everything(
    tmp_path: Path, calls: Calls
) -> None:
    """Events the kernel dropped (its queue overflowed) cannot be named: the watcher says
    they were lost (``on_lost``, with the paths of the burst they joined) so that everything
    is scanned again, instead of nothing at all. Every watch tells of one overflow (each
    emitter on its thread, in no order): one report; a second overflow: a second one."""
    roots = [tmp_path / "one", tmp_path / "two", tmp_path / "three"]
    for root in roots:
        (root / "sub").mkdir(parents=True)
    lost = Calls()
    told: list[str] = []
    watcher = StoreWatcher(roots, calls, on_lost=lost)
    dispatch = watcher._handler.dispatch

    def recording(event: FileSystemEvent) -> None:
        if event.event_type == "events_lost":
            told.append(str(event.src_path))
        dispatch(event)

    watcher._handler.dispatch = recording  # type: ignore[method-assign]
    watcher.start()
    try:
        assert len(watcher.watched()) == 3
        marker = roots[0] / "sub" / "marker.md"
        marker.write_text("x", encoding="utf-8")
        assert calls.wait_for(lambda seen: marker in seen)  # the watches are live
        for round_ in (1, 2):
            overflow_inotify(watcher)
            assert lost.wait_for(lambda _seen, n=round_: len(lost.batches) >= n), round_
            assert wait_for(lambda n=round_: len(told) == 3 * n and not watcher.holding())
            assert len(lost.batches) == watcher.lost_reports == round_  # every watch told
        assert sorted(told) == sorted(2 * [str(r) for r in roots])
        assert not set(roots) & set().union(*calls.batches)  # a loss is no change of a root
        after = roots[2] / "sub" / "after.md"  # the watches still report what follows
        after.write_text("x", encoding="utf-8")
        assert calls.wait_for(lambda seen: after in seen)
    finally:
        watcher.stop()


def wait_for(check: Callable[[], bool], timeout: float = PATIENCE) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_without_on_lost_a_loss_reports_every_root_as_changed(
    tmp_path: Path, calls: Calls, make_watcher: Callable[..., StoreWatcher]
) -> None:
    watcher = make_watcher([tmp_path])
    marker = tmp_path / "marker.md"
    marker.write_text("x", encoding="utf-8")
    assert calls.wait_for(lambda seen: marker in seen)
    overflow_inotify(watcher)
    assert calls.wait_for(lambda seen: tmp_path in seen)
