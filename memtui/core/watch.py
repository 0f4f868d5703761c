"""Watch store roots with watchdog and report bursts of changes as one debounced callback."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

DEBOUNCE_SECONDS = 0.25
"""Events closer together than this are merged into one callback."""

MAX_DELAY_SECONDS = 0.75
"""A long burst still reports at least this often, so changes show within a second."""

ChangeCallback = Callable[[set[Path]], None]


class _Collector(FileSystemEventHandler):
    def __init__(self, sink: Callable[[str], None]) -> None:
        self._sink = sink

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        for attr in ("src_path", "dest_path"):
            path = getattr(event, attr, "")
            if path:
                self._sink(os.fsdecode(path))


class StoreWatcher:
    """Observe directories; after a quiet ``debounce`` period call ``on_change`` once with every
    path that changed in the burst. Missing directories are watched through their nearest
    existing parent so a store that appears later is noticed too."""

    def __init__(
        self,
        roots: Iterable[Path],
        on_change: ChangeCallback,
        debounce: float = DEBOUNCE_SECONDS,
        max_delay: float = MAX_DELAY_SECONDS,
    ) -> None:
        self._roots = sorted({Path(r) for r in roots})
        self._on_change = on_change
        self._debounce = debounce
        self._max_delay = max_delay
        self._burst_started = 0.0
        self._pending: set[Path] = set()
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._observer: Observer | None = None  # type: ignore[valid-type]

    @staticmethod
    def watch_point(root: Path) -> Path | None:
        """The directory to observe for ``root``: itself, or its nearest existing ancestor."""
        for candidate in (root, *root.parents):
            if candidate.is_dir():
                return candidate
        return None

    def start(self) -> None:
        observer = Observer()
        handler = _Collector(self._record)
        points: set[Path] = set()
        for root in self._roots:
            point = self.watch_point(root)
            if point is None or point in points:
                continue
            recursive = point == root
            points.add(point)
            try:
                observer.schedule(handler, str(point), recursive=recursive)
            except OSError:
                continue
        observer.daemon = True
        observer.start()
        self._observer = observer

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=2)
            self._observer = None

    def _record(self, path: str) -> None:
        with self._lock:
            self._pending.add(Path(path))
            now = time.monotonic()
            if self._timer is None:
                self._burst_started = now
            elif now - self._burst_started + self._debounce > self._max_delay:
                return
            else:
                self._timer.cancel()
            self._timer = threading.Timer(self._debounce, self._flush)
            self._timer.daemon = True
            self._timer.start()

    def _flush(self) -> None:
        with self._lock:
            changed, self._pending = self._pending, set()
            self._timer = None
        if changed:
            self._on_change(changed)
