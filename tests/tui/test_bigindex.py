"""A huge MEMORY.md: the app paints, the index view is capped, re-selecting it is quick.

Time bounds are in CPU seconds of the test's process (the app and its worker threads), loose:
a loaded 2-core CI box stretches the wall clock, not the work (a paint took 1.3 s of wall clock
for 0.2 s of CPU). bench/bench_bigindex.py has the figures.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import demo_app
from pilots import detail_rows, index_view, rendered
from rich.console import Console, ConsoleOptions, RenderResult
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.core.contents import Memory
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import huge_index_lines, write_file, write_index
from memtui.tui.testing import settle
from memtui.tui.widgets import detail as detail_module
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.index_view import (
    MAX_LINE_CHARS,
    MAX_LIST_SHOWN,
    MAX_RAW_LINES,
    RenderedOnce,
)
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (160, 45)
HUGE_LINES = 50_000
MAX_ROWS = 1_000
"""Rows the capped view may take: ~260 numbered lines, the lists of 50 and their headings."""
SETTLES_WITHIN = 20.0  # CPU seconds; it froze for longer than that
RESELECTS_WITHIN = 2.0  # CPU seconds; it took 6 s (27 s on this box)
HANGS_AFTER = 60.0  # seconds of wall clock


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path)


async def reselect_seconds(pilot: Pilot[None], detail: DetailPane, tree: StoreTree, key: str,
                           home: DemoHome) -> float:
    """CPU seconds from selecting MEMORY.md again (after another memory) to its view painted."""
    other = next(p.name for p in sorted(home.auto_memory.glob("*.md")) if p.name != "MEMORY.md")
    assert tree.select_key(f"{home.auto_memory}::{other}")
    await settle(pilot)
    start, cpu = time.monotonic(), time.process_time()
    assert tree.select_key(key)
    while detail.loaded is None or detail.loaded.ref.key != key:
        assert time.monotonic() - start < HANGS_AFTER
        await pilot.pause(0.01)
    await pilot.pause()
    return time.process_time() - cpu


async def test_a_50000_line_index_paints_capped_and_reselects_quickly(home: DemoHome) -> None:
    write_index(home.auto_memory, huge_index_lines(HUGE_LINES))
    cpu = time.process_time()
    async with demo_app(home).run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail, tree, key = await index_view(pilot, home)
        assert time.process_time() - cpu < SETTLES_WITHIN
        head = detail.query_one("#detail-head", Static)
        assert 0 < head.size.height < MAX_ROWS
        rows = detail_rows(detail)
        assert len(rows) < MAX_ROWS
        text = "\n".join(rows)
        # every entry points to a missing file: 50,000 dangling, 500 long, 49,800 past the cut
        assert f"… and {HUGE_LINES - MAX_LIST_SHOWN:,} more" in text
        assert f"… and {HUGE_LINES // 100 - MAX_LIST_SHOWN:,} more" in text
        assert detail.loaded is not None
        report = detail.loaded.ref.store.index
        assert report is not None and len(report.dropped) > HUGE_LINES - 300
        assert f"Entries past the cut ({len(report.dropped):,}), never loaded" in text
        assert f"… and {len(report.dropped) - MAX_LIST_SHOWN:,} more" in text
        assert "more lines (r shows the raw file)" in text
        assert sum("does not exist" in row for row in rows) == MAX_LIST_SHOWN
        assert await reselect_seconds(pilot, detail, tree, key, home) < RESELECTS_WITHIN
        # r: the raw file, also capped
        cpu = time.process_time()
        await pilot.press("r")
        await settle(pilot)
        assert detail.raw_mode and time.process_time() - cpu < RESELECTS_WITHIN
        raw = detail.query_one("#detail-raw", Static)
        assert 0 < raw.size.height <= MAX_RAW_LINES + 50  # every 100th line wraps once
        raw_rows = rendered(raw.content, raw.size.width)
        assert raw_rows[0] == "# Memory index"
        assert f"… {HUGE_LINES + 3 - MAX_RAW_LINES:,} more lines not shown" in raw_rows


async def test_a_5_mb_line_is_cut_in_the_index_view(home: DemoHome) -> None:
    write_file(home.auto_memory / "MEMORY.md", "- [A](a.md) — " + "y" * 5_000_000 + "\n")
    async with demo_app(home).run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail, tree, key = await index_view(pilot, home)
        head = detail.query_one("#detail-head", Static)
        assert 0 < head.size.height < 100  # it wrapped to 33,828 rows
        rows = detail_rows(detail)
        assert len(rows) < 100
        numbered = next(row for row in rows if row.startswith("1 - [A](a.md)"))
        assert numbered.count("y") <= MAX_LINE_CHARS
        assert f"({5_000_014 - MAX_LINE_CHARS:,} more chars)" in "\n".join(rows)
        assert await reselect_seconds(pilot, detail, tree, key, home) < RESELECTS_WITHIN


async def test_reselecting_an_unchanged_index_reads_and_renders_nothing_again(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each selection of MEMORY.md read and decoded the whole file and rendered its view twice
    (to measure it, then to paint it). While the file's stats are unchanged the text is kept,
    and the view of an unchanged report is rendered once; a changed file is read again."""
    write_index(home.auto_memory, huge_index_lines(2_000))
    monkeypatch.setattr(detail_module, "RACY_SECONDS", -1.0)  # files written just now count
    reads: list[str] = []
    real_read = detail_module.load_full_text

    def counted(memory: Memory, root: Path) -> tuple[str, list[str]]:
        reads.append(memory.rel_path)
        return real_read(memory, root)

    monkeypatch.setattr(detail_module, "load_full_text", counted)
    renders: list[int] = []
    real_render = RenderedOnce.__rich_console__

    def render(self: RenderedOnce, console: Console, options: ConsoleOptions) -> RenderResult:
        if self._rendered is None or self._rendered[1] != RenderedOnce.key(options):
            renders.append(id(self))
        return real_render(self, console, options)

    monkeypatch.setattr(RenderedOnce, "__rich_console__", render)
    async with demo_app(home).run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail, tree, key = await index_view(pilot, home)
        head = detail.query_one("#detail-head", Static)
        view = head.content
        read, rendered_views = reads.count("MEMORY.md"), len(renders)
        assert read >= 1 and rendered_views >= 1  # the app opens on it: maybe twice, at once
        await reselect_seconds(pilot, detail, tree, key, home)
        assert reads.count("MEMORY.md") == read and len(renders) == rendered_views
        assert head.content is view
        index = home.auto_memory / "MEMORY.md"
        index.write_text(index.read_text(encoding="utf-8") + "- [New](new.md) — new\n",
                         encoding="utf-8")
        await reselect_seconds(pilot, detail, tree, key, home)
        assert reads.count("MEMORY.md") == read + 1
        assert detail.loaded is not None and detail.loaded.text.endswith("[New](new.md) — new\n")
