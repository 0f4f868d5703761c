"""The conflicts screen while the memories are paired again (:func:`memtui.core.judge.
finder.judge_candidates` found the cache out of date): the pairs found before whose memories
did not change are listed at once, decisions wait, and the finder's list replaces them."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from helpers import copy_demo
from pilots import app_on, judged_before, open_conflicts, option_texts, plain, wait_until
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from memtui.core.demo.build import DemoHome
from memtui.core.judge import finder
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.verdicts import Candidate
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.testing import settle

TIMEOUT = 120.0


async def paired_after_j(pilot: Pilot[None]) -> ConflictsScreen:
    """``J`` pressed, once the conflicts screen has its pairs."""
    await pilot.press("J")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConflictsScreen)
                     and pilot.app.screen.found is not None, TIMEOUT)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    return screen


async def test_the_earlier_pairs_show_while_pairing_and_decisions_wait(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    state = tmp_path / "state"
    env = {"MEMTUI_NO_CACHE": "0", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    async with app_on(demo, state, **env).run_test(size=(160, 45)) as pilot:
        first = await open_conflicts(pilot)
        await wait_until(pilot, lambda: first.found is not None and not first.filling, TIMEOUT)
        before = option_texts(first.query_one("#conf-pairs", OptionList))
    assert any("test-db-postgres.md ↔ test-db-sqlite.md" in r for r in before), before
    assert any("deploy-freeze.md ↔ deploy-freeze.md" in r for r in before), before
    changed = demo.auto_memory / "deploy-freeze.md"
    changed.write_text(changed.read_text(encoding="utf-8") + "\nAsk in #release first.\n",
                       encoding="utf-8")
    go = threading.Event()
    real = finder._find

    def slow_find(*args: object) -> list[Candidate]:
        assert go.wait(TIMEOUT), "the test never let the finder go on"
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(finder, "_find", slow_find)
    ledger_path = state / "judge" / "ledger.json"
    async with app_on(demo, state, **env).run_test(size=(160, 45)) as pilot:
        try:
            await settle(pilot)  # the scan is in: J judges it
            await pilot.press("J")
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConflictsScreen)
                             and pilot.app.screen.preview_run is not None, TIMEOUT)
            screen = pilot.app.screen
            assert isinstance(screen, ConflictsScreen) and screen.found is None
            rows = option_texts(screen.query_one("#conf-pairs", OptionList))
            assert any("test-db-postgres.md ↔ test-db-sqlite.md" in r for r in rows)
            # the pair of the changed memory waits for the finder; the other pairs are there
            assert not any("deploy-freeze.md ↔ deploy-freeze.md" in r for r in rows)
            assert len(rows) == len(before) - 1
            message = plain(screen.query_one("#conf-message", Static))
            assert "pairing memories" in message and "decisions wait" in message
            assert screen.check_action("decide", ("not_conflict",)) is False
            ledger_before = ledger_path.read_bytes()
            await pilot.press("n")  # not a conflict: waits for the pairing
            await pilot.pause()
            assert ledger_path.read_bytes() == ledger_before
        finally:
            go.set()
        await wait_until(pilot, lambda: screen.found is not None and not screen.filling,
                         TIMEOUT)
        assert screen.preview_run is None
        assert screen.check_action("decide", ("not_conflict",)) is True
        after = option_texts(screen.query_one("#conf-pairs", OptionList))
        assert any("test-db-postgres.md ↔ test-db-sqlite.md" in r for r in after)
        assert any("deploy-freeze.md ↔ deploy-freeze.md" in r for r in after)  # paired again
        assert "pairing memories" not in plain(screen.query_one("#conf-message", Static))
        assert Ledger.load(ledger_path).entries  # the verdicts of the first run are kept


async def test_a_long_list_is_filled_in_chunks_and_moving_past_the_filled_rows_works(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of rows were laid out in one go (5 s frozen at 6,700 pairs): the first rows
    are put in at once, the rest a chunk per redraw; a key past them fills up to it."""
    from memtui.tui.screens import conflicts

    monkeypatch.setattr(conflicts, "FIRST_ROWS", 1)
    monkeypatch.setattr(conflicts, "FILL_ROWS", 1)
    added: list[int] = []
    real_fill = ConflictsScreen.fill_more

    def counting(self: ConflictsScreen, round_: int, chain: int) -> None:
        added.append(self.query_one("#conf-pairs", OptionList).option_count)
        real_fill(self, round_, chain)

    monkeypatch.setattr(ConflictsScreen, "fill_more", counting)
    judged_before(pristine, tmp_path / "state")
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        await wait_until(pilot, lambda: screen.found is not None, TIMEOUT)
        assert len(screen.rows) >= 3
        pairs = screen.query_one("#conf-pairs", OptionList)
        pairs.highlighted = 0  # (the pair highlighted while it was judged stays so: row 2 now)
        screen.fill_round += 1  # stop the fill: only what show_pairs put in at once
        screen.show_pairs()
        screen.fill_round += 1
        assert pairs.option_count == 1  # FIRST_ROWS from the highlighted one (the first)
        screen.action_move(2)
        assert pairs.highlighted == 2 and pairs.option_count >= 3
        screen.show_pairs()  # filled again, a chunk at a time
        await wait_until(pilot, lambda: not screen.filling, TIMEOUT)
        assert pairs.option_count == len(screen.rows)
        assert len(added) >= 2  # more than one chunk came after the first redraw


