"""The main screen says when nothing is found: what was looked for, where, and what to try."""

from __future__ import annotations

from pathlib import Path

from helpers import demo_app
from pilots import main_of, plain
from textual.widgets import Static

from memtui.core.demo.build import DemoHome
from memtui.core.stores.locations import Context
from memtui.tui.app import make_app
from memtui.tui.testing import settle


async def test_a_first_run_without_a_claude_home_says_so(tmp_path: Path) -> None:
    project = tmp_path / "work" / "app"
    project.mkdir(parents=True)
    ctx = Context.create(project=project, env={"HOME": str(tmp_path), "MEMTUI_NO_CACHE": "1"})
    app = make_app(ctx, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        note = main.query_one("#nothing-found", Static)
        assert note.display and note.region.height >= 2
        text = plain(note)
        assert "Nothing found: no Claude Code home at ~/.claude (default ~/.claude)" in text
        flat = " ".join(text.split())
        assert "Looked in auto memory: ~/.claude/projects/-" in flat
        assert "-work-app/memory (no directory)" in flat
        assert "Press p to pick a project" in text and "memtui --demo" in text


async def test_a_home_with_memories_shows_no_such_note(pristine: DemoHome) -> None:
    app = demo_app(pristine)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert not main_of(pilot).query_one("#nothing-found", Static).display
