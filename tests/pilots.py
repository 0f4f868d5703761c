"""Pilot helpers shared by the TUI tests (not a test module: no test imports another)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import os
import stat
import tempfile
import time
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import textual.app
import textual.pilot
from rich.console import Console
from textual.app import App
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.notifications import Notification, SeverityLevel
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from memtui.core.config import load_config
from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome
from memtui.core.judge.ledger import default_ledger_path
from memtui.core.judge.session import JudgeSession
from memtui.core.model import StoreKind
from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.snapshot_diff import SnapshotDiffScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree


def app_for(home: DemoHome) -> MemtuiApp:
    root = home.root
    ctx = Context.create(
        project=home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env={
            "HOME": str(root),
            "MEMTUI_NO_CACHE": "1",
            "XDG_CONFIG_HOME": str(root / "config"),
            "XDG_STATE_HOME": str(root / "state"),
        },
    )
    return make_app(ctx, watch=False)


def digest_state(directory: Path) -> dict[str, tuple[str, int]]:
    """sha256 and mode of every file under ``directory`` (absent dir: empty)."""
    state: dict[str, tuple[str, int]] = {}
    for dirpath, _dirs, files in os.walk(directory):
        for name in files:
            path = Path(dirpath) / name
            mode = stat.S_IMODE(path.lstat().st_mode)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            state[path.relative_to(directory).as_posix()] = (digest, mode)
    return state


NO_WRAP = 10_000
"""Columns wide enough that no line of a preview wraps (``confirm``)."""


def plain(widget: Static, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def option_texts(options: OptionList) -> list[str]:
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def main_of(pilot: Pilot[None]) -> MainScreen:
    screen = pilot.app.screen_stack[1]
    assert isinstance(screen, MainScreen)
    return screen


def snapshot_store(main: MainScreen, agent: str) -> Store:
    assert main.result is not None
    for store in main.result.stores:
        if store.kind == StoreKind.SNAPSHOT and store.snapshot and store.snapshot.agent == agent:
            return store
    raise AssertionError(agent)


async def open_review(pilot: Pilot[None], agent: str) -> SnapshotDiffScreen:
    await settle(pilot)
    main = main_of(pilot)
    main.select_path(snapshot_store(main, agent), None)
    await pilot.pause()
    await pilot.press("s")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SnapshotDiffScreen)
    return screen


async def confirm(pilot: Pilot[None], key: str) -> str:
    """Press an action key; return the confirmation's text (summary and diffs, every line
    whole: a line naming a temporary directory wrapped at 200 columns when pytest's base
    directory was longer), then confirm with ``y``."""
    await pilot.press(key)
    await settle(pilot)  # the plan is a job: the confirmation opens when it is done
    modal = pilot.app.screen
    assert isinstance(modal, ConfirmScreen)
    text = "".join(plain(part, NO_WRAP)  # no line wraps, however long the temp paths
                   for part in modal.query_one("#confirm-scroll").query(Static))
    await pilot.press("y")
    await settle(pilot)
    return text


_NOTIFIED: weakref.WeakKeyDictionary[App[Any], list[Notification]] = weakref.WeakKeyDictionary()


def record_notifications(monkeypatch: pytest.MonkeyPatch) -> None:
    """Record every ``App.notify`` call, when it is made (``tests/tui/conftest.py`` does this
    for every TUI test). Textual's own list is no record: ``notify`` only posts a message, and
    a toast expires by the wall clock (5 s), so on a busy machine it can be gone before a pilot
    reads it."""
    original = App.notify

    def notify(
        self: App[Any],
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        shown = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        note = Notification(message, title, severity, shown, markup=markup)
        _NOTIFIED.setdefault(self, []).append(note)
        original(self, message, title=title, severity=severity, timeout=timeout, markup=markup)

    monkeypatch.setattr(App, "notify", notify)


def notified(app: App[Any]) -> list[Notification]:
    """Every notification ``app`` made, in order, expired or not (see record_notifications)."""
    return list(_NOTIFIED.get(app, []))


def notifications(app: App[Any]) -> list[tuple[str, str]]:
    return [(n.message, n.severity) for n in notified(app)]


def rendered(content: object, width: int) -> list[str]:
    """The rows ``content`` renders to at ``width`` columns."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(content)
    return console.export_text().splitlines()


