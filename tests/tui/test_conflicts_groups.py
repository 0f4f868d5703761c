"""Groups on the conflicts screen (issue 22, item 3): near copies of one fact are ONE row with
a readable name, ``enter`` shows its pairs, and one decision settles the group (``K`` keep
one, ``e`` merge all, ``s`` scoped, ``n`` not a conflict): previewed, applied as one
operation, and ``u`` undoes all of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.group_homes import AUTO_NAMES, FACT, write_group_home
from core.judge.homes import store_dir
from helpers import tree_state
from pilots import option_texts, plain
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static, TextArea

from memtui.core.judge.groups import Group
from memtui.core.stores.locations import Context
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.decisions import KeepDialog, MergeDialog, ScopedDialog
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.testing import settle

NAME = "feedback_testing-postgres{,-2,-3}"
"""The group's name in the list (too narrow for ``feedback_testing-{postgres ×2, postgres-2,
postgres-3}``, which the detail shows)."""


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Context]:
    return tmp_path / "home", write_group_home(tmp_path / "home")


def app_on(ctx: Context, state: Path) -> MemtuiApp:
    return make_app(Context.create(
        project=ctx.project, claude_home=ctx.claude_home, agent_memory_home=ctx.agent_memory_home,
        env={"HOME": str(ctx.project.parent), "MEMTUI_NO_CACHE": "1",
             "MEMTUI_STATE_DIR": str(state), "XDG_CONFIG_HOME": str(state / "config")},
    ), watch=False)


async def on_group(pilot: Pilot[None]) -> tuple[ConflictsScreen, Group]:
    await settle(pilot)
    await pilot.press("J")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    [group] = screen.rows  # one row for the six pairs
    assert isinstance(group, Group) and len(screen.shown) == 6
    return screen, group


def confirm_text(app: MemtuiApp) -> str:
    modal = app.screen
    assert isinstance(modal, ConfirmScreen)
    return "".join(plain(s) for s in modal.query_one("#confirm-scroll").query(Static))


async def yes(pilot: Pilot[None]) -> None:
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press("y")
    await settle(pilot)


async def undo_here(pilot: Pilot[None], screen: ConflictsScreen) -> None:
    """``u`` on the conflicts screen: the undo's confirmation, yes, then judged again."""
    await pilot.press("u")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press("y")
    await settle(pilot)
    assert pilot.app.screen is screen


