"""The conflicts screen shown again with the same pair highlighted (a batch of verdicts in, a
redraw) leaves the panes that would show the same text as they are: Textual's ``Static.update``
lays the whole screen out again even for the same text, and the panes were set again on every
batch and once more for the highlight that followed. A pane whose text changes still shows
the new text."""

from __future__ import annotations

from pathlib import Path

from pilots import app_on, open_conflicts, plain
from textual.widgets import OptionList, Static

from memtui.core.demo.build import DemoHome
from memtui.core.judge.verdicts import JudgedPair
from memtui.tui.screens.conflicts import ConflictsScreen
from memtui.tui.testing import settle

PANES = ("#conf-head", "#conf-message", "#conf-verdict", "#conf-a", "#conf-b", "#conf-diff")


def visuals(screen: ConflictsScreen) -> dict[str, object]:
    return {name: screen.query_one(name, Static).visual for name in PANES}


async def test_the_same_pair_shown_again_keeps_its_panes(
    pristine: DemoHome, tmp_path: Path
) -> None:
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        pairs = screen.query_one("#conf-pairs", OptionList)
        for row in (0, next(i for i, r in enumerate(screen.rows) if isinstance(r, JudgedPair))):
            pairs.highlighted = row
            await settle(pilot)
            before = visuals(screen)
            texts = {name: plain(screen.query_one(name, Static)) for name in PANES}
            screen.show_pairs()  # what a batch of verdicts does: the same row stays highlighted
            await settle(pilot)
            assert pairs.highlighted == row
            after = visuals(screen)
            assert [n for n in PANES if after[n] is not before[n]] == [], row
            assert {name: plain(screen.query_one(name, Static)) for name in PANES} == texts

        pair = next(r for r in screen.rows if isinstance(r, JudgedPair)
                    and r.candidate.a.rel_path not in plain(screen.query_one("#conf-a", Static)))
        before = visuals(screen)
        pairs.highlighted = screen.rows.index(pair)
        await settle(pilot)
        assert visuals(screen)["#conf-a"] is not before["#conf-a"]
        assert pair.candidate.a.rel_path in plain(screen.query_one("#conf-a", Static))
        assert pair.candidate.id in plain(screen.query_one("#conf-verdict", Static))
        assert not screen.query_one("#conf-verdict", Static).has_class("group")
