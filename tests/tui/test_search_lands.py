"""A search hit lands on its line (scrolled to, highlighted; the results list shows the line),
and ``c`` jumps to the cut line of a MEMORY.md view."""

from __future__ import annotations

from pathlib import Path

from helpers import demo_app
from pilots import index_view, main_of, notifications, option_texts, plain
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from memtui.core.demo.build import build_demo_home
from memtui.core.demo.writers import write_memory
from memtui.tui.dialogs.search import SearchScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import HIT_STYLE, DetailPane

SIZE = (160, 45)
NEEDLE_LINE = 250


def screen_text(pilot: Pilot[None]) -> str:
    return pilot.app.export_screenshot().replace("&#160;", " ")


def on_screen(widget: Static, detail: DetailPane) -> bool:
    """Whether ``widget``'s first row is inside the detail pane's visible content."""
    area = detail.content_region
    return widget.display and area.y <= widget.region.y < area.y + area.height


async def test_a_search_hit_scrolls_to_its_line_and_highlights_it(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path / "demo")
    body = "".join(f"filler line {n}\n" for n in range(1, 300))
    lines = body.split("\n")
    lines[NEEDLE_LINE - 5] = "here the \x1b[31mzebraneedle\x1b[0m waits, escaped"
    write_memory(home.auto_memory, "long-notes.md", name="long notes", description="a long one",
                 body="\n".join(lines))
    assert (home.auto_memory / "long-notes.md").read_text().split("\n")[NEEDLE_LINE - 1] == (
        lines[NEEDLE_LINE - 5])  # four frontmatter lines above the body
    async with demo_app(home).run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        await pilot.press("slash")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        search = pilot.app.screen
        assert isinstance(search, SearchScreen)
        search.query_one("#search-input", Input).value = "zebraneedle"
        await pilot.pause()
        [prompt] = option_texts(search.query_one("#search-results", OptionList))
        assert f"line {NEEDLE_LINE}: here the \\x1b[31mzebraneedle\\x1b[0m waits" in prompt
        await pilot.press("enter")
        await settle(pilot)

        detail = main.query_one(DetailPane)
        assert detail.ref is not None and detail.ref.memory is not None
        assert detail.ref.memory.rel_path == "long-notes.md"
        hit = detail.query_one("#detail-hit", Static)
        escaped = "here the \\x1b[31mzebraneedle\\x1b[0m waits, escaped"
        assert plain(hit).strip() == f"{NEEDLE_LINE} {escaped}"
        assert isinstance(hit.content, Text)
        assert any(span.style == HIT_STYLE for span in hit.content.spans)
        assert detail.scroll_y > 100 and on_screen(hit, detail)
        assert "zebraneedle" in screen_text(pilot)
        assert "the search hit (r: back to the rendered view)" in plain(
            detail.query_one("#detail-head", Static))

        await pilot.press("r")  # back to the rendered view, from the top
        await settle(pilot)
        assert not hit.display and detail.hit_line is None and not detail.raw_mode
        assert detail.query_one("#detail-long").display  # a long body: drawn by Rich at once


async def test_c_jumps_to_the_cut_line_of_memory_md(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path / "demo")
    async with demo_app(home).run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail, _tree, _key = await index_view(pilot, home)
        report = detail.loaded.ref.store.index if detail.loaded else None
        assert report is not None and report.cut_line is not None and report.cut_line > 150
        banner = "✂ Claude stops reading here"
        assert banner not in screen_text(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert detail.scroll_y > 100
        rows = screen_text(pilot)
        assert banner in rows

        main = main_of(pilot)
        main.query_one("#tree-auto").focus()
        await pilot.press("down")  # a memory, not the index
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert any("c jumps to the line where Claude stops reading" in m
                   for m, _ in notifications(main.app))