async def test_a_chunk_a_dialog_dropped_is_filled_when_the_screen_is_back(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual hands a ``call_after_refresh`` callback to whichever screen is current when it
    is handled: a dialog opened meanwhile took the list's next chunk and dropped it when it
    closed, and the list stayed part-filled. Back from a dialog, the fill goes on."""
    from memtui.tui.screens import conflicts

    monkeypatch.setattr(conflicts, "FIRST_ROWS", 1)
    monkeypatch.setattr(conflicts, "FILL_ROWS", 1)
    drop: list[bool] = []
    real_fill = ConflictsScreen.fill_more

    def dropping(self: ConflictsScreen, round_: int, chain: int) -> None:
        if drop:  # this chunk went with a dialog
            drop.clear()
            return
        real_fill(self, round_, chain)

    monkeypatch.setattr(ConflictsScreen, "fill_more", dropping)
    judged_before(pristine, tmp_path / "state")
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        await wait_until(pilot, lambda: screen.found is not None and screen.judging is None
                         and not screen.filling, TIMEOUT)
        pairs = screen.query_one("#conf-pairs", OptionList)
        assert len(screen.rows) >= 3
        drop.append(True)
        screen.show_pairs()  # shown again: its first chunk is dropped
        await settle(pilot)
        assert not drop and screen.filling and pairs.option_count < len(screen.rows)
        await pilot.press("question_mark")  # a dialog, closed again
        await settle(pilot)
        assert app_screen_is_not(pilot, screen)
        await pilot.press("escape")
        await settle(pilot)
        await wait_until(pilot, lambda: not screen.filling, TIMEOUT)
        assert pairs.option_count == len(screen.rows)


def app_screen_is_not(pilot: Pilot[None], screen: ConflictsScreen) -> bool:
    return pilot.app.screen is not screen


async def test_the_list_first_gets_the_rows_the_terminal_shows(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hundred rows were laid out before the first frame, whatever the terminal's size: now
    as many rows as it has lines (a row takes two), the rest after the redraw."""
    from memtui.tui.screens import conflicts

    monkeypatch.setattr(conflicts, "FIRST_ROWS", 10_000)
    judged_before(pristine, tmp_path / "state")
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 24)) as pilot:
        screen = await open_conflicts(pilot)
        await wait_until(pilot, lambda: screen.found is not None, TIMEOUT)
        screen.filter = "all"
        screen.show_pairs()
        screen.fill_round += 1  # stop the fill: only what show_pairs put in at once
        assert len(screen.rows) > 24
        assert screen.query_one("#conf-pairs", OptionList).option_count == 24


async def test_opening_a_group_does_not_group_the_pairs_again(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grouping 7,000 pairs took most of a second on every redraw (``enter`` on a group, a
    filter): the groups are made again only when a pair or what it needs changed."""
    from memtui.tui.screens import conflicts

    calls: list[int] = []
    real = conflicts.group_pairs

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(conflicts, "group_pairs", counted)
    judged_before(pristine, tmp_path / "state")
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        await wait_until(pilot, lambda: screen.found is not None and screen.judging is None
                         and not screen.filling, TIMEOUT)
        group = next(n for n, r in enumerate(screen.rows) if isinstance(r, conflicts.Group))
        before, rows = len(calls), len(screen.rows)
        screen.query_one("#conf-pairs", OptionList).highlighted = group
        await pilot.press("enter")  # its pairs shown under it
        await wait_until(pilot, lambda: len(screen.rows) > rows, TIMEOUT)
        assert len(calls) == before
        pair = next(r for r in screen.rows if not isinstance(r, conflicts.Group))
        pair.state = "decided"  # what a decision does: the pair no longer needs one
        screen.show_pairs()
        assert len(calls) == before + 1


async def test_j_goes_on_with_the_ledger_the_marks_were_read_from(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading the ledger again took a third of a second at 9,000 verdicts: J uses the one
    the main screen read for its marks, unless another process wrote one since."""
    from memtui.core.judge import ledger as ledger_module
    from memtui.tui.screens.main import MainScreen

    monkeypatch.setattr(ledger_module, "RACY_SECONDS", 0)
    loads: list[int] = []
    real = Ledger.load.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Ledger], path: Path | None = None) -> Ledger:
        loads.append(1)
        return real(cls, path)  # type: ignore[no-any-return]

    monkeypatch.setattr(Ledger, "load", classmethod(counted))
    state = tmp_path / "state"
    async with app_on(pristine, state).run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        await wait_until(pilot, lambda: screen.found is not None and screen.judging is None
                         and not screen.filling, TIMEOUT)
        await pilot.press("escape")  # the main screen reads the marks again: the ledger kept
        main = pilot.app.screen
        assert isinstance(main, MainScreen)
        await wait_until(pilot, lambda: main.ledger is not None
                         and all(w.is_finished for w in main.workers), TIMEOUT)
        kept = main.ledger
        before = len(loads)
        again = await paired_after_j(pilot)
        assert again.found is not None
        assert again.found.ledger is kept and len(loads) == before
        await wait_until(pilot, lambda: again.judging is None and not again.filling, TIMEOUT)
        await pilot.press("escape")
        await wait_until(pilot, lambda: main.ledger is not kept
                         and all(w.is_finished for w in main.workers), TIMEOUT)
        assert main.ledger is not None
        Ledger.load(main.ledger.path).save()  # another process writes the ledger
        before = len(loads)
        third = await paired_after_j(pilot)
        assert third.found is not None
        assert third.found.ledger is not main.ledger and len(loads) == before + 1