def detail_rows(detail: DetailPane, width: int | None = None) -> list[str]:
    """The rows of the detail pane's view: a MEMORY.md's health (``#detail-health``, shown
    for the numbered view only), then ``#detail-head`` (its numbered lines, or what else is
    shown), each at ``width`` columns (the widget's own by default)."""
    rows: list[str] = []
    for part in ("#detail-health", "#detail-head"):
        widget = detail.query_one(part, Static)
        if widget.display:
            rows += rendered(widget.content, width or widget.size.width)
    return rows


async def index_view(pilot: Pilot[None], home: DemoHome) -> tuple[DetailPane, StoreTree, str]:
    """The auto store's MEMORY.md selected and shown."""
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen) and screen.result is not None
    tree = screen.query_one("#tree-auto", StoreTree)
    tree.focus()
    key = f"{home.auto_memory}::MEMORY.md"
    assert tree.select_key(key)
    await settle(pilot)
    detail = screen.query_one(DetailPane)
    assert detail.loaded is not None and detail.loaded.ref.key == key
    return detail, tree, key


async def started(pilot: Pilot[None]) -> MainScreen:
    """The first scan shown and the watcher running."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    assert screen.result is not None
    watcher = screen.live.watcher
    assert watcher is not None and watcher.running
    return screen


async def wait_until(pilot: Pilot[None], check: Callable[[], bool], timeout: float) -> float:
    """Seconds until ``check`` held (polling the app); fails after ``timeout``."""
    start = time.monotonic()
    while not check():
        elapsed = time.monotonic() - start
        assert elapsed < timeout, f"not seen within {timeout} s"
        await pilot.pause(0.05)
    return time.monotonic() - start


def context_on(home: DemoHome, state: Path, **env: str) -> Context:
    """What :func:`app_on` runs in: the demo home, memtui's state (the ledger) in ``state``."""
    return Context.create(
        project=home.project, claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env={"HOME": str(home.root), "MEMTUI_NO_CACHE": "1", "MEMTUI_STATE_DIR": str(state),
             "XDG_CONFIG_HOME": str(state / "config"), **env},
    )


def app_on(home: DemoHome, state: Path, **env: str) -> MemtuiApp:
    """The app on the demo home (only read: judging writes no memory), the ledger in ``state``."""
    return make_app(context_on(home, state, **env), watch=False)


_JUDGED: dict[str, bytes] = {}
"""The ledger :func:`judged_before` writes, by the home's root (a module's ``pristine``)."""


def judged_before(home: DemoHome, state: Path) -> None:
    """The ledger in ``state`` (as :func:`app_on` puts it) holds the local judge's verdict on
    every candidate pair of ``home``, as ``J``'s first run writes it there: for a pilot about
    what the conflicts screen does after the judging (filters, decisions, marks, the list),
    which then opens on pairs judged already. The demo's 2,300 pairs took 2 s of CPU to judge
    and a redraw of the list per batch of verdicts, in every such pilot; now once per home
    and process (``home`` is never written: ``pristine``). The pilots of the judging itself
    (verdicts streaming in, the preview while pairing, a provider that sends) start without."""
    key = str(home.root)
    data = _JUDGED.get(key)
    if data is None:
        with tempfile.TemporaryDirectory(dir=state.parent) as scratch:
            context = context_on(home, Path(scratch))
            session = JudgeSession.start(context, load_config(context.env, context.home))
            session.send()
            data = session.ledger.to_bytes()
        _JUDGED[key] = data
    ledger = default_ledger_path(context_on(home, state).env)
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_bytes(data)


async def open_conflicts(pilot: Pilot[None]) -> ConflictsScreen:
    await settle(pilot)
    await pilot.press("J")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    return screen


CALM_CHECKS = 3
"""Turns of the event loop in a row with every message queue empty: the app is idle."""
MAX_TURNS = 5000
"""A widget that posts a message on every turn never lets the app be idle: stop after these."""

_RUNNING: list[App[Any]] = []
"""The apps inside ``App.run_test`` now, the newest last (``idle_by_state`` records them)."""


def _queued(app: App[Any]) -> bool:
    """A message waits in the queue of the app, a screen of its stack or one of their
    widgets (``MessagePump.message_queue_size``)."""
    if app.message_queue_size:
        return True
    return any(
        node.message_queue_size
        for screen in app.screen_stack
        for node in screen.walk_children(with_self=True)
    )


