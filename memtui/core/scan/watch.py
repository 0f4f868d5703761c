"""Watch store roots with watchdog and report bursts of changes as one debounced callback."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    EventsLostEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

DEBOUNCE_SECONDS = 0.05
"""Events closer together than this are merged into one callback (a program writing many files
writes them closer than that; a refresh that runs meanwhile gathers the next bursts into one:
``memtui.tui.live``). The first finished change after a quiet period this long is reported at
once (:data:`FINISHING_EVENTS`): a lone new file does not wait for the quiet after it."""

FINISHING_EVENTS = frozenset({"closed", "deleted", "moved"})
"""Event types that end a change to a file: written and closed, gone, renamed. A created or
modified file is still being written (reading it then could find it empty); its close follows
(where the platform reports closes: inotify does)."""

MAX_DELAY_SECONDS = 0.25
"""A long burst still reports at least this often, so its first files show within 300 ms and
the rest with the next refresh."""

IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})
"""Event types that never change what a scan sees."""

EVENT_FILTER: list[type[FileSystemEvent]] = [
    FileCreatedEvent, DirCreatedEvent, FileModifiedEvent, FileDeletedEvent,
    DirDeletedEvent, FileMovedEvent, DirMovedEvent, FileClosedEvent, EventsLostEvent,
]
"""The events asked of the observer: every one but opened, closed-without-writing and a
directory's "modified" (see :class:`_Collector`; the others ask inotify for every change it
reports), so inotify is never asked for ``IN_OPEN`` / ``IN_CLOSE_NOWRITE``. Reading a store
(a rescan, the links check, the recall manifests: thousands of files on a large home) then
queues nothing: before, each read made two events that the watcher's thread decoded and
dropped, the report of a real change waited behind them, and a large home's queue overflowed
(watchdog then walks the whole tree again). ``EventsLostEvent``: the kernel's queue overflowed
and events were dropped (watchdog rebuilds its recursive watches, then emits it once per
watch); a watch scheduled with a filter gets it only when the filter names it."""

ChangeCallback = Callable[[set[Path]], None]


@dataclass(frozen=True)
class WatchPoint:
    """One directory handed to the observer; ``recursive`` when it is a root itself."""

    path: Path
    recursive: bool


class _Collector(FileSystemEventHandler):
    """Hands each path an event names to ``sink``, with whether the event finishes a change
    (:data:`FINISHING_EVENTS`). A directory's "modified" is dropped: watchdog's inotify
    emitter makes one for the parent after each event of a file or folder in it (which names
    the change itself), and inotify raises no other for a directory (its attributes changing
    is ``IN_ATTRIB``, not asked for). Kept, it would follow a file's close as an event of its
    own: a second report of every lone write, a folder's files all read again as changed."""

    def __init__(self, sink: Callable[[str, bool], None], lost: Callable[[str], None]) -> None:
        self._sink = sink
        self._lost = lost

    def on_events_lost(self, event: EventsLostEvent) -> None:
        """The kernel dropped events of a watch (its queue overflowed): which paths changed
        is unknown (watchdog's dispatch hands it to ``on_any_event`` too, which skips it).
        ``src_path``: the watch's directory."""
        self._lost(os.fsdecode(event.src_path))

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in IGNORED_EVENTS or isinstance(event, EventsLostEvent) or (
                event.is_directory and event.event_type == "modified"):
            return  # a loss names the watch, not a change: :meth:`on_events_lost` has it
        finishes = event.event_type in FINISHING_EVENTS
        for attr in ("src_path", "dest_path"):
            path = getattr(event, attr, "")
            if path:
                self._sink(os.fsdecode(path), finishes)


def watch_point(root: Path) -> Path | None:
    """The directory to observe for ``root``: itself, or its nearest existing ancestor."""
    for candidate in (root, *root.parents):
        if os.path.isdir(candidate):
            return candidate
    return None


def real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def covered(path: Path, by: Path) -> bool:
    """Whether ``path`` is ``by`` or lies below it."""
    return path == by or by in path.parents


def watch_points(roots: Iterable[Path]) -> set[WatchPoint]:
    """The fewest directories that cover ``roots``: an existing root is watched recursively
    (unless a recursively watched root already holds it), a missing one through its nearest
    existing ancestor, non-recursively, so its creation is noticed."""
    recursive: dict[Path, Path] = {}  # real path -> path as given
    shallow: dict[Path, Path] = {}
    for root in sorted(set(roots), key=lambda p: (len(p.parts), str(p))):
        point = watch_point(root)
        if point is None:
            continue
        target = recursive if point == root else shallow
        target.setdefault(real(point), point)
    kept: dict[Path, Path] = {}
    for real_path in sorted(recursive, key=lambda p: len(p.parts)):
        if not any(covered(real_path, other) for other in kept):
            kept[real_path] = recursive[real_path]
    points = {WatchPoint(path, True) for path in kept.values()}
    for real_path, path in shallow.items():
        if not any(covered(real_path, other) for other in kept):
            points.add(WatchPoint(path, False))
    return points


