"""The TUI records the history (issue 23): at start, what changed while memtui was closed;
after ``e``, the edit as the editor's. Only once the history exists (``memtui history
record`` makes it): without it, nothing is created."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import demo_app, demo_context
from pilots import notified
from textual.widgets import OptionList

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.history.attribution import parse_message
from memtui.core.history.record import history_of, record
from memtui.tui.testing import settle

SIZE = (160, 45)


@pytest.fixture
def home(tmp_path: Path, state_home: Path) -> DemoHome:
    return build_demo_home(tmp_path / "home")


def last_message(git_dir: Path) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), "log", "-1", "--format=%B"],
                          check=True, capture_output=True, text=True).stdout


async def test_start_records_what_changed_while_memtui_was_closed(
    home: DemoHome, tmp_path: Path
) -> None:
    data = str(tmp_path / "data-dir")
    ctx = demo_context(home, MEMTUI_DATA_DIR=data)
    record(ctx)  # the history exists from now on
    repo = history_of(ctx)
    before = repo.head()
    changed = home.auto_memory / "user-role.md"
    changed.write_text(changed.read_text(encoding="utf-8") + "\nAdded while closed.\n",
                       encoding="utf-8")
    app = demo_app(home, MEMTUI_DATA_DIR=data, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [n.message for n in notified(app) if n.severity == "error"] == []
    after = repo.head()
    assert after is not None and after != before
    summary, who = parse_message(last_message(repo.git_dir))
    assert who.kind == "unknown" and who.source == "start"
    assert "user-role.md" in summary or "1" in summary


async def test_no_history_is_created_by_the_tui(home: DemoHome, tmp_path: Path) -> None:
    data = tmp_path / "data-dir"
    app = demo_app(home, MEMTUI_DATA_DIR=str(data), MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert not history_of(demo_context(home, MEMTUI_DATA_DIR=str(data))).exists()


async def test_an_edit_is_recorded_as_the_editors(
    home: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtui.core.model import StoreKind
    from memtui.tui import editor as editor_module
    from memtui.tui.screens.main import MainScreen

    data = str(tmp_path / "data-dir")
    ctx = demo_context(home, MEMTUI_DATA_DIR=data)
    record(ctx)
    repo = history_of(ctx)
    target = home.auto_memory / "architecture.md"

    def fake_editor(_app: object, command: list[str]) -> int:
        path = Path(command[-1])
        path.write_text(path.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
        return 0

    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setattr(editor_module, "run_editor", fake_editor)
    app = demo_app(home, MEMTUI_DATA_DIR=data, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen) and main.result is not None
        store = next(s for s in main.result.stores if s.kind == StoreKind.AUTO)
        main.select_path(store, "architecture.md")
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
    assert target.read_text(encoding="utf-8").endswith("Edited.\n")
    log = subprocess.run(["git", "--git-dir", str(repo.git_dir), "log", "--format=%B%x00"],
                         check=True, capture_output=True, text=True).stdout
    authors = [parse_message(m.strip())[1] for m in log.split("\0") if m.strip()]
    edits = [a for a in authors if a.kind == "editor"]
    assert edits and edits[0].editor == "nano" and edits[0].file == str(target)


async def test_h_shows_a_memorys_versions_and_r_restores_one(
    home: DemoHome, tmp_path: Path
) -> None:
    """``H`` on a memory: its versions, newest first, the diff against the disk; ``r`` on an
    older one previews and puts it back through the write path (journaled: ``u`` undoes)."""
    from memtui.core.model import StoreKind
    from memtui.tui.dialogs.confirm import ConfirmScreen
    from memtui.tui.dialogs.history import HistoryScreen
    from memtui.tui.screens.main import MainScreen

    data = str(tmp_path / "data-dir")
    ctx = demo_context(home, MEMTUI_DATA_DIR=data)
    target = home.auto_memory / "user-role.md"
    original = target.read_bytes()
    record(ctx)
    target.write_bytes(original + b"\nA later line.\n")
    record(ctx)
    app = demo_app(home, MEMTUI_DATA_DIR=data, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen) and main.result is not None
        store = next(s for s in main.result.stores if s.kind == StoreKind.AUTO)
        main.select_path(store, "user-role.md")
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, HistoryScreen)
        assert len(dialog.rows) >= 2 and dialog.rows[0].rev != dialog.rows[1].rev
        await pilot.press("down")
        await settle(pilot)
        shown = str(dialog.query_one("#history-diff").render())
        assert "A later line." in shown  # the older version against the disk
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert target.read_bytes() == original
        assert any("restored user-role.md" in n.message for n in notified(app))


async def test_h_without_a_history_says_how_to_start_one(home: DemoHome, tmp_path: Path) -> None:
    from memtui.tui.dialogs.history import HistoryScreen

    app = demo_app(home, MEMTUI_DATA_DIR=str(tmp_path / "none"), MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, HistoryScreen)
        note = str(dialog.query_one("#history-note").render())
        assert "memtui history record" in note
        assert [n for n in notified(app) if n.severity == "error"] == []


async def test_m_marks_a_version_and_the_diff_is_between_the_two(
    home: DemoHome, tmp_path: Path
) -> None:
    """Four versions of a memory (the last recorded by the TUI at start): ``m`` on the oldest,
    then a newer one highlighted shows the diff oldest → that one (not against the disk);
    ``m`` (or space) on the marked one clears the mark and the diff is against the disk again."""
    from memtui.core.model import StoreKind
    from memtui.tui.dialogs.history import MARK, HistoryScreen
    from memtui.tui.screens.main import MainScreen

    data = str(tmp_path / "data-dir")
    ctx = demo_context(home, MEMTUI_DATA_DIR=data)
    target = home.auto_memory / "user-role.md"
    original = target.read_bytes()
    record(ctx)
    target.write_bytes(original + b"\nSecond line.\n")
    record(ctx)
    target.write_bytes(original + b"\nThird line.\n")
    record(ctx)
    target.write_bytes(original + b"\nFourth line.\n")
    app = demo_app(home, MEMTUI_DATA_DIR=data, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen) and main.result is not None
        store = next(s for s in main.result.stores if s.kind == StoreKind.AUTO)
        main.select_path(store, "user-role.md")
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, HistoryScreen)
        assert len(dialog.rows) == 4  # the start recorded the fourth
        assert "m mark" in str(dialog.query_one("#history-box").border_subtitle)
        options = dialog.query_one("#history-list", OptionList)

        def diff_text() -> str:
            return str(dialog.query_one("#history-diff").render())

        await pilot.press("down")
        await settle(pilot)
        assert "-Third line." in diff_text()  # no mark: against the disk
        await pilot.press("down", "down", "m")  # mark the oldest (the first recording)
        await settle(pilot)
        assert dialog.marked == 3
        assert str(options.get_option_at_index(3).prompt).startswith(MARK)
        await pilot.press("up", "up")
        await settle(pilot)
        shown = diff_text()
        assert f"at {dialog.rows[3].rev[:8]} → at {dialog.rows[1].rev[:8]}" in shown
        assert "+Third line." in shown
        assert "Fourth line." not in shown and "Second line." not in shown
        await pilot.press("down")  # the second version against the marked oldest
        await settle(pilot)
        assert "+Second line." in diff_text() and "Third line." not in diff_text()
        await pilot.press("down", "space")  # space on the marked one clears the mark
        await settle(pilot)
        assert dialog.marked is None
        assert not str(options.get_option_at_index(3).prompt).startswith(MARK)
        await pilot.press("up", "up")
        await settle(pilot)
        assert "-Third line." in diff_text() and "+Fourth line." in diff_text()


def test_a_version_after_pruned_ones_says_so_in_its_row(tmp_path: Path) -> None:
    from memtui.core.history.attribution import Attribution
    from memtui.core.history.timeline import FileVersion
    from memtui.tui.dialogs.history import version_prompt

    def row(pruned: int) -> str:
        version = FileVersion("ab" * 20, 0.0, Attribution.unknown(), "", "auto/p", "a.md",
                              tmp_path / "a.md", "added", None, 3, 3, pruned=pruned)
        return version_prompt(version, False).plain

    assert "(after 2 pruned versions)" in row(2)
    assert "pruned" not in row(0)