async def test_a_group_is_one_row_with_a_readable_name_and_enter_shows_its_pairs(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    _root, ctx = home
    app = app_on(ctx, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen, group = await on_group(pilot)
        [row] = option_texts(screen.query_one("#conf-pairs", OptionList))
        assert "group duplicate · 4 memories · 6 pairs" in row and NAME in row
        assert "feedback_testing-po…" not in row
        detail = plain(screen.query_one("#conf-verdict", Static))
        assert f"[{group.id}]" in detail
        assert "feedback_testing-{postgres ×2, postgres-2, postgres-3}" in detail
        assert "1 agent:planner (user) · feedback_testing-postgres.md  ← keep" in detail
        await pilot.press("enter")
        await settle(pilot)
        rows = option_texts(screen.query_one("#conf-pairs", OptionList))
        assert len(rows) == 7 and rows[0].startswith("▾ group")
        assert all("↔" in r for r in rows[1:])
        await pilot.press("down")
        await settle(pilot)
        assert screen.current() is not None  # a pair of the group: the pair's keys apply
        await pilot.press("up", "enter")
        await settle(pilot)
        assert len(option_texts(screen.query_one("#conf-pairs", OptionList))) == 1


async def test_k_keeps_the_member_picked_archives_the_rest_and_u_undoes_all_of_it(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    root, ctx = home
    before = tree_state(root)
    auto = store_dir(root, "auto")
    app = app_on(ctx, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen, group = await on_group(pilot)
        await pilot.press("K")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, KeepDialog)
        members = dialog.query_one("#keep-members", OptionList)
        assert members.highlighted == 0  # the newest: the planner's
        await pilot.press("down", "enter")  # member 2: auto feedback_testing-postgres-2.md
        await settle(pilot)
        kept = group.members[1]
        assert kept.kind == "auto" and kept.rel_path == "feedback_testing-postgres-2.md"
        text = confirm_text(app)
        assert "keep feedback_testing-postgres-2.md, archive " in text
        await yes(pilot)
        assert (auto / kept.rel_path).exists()
        assert [n for n in AUTO_NAMES if (auto / n).exists()] == [kept.rel_path]
        assert not Path(group.members[0].file).exists()  # the planner's copy too
        assert screen.rows == []
        await undo_here(pilot, screen)
        assert tree_state(root) == before
        assert [type(r) for r in screen.rows] == [Group] and len(screen.shown) == 6


async def test_n_marks_the_group_not_a_conflict_without_writing_a_memory_and_u_undoes_it(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    root, ctx = home
    before = tree_state(root)
    app = app_on(ctx, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen, _group = await on_group(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert "mark group " in confirm_text(app)
        await yes(pilot)
        assert screen.rows == [] and tree_state(root) == before
        await undo_here(pilot, screen)
        assert len(screen.shown) == 6


async def test_e_merges_every_member_into_one_and_s_notes_each(
    home: tuple[Path, Context], tmp_path: Path
) -> None:
    root, ctx = home
    before = tree_state(root)
    auto = store_dir(root, "auto")
    app = app_on(ctx, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen, group = await on_group(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        area = dialog.query_one("#merge-text", TextArea)
        assert FACT in area.text
        area.text = area.text.rstrip("\n") + "\nMerged by hand.\n"  # the user's edit is kept
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "into feedback_testing-postgres.md" in confirm_text(app)
        await yes(pilot)
        assert all(not (auto / n).exists() for n in AUTO_NAMES)
        assert "Merged by hand." in Path(group.members[0].file).read_text()
        await undo_here(pilot, screen)
        assert tree_state(root) == before

        [group] = screen.rows
        await pilot.press("s")
        await settle(pilot)
        scoped = app.screen
        assert isinstance(scoped, ScopedDialog)
        inputs = list(scoped.query(Input))
        assert len(inputs) == 4  # copies name no condition of their own: asked, not made up
        for n, field in enumerate(inputs, 1):
            field.value = f"case {n}"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await yes(pilot)
        for n, member in enumerate(group.members, 1):
            assert f"_Applies when: case {n}_" in Path(member.file).read_text()
        assert screen.rows == []


async def test_judge_again_waits_for_a_decision_still_being_written(
    home: tuple[Path, Context], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ctrl+r`` while a group's decision is being written (its ledger entry comes at the end
    of the operation, into the session's ledger): a session started then would read the ledger
    file without the decision and, judging every pair again, write it back without it. It is
    refused, and said; once the write is done the decision is on disk and judging again
    keeps it."""
    import threading

    from pilots import notifications, wait_until

    from memtui.core.judge.ledger import Ledger, default_ledger_path
    from memtui.tui.screens import conflicts

    _root, ctx = home
    entered, release = threading.Event(), threading.Event()
    real = conflicts.finish_group

    def held(*args: object, **kwargs: object) -> object:
        entered.set()
        release.wait(120)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(conflicts, "finish_group", held)
    app = app_on(ctx, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen, _group = await on_group(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        try:
            await wait_until(pilot, entered.is_set, 120)
            await pilot.press("ctrl+r")
            await pilot.pause()
            assert not any(w.group == "judge" and not w.is_finished for w in app.workers)
            assert ("A decision is still being written: judge again once it is done.",
                    "warning") in notifications(app)
        finally:
            release.set()
        await settle(pilot)
        assert screen.rows == []
        ledger_path = default_ledger_path(screen.context.env)
        decided = {k for k, h in Ledger.load(ledger_path).entries.items() if h[-1].decided}
        assert len(decided) == 6
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.rows == []
        assert {k for k, h in Ledger.load(ledger_path).entries.items()
                if h[-1].decided} == decided
