"""The TUI on a home full of markup, terminal sequences, bidi overrides and newlines in names
(issue 8, item 5): the app does not crash, shows every value literally with its control
characters escaped, a ``[@click=…]`` in a file is text that clicking does nothing with, and no
raw ESC / C1 / control character reaches what the app writes to the terminal."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import demo_app
from hostile import (
    AGENT_SHOWN,
    BIDI_FILE_SHOWN,
    C1_FILE,
    C1_FILE_SHOWN,
    CLEAR_FILE_SHOWN,
    CLICK,
    ESCAPED,
    MARKUP_CLOSE,
    MARKUP_FILE,
    MARKUP_REL,
    NEWLINE_FILE,
    NEWLINE_FILE_SHOWN,
    OSC_FILE,
    OSC_FILE_SHOWN,
    OSC_TITLE,
    ROOT_SHOWN,
    SNAPSHOT_AGENT_SHOWN,
    STYLE,
    build_hostile_home,
    raw_controls,
)
from textual.pilot import Pilot

from memtui.core.demo.build import DemoHome
from memtui.tui.app import MemtuiApp
from memtui.tui.plain import styled
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (200, 70)
BODY_SHOWN = "osc \\x1b]2;pwned\\x07 clear \\x1b[2J c1 \\x9b31m bidi \\u202egnp.exe"
THEME_FILE_SHOWN = "bad\\x1b]2;pwned\\x07[b]x.toml"
OTHER_PROJECT_SHOWN = "/nowhere/proj\\x1b]2;pwned\\x07[/x]"
MOVE = re.compile(r"\x1b\[[0-9]+;[0-9]+H")
SGR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_hostile_home(tmp_path)


class NotifyingApp:
    """The app, and every notification it showed (a toast may be gone before it is read)."""

    def __init__(self, home: DemoHome) -> None:
        root = home.root.parent
        self.app = demo_app(
            home,
            HOME=str(root),  # paths are shown as ~/<ROOT_NAME>/…
            XDG_CONFIG_HOME=str(home.root / ".config"),
            XDG_STATE_HOME=str(root / "state"),
            MEMTUI_NO_CACHE="1",
        )
        self.notified: list[str] = []
        original = self.app.notify

        def notify(message: str, **options: Any) -> None:
            self.notified.append(message)
            assert raw_controls(message) == []
            assert options.get("markup", True) is False or "[" not in message, message
            original(message, **options)

        self.app.notify = notify  # type: ignore[method-assign]


def app_for(home: DemoHome) -> MemtuiApp:
    return NotifyingApp(home).app


def terminal_output(app: MemtuiApp) -> str:
    """What the app writes to the terminal to paint its whole screen: the compositor's update
    rendered to text and escape sequences, as the driver receives it."""
    return app.screen._compositor.render_update(full=True).render_segments(app.console)


def screen_lines(app: MemtuiApp) -> list[str]:
    """The screen as it reads, one string per row, after checking that the output holds no raw
    control character but the SGR colours and cursor moves of the renderer itself."""
    output = terminal_output(app)
    assert raw_controls(output, app_sequences=True) == []
    return SGR.sub("", MOVE.sub("", output)).split("\n")


def on_screen(app: MemtuiApp) -> str:
    return "\n".join(screen_lines(app))


async def started(pilot: Pilot[Any]) -> MainScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


async def show(pilot: Pilot[Any], screen: MainScreen, pane: str, rel: str | None,
               store_index: int = 0) -> None:
    tree = screen.query_one(f"#tree-{pane}", StoreTree)
    screen.select_path(tree.stores[store_index], rel)
    await settle(pilot)


def labels(tree: StoreTree) -> list[str]:
    out: list[str] = []
    stack = [tree.root]
    while stack:
        node = stack.pop()
        out.append(node.label.plain)
        stack.extend(node.children)
    return out


def find(app: MemtuiApp, needle: str) -> tuple[int, int]:
    """Where ``needle`` starts on the screen (column, row)."""
    for row, line in enumerate(screen_lines(app)):
        column = line.find(needle)
        if column >= 0:
            return column, row
    raise AssertionError(f"{needle!r} is not on the screen")


async def test_header_tree_and_theme_warning_show_hostile_names_escaped(home: DemoHome) -> None:
    recorded = NotifyingApp(home)
    app = recorded.app
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        text = on_screen(app)
        assert f"~/{ROOT_SHOWN}/project" in text  # the header: a project path from disk
        assert any(THEME_FILE_SHOWN in message for message in recorded.notified)
        auto = labels(screen.query_one("#tree-auto", StoreTree))
        for name in (OSC_FILE_SHOWN, NEWLINE_FILE_SHOWN, C1_FILE_SHOWN, BIDI_FILE_SHOWN,
                     CLEAR_FILE_SHOWN, MARKUP_FILE):
            assert any(label.startswith(name) for label in auto), name
        assert "[@click=app.quit]QUIT[/" in auto  # the folder: markup as text
        agents = labels(screen.query_one("#tree-agents", StoreTree))
        assert any(label.startswith(f"{AGENT_SHOWN} (user)") for label in agents)
        snapshots = labels(screen.query_one("#tree-snapshots", StoreTree))
        assert any(label.startswith(SNAPSHOT_AGENT_SHOWN) for label in snapshots)
        sessions = labels(screen.query_one("#tree-sessions", StoreTree))
        assert any(label.endswith(ESCAPED) for label in sessions)  # the session title
        assert app.is_running


@pytest.mark.parametrize("rel", [OSC_FILE, NEWLINE_FILE, C1_FILE, MARKUP_REL])
async def test_a_hostile_memory_shows_literally_rendered_and_raw(
    home: DemoHome, rel: str
) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await show(pilot, screen, "auto", rel)
        text = on_screen(app)
        shown = rel.replace("\n", "\\n").replace("\x1b", "\\x1b").replace("\x07", "\\x07")
        shown = shown.replace("\x9b", "\\x9b")
        assert f"╭─ {shown} ─" in text  # the detail's border title
        assert f"description  {ESCAPED}" in text  # the frontmatter table
        assert f"name         {CLICK}" in text
        for paragraph in (MARKUP_CLOSE, CLICK, STYLE, BODY_SHOWN):  # the Markdown body
            assert f"│   {paragraph} " in text
        await pilot.press("r")
        await settle(pilot)
        text = on_screen(app)
        assert BODY_SHOWN in text and "code \\x1b[31mred\\x1b[0m" in text
        assert 'description: "closing [/nope] tag' in text  # the raw file: YAML as written
        assert app.is_running


async def test_memory_index_lines_and_health_show_literally(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await show(pilot, screen, "auto", "MEMORY.md")
        text = on_screen(app)
        assert "line 3: missing\\x1b[2J.md does not exist" in text
        assert f"◌ {C1_FILE_SHOWN}: no index entry points to it" in text
        screen.query_one(DetailPane).scroll_to(y=32, animate=False)  # the numbered lines
        await settle(pilot)
        text = on_screen(app)
        assert f"2 - [{MARKUP_CLOSE}]({OSC_FILE_SHOWN}) — {CLICK} \\x1b]2;pwned\\x07" in text
        assert f"3 - [{STYLE}](missing\\x1b[2J.md)" in text


async def test_agent_session_and_snapshot_stores_show_literally(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        agents = screen.query_one("#tree-agents", StoreTree).stores
        spy = next(n for n, s in enumerate(agents) if s.location.agent == "spy\x1b]2;pwned\x07[b]")
        await show(pilot, screen, "agents", OSC_FILE, spy)
        assert f"description  {ESCAPED}" in on_screen(app)
        await show(pilot, screen, "agents", None, spy)
        assert f"agent {AGENT_SHOWN} (user)" in on_screen(app)
        sessions = screen.query_one("#tree-sessions", StoreTree).stores
        ours = next(n for n, s in enumerate(sessions) if s.location.session == "badc0de1-0000"
                    "-4000-8000-00000000beef")
        await show(pilot, screen, "sessions", None, ours)
        assert f"title: {ESCAPED}" in on_screen(app)
        snapshots = screen.query_one("#tree-snapshots", StoreTree).stores
        snap = next(n for n, s in enumerate(snapshots) if s.location.agent
                    and s.location.agent.startswith("snap"))
        await show(pilot, screen, "snapshots", None, snap)
        text = on_screen(app)
        assert f"snapshot of {SNAPSHOT_AGENT_SHOWN}" in text
        assert f"files: MEMORY.md, {CLEAR_FILE_SHOWN}, {OSC_FILE_SHOWN}" in text

        await pilot.press("s")  # the snapshot review, then the initialize confirmation
        await settle(pilot)
        text = on_screen(app)
        assert f"snapshot: {SNAPSHOT_AGENT_SHOWN}" in text
        assert f"A {OSC_FILE_SHOWN}" in text and f"A {CLEAR_FILE_SHOWN}" in text
        await pilot.press("i")
        await settle(pilot)
        text = on_screen(app)
        assert f"initialize {SNAPSHOT_AGENT_SHOWN}?" in text
        assert f"Creates: MEMORY.md, {CLEAR_FILE_SHOWN}, {OSC_FILE_SHOWN}" in text
        await pilot.press("n")
        await settle(pilot)
        assert app.is_running


async def test_search_palette_and_projects_show_literally(home: DemoHome) -> None:
    app = app_for(home)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press(*"pwned")
        await settle(pilot)
        text = on_screen(app)
        assert f"auto  {OSC_FILE_SHOWN}" in text
        assert "\\x1b]2;pwned\\x07" in text
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"osc")
        await settle(pilot)
        text = on_screen(app)
        assert f"auto: {OSC_FILE_SHOWN}" in text
        assert MARKUP_CLOSE in text  # the description under it, not parsed
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("p")
        await settle(pilot)
        assert OTHER_PROJECT_SHOWN in on_screen(app)
        assert app.is_running


async def test_delete_preview_notification_and_history_show_literally(
    home: DemoHome,
) -> None:
    recorded = NotifyingApp(home)
    app = recorded.app
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await show(pilot, screen, "auto", OSC_FILE)
        await pilot.press("d")
        await settle(pilot)
        text = on_screen(app)
        assert f"delete {OSC_FILE_SHOWN} from auto" in text
        assert f"Deletes: {OSC_FILE_SHOWN}" in text
        assert f"-- [{MARKUP_CLOSE}]({OSC_FILE_SHOWN}) — {CLICK}" in text  # the index diff
        await pilot.press("y")
        await settle(pilot)
        assert f"deleted {OSC_FILE_SHOWN} · u to undo" in recorded.notified
        assert not (home.auto_memory / OSC_FILE).exists()
        await pilot.press("U")
        await settle(pilot)
        assert f"delete {OSC_FILE_SHOWN} from auto" in on_screen(app)
        assert app.is_running


async def test_clicking_markup_from_disk_does_nothing_and_links_are_not_opened(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_for(home)
    opened: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await show(pilot, screen, "auto", OSC_FILE)
        column, row = find(app, f"│   {CLICK} ")
        await pilot.click(offset=(column + 4 + CLICK.index("QUIT"), row))  # "QUIT" in the body
        await settle(pilot)
        column, row = find(app, "[@click=app.quit]QUIT[/")  # the folder in the tree
        await pilot.click(offset=(column + CLICK.index("QUIT"), row))
        await settle(pilot)
        assert app.is_running and app.return_code is None
        column, row = find(app, " and another")  # a Markdown link to "app.quit"
        await pilot.click(offset=(column + len(" and a"), row))
        await settle(pilot)
        assert app.is_running and opened == []
        assert "app.quit" in on_screen(app)  # the notification names the target, unopened
    assert OSC_TITLE not in "".join(opened)


def test_styled_moves_each_span_along_the_escapes() -> None:
    out = styled("a\x1b]2;x\x07 pwned\nz", [(8, 13, "bold")])  # "pwned" in the raw text
    assert out.plain == "a\\x1b]2;x\\x07 pwned\\nz"
    (span,) = out.spans
    assert out.plain[span.start : span.end] == "pwned" and span.style == "bold"