def _layout_strings(roots: frozenset[Path]) -> frozenset[str]:
    """:func:`_layout_paths` as strings, as the observer names paths (joined to a watched
    directory's path, which is a ``Path``'s string: no doubled or trailing slash)."""
    return frozenset(map(str, _layout_paths(roots)))


def _layout_paths(roots: frozenset[Path]) -> frozenset[Path]:
    """The paths whose change can move a watch: every root and every folder above one (a
    root that appears or goes, or a folder on the way to it). A burst touching none of them
    leaves the watches as they are: recomputing them resolves every root (a large home has
    hundreds: 150 ms before each report)."""
    found: set[Path] = set()
    for root in roots:
        found.add(root)
        found.update(root.parents)
    return frozenset(found)


class Burst:
    """When a burst of events is due to be reported: ``debounce`` after its last event, and
    never later than ``max_delay`` after its first; but at once at the first event that
    finishes a change (``finishes``) when the burst began after a quiet ``debounce`` (a lone
    new file is shown without waiting for the quiet after it; what follows it closely is the
    next burst, reported the usual way, so a burst of writes is two reports where it was
    one). The caller passes the time (a monotonic clock), so the rule is checked without
    one."""

    def __init__(self, debounce: float, max_delay: float) -> None:
        self.debounce = debounce
        self.max_delay = max_delay
        self.started: float | None = None
        self.due: float | None = None
        self.last: float | None = None
        """The time of the last event (of any burst)."""
        self.leading = False
        """The burst began after a quiet period and has not been reported at once yet."""
        self.at_once = False
        """The burst is due at once: the events until it is reported join it."""

    def event(self, now: float, finishes: bool = False) -> float | None:
        """An event at ``now``: the burst's new due time, or None when it stays (the burst
        has reached its max delay, or is due at once)."""
        quiet = self.last is None or now - self.last >= self.debounce
        self.last = now
        if self.started is None:
            self.started = now
            self.leading = quiet
        if self.at_once:
            return None
        if self.leading and finishes:
            self.leading = False
            self.at_once = True
            due = now
        else:
            due = min(now + self.debounce, self.started + self.max_delay)
        if due == self.due:
            return None
        self.due = due
        return due

    def reported(self) -> None:
        """The burst was reported (or dropped): the next event starts a new one."""
        self.started = self.due = None
        self.leading = self.at_once = False


