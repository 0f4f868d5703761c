"""The conflicts screen (``J``): the demo's planted pairs, decisions recorded in the ledger,
and the anthropic judge asked only after its estimate is confirmed."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.homes import Note, store_dir, write_home
from core.judge.mock_api import MODEL, FakeMessagesAPI
from helpers import tree_state
from pilots import app_on, judged_before, notifications, open_conflicts, option_texts, plain
from textual.widgets import OptionList, Static

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import index_entry, write_index
from memtui.core.judge import anthropic_judge
from memtui.core.judge.archive import Archive
from memtui.core.judge.ledger import Ledger
from memtui.core.stores.locations import Context
from memtui.tui import clock
from memtui.tui.app import make_app
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.screens.conflicts import ConflictsScreen, in_store, store_kinds
from memtui.tui.testing import settle
from memtui.tui.widgets.store_tree import CONFLICT_GLYPH, StoreTree


def pair_rows(screen: ConflictsScreen) -> list[str]:
    return option_texts(screen.query_one("#conf-pairs", OptionList))


async def test_j_shows_the_pairs_that_need_a_decision_side_by_side(
    pristine: DemoHome, tmp_path: Path
) -> None:
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        rows = pair_rows(screen)
        assert any("deploy-freeze.md ↔ deploy-freeze.md" in r and "duplicate" in r for r in rows)
        assert any("test-db-postgres.md ↔ test-db-sqlite.md" in r and "conflicts_with" in r
                   for r in rows)
        assert not any("payments-owners.md" in r for r in rows)  # parallel notes: not a conflict
        head = plain(screen.query_one("#conf-head", Static))
        assert "local judge" in head and "need a decision" in head
        index = next(i for i, r in enumerate(rows) if "test-db-postgres.md" in r)
        screen.query_one("#conf-pairs", OptionList).highlighted = index
        await pilot.pause()
        verdict = plain(screen.query_one("#conf-verdict", Static))
        assert "conflicts_with" in verdict and "“not sqlite” vs “sqlite”" in verdict
        side_a = plain(screen.query_one("#conf-a", Static))
        side_b = plain(screen.query_one("#conf-b", Static))
        assert "test-db-postgres.md" in side_a and "never SQLite" in side_a
        assert "test-db-sqlite.md" in side_b and "proposed to keep" in side_b
        assert "SQLite" in plain(screen.query_one("#conf-diff", Static))


async def test_the_ages_of_the_sides_count_from_the_tui_clock(
    pristine: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frozen for snapshots and screenshots: the sides counted from the real time, so the
    conflicts screen's snapshot changed with the hour of the day ("46 days old" became 47)."""
    postgres = pristine.auto_memory / "test-db-postgres.md"
    monkeypatch.setattr(clock, "now", lambda: postgres.stat().st_mtime + 400 * 86_400 + 60)
    judged_before(pristine, tmp_path / "state")
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        pairs = screen.query_one("#conf-pairs", OptionList)
        pairs.highlighted = next(i for i, r in enumerate(pair_rows(screen))
                                 if "test-db-postgres.md" in r)
        await pilot.pause()
        side_a = plain(screen.query_one("#conf-a", Static))
        assert "test-db-postgres.md" in side_a and "400 days old" in side_a


async def test_a_decision_is_recorded_and_the_pair_is_not_raised_again(
    pristine: DemoHome, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    judged_before(pristine, state)
    app = app_on(pristine, state)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        before = pair_rows(screen)
        index = next(i for i, r in enumerate(before) if "test-db-postgres.md" in r)
        screen.query_one("#conf-pairs", OptionList).highlighted = index
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)
        after = pair_rows(screen)
        assert len(after) == len(before) - 1
        assert not any("test-db-postgres.md" in r for r in after)
        assert ("not conflict: not raised again until one side changes", "information") in \
            notifications(app)
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_conflicts(pilot)  # judged again from the ledger
        assert not any("test-db-postgres.md" in r for r in pair_rows(screen))
        await pilot.press("f")  # stale
        await pilot.press("f")  # judged (and decided)
        await settle(pilot)
        assert any("test-db-postgres.md" in r and "✓ decided" in r for r in pair_rows(screen))
    entries = Ledger.load(state / "judge" / "ledger.json").entries
    assert sum(e.judge == "user" for history in entries.values() for e in history) == 1


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> FakeMessagesAPI:
    fake = FakeMessagesAPI()
    monkeypatch.setattr(anthropic_judge, "http_client_factory", fake.client)
    return fake


