"""The header says whose rules memtui follows: the Claude Code version it found (the demo's
transcripts say 2.1.88), or the override, or that it is unknown (issue 24)."""

from __future__ import annotations

from dataclasses import replace

from helpers import demo_context
from textual.widgets import Static

from memtui.core.demo.build import DemoHome
from memtui.tui.app import make_app
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle


async def _header(app) -> str:  # type: ignore[no-untyped-def]
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        return str(screen.query_one("#header", Static).render())


async def test_the_header_names_the_claude_code_version_found(pristine: DemoHome) -> None:
    assert "· CC 2.1.88" in await _header(make_app(demo_context(pristine), watch=False))


async def test_the_header_names_an_override_and_newer_versions(pristine: DemoHome) -> None:
    ctx = replace(demo_context(pristine), claude_code_version="2.1.500")
    assert "· CC 2.1.500 (2.1.240 rules)" in await _header(make_app(ctx, watch=False))
