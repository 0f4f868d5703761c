"""After a decision rewrites a memory, the conflicts screen's other pairs with that memory show
its new content (read again from disk), are marked stale, and decide against it: the demo's
three feature-flag memories make three pairs, each two sharing one memory. A decision on such a
pair is recorded for, and plans against, the content on disk."""

from __future__ import annotations

from pathlib import Path

from helpers import copy_demo
from pilots import app_on, notifications, open_conflicts, plain
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static, Tabs

from memtui.core.demo.build import DemoHome
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.run import collect_items, pair_up
from memtui.core.judge.verdicts import JudgedPair
from memtui.core.scan.scanner import scan
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.decisions import ScopedDialog
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.testing import settle

FLAGS = ("agent", "feature-flags.md")
AUTO_FLAGS = ("auto", "feature-flags.md")
CHECKOUT = ("auto", "checkout-flags.md")


def sides(pair: JudgedPair) -> set[tuple[str, str]]:
    c = pair.candidate
    return {(c.a.kind, c.a.rel_path), (c.b.kind, c.b.rel_path)}


async def highlight(pilot: Pilot[None], screen: ConflictsScreen, *want: tuple[str, str]) -> str:
    """Highlight the pair of ``want``; the side (``a``, ``b``) that is ``want[0]``."""
    [pair] = [p for p in screen.shown if sides(p) == set(want)]
    assert screen.highlight(pair.candidate.id)  # (a pair of a group: the group expanded)
    await settle(pilot)
    c = pair.candidate
    return "a" if (c.a.kind, c.a.rel_path) == want[0] else "b"


async def test_a_scoped_note_reaches_the_other_pairs_of_both_memories(
    pristine: DemoHome, tmp_path: Path
) -> None:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    auto_flags = demo.auto_memory / "feature-flags.md"
    checkout = demo.auto_memory / "checkout-flags.md"
    app = app_on(demo, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        planner_tag = await highlight(pilot, screen, FLAGS, AUTO_FLAGS)
        notes = {planner_tag: "planning the quarter",
                 "b" if planner_tag == "a" else "a": "shipping the checkout"}
        await pilot.press("s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ScopedDialog)
        for tag, text in notes.items():
            dialog.query_one(f"#scoped-{tag}", Input).value = text
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert screen is app.screen
        note = "_Applies when: shipping the checkout_"
        assert note in auto_flags.read_text()

        # "not a conflict" on the planner's memory and checkout-flags.md: recorded for the
        # planner's new content, so it holds when the conflicts are opened again
        await highlight(pilot, screen, FLAGS, CHECKOUT)
        await pilot.press("n")
        await settle(pilot)
        ctx = app.context
        items, _problems = collect_items(ctx, scan(ctx), managed=tmp_path / "no-managed")
        again = pair_up(items, Ledger.load(tmp_path / "state" / "judge" / "ledger.json"))
        [decided] = [p for p in again if sides(p) == {FLAGS, CHECKOUT}]
        assert decided.state == "decided"

        # the pair of the auto memory and checkout-flags.md: its side reads the new text
        flags_side = await highlight(pilot, screen, AUTO_FLAGS, CHECKOUT)
        pair = screen.current()
        assert pair is not None and pair.state == "stale"
        shown = plain(screen.query_one(f"#conf-{flags_side}", Static))
        assert note in shown
        assert note.strip("_") in " ".join(plain(screen.query_one("#conf-diff", Static)).split())
        assert "~ stale" in str(
            screen.query_one("#conf-pairs", OptionList).get_option(pair.candidate.id).prompt)

        # keep checkout-flags.md: the auto feature-flags.md (with its note) goes to the archive
        await pilot.press("a" if flags_side == "b" else "b")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ConfirmScreen), notifications(app)
        text = "".join(plain(s) for s in modal.query_one("#confirm-scroll").query(Static))
        assert "archive feature-flags.md of auto" in text
        await pilot.press("y")
        await settle(pilot)
        assert not any(severity == "error" for _message, severity in notifications(app)), \
            notifications(app)
        assert not auto_flags.exists() and checkout.exists()
        assert not any(AUTO_FLAGS in sides(p) for p in screen.shown)


async def test_the_highlighted_pair_stays_highlighted_when_the_list_changes(
    pristine: DemoHome, tmp_path: Path
) -> None:
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        pairs = screen.query_one("#conf-pairs", OptionList)
        before = len(screen.shown)
        pairs.highlighted = len(screen.rows) - 1  # the last row: a pair of no group
        await settle(pilot)
        current = screen.current()
        assert current is not None
        last = current.candidate.id
        await pilot.press("n")  # the highlighted pair is decided: another is highlighted
        await settle(pilot)
        assert len(screen.shown) == before - 1
        highlighted = screen.current()
        assert highlighted is not None and highlighted.candidate.id != last
        kept = highlighted.candidate.id
        screen.query_one("#conf-filters", Tabs).active = "filter-all"  # more pairs, in order
        await settle(pilot)
        assert len(screen.shown) > before - 1
        again = screen.current()
        assert again is not None and again.candidate.id == kept
