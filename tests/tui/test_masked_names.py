"""A secret in a memory's file name, frontmatter ``name`` or ``description`` (or an index line
pointing to it) never reaches the screen (issue 25): tree labels, pane titles, the detail
pane's title and fields, the index view and the delete dialog show it masked, with the core's
``mask_secrets`` as the CLI; the files on disk are unchanged."""

from __future__ import annotations

import html
import re
from pathlib import Path

from pilots import main_of
from textual.pilot import Pilot

from memtui.core.demo.writers import index_entry, write_index, write_memory
from memtui.core.model import StoreKind
from memtui.core.secrets.mask import mask_secrets
from memtui.core.stores.locations import Context, locate
from memtui.tui.app import MemtuiApp, make_app
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.plain import line, styled
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane

IN_FILE = "ghp_" + "F1leNameSecret0123456789abcdefghijKL"
IN_NAME = "ghp_" + "NameSecret0123456789abcdefghijklmnOP"
IN_DESCRIPTION = "ghp_" + "DescSecret0123456789abcdefghijklmnQR"
SECRETS = (IN_FILE, IN_NAME, IN_DESCRIPTION)
FILE = f"{IN_FILE}.md"


def screen_text(pilot: Pilot[None]) -> str:
    """Every character the terminal shows now (the screenshot's text, tags dropped)."""
    svg = pilot.app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def assert_masked(pilot: Pilot[None], *shown: str) -> str:
    text = screen_text(pilot)
    for secret in SECRETS:
        assert secret not in text
    for part in shown:
        assert part in text, part
    return text


def planted(tmp_path: Path) -> tuple[MemtuiApp, Path]:
    project = tmp_path / "project"
    project.mkdir()
    context = Context.create(project=project, claude_home=tmp_path / "claude",
                             agent_memory_home=tmp_path / "agent-memory",
                             env={"HOME": str(tmp_path)})
    auto = locate(context).auto
    assert auto is not None
    write_memory(auto.path, FILE, name=f"deploy bot {IN_NAME}",
                 description=f"the token is {IN_DESCRIPTION} for CI", type="reference")
    write_memory(auto.path, "plain.md", name="Plain", description="nothing to hide",
                 type="user")
    write_index(auto.path, ["# Memory", index_entry(f"bot {IN_NAME}", FILE, "the CI bot"),
                            index_entry("Plain", "plain.md", "nothing to hide")])
    return make_app(context, watch=False), auto.path


def test_a_line_is_masked_as_the_cli_masks_it() -> None:
    assert line(f"x {IN_NAME} y") == mask_secrets(f"x {IN_NAME} y") != f"x {IN_NAME} y"
    assert IN_FILE not in line(FILE) and line(FILE).endswith(".md")
    assert IN_NAME not in styled(f"find {IN_NAME}", [(0, 4, "bold")]).plain
    assert styled("find me", [(0, 4, "bold")]).plain == "find me"


async def test_no_secret_of_a_name_reaches_the_screen(tmp_path: Path) -> None:
    app, auto = planted(tmp_path)
    before = {p.name: p.read_bytes() for p in auto.iterdir()}
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        assert main.result is not None
        store = next(s for s in main.result.stores if s.kind == StoreKind.AUTO)
        assert_masked(pilot, "ghp_…", "Plain")  # the trees and the titles
        main.select_path(store, FILE)
        await settle(pilot)
        detail = main.query_one(DetailPane)
        assert detail.loaded is not None and detail.loaded.ref.memory is not None
        assert detail.loaded.ref.memory.rel_path == FILE
        assert_masked(pilot, "deploy bot ghp_…", "the token is ghp_…")  # title and fields
        main.select_path(store, "MEMORY.md")
        await settle(pilot)
        assert_masked(pilot, "the CI bot")  # the index view: its lines
        main.select_path(store, FILE)
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert_masked(pilot, "Deletes:", "removes MEMORY.md line 2")  # the dialog, its diff
        await pilot.press("n")
        await settle(pilot)
        for size in ((80, 24), (200, 50)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert_masked(pilot)
    assert {p.name: p.read_bytes() for p in auto.iterdir()} == before  # text only