class StoreWatcher:
    """Observe directories; after a quiet ``debounce`` period call ``on_change`` once with every
    path that changed in the burst (never later than ``max_delay`` after the burst began; at
    once for the first finished change after a quiet period: :class:`Burst`).

    Events lost (inotify's queue overflowed: which paths changed is unknown) make the burst
    they join due at once and reported to ``on_lost`` instead, with its paths, once: the
    receiver scans everything again (without ``on_lost``, ``on_change`` gets every root as
    changed).

    Missing roots are watched through their nearest existing ancestor; after every burst the
    watched directories are recomputed, so a root that appears gets its own recursive watch
    (and one that disappears falls back to its ancestor). ``on_change`` runs on a watcher
    thread. Roots nested in another root share its watch: few inotify instances are used."""

    def __init__(
        self,
        roots: Iterable[Path],
        on_change: ChangeCallback,
        debounce: float = DEBOUNCE_SECONDS,
        max_delay: float = MAX_DELAY_SECONDS,
        on_lost: ChangeCallback | None = None,
    ) -> None:
        self._roots = frozenset(Path(r) for r in roots)
        self._layout_paths = _layout_strings(self._roots)
        self._on_change = on_change
        self._on_lost = on_lost
        self._lost = False
        """Events of the pending burst were lost (:meth:`_record_lost`)."""
        self._lost_watches: set[str] = set()
        """The watches (their directories) whose loss the latest overflow's report holds."""
        self.lost_reports = 0
        """Bursts reported as lost (each: one rescan of everything)."""
        self._burst = Burst(debounce, max_delay)
        self._pending: set[str] = set()
        self._moved = False
        """A path of the pending burst can move a watch (see :func:`_layout_paths`)."""
        self._lock = threading.Lock()
        self._due = threading.Condition(self._lock)
        """Wakes the reporting thread when a burst becomes due earlier than it waits for."""
        self._watch_lock = threading.Lock()
        self._generation = 0
        """Which start the reporting thread serves: each stop ends the thread of its start."""
        self._observer: Any = None
        self._handler = _Collector(self._record, self._record_lost)
        self._scheduled: dict[WatchPoint, Any] = {}
        self.problems: list[str] = []

    @property
    def roots(self) -> frozenset[Path]:
        return self._roots

    @property
    def running(self) -> bool:
        return self._observer is not None

    def holding(self) -> bool:
        """Whether changes wait to be reported (a burst not due yet)."""
        with self._lock:
            return bool(self._pending) or self._lost

    def watched(self) -> set[WatchPoint]:
        """The directories handed to the observer right now."""
        with self._watch_lock:
            return set(self._scheduled)

    @staticmethod
    def watch_point(root: Path) -> Path | None:
        return watch_point(root)

    def start(self) -> None:
        with self._watch_lock:
            if self._observer is not None:
                return
            observer = Observer()
            observer.daemon = True
            observer.start()
            self._observer = observer
            with self._lock:
                generation = self._generation
            reporter = threading.Thread(target=self._report, args=(generation,),
                                        name="memtui-watch-report", daemon=True)
            reporter.start()
        self._sync_watches()

    def stop(self) -> None:
        with self._lock:
            self._generation += 1  # the reporting thread ends (not waited for: it may be
            self._pending.clear()  # in a callback waiting for the thread calling this)
            self._moved = self._lost = False
            self._burst.reported()
            self._due.notify_all()
        with self._watch_lock:
            observer, self._observer = self._observer, None
            self._scheduled.clear()
        if observer is not None:
            observer.stop()
            observer.join(timeout=2)

    def set_roots(self, roots: Iterable[Path]) -> None:
        """Watch ``roots`` from now on; only the watches that differ are replaced."""
        self._roots = frozenset(Path(r) for r in roots)
        self._layout_paths = _layout_strings(self._roots)
        self._sync_watches()

    def _sync_watches(self) -> None:
        wanted = watch_points(self._roots)
        with self._watch_lock:
            observer = self._observer
            if observer is None:
                return
            for point in set(self._scheduled) - wanted:
                watch = self._scheduled.pop(point)
                with contextlib.suppress(KeyError, OSError):
                    observer.unschedule(watch)
            for point in wanted - set(self._scheduled):
                try:
                    self._scheduled[point] = observer.schedule(
                        self._handler, str(point.path), recursive=point.recursive,
                        event_filter=EVENT_FILTER,
                    )
                except OSError as err:
                    self.problems.append(f"cannot watch {point.path}: {err.strerror or err}")
            watching = {str(point.path) for point in self._scheduled}
        with self._lock:  # a watch gone tells no overflow: the next one's first teller is new
            self._lost_watches &= watching

    def _record(self, path: str, finishes: bool = False) -> None:
        """The observer's thread: one event's path. No thread is started nor woken for it
        unless its burst becomes due earlier (a 200-file burst is 600 events: a timer thread
        started for each took the interpreter from the app and the refresh)."""
        with self._lock:
            self._pending.add(path)
            if not self._moved and path in self._layout_paths:
                self._moved = True
            waited = self._burst.due
            due = self._burst.event(time.monotonic(), finishes)
            if due is not None and (waited is None or due < waited):
                self._due.notify_all()

    def _record_lost(self, watch: str) -> None:
        """The observer's thread: events of ``watch`` were lost. One overflow of the kernel's
        queue is told by every watch (watchdog's emitters, each on its thread, in no order,
        some maybe after the report): one report for all, one rescan. A watch that tells
        again is a new overflow: a new report (the first one's rescan may have read before
        it). The burst is due at once (the events that come until it is reported join it)."""
        with self._lock:
            if watch not in self._lost_watches:
                self._lost_watches.add(watch)
                if not self._lost and len(self._lost_watches) > 1:
                    return  # the latest overflow, told by another watch: its report went
            else:
                self._lost_watches = {watch}
            self._lost = True
            waited = self._burst.due
            due = self._burst.event(time.monotonic(), finishes=True)
            if due is not None and (waited is None or due < waited):
                self._due.notify_all()

    def _next(self, generation: int) -> tuple[set[str], bool, bool] | None:
        """Wait until the pending burst is due (called with the lock held): its paths,
        whether one can move a watch and whether events were lost; None once the watcher
        stopped."""
        while self._generation == generation:
            due = self._burst.due
            if due is None:
                self._due.wait()
                continue
            left = due - time.monotonic()
            if left > 0:
                self._due.wait(left)  # an event may have put it later (or earlier): look again
                continue
            changed, self._pending = self._pending, set()
            moved, self._moved = self._moved, False
            lost, self._lost = self._lost, False
            self._burst.reported()
            return changed, moved, lost
        return None

    def _report(self, generation: int) -> None:
        """The reporting thread of one start: each burst, when due, to ``on_change``."""
        while True:
            with self._lock:
                burst = self._next(generation)
            if burst is None:
                return
            changed, moved, lost = burst
            if not (changed or lost) or not self.running:
                continue
            try:
                if moved or lost:
                    self._sync_watches()
                paths = {Path(path) for path in changed}
                if not lost:
                    self._on_change(paths)
                    continue
                self.lost_reports += 1
                if self._on_lost is not None:
                    self._on_lost(paths)
                else:
                    self._on_change(paths | set(self._roots))
            except Exception as err:  # the next bursts are still reported
                self.problems.append(f"reporting changes failed: {err}")
