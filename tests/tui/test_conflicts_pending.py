"""The conflicts screen before the verdicts are in: the pairs show as soon as they exist,
marked ``judging…``, and take no decision; the pairs on screen are judged first; each
batch of verdicts relabels its rows where they are; before the pairs exist the message says
which step the pairing is at. The judge and the finder are held on events: no clock."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from helpers import tree_state
from pilots import app_on, notifications, option_texts, plain, wait_until
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from memtui.core.demo.build import DemoHome
from memtui.core.judge import local, neighbours, session
from memtui.core.judge.groups import needs_decision
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.verdicts import Candidate, JudgedPair, Verdict
from memtui.tui.screens import conflicts
from memtui.tui.screens.conflicts import ConflictsScreen, row_id
from memtui.tui.testing import settle
from memtui.tui.widgets.pair_views import PENDING

TIMEOUT = 120.0


class HeldJudge:
    """The local judge's verdicts, one pair each time the test lets one through."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        self.passes = threading.Semaphore(0)
        self.free = False
        real = local.judge_pair

        def held(candidate: Candidate, *args: object, **kwargs: object) -> Verdict:
            self.calls.append(candidate.id)
            if not self.free:
                assert self.passes.acquire(timeout=TIMEOUT), "the test never let it go on"
            return real(candidate, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(local, "judge_pair", held)

    def let(self, count: int) -> None:
        for _ in range(count):
            self.passes.release()

    def release(self) -> None:
        self.free = True
        self.let(10_000)


async def judging(pilot: Pilot[None]) -> ConflictsScreen:
    """``J`` pressed, once its pairs are listed and their judge has started."""
    await settle(pilot)  # the scan is in: J judges it
    await pilot.press("J")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConflictsScreen)
                     and pilot.app.screen.found is not None
                     and bool(pilot.app.screen.queued), TIMEOUT)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    return screen


async def test_the_pairs_show_judging_at_once_and_take_no_decision_until_judged(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conflicts, "STREAM_BATCH", 2)
    monkeypatch.setattr(conflicts, "SHOW_EVERY", 0.0)
    judge = HeldJudge(monkeypatch)
    state = tmp_path / "state"
    app = app_on(pristine, state)
    memories = tree_state(pristine.root)
    async with app.run_test(size=(160, 45)) as pilot:
        try:
            screen = await judging(pilot)
            pairs = screen.query_one("#conf-pairs", OptionList)
            await wait_until(pilot, lambda: len(judge.calls) == 1, TIMEOUT)
            rows = option_texts(pairs)  # those the list holds yet
            assert len(rows) > 5 and all(PENDING in r for r in rows), rows
            queued = len(screen.queued)
            assert f"judged 0 of {queued:,}" in plain(screen.query_one("#conf-head", Static))
            assert PENDING in plain(screen.query_one("#conf-message", Static))
            assert PENDING in plain(screen.query_one("#conf-verdict", Static))
            # the highlighted row is judged first
            assert judge.calls[0] == screen.rows[0].candidate.id  # type: ignore[union-attr]
            for action, parameters in (("decide", ("not_conflict",)), ("keep", ("a",)),
                                       ("scoped", ()), ("merge", ())):
                assert screen.check_action(action, parameters) is None  # shown, dimmed
            waiting = (f"Still judging this pair: 0 of {queued:,} done. Its decisions wait "
                       "for its verdict.", "warning")
            for count, key in enumerate(("n", "r", "c", "a", "b", "s", "e"), 1):
                await pilot.press(key)  # a dimmed key says why nothing happens
                await pilot.pause()
                assert pilot.app.screen is screen  # no dialog, nothing planned
                assert notifications(app).count(waiting) == count, notifications(app)
            screen.action_decide("not_conflict")  # not by its key (the palette): refused too
            screen.action_keep("a")
            screen.action_merge()
            screen.action_scoped()
            await pilot.pause()
            assert pilot.app.screen is screen
            assert not any(w.group.startswith("plan-") for w in pilot.app.workers)
            assert not (state / "judge" / "ledger.json").exists()  # nothing recorded
            assert notifications(app).count(waiting) == 7 + 4

            # a batch in: its rows get their verdicts where they are (the same options)
            options = list(pairs.options)
            judge.let(2)
            await wait_until(pilot, lambda: len(screen.queued) == queued - 2, TIMEOUT)
            await pilot.pause()
            judged = [n for n, o in enumerate(pairs.options) if PENDING not in str(o.prompt)]
            assert judged == [0, 1]  # the rows on screen first, from the top
            assert all(a is b for a, b in zip(options, pairs.options[:len(options)],
                                              strict=True))
            assert PENDING not in plain(screen.query_one("#conf-verdict", Static))
            assert f"judged 2 of {queued:,}" in plain(screen.query_one("#conf-head", Static))
            assert screen.check_action("decide", ("not_conflict",)) is True

            # the row highlighted now is among the next pairs judged
            last = pairs.option_count - 1  # the last row the list holds (not on screen)
            pairs.highlighted = last
            await pilot.pause()
            assert screen.check_action("decide", ("not_conflict",)) is None
            target = screen.rows[last]  # a row above it may leave the list: it stays on it
            assert isinstance(target, JudgedPair)
            judge.let(2)  # the batch chosen before the highlight moved
            await wait_until(pilot, lambda: len(judge.calls) >= 5, TIMEOUT)
            assert judge.calls[4] == target.candidate.id
        finally:
            judge.release()
        await wait_until(pilot, lambda: screen.judging is None and not screen.queued
                         and not screen.filling, TIMEOUT)
        await settle(pilot)
        rows = option_texts(screen.query_one("#conf-pairs", OptionList))
        assert rows and not any(PENDING in r for r in rows)
        assert any("test-db-postgres.md ↔ test-db-sqlite.md" in r and "conflicts_with" in r
                   for r in rows)  # grouped and filtered once every verdict is in
        assert not any("payments-owners.md" in r for r in rows)  # not a conflict: gone now
    assert tree_state(pristine.root) == memories


