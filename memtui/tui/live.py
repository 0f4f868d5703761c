"""Live updates for the main screen: watch every store, rescan only what changed.

Watchdog reports bursts of changed paths (already debounced; the first finished change after
a quiet period at once) on its own thread; they hop to the app with ``call_from_thread`` and
gather in ``pending``. One worker at a time (group ``rescan``) rescans the stores they touch
and the result is handed to ``show``; paths that arrive while it runs wait for the next one,
so a burst of writes becomes two or three refreshes however long a rescan takes (its first
file at once, the rest merged). It gets the screen's context, result and ``show`` as callables,
never the screen's class; refreshes shown, it posts :class:`ScanCompleted` to the screen once
no other refresh runs, waits or is held by the watcher (the screen's handler starts what
follows a complete result). Events the watcher lost (inotify's queue overflowed: which files
changed is unknown) make one scan of every store, merged with the paths pending.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual.dom import DOMNode
from textual.message import Message

from memtui.core.contents import ScanResult
from memtui.core.scan.refresh import refresh, watch_targets
from memtui.core.scan.scanner import cache_for, scan
from memtui.core.scan.watch import DEBOUNCE_SECONDS, MAX_DELAY_SECONDS, StoreWatcher
from memtui.core.stores.locations import Context, Locations, locate
from memtui.tui.work import check, in_thread, run_flow, run_thread


@dataclass
class ScanCompleted(Message):
    """A complete result (the scan's last, or a live refresh's) is shown: the work that
    follows it may start (the main screen's handler starts each in a worker of its own
    group). ``check_links``: its ``[[wikilinks]]`` still need the whole-file check (a
    refresh's; the scan's own worker checks the scan's)."""

    bubble: ClassVar[bool] = False

    result: ScanResult
    check_links: bool


class LiveUpdates:
    """The watcher of one screen's stores and the refreshes it triggers."""

    debounce: ClassVar[float] = DEBOUNCE_SECONDS
    max_delay: ClassVar[float] = MAX_DELAY_SECONDS
    """The watcher's (``StoreWatcher``); tests set them beyond their patience."""

    def __init__(
        self,
        node: DOMNode,
        context: Callable[[], Context],
        result: Callable[[], ScanResult | None],
        show: Callable[[ScanResult], object],
        *,
        enabled: bool = True,
    ) -> None:
        self.node = node
        self.enabled = enabled
        """Watch at all (the app's ``--no-watch`` and the tests turn it off)."""
        self.context = context
        self.result = result
        self.show = show
        self.watcher: StoreWatcher | None = None
        self.pending: set[Path] = set()
        self.refreshes = 0
        """How many refreshes were applied (a burst of events should make one)."""
        self.located: tuple[Context, Locations] | None = None
        """The stores' locations a refresh rescans with (and the context they are of): found
        when the watcher is aimed after a scan, and again after each refresh is shown (a
        refresh does not find them first: that is 10 ms of a large home's one-file refresh).
        When they differ from the ones it used, the stores are scanned anew."""
        self._lock = threading.Lock()
        self._stopped = False
        self._busy = False
        self._scan_all = False
        self._owed: ScanResult | None = None
        """The newest refresh shown whose follow-ups (:class:`ScanCompleted`) have not
        started: they start once no refresh runs or waits and the watcher holds no burst
        (a burst's first file is shown at once: its follow-ups, reading thousands of files
        on a large home, took the interpreter from the rest's refresh); none when a scan
        replaced it meanwhile (the scan's own follow-ups run)."""
        self._relocate: tuple[Context, Locations] | None = None
        """The context and locations a refresh shown since the last check rescanned with:
        the stores are found again once nothing else is to do (:meth:`_check_locations`)."""

    # watching ----------------------------------------------------------------------------

    def track(self, result: ScanResult) -> None:
        """Watch the roots of ``result`` (starting or re-aiming the watcher in a worker)."""
        if not self.enabled or self._stopped:
            return
        context = self.context()
        run_thread(self.node, lambda: self._configure(context, result), group="watch",
                   label="watching the stores", title="Live updates")

    def _configure(self, context: Context, result: ScanResult) -> None:
        roots = watch_targets(context, result).roots
        check()
        self.located = (context, locate(context))
        check()
        with self._lock:
            if self._stopped:
                return
            if self.watcher is None:
                self.watcher = StoreWatcher(roots, self._on_change, self.debounce,
                                            self.max_delay, on_lost=self._on_lost)
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
            self.node.app.call_from_thread(self.changed, paths)

    def _on_lost(self, paths: set[Path]) -> None:
        """Watcher thread: events were lost (inotify's queue overflowed): every store is
        scanned again, on the app's thread."""
        if self._stopped:
            return
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.node.app.call_from_thread(self.lost, paths)

    # refreshing --------------------------------------------------------------------------

    def lost(self, paths: Iterable[Path] = ()) -> None:
        """App thread: the watcher lost events, which paths changed is unknown: one scan of
        every store, which the paths pending (and ``paths``) join (one running now: the scan
        follows it)."""
        self.pending.update(paths)
        self._scan_all = True
        self._schedule()

    def changed(self, paths: Iterable[Path]) -> None:
        """App thread: these paths changed; refresh the stores they belong to."""
        self.pending.update(paths)
        self._schedule()

    def _schedule(self) -> None:
        """Start a rescan of everything pending, unless one is running: it will call again
        when it is done, so paths that arrive meanwhile become one more refresh, not many."""
        base = self.result()
        if (self._stopped or self._busy or base is None
                or not (self.pending or self._scan_all)):
            return
        self._busy = True
        changed = frozenset(self.pending)
        context = self.context()
        located = self.located
        known = located[1] if located is not None and located[0] is context else None
        scan_all, self._scan_all = self._scan_all, False

        run_flow(self.node, partial(self._refresh, context, base, changed, known, scan_all),
                 group="rescan", label="live refresh", title="Live refresh")

    async def _refresh(self, context: Context, base: ScanResult, changed: frozenset[Path],
                       known: Locations | None = None, scan_all: bool = False) -> None:
        """One refresh (``known``: the locations to rescan with, found again once it is
        shown; ``scan_all``: they had changed, every store is scanned anew); a failure is
        said by the one handler and live updates go on."""
        fresh: ScanResult | None = None
        cache = cache_for(context)
        try:
            if scan_all:
                fresh = await in_thread(lambda: scan(context, cache=cache))
            else:
                fresh = await in_thread(lambda: refresh(context, base, changed, cache=cache,
                                                        locations=known))
        finally:
            if known is not None and fresh is not None and fresh is not base:
                self._relocate = (context, known)
            self._done(changed, base, fresh)

    async def _check_locations(self, context: Context, known: Locations) -> None:
        """After a refresh that rescanned with ``known``: the locations found again; when
        they moved (a setting, the Claude Code version), every store is scanned anew."""
        found = await in_thread(lambda: locate(context))
        if self._stopped or self.context() is not context:
            return
        self.located = (context, found)
        if found != known:
            self._scan_all = True
            self._schedule()

    def _done(self, changed: frozenset[Path], base: ScanResult, fresh: ScanResult | None) -> None:
        self._busy = False
        self.pending.difference_update(changed)
        if fresh is not None and fresh is not base:
            if self.result() is base:
                self.refreshes += 1
                self.show(fresh)
                self._owed = fresh
            else:
                self.pending.update(changed)  # another scan landed meanwhile: redo on top of it
        self._schedule()
        self._follow_up()

    def _follow_up(self) -> None:
        """Once no refresh runs or waits and the watcher holds no burst: the follow-ups of
        the refreshes shown (:attr:`_owed`), and the stores found again (:attr:`_relocate`),
        each once the screen is drawn (they compete with drawing it). A burst still coming
        calls this again when its refresh is done (or found nothing to change)."""
        watcher = self.watcher
        if self._busy or self._stopped or (watcher is not None and watcher.holding()):
            return
        owed, self._owed = self._owed, None
        if owed is not None and owed is self.result():
            self.node.call_after_refresh(self.node.post_message,
                                         ScanCompleted(owed, check_links=True))
        relocate, self._relocate = self._relocate, None
        if relocate is not None:
            context, known = relocate
            self.node.call_after_refresh(
                run_flow, self.node, partial(self._check_locations, context, known),
                group="relocate", label="finding the stores again", title="Live refresh")
