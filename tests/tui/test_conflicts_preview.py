"""The conflicts screen while the memories are paired again (:func:`memtui.core.judge.
finder.judge_candidates` found the cache out of date): the pairs found before whose memories
did not change are listed at once, decisions wait, and the finder's list replaces them."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from helpers import copy_demo
from pilots import app_on, open_conflicts, option_texts, plain, wait_until
from textual.widgets import OptionList, Static

from memtui.core.demo.build import DemoHome
from memtui.core.judge import finder
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.verdicts import Candidate
from memtui.tui.screens.conflicts import ConflictsScreen

TIMEOUT = 120.0


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

    def counting(self: ConflictsScreen, round_: int) -> None:
        added.append(self.query_one("#conf-pairs", OptionList).option_count)
        real_fill(self, round_)

    monkeypatch.setattr(ConflictsScreen, "fill_more", counting)
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        await wait_until(pilot, lambda: screen.found is not None, TIMEOUT)
        assert len(screen.rows) >= 3
        screen.fill_round += 1  # stop the fill: only what show_pairs put in at once
        screen.show_pairs()
        pairs = screen.query_one("#conf-pairs", OptionList)
        screen.fill_round += 1
        assert pairs.option_count == 1  # FIRST_ROWS from the highlighted one (the first)
        screen.action_move(2)
        assert pairs.highlighted == 2 and pairs.option_count >= 3
        screen.show_pairs()  # filled again, a chunk at a time
        await wait_until(pilot, lambda: not screen.filling, TIMEOUT)
        assert pairs.option_count == len(screen.rows)
        assert len(added) >= 2  # more than one chunk came after the first redraw


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