class Gate:
    """A function of a module held until the test lets it go on (an event, no clock)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
        self.go = threading.Event()
        self.entered = threading.Event()
        real = getattr(module, name)

        def held(*args: object, **kwargs: object) -> object:
            self.entered.set()
            assert self.go.wait(TIMEOUT), "the test never let it go on"
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, held)


async def test_before_the_pairs_exist_the_message_says_what_the_pairing_does(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cheap = Gate(monkeypatch, session, "cheap_candidates")  # the first pairs, held
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        try:
            await settle(pilot)
            await pilot.press("J")
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConflictsScreen)
                             and cheap.entered.is_set() and "matching names" in plain(
                                 pilot.app.screen.query_one("#conf-message", Static)), TIMEOUT)
            screen = pilot.app.screen
            assert isinstance(screen, ConflictsScreen) and screen.found is None
            message = plain(screen.query_one("#conf-message", Static))
            assert message.startswith("before any pair can be shown"), message
            assert screen.query_one("#conf-pairs", OptionList).option_count == 0
            assert screen.check_action("decide", ("not_conflict",)) is False
        finally:
            cheap.go.set()
        await wait_until(pilot, lambda: screen.found is not None and screen.judging is None
                         and not screen.filling, TIMEOUT)
        assert screen.pairing is None
        assert "nearest" not in plain(screen.query_one("#conf-message", Static))


async def test_cold_the_pairs_found_without_the_model_show_first_and_its_neighbours_join(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold start (no candidates found before): the pairs of the same content, name or
    words are listed, marked judging, while the embeddings and their nearest neighbours are
    found (seconds, cold); then the neighbours' pairs join the list, the cursor stays on its
    pair, and the judge starts."""
    monkeypatch.setattr(conflicts, "FIRST_ROWS", 100)
    nearest = Gate(monkeypatch, neighbours, "nearest_arrays")  # the model's pairs, held
    judge = HeldJudge(monkeypatch)
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        try:
            await settle(pilot)
            await pilot.press("J")
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConflictsScreen)
                             and pilot.app.screen.preview_run is not None, TIMEOUT)
            screen = pilot.app.screen
            assert isinstance(screen, ConflictsScreen) and screen.found is None
            assert screen.preview_run is not None and screen.preview_run.early == "cheap"
            pairs = screen.query_one("#conf-pairs", OptionList)
            await wait_until(pilot, lambda: pairs.option_count > 3, TIMEOUT)
            rows = option_texts(pairs)
            assert rows and all(PENDING in r for r in rows)
            assert any("deploy-freeze.md ↔ deploy-freeze.md" in r for r in rows)  # same name
            early = {conflicts.row_id(r) for r in screen.rows}
            message = plain(screen.query_one("#conf-message", Static))
            assert "pairing memories" in message and "same content, name or words" in message
            assert "decisions wait" in message
            assert screen.check_action("decide", ("not_conflict",)) is False
            assert not judge.calls  # no verdict before the pairing is done
            for _ in range(2):
                await pilot.press("down")
            kept = conflicts.row_id(screen.rows[pairs.highlighted or 0])
            assert pairs.highlighted == 2
            nearest.go.set()
            await wait_until(pilot, lambda: screen.found is not None, TIMEOUT)
            assert screen.preview_run is None
            now = {conflicts.row_id(r) for r in screen.rows}
            assert early < now  # the neighbours' pairs joined, none left
            assert conflicts.row_id(screen.rows[pairs.highlighted or 0]) == kept
            assert "same content, name or words" not in plain(
                screen.query_one("#conf-message", Static))
        finally:
            nearest.go.set()
            judge.release()
        await wait_until(pilot, lambda: screen.judging is None and not screen.filling, TIMEOUT)


