"""Live updates for the main screen: watch every store, rescan only what changed.

Watchdog reports bursts of changed paths (already debounced) on its own thread; they hop to
the app with ``call_from_thread`` and gather in ``pending``. One worker at a time (group
``rescan``) rescans the stores they touch and the result is applied with ``show_result``;
paths that arrive while it runs wait for the next one, so a burst of writes becomes one or two
refreshes however long a rescan takes.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from memtui.core.contents import ScanResult
from memtui.core.scan.refresh import refresh, watch_targets
from memtui.core.scan.scanner import cache_for
from memtui.core.scan.watch import StoreWatcher
from memtui.tui.plain import line

if TYPE_CHECKING:
    from memtui.tui.screens.main import MainScreen


class LiveUpdates:
    """The watcher of one main screen and the refreshes it triggers."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.watcher: StoreWatcher | None = None
        self.pending: set[Path] = set()
        self.refreshes = 0
        """How many refreshes were applied (a burst of events should make one)."""
        self._lock = threading.Lock()
        self._stopped = False
        self._busy = False

    @property
    def enabled(self) -> bool:
        return bool(getattr(self.screen.app, "watch_files", False))

    # watching ----------------------------------------------------------------------------

    def track(self, result: ScanResult) -> None:
        """Watch the roots of ``result`` (starting or re-aiming the watcher in a worker)."""
        if not self.enabled or self._stopped:
            return
        self.screen.run_worker(
            partial(self._configure, result),
            name="watch roots",
            group="watch",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _configure(self, result: ScanResult) -> None:
        roots = watch_targets(self.screen.context, result).roots
        if get_current_worker().is_cancelled:
            return
        with self._lock:
            if self._stopped:
                return
            if self.watcher is None:
                self.watcher = StoreWatcher(roots, self._on_change)
                self.watcher.start()
            elif roots != self.watcher.roots:
                self.watcher.set_roots(roots)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            watcher, self.watcher = self.watcher, None
        if watcher is not None:
            watcher.stop()

    def _on_change(self, paths: set[Path]) -> None:
        """Watcher thread: hand the paths to the app."""
        if self._stopped:
            return
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.screen.app.call_from_thread(self.changed, paths)

    # refreshing --------------------------------------------------------------------------

    def changed(self, paths: Iterable[Path]) -> None:
        """App thread: these paths changed; refresh the stores they belong to."""
        self.pending.update(paths)
        self._schedule()

    def _schedule(self) -> None:
        """Start a rescan of everything pending, unless one is running: it will call again
        when it is done, so paths that arrive meanwhile become one more refresh, not many."""
        base = self.screen.result
        if self._busy or base is None or not self.pending:
            return
        self._busy = True
        self.screen.run_worker(
            partial(self._rescan, frozenset(self.pending), base),
            name="rescan",
            group="rescan",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _rescan(self, changed: frozenset[Path], base: ScanResult) -> None:
        fresh: ScanResult | None = None
        error: str | None = None
        try:
            ctx = self.screen.context
            fresh = refresh(ctx, base, changed, cache=cache_for(ctx))
        except Exception as err:  # a bug must not stop live updates for good
            error = f"{type(err).__name__}: {err}"
        if get_current_worker().is_cancelled:
            return
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.screen.app.call_from_thread(self._done, changed, base, fresh, error)

    def _done(
        self,
        changed: frozenset[Path],
        base: ScanResult,
        fresh: ScanResult | None,
        error: str | None,
    ) -> None:
        self._busy = False
        self.pending.difference_update(changed)
        if error is not None:
            self.screen.app.notify(
                f"live refresh failed: {line(error)}", severity="error", markup=False
            )
        elif fresh is not None and fresh is not base:
            if self.screen.result is base:
                self.refreshes += 1
                self.screen.show_result(fresh)
            else:
                self.pending.update(changed)  # another scan landed meanwhile: redo on top of it
        self._schedule()