async def test_the_anthropic_judge_sends_only_after_its_estimate_is_confirmed(
    pristine: DemoHome, tmp_path: Path, api: FakeMessagesAPI
) -> None:
    app = app_on(pristine, tmp_path / "state", ANTHROPIC_API_KEY="sk-test",
                 MEMTUI_JUDGE_PROVIDER="anthropic")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("J")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, ConfirmScreen)
        text = "".join(plain(s) for s in modal.query_one("#confirm-scroll").query(Static))
        assert "anthropic (claude-haiku-5-5)" in text and "input tokens" in text
        assert "Nothing is sent unless you say yes" in text
        assert api.calls == 0 and api.counted > 0
        await pilot.press("n")
        await settle(pilot)
        assert api.calls == 0
        screen = pilot.app.screen
        assert isinstance(screen, ConflictsScreen)
        assert "nothing was sent" in plain(screen.query_one("#conf-message", Static))

        await pilot.press("ctrl+r")  # judge again: asked again
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert api.calls > 0
        screen = pilot.app.screen
        assert isinstance(screen, ConflictsScreen)
        assert "sent " in plain(screen.query_one("#conf-head", Static))
        assert screen.found is not None
        assert any(p.verdict is not None and p.verdict.judge == MODEL
                   for p in screen.found.run.pairs)


async def test_keeping_a_side_archives_the_other_and_u_puts_every_byte_back(
    tmp_path: Path,
) -> None:
    root = tmp_path / "home"
    ctx = write_home(root, [
        Note("agent-user:reviewer", "test-db.md", "Test database: what tests run against",
             "Integration tests run against a real Postgres 16; never SQLite, never mocks.", 40),
        Note("auto", "test-db.md", "Test database: what tests run against",
             "Integration tests run against SQLite in memory so the suite stays fast.", 2),
    ])
    write_index(store_dir(root, "auto"), ["# Memory", index_entry("DB", "test-db.md", "sqlite")])
    before = tree_state(root)
    state = tmp_path / "state"
    app = make_app(Context.create(
        project=ctx.project, claude_home=ctx.claude_home, agent_memory_home=ctx.agent_memory_home,
        env={"HOME": str(root), "MEMTUI_NO_CACHE": "1", "MEMTUI_STATE_DIR": str(state)},
    ), watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        assert screen.found is not None
        [pair] = screen.shown
        keep = "a" if pair.candidate.a.kind == "agent" else "b"
        await pilot.press(keep)
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, ConfirmScreen)
        text = "".join(plain(s) for s in modal.query_one("#confirm-scroll").query(Static))
        assert "archive test-db.md of auto" in text and "keeps agent:reviewer (user)" in text
        await pilot.press("y")
        await settle(pilot)
        assert not (store_dir(root, "auto") / "test-db.md").exists()
        assert "DB" not in (store_dir(root, "auto") / "MEMORY.md").read_text()
        assert [e.rel_path for e in Archive(state / "archive").entries()] == ["test-db.md"]
        assert screen.shown == []
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
    assert tree_state(root) == before


async def test_trees_mark_memories_with_open_conflicts(pristine: DemoHome, tmp_path: Path) -> None:
    judged_before(pristine, tmp_path / "state")
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        index = next(i for i, r in enumerate(pair_rows(screen)) if "test-db-postgres.md" in r)
        screen.query_one("#conf-pairs", OptionList).highlighted = index
        await pilot.press("escape")
        await settle(pilot)
        tree = pilot.app.screen.query_one("#tree-auto", StoreTree)
        labels = {str(n.label).split()[0]: str(n.label) for n in tree._all_nodes() if n.label}
        assert labels["test-db-postgres.md"].endswith(CONFLICT_GLYPH)
        assert not labels["payments-owners.md"].endswith(CONFLICT_GLYPH)
        await pilot.press("J")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ConflictsScreen)
        index = next(i for i, r in enumerate(pair_rows(screen)) if "test-db-postgres.md" in r)
        screen.query_one("#conf-pairs", OptionList).highlighted = index
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        tree = pilot.app.screen.query_one("#tree-auto", StoreTree)
        labels = {str(n.label).split()[0]: str(n.label) for n in tree._all_nodes() if n.label}
        assert not labels["test-db-postgres.md"].endswith(CONFLICT_GLYPH)


