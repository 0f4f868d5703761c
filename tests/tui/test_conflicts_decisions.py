"""The conflicts screen's decisions that rewrite memories and its archive: ``s`` (keep both as
scoped: an "applies when" note on each, edited in a dialog), ``e`` (merge: the proposed merged
memory edited in a dialog, then written in place of the newer side while the other is
archived) and ``v`` (the archive; ``r`` restores). Each previewed, applied as one operation,
and undone byte for byte with ``u``."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.homes import store_dir, write_timeout_home
from helpers import tree_state
from pilots import plain
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static, TextArea

from memtui.core.judge.archive import Archive
from memtui.core.judge.ledger import Ledger
from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.dialogs.archive import ArchiveScreen
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.decisions import MergeDialog, ScopedDialog
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Context]:
    return tmp_path / "home", write_timeout_home(tmp_path / "home")


def app_on(ctx: Context, state: Path) -> MemtuiApp:
    return make_app(Context.create(
        project=ctx.project, claude_home=ctx.claude_home, agent_memory_home=ctx.agent_memory_home,
        env={"HOME": str(ctx.project.parent), "MEMTUI_NO_CACHE": "1",
             "MEMTUI_STATE_DIR": str(state), "XDG_CONFIG_HOME": str(state / "config")},
    ), watch=False)


async def conflicts(pilot: Pilot[None]) -> ConflictsScreen:
    await settle(pilot)
    await pilot.press("J")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    assert len(screen.shown) == 1  # the timeout pair
    return screen


def confirm_text(app: MemtuiApp) -> str:
    modal = app.screen
    assert isinstance(modal, ConfirmScreen)
    return "".join(plain(s) for s in modal.query_one("#confirm-scroll").query(Static))


async def undo_on_main(pilot: Pilot[None]) -> None:
    await pilot.press("escape")
    await settle(pilot)
    assert isinstance(pilot.app.screen, MainScreen)
    await pilot.press("u")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press("y")
    await settle(pilot)


async def test_s_writes_the_edited_notes_on_both_sides_and_u_puts_every_byte_back(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    root, ctx = home
    before = tree_state(root)
    state = tmp_path / "state"
    app = app_on(ctx, state)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await conflicts(pilot)
        [pair] = screen.shown
        await pilot.press("s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ScopedDialog)
        first = dialog.query_one("#scoped-a", Input)
        second = dialog.query_one("#scoped-b", Input)
        # 30 against 90 seconds names no condition: memtui asks (issue 22, item 5)
        assert (first.value, second.value) == ("", "")
        assert "found no condition only A and B name" in str(
            dialog.query_one("#scoped-ask", Static).render())
        first.value = "the old gateway"
        second.value = "the new gateway"
        await pilot.press("ctrl+s")
        await settle(pilot)
        text = confirm_text(app)
        assert "scope api-timeout.md and gateway-timeout.md" in text
        assert "_Applies when: the old gateway_" in text
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, ConflictsScreen)
        a_file = Path(pair.candidate.a.file)
        assert "---\n_Applies when: the old gateway_\n\n" in a_file.read_text()
        assert "\n---\n_Applies when: " in Path(pair.candidate.b.file).read_text()
        assert screen.shown == []  # decided: no longer needs a decision
        entries = Ledger.load(state / "judge" / "ledger.json").entries[pair.candidate.id]
        assert entries[-1].judge == "user" and entries[-1].relation == "scoped"
        await undo_on_main(pilot)
    assert tree_state(root) == before


async def test_e_merges_the_edited_text_into_the_newer_side_and_u_puts_every_byte_back(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    root, ctx = home
    before = tree_state(root)
    state = tmp_path / "state"
    auto = store_dir(root, "auto")
    app = app_on(ctx, state)
    async with app.run_test(size=(160, 45)) as pilot:
        await conflicts(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        area = dialog.query_one("#merge-text", TextArea)
        assert "90 seconds" in area.text and "Ask #infra before changing it." in area.text
        assert "30 seconds" not in area.text  # the older side's value is dropped for the newer
        merged = "---\nname: gateway-timeout\n---\nThe timeout is 90 seconds (30 before).\n"
        area.text = merged
        await pilot.press("ctrl+s")
        await settle(pilot)
        text = confirm_text(app)
        assert "merge api-timeout.md into gateway-timeout.md" in text
        await pilot.press("y")
        await settle(pilot)
        assert (auto / "gateway-timeout.md").read_text() == merged
        assert not (auto / "api-timeout.md").exists()
        assert "api-timeout.md" not in (auto / "MEMORY.md").read_text()
        [entry] = Archive(state / "archive").entries()
        assert entry.rel_path == "api-timeout.md" and entry.reason.startswith("merged into")
        await undo_on_main(pilot)
    assert tree_state(root) == before


async def test_v_lists_the_archive_and_r_restores_the_highlighted_memory(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    root, ctx = home
    state = tmp_path / "state"
    auto = store_dir(root, "auto")
    original = (auto / "api-timeout.md").read_bytes()
    app = app_on(ctx, state)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await conflicts(pilot)
        [pair] = screen.shown
        keep = "a" if pair.candidate.a.rel_path == "gateway-timeout.md" else "b"
        await pilot.press(keep)  # keep the newer side: api-timeout.md goes to the archive
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not (auto / "api-timeout.md").exists()

        await pilot.press("v")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveScreen)
        table = dialog.query_one("#archive-table", DataTable)
        assert table.row_count == 1
        row = [plain_cell(c) for c in table.get_row_at(0)]
        assert row[1:4] == ["auto", "api-timeout.md", "superseded by auto · gateway-timeout.md"]
        await pilot.press("r")
        await settle(pilot)
        assert "restore api-timeout.md from the archive" in confirm_text(app)
        await pilot.press("y")
        await settle(pilot)
    assert (auto / "api-timeout.md").read_bytes() == original
    assert (auto / "MEMORY.md").read_text().endswith("- [API timeout](api-timeout.md) — 30 s\n")


async def test_the_main_screen_opens_the_archive_with_a(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    _root, ctx = home
    app = app_on(ctx, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveScreen)
        assert "Nothing archived yet" in plain(dialog.query_one("#archive-where", Static))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


def plain_cell(cell: object) -> str:
    return getattr(cell, "plain", str(cell))