REFRESH_LOOK = 0.05
"""How often :func:`_refreshed` looks whether the screen stack changed while it waits."""
REFRESH_LOOKS = 600
"""... and how many times at most (30 s, the limit Textual's own pilot gives a screen to
process its events): a dialog pushed and popped between two looks can drop the callback too."""


async def _refreshed(app: App[Any]) -> None:
    """Until the current screen has refreshed: its ``call_after_refresh`` callback ran, the
    screen is gone (its task ended), or the screen stack changed meanwhile. Textual hands an
    ``InvokeLater`` to whichever screen is current when it is handled: a dialog pushed before
    that gets the callback, and popped before it refreshes, drops it, so waiting for the
    callback alone waited forever (a conflicts pilot hung twice under load, pressing ``e`` and
    ``y`` in a row)."""
    screen = app.screen
    done = asyncio.Event()
    if not screen.is_running or not screen.call_after_refresh(done.set):
        return
    stack = [id(s) for s in app.screen_stack]
    waits = [asyncio.ensure_future(done.wait()), screen.task]
    try:
        for _look in range(REFRESH_LOOKS):
            finished, _ = await asyncio.wait(
                waits, timeout=REFRESH_LOOK, return_when=asyncio.FIRST_COMPLETED)
            if finished or not app.is_running or [id(s) for s in app.screen_stack] != stack:
                return
    finally:
        waits[0].cancel()


async def until_idle(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
    """Textual's ``wait_for_idle`` for the pilots, by the app's state instead of the clock:
    Textual's version sleeps 20 ms at least and then until the process used under a
    millisecond of CPU in 20 ms (up to 1 s), a fixed pause per key press and ``pilot.pause()``
    that grows with the machine's load. This one returns once every message queue of the app
    stayed empty for :data:`CALM_CHECKS` turns of the event loop, the screen refreshed, and
    the queues are still empty after it (public conditions only: ``message_queue_size``,
    ``call_after_refresh``). Workers (threads) are waited for by ``settle``
    (memtui/tui/testing.py): Textual's clock also counted their CPU, this does not."""
    app = _RUNNING[-1] if _RUNNING else None
    if app is None or not app.is_running:
        await asyncio.sleep(0)
        return
    calm = 0
    refreshed = False
    for _turn in range(MAX_TURNS):
        await asyncio.sleep(0)
        if _queued(app):
            calm, refreshed = 0, False
            continue
        calm += 1
        if calm < CALM_CHECKS:
            continue
        if refreshed:
            return
        await _refreshed(app)  # what a refresh calls back may post more
        calm, refreshed = 0, True


def idle_by_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilots wait for the app's queues, not the clock (``until_idle``; tests/tui/conftest.py
    does this for every TUI test): key presses and ``pilot.pause()`` call ``wait_for_idle``,
    replaced by ``until_idle``, which finds the app in ``run_test``."""
    run_test = App.run_test

    @contextlib.asynccontextmanager
    async def recorded(self: App[Any], **options: Any) -> AsyncIterator[Pilot[Any]]:
        async with run_test(self, **options) as pilot:
            _RUNNING.append(self)
            try:
                yield pilot
            finally:
                _RUNNING.remove(self)

    monkeypatch.setattr(App, "run_test", recorded)
    monkeypatch.setattr(textual.app, "wait_for_idle", until_idle)
    monkeypatch.setattr(textual.pilot, "wait_for_idle", until_idle)


_PARSED: dict[tuple[object, ...], list[RuleSet]] = {}
"""Textual CSS parsed in this process, by what the parse depends on (:func:`css_parsed_once`)."""


def css_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each app parses its CSS anew (its widgets' ``DEFAULT_CSS``, the app's and each screen's
    ``.tcss``; again for a new theme): the same text with the same theme variables gives the
    same rules, so the pilots (a new app each) parse each once per process, as one app does
    (Textual's own cache, ``Stylesheet._parse_cache``, is per stylesheet and shares the rule
    sets between its parses the same way). The key holds everything the parse reads: the
    text, where it came from, its kind, tie breaker and scope, and the CSS variables."""
    parse = Stylesheet._parse_rules

    def parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                    tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope,
               frozenset(self._variables.items()))
        rules = _PARSED.get(key)
        if rules is None:
            rules = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
            _PARSED[key] = rules
        return rules

    monkeypatch.setattr(Stylesheet, "_parse_rules", parse_rules)
