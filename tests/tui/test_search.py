"""Search screen and command palette: find a memory, press Enter, land on it in its pane."""

from __future__ import annotations

import pytest
from helpers import demo_app
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind
from memtui.core.scan.scanner import scan
from memtui.core.scan.search import build_search_index
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs.search import MATCH_STYLE, SearchIndexCache, SearchScreen, hit_prompt
from memtui.tui.messages import JobProgress
from memtui.tui.nodes import NodeRef
from memtui.tui.palette import subsequence_pattern
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (160, 45)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("tui-search") / "home")


def main_screen(app: MemtuiApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    return screen


async def open_search(pilot: Pilot[None]) -> SearchScreen:
    await settle(pilot)
    await pilot.press("slash")
    await pilot.app.workers.wait_for_complete()  # the index
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    assert screen.index is not None
    return screen


async def search(pilot: Pilot[None], text: str, *, typed: bool = False) -> SearchScreen:
    """Open the search screen and enter ``text`` (key by key when ``typed``)."""
    screen = await open_search(pilot)
    if typed:
        await pilot.press(*text)
    else:
        screen.query_one("#search-input", Input).value = text
    await pilot.pause()
    return screen


def cursor_ref(screen: MainScreen, pane: str) -> NodeRef | None:
    node = screen.query_one(f"#tree-{pane}", StoreTree).cursor_node
    return node.data if node is not None else None


def shown_path(screen: MainScreen) -> str | None:
    ref = screen.query_one(DetailPane).ref
    return ref.memory.rel_path if ref is not None and ref.memory is not None else None


async def choose(pilot: Pilot[None], screen: SearchScreen, rel_path: str, kind: StoreKind) -> None:
    """Move the highlight down to the hit for ``rel_path`` in a store of ``kind``, press Enter."""
    position = next(
        n
        for n, hit in enumerate(screen.hits)
        if hit.memory is not None and hit.memory.rel_path == rel_path and hit.store.kind == kind
    )
    if position:
        screen.query_one(OptionList).highlighted = position - 1
        await pilot.press("down")  # the arrow moves the list while the input has focus
    assert screen.query_one(OptionList).highlighted == position
    await pilot.press("enter")
    await settle(pilot)


async def test_search_shows_hits_and_enter_jumps_to_the_memory(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await search(pilot, "postgres", typed=True)
        found = [h.memory.rel_path for h in screen.hits if h.memory]
        assert found[0] == "test-db-postgres.md"
        assert "test-db-sqlite.md" in found
        options = screen.query_one("#search-results", OptionList)
        assert options.option_count == len(screen.hits)
        status = str(screen.query_one("#search-status", Static).render())
        assert f"{len(screen.hits)} hits" in status
        await pilot.press("enter")
        await settle(pilot)
        main = main_screen(app)
        ref = cursor_ref(main, "auto")
        assert ref is not None and ref.memory is not None
        assert ref.memory.rel_path == "test-db-postgres.md"
        assert shown_path(main) == "test-db-postgres.md"
        assert main.focused is main.query_one("#tree-auto")


async def test_jump_into_a_folder(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await search(pilot, "double-charge reported")
        await choose(pilot, screen, "logs/2026/11/2026-11-20.md", StoreKind.AUTO)
        main = main_screen(app)
        ref = cursor_ref(main, "auto")
        assert ref is not None and ref.memory is not None
        assert ref.memory.rel_path == "logs/2026/11/2026-11-20.md"
        assert shown_path(main) == "logs/2026/11/2026-11-20.md"


async def test_jump_into_a_pane_of_many_stores(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await search(pilot, "money in cents")
        await choose(pilot, screen, "review-checklist.md", StoreKind.AGENT)
        main = main_screen(app)
        ref = cursor_ref(main, "agents")
        assert ref is not None and ref.memory is not None
        assert ref.memory.rel_path == "review-checklist.md"
        assert ref.store.location.agent == "reviewer"
        assert main.focused is main.query_one("#tree-agents")


async def test_escape_closes_without_moving(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = cursor_ref(main_screen(app), "auto")
        await search(pilot, "postgres")
        await pilot.press("escape")
        await settle(pilot)
        assert cursor_ref(main_screen(app), "auto") == before


async def test_index_is_built_once_per_scan_and_query_is_kept(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        first = await search(pilot, "refund")
        index = first.index
        await pilot.press("escape")
        second = await open_search(pilot)
        assert second.index is index
        assert second.query_one(Input).value == "refund"
        assert second.hits


def test_the_cache_holds_the_index_of_one_scan_result(demo: DemoHome) -> None:
    ctx = demo_app(demo).context
    first, second = scan(ctx), scan(ctx)
    cache = SearchIndexCache()
    index = build_search_index(first)
    cache.put(first, index)
    assert cache.get(first) is index
    assert cache.get(second) is None  # a new scan needs a new index
    cache.put(first, build_search_index(first, cancelled=lambda: True))
    assert cache.get(first) is None  # a partial index is never reused


async def test_a_progress_message_after_the_index_changes_no_status(demo: DemoHome) -> None:
    """The index job's last progress message can reach the dialog after its result (a loaded
    CI saw "indexing 243 / 243" stay instead of "type to search")."""
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        status = screen.query_one("#search-status", Static)
        assert screen.indexing is not None
        screen.post_message(JobProgress(screen.indexing, "indexing",
                                        243, 243))
        await pilot.pause()
        assert "type to search" in str(status.render())


async def test_progress_and_empty_states(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        status = screen.query_one("#search-status", Static)
        assert "type to search" in str(status.render())
        screen.show_progress(1234, 20000)
        assert str(status.render()) == "indexing 1,234 / 20,000"
        screen.query_one(Input).value = "qqqzzzxx"
        for _ in range(100):  # the query runs after the input's change message (a loaded CI)
            await pilot.pause(0.05)
            if "0 hits" in str(status.render()):
                break
        assert screen.hits == []
        assert "0 hits" in str(status.render())
        await pilot.press("enter")  # nothing to open: stays
        await pilot.pause()
        assert app.screen is screen


async def palette_run(pilot: Pilot[None], text: str) -> None:
    await settle(pilot)
    await pilot.press("ctrl+p")
    await pilot.pause()
    palette = pilot.app.screen
    assert isinstance(palette, CommandPalette)
    palette.query_one(Input).value = text
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)


async def test_palette_jumps_to_a_memory(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await palette_run(pilot, "auto: deploy-freeze.md")
        main = main_screen(app)
        ref = cursor_ref(main, "auto")
        assert ref is not None and ref.memory is not None
        assert ref.memory.rel_path == "deploy-freeze.md"
        assert shown_path(main) == "deploy-freeze.md"


async def test_palette_jumps_to_a_store(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await palette_run(pilot, "agent reviewer (user)")
        main = main_screen(app)
        ref = cursor_ref(main, "agents")
        assert ref is not None and ref.memory is None
        assert ref.store.title == "agent reviewer (user)"


async def test_palette_opens_search(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await palette_run(pilot, "search memories")
        assert isinstance(app.screen, SearchScreen)


async def test_palette_zooms(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await palette_run(pilot, "zoom the current pane")
        assert main_screen(app).zoomed


async def test_jump_into_a_hidden_pane_of_a_narrow_terminal(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=(100, 35)) as pilot:
        screen = await search(pilot, "money in cents")
        await choose(pilot, screen, "review-checklist.md", StoreKind.AGENT)
        main = main_screen(app)
        assert not main.query_one("#pane-agents").has_class("hidden")
        ref = cursor_ref(main, "agents")
        assert ref is not None and ref.memory is not None
        assert ref.memory.rel_path == "review-checklist.md"
        assert shown_path(main) == "review-checklist.md"


def test_palette_prefilter_is_a_subsequence_test() -> None:
    assert subsequence_pattern("afm").search("auto: freeze.md")
    assert not subsequence_pattern("mfa").search("auto: freeze.md")
    assert subsequence_pattern("a]^-\\").search("xa]y^-z\\")
    assert subsequence_pattern("a" * 40 + "b").search("a" * 300) is None  # no backtracking blowup


def test_hit_prompt_styles_every_match(demo: DemoHome) -> None:
    index = build_search_index(scan(demo_app(demo).context))
    hit = next(h for h in index.query("jsonb") if h.memory and h.field == "body")
    prompt = hit_prompt(hit, ("jsonb",))
    marked = [prompt.plain[s.start : s.end] for s in prompt.spans if s.style == MATCH_STYLE]
    assert marked and all(text.lower() == "jsonb" for text in marked)
    assert prompt.plain.startswith(
        f"{hit.store.title}  {hit.memory.rel_path}\n  line {hit.line}: ")