async def test_while_judging_the_list_holds_the_rows_near_the_cursor(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Laying out every candidate's row (9,000 at 1,000 memories) took the judge's core for
    seconds: while pairs are being judged the list holds a few screens past the cursor, more
    as the cursor gets there, and every row once the verdicts are in."""
    monkeypatch.setattr(conflicts, "FIRST_ROWS", 1)
    monkeypatch.setattr(conflicts, "FILL_ROWS", 1)
    judge = HeldJudge(monkeypatch)
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        try:
            screen = await judging(pilot)
            pairs = screen.query_one("#conf-pairs", OptionList)
            await wait_until(pilot, lambda: len(judge.calls) == 1, TIMEOUT)
            await wait_until(pilot, lambda: pairs.option_count >= 3, TIMEOUT)
            for _ in range(3):  # redraws: the fill does not go on past them
                await pilot.pause()
            assert pairs.option_count == 3 < len(screen.rows)  # 3 screens of one row
            for _ in range(3):
                await pilot.press("down")
            assert pairs.highlighted == 3 and pairs.option_count == 6
        finally:
            judge.release()
        await wait_until(pilot, lambda: screen.judging is None and not screen.filling, TIMEOUT)
        assert pairs.option_count == len(screen.rows)


async def test_a_verdict_that_comes_after_a_decision_leaves_the_decision(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen keeps a pending row's decision keys waiting; without that guard (forced off
    here), the judge's session alone keeps a decision taken while the pair was being judged:
    the verdict that arrives later is dropped, on screen and in the ledger."""
    monkeypatch.setattr(conflicts, "STREAM_BATCH", 2)
    monkeypatch.setattr(conflicts, "SHOW_EVERY", 0.0)
    monkeypatch.setattr(ConflictsScreen, "pending_row", lambda _self, _row: False)
    judge = HeldJudge(monkeypatch)
    state = tmp_path / "state"
    app = app_on(pristine, state)
    async with app.run_test(size=(160, 45)) as pilot:
        try:
            screen = await judging(pilot)
            await wait_until(pilot, lambda: len(judge.calls) == 1, TIMEOUT)
            pairs = screen.query_one("#conf-pairs", OptionList)
            pairs.highlighted = 3  # not among the first batch the judge took
            await pilot.pause()
            pair = screen.current()
            assert pair is not None and pair.candidate.id in screen.queued
            assert pair.candidate.id not in judge.calls
            await pilot.press("n")
            await wait_until(pilot, lambda: pair.state == "decided", TIMEOUT)
        finally:
            judge.release()
        await wait_until(pilot, lambda: screen.judging is None and not screen.queued
                         and not screen.filling, TIMEOUT)
        await settle(pilot)
        assert pair.candidate.id in judge.calls  # it was judged after the decision
        assert pair.state == "decided" and pair.verdict is not None
        assert pair.verdict.judge == "user" and pair.verdict.relation.value == "not_conflict"
        assert screen.found is not None
        assert screen.found.ledger.lookup(pair.candidate).state == "decided"
    ledger = Ledger.load(state / "judge" / "ledger.json")
    assert ledger.entries[pair.candidate.id][-1].judge == "user"
    assert ledger.lookup(pair.candidate).state == "decided"


def listed_ids(screen: ConflictsScreen) -> list[str]:
    """The ids of the rows the list holds, in order, checked against :attr:`rows`."""
    pairs = screen.query_one("#conf-pairs", OptionList)
    ids = [str(o.id) for o in pairs.options]
    assert ids == [row_id(r) for r in screen.rows[:len(ids)]]
    return ids


async def test_a_pair_that_needs_no_decision_leaves_the_list_as_its_verdict_arrives(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While judging, "needs a decision" lists the pairs being judged; one whose verdict says
    it needs none (not a conflict, compatible, related) leaves the list when its verdict is
    in, not when every verdict is. The cursor stays on its pair, or goes to the pair after
    the one that left; the head's count follows."""
    monkeypatch.setattr(conflicts, "STREAM_BATCH", 1)
    monkeypatch.setattr(conflicts, "SHOW_EVERY", 0.0)
    judge = HeldJudge(monkeypatch)
    async with app_on(pristine, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        try:
            screen = await judging(pilot)
            pairs = screen.query_one("#conf-pairs", OptionList)
            await wait_until(pilot, lambda: len(judge.calls) == 1, TIMEOUT)
            first = screen.rows[0]
            assert isinstance(first, JudgedPair) and judge.calls[0] == first.candidate.id
            at = next(n for n, r in enumerate(screen.rows) if isinstance(r, JudgedPair)
                      and "payments-owners.md" in r.candidate.b.rel_path + r.candidate.a.rel_path)
            payments = screen.rows[at]
            assert isinstance(payments, JudgedPair) and at > 0
            following = screen.rows[at + 1:]
            screen.fill_to(at + 5)
            pairs.highlighted = at
            await pilot.pause()
            assert screen.current() is payments
            judge.let(1)  # the first row's verdict, then the highlighted row is judged
            await wait_until(pilot, lambda: first.candidate.id not in screen.queued
                             and len(judge.calls) >= 2, TIMEOUT)
            await pilot.pause()
            assert screen.current() is payments  # above it, a row stayed or left: no jump
            assert (first in screen.rows) == (needs_decision(first) is not None)
            assert judge.calls[1] == payments.candidate.id
            judge.let(1)
            await wait_until(pilot, lambda: payments.candidate.id not in screen.queued, TIMEOUT)
            await pilot.pause()
            assert payments.verdict is not None and needs_decision(payments) is None
            assert payments not in screen.rows  # not a conflict: out of the list at once
            assert payments.candidate.id not in listed_ids(screen)
            after = next(r for r in following if r in screen.rows)
            assert screen.current_row() is after  # the pair after the one that left
            assert pairs.highlighted == screen.rows.index(after)
            assert all(r.candidate.id in screen.queued or needs_decision(r) is not None
                       for r in screen.rows if isinstance(r, JudgedPair))
            assert screen.found is not None
            need = len(screen.found.run.open_pairs())
            head = plain(screen.query_one("#conf-head", Static))
            assert f"{need} need a decision" in head, head
            assert need == sum(1 for r in screen.rows if isinstance(r, JudgedPair)
                               and r.candidate.id not in screen.queued)
        finally:
            judge.release()
        await wait_until(pilot, lambda: screen.judging is None and not screen.queued
                         and not screen.filling, TIMEOUT)
        await settle(pilot)
        assert not any("payments-owners.md" in r for r in option_texts(pairs))