async def test_a_secret_in_a_pair_is_shown_masked(tmp_path: Path) -> None:
    secret = "ghp_" + "PLANTEDconflictSECRET" + "0123456789abcde"
    root = tmp_path / "home"
    body = f"Deploys use the bot token {secret} from the vault; never paste it."
    ctx = write_home(root, [
        Note("auto", "deploy-token.md", "The deploy token", body, 30),
        Note("team", "deploy-token.md", "The deploy token", body, 3),
    ])
    app = make_app(Context.create(
        project=ctx.project, claude_home=ctx.claude_home, agent_memory_home=ctx.agent_memory_home,
        env={"HOME": str(root), "MEMTUI_NO_CACHE": "1", "MEMTUI_STATE_DIR": str(tmp_path / "s")},
    ), watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        assert len(screen.shown) == 1
        shown = "".join(plain(screen.query_one(f"#conf-{part}", Static))
                        for part in ("verdict", "a", "b", "diff"))
        assert "deploy-token.md" in shown and "bot token" in shown
        assert secret not in shown and secret[4:16] not in shown


async def test_k_shows_only_the_pairs_of_one_kind_of_store(
    pristine: DemoHome, tmp_path: Path
) -> None:
    """The store filter: k cycles through the kinds of store the pairs' sides live in."""
    judged_before(pristine, tmp_path / "state")
    app = app_on(pristine, tmp_path / "state")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        every = list(screen.shown)
        kinds = store_kinds(every)
        assert "agent" in kinds and "claude-md" in kinds
        seen: list[str | None] = []
        for _ in kinds:
            await pilot.press("k")
            await pilot.pause()
            seen.append(screen.store_filter)
            kind = screen.store_filter
            assert screen.shown and all(kind in (p.candidate.a.kind, p.candidate.b.kind)
                                        for p in screen.shown)
            assert screen.shown == [p for p in every if in_store(p, kind)]
            assert f"only {kind}" in plain(screen.query_one("#conf-head", Static))
        assert seen == kinds
        claude = [p for p in every if in_store(p, "claude-md")]
        assert 0 < len(claude) < len(every)
        await pilot.press("k")  # back to every store
        await pilot.pause()
        assert screen.store_filter is None and screen.shown == every


async def test_a_long_side_shows_its_start_first_then_whole(
    pristine: DemoHome, tmp_path: Path
) -> None:
    """A 15,000-character side took a tenth of a second to lay out, on the first frame and on
    every move onto it: its first characters show at once, the whole of it after the redraw
    (while its pair is still shown); a showing again of the same sides leaves them as they
    are (scrolled, whole)."""
    from helpers import copy_demo

    from memtui.tui.screens import conflicts

    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    postgres = demo.auto_memory / "test-db-postgres.md"
    lines = "".join(f"\nNote {n}: the integration suite keeps its fixtures in postgres."
                    for n in range(250))
    postgres.write_text(postgres.read_text(encoding="utf-8") + lines + "\nTHE LAST LINE.\n",
                        encoding="utf-8")
    async with app_on(demo, tmp_path / "state").run_test(size=(160, 45)) as pilot:
        screen = await open_conflicts(pilot)
        screen.filter = "all"
        screen.show_pairs()
        await settle(pilot)
        long = next(p for p in screen.shown
                    if "test-db-postgres.md" in (p.candidate.a.rel_path, p.candidate.b.rel_path))
        other = next(p for p in screen.shown if p is not long and
                     max(len(p.candidate.a.body), len(p.candidate.b.body))
                     <= conflicts.SIDE_FIRST_CHARS)
        side = "#conf-a" if long.candidate.a.rel_path.endswith("postgres.md") else "#conf-b"
        screen.show_pair(long)
        first = plain(screen.query_one(side, Static))
        assert "Note 0:" in first and "THE LAST LINE." not in first and "…" in first
        assert len(first) < conflicts.SIDE_FIRST_CHARS + 1000
        await pilot.pause()
        await settle(pilot)
        assert "THE LAST LINE." in plain(screen.query_one(side, Static))
        screen.show_pair(long)  # the same sides: not cut again
        assert "THE LAST LINE." in plain(screen.query_one(side, Static))
        screen.show_pair(other)
        screen.show_pair(long)
        screen.show_pair(other)  # moved on before the redraw: the other pair's sides stay
        await pilot.pause()
        await settle(pilot)
        assert "Note 0:" not in plain(screen.query_one(side, Static))
