"""Live updates: files written by another process show up in the panes within a second."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from helpers import demo_app, overflow_inotify
from pilots import rendered, started, wait_until
from textual.pilot import Pilot
from watchdog.events import FileSystemEvent

from memtui.core.contents import Memory
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_memory
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (160, 45)
VISIBLE_WITHIN = 20.0
"""Seen at all, on a loaded 2-core CI machine next to other suites (only a failing run waits
that long; a 50-file burst took 1.8 s under load): the speed targets (a file within 500 ms, a
200-file burst within 1 s) are measured by bench/bench_refresh.py."""


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path)


def live_app(home: DemoHome, *, watch: bool = True) -> MemtuiApp:
    return demo_app(home, watch=watch)


def main_screen(pilot: Pilot[None]) -> MainScreen:
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


def tree_memories(screen: MainScreen, pane: str) -> dict[str, Memory]:
    """The memories the nodes of ``pane``'s tree show, by relative path."""
    return {path: node.data.memory for path, node in memory_nodes(screen, pane).items()}


async def select_memory(pilot: Pilot[None], pane: str, key: str) -> StoreTree:
    tree = main_screen(pilot).query_one(f"#tree-{pane}", StoreTree)
    tree.focus()
    await pilot.pause()
    assert tree.select_key(key)
    for _ in range(3):
        await settle(pilot)  # a worker a later refresh cancelled is over too
        await pilot.pause()
    return tree


def cursor_key(tree: StoreTree) -> str | None:
    node = tree.cursor_node
    return node.data.key if node is not None and node.data is not None else None


async def test_new_file_appears_in_auto_tree(home: DemoHome) -> None:
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        assert "fresh_note.md" not in tree_memories(screen, "auto")
        write_memory(home.auto_memory, "fresh_note.md", description="just written", type="user")
        await wait_until(pilot, lambda: "fresh_note.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        assert tree_memories(screen, "auto")["fresh_note.md"].description == "just written"


async def test_a_lone_new_file_is_shown_without_waiting_for_the_quiet_after_it(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher's debounce and max delay outlast the test's patience: only the report at
    once of the first finished change after a quiet period can bring the file."""
    from memtui.tui.live import LiveUpdates

    monkeypatch.setattr(LiveUpdates, "debounce", 10 * VISIBLE_WITHIN)
    monkeypatch.setattr(LiveUpdates, "max_delay", 10 * VISIBLE_WITHIN)
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        write_memory(home.auto_memory, "lone_note.md", description="alone", type="user")
        await wait_until(pilot, lambda: "lone_note.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        assert tree_memories(screen, "auto")["lone_note.md"].description == "alone"
        assert screen.live.refreshes == 1


async def test_follow_ups_wait_while_the_watcher_holds_a_burst(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refresh shown while the watcher holds more changes (a burst going on) leaves its
    follow-ups (history, links, team check, recall marks: a large home's thousands of reads)
    to the refresh of the rest; once nothing is held or pending they run, for the newest
    result. The debounce outlasts the test: a write after the first one is held."""
    from memtui.tui.live import LiveUpdates

    monkeypatch.setattr(LiveUpdates, "debounce", 10 * VISIBLE_WITHIN)
    monkeypatch.setattr(LiveUpdates, "max_delay", 10 * VISIBLE_WITHIN)
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        write_memory(home.auto_memory, "first_note.md", description="first")
        await wait_until(pilot, lambda: "first_note.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        await settle(pilot)
        assert screen.completed is screen.result  # nothing held: its follow-ups ran
        watcher = screen.live.watcher
        assert watcher is not None
        write_memory(home.auto_memory, "held_note.md", description="held")
        await wait_until(pilot, watcher.holding, VISIBLE_WITHIN)
        told = write_memory(home.auto_memory, "told_note.md", description="told")
        screen.live.changed({told})  # as the app tells it of its own writes
        await wait_until(pilot, lambda: "told_note.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        await settle(pilot)
        assert screen.completed is not screen.result  # held: not yet


async def test_modified_file_shows_its_new_description(home: DemoHome) -> None:
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        rel = "fresh_note.md"
        write_memory(home.auto_memory, rel, description="first version")
        await wait_until(pilot, lambda: rel in tree_memories(screen, "auto"), VISIBLE_WITHIN)
        await select_memory(pilot, "auto", f"{home.auto_memory}::{rel}")
        detail = screen.query_one(DetailPane)
        assert detail.loaded is not None
        assert detail.loaded.frontmatter.description == "first version"

        write_memory(home.auto_memory, rel, description="second version")

        def shows_second() -> bool:
            loaded = detail.loaded
            memory = tree_memories(screen, "auto")[rel]
            return (
                memory.description == "second version"
                and loaded is not None
                and loaded.frontmatter.description == "second version"
            )

        await wait_until(pilot, shows_second, VISIBLE_WITHIN)


async def test_deleted_file_disappears(home: DemoHome) -> None:
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        victim = next(rel for rel in tree_memories(screen, "team") if rel != "MEMORY.md")
        (home.team_memory / victim).unlink()
        await wait_until(pilot, lambda: victim not in tree_memories(screen, "team"),
                         VISIBLE_WITHIN)


async def test_burst_of_writes_is_a_few_refreshes(home: DemoHome) -> None:
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        names = [f"burst_{i:02}.md" for i in range(50)]
        for name in names:
            write_memory(home.auto_memory, name, description=name)
        await wait_until(pilot, lambda: set(names) <= set(tree_memories(screen, "auto")),
                         VISIBLE_WITHIN)
        await pilot.pause(0.6)  # room for any late refresh to show up in the count
        await settle(pilot)  # a worker a later refresh cancelled is over too
        assert 1 <= screen.live.refreshes <= 3


async def test_selection_and_expanded_folders_survive_a_refresh(home: DemoHome) -> None:
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        auto = home.auto_memory
        tree = screen.query_one("#tree-auto", StoreTree)
        logs = next(
            n for n in tree.root.children if n.data is not None and n.data.folder == "logs"
        )
        logs.expand()
        top_level = sorted(r for r in tree_memories(screen, "auto") if "/" not in r)
        target = next(r for r in top_level if r > "aaa_first.md" and r != "MEMORY.md")
        # the Agents pane keeps a cursor of its own, on a file that will move down a line
        planner = home.claude_home / "agent-memory" / "planner"
        planner_file = sorted(p.name for p in planner.glob("*.md") if p.name != "MEMORY.md")[0]
        agents = await select_memory(pilot, "agents", f"{planner}::{planner_file}")
        agents_line = agents.cursor_line
        await select_memory(pilot, "auto", f"{auto}::{target}")
        line_before = tree.cursor_line
        detail = screen.query_one(DetailPane)
        assert detail.ref is not None and detail.ref.key == f"{auto}::{target}"

        # a file sorted above the cursor moves it down a line; another pane changes too
        write_memory(auto, "aaa_first.md", description="sorts first")
        write_memory(planner, "AAA_note.md", description="sorts before the Agents cursor")
        await wait_until(pilot, lambda: "aaa_first.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        await wait_until(pilot, lambda: "AAA_note.md" in tree_memories(screen, "agents"),
                         VISIBLE_WITHIN)
        for _ in range(3):
            await settle(pilot)  # a worker a later refresh cancelled is over too
            await pilot.pause()

        assert cursor_key(agents) == f"{planner}::{planner_file}"
        assert agents.cursor_line == agents_line + 1
        assert cursor_key(tree) == f"{auto}::{target}"
        assert tree.cursor_line == line_before + 1
        assert screen.focused is tree
        logs = next(
            n for n in tree.root.children if n.data is not None and n.data.folder == "logs"
        )
        assert logs.is_expanded
        assert detail.ref is not None and detail.ref.key == f"{auto}::{target}"
        assert detail.loaded is not None and detail.loaded.ref.key == f"{auto}::{target}"


async def test_no_watcher_without_watch(home: DemoHome) -> None:
    async with live_app(home, watch=False).run_test(size=SIZE) as pilot:
        for _ in range(3):
            await settle(pilot)  # a worker a later refresh cancelled is over too
            await pilot.pause()
        screen = main_screen(pilot)
        assert screen.result is not None and screen.live.watcher is None
        write_memory(home.auto_memory, "unseen.md", description="nobody watches")
        await pilot.pause(0.6)
        assert "unseen.md" not in tree_memories(screen, "auto")


async def test_watcher_stops_with_the_app(home: DemoHome) -> None:
    app = live_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        watcher = screen.live.watcher
    assert watcher is not None and not watcher.running


async def test_a_burst_of_200_files_all_shows_up(home: DemoHome) -> None:
    """200 files written at once all appear, in one or two refreshes (target: within 1 s;
    the bound here is loose and in CPU seconds of the process, the app's threads included: a
    loaded CI machine stretches the wall clock, not the work; bench figures are tighter)."""
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        names = [f"burst_{i:03}.md" for i in range(200)]
        cpu = time.process_time()
        for name in names:
            write_memory(home.auto_memory, name, description=name)
        await wait_until(
            pilot, lambda: set(names) <= set(tree_memories(screen, "auto")), VISIBLE_WITHIN
        )
        assert time.process_time() - cpu < 3.0
        memories = tree_memories(screen, "auto")
        assert all(memories[name].description == name for name in names)


def memory_nodes(screen: MainScreen, pane: str) -> dict[str, Any]:
    """The node objects of ``pane``'s memories, by relative path."""
    tree = screen.query_one(f"#tree-{pane}", StoreTree)
    out: dict[str, Any] = {}
    stack = [tree.root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.data is not None and node.data.memory is not None:
            out[node.data.memory.rel_path] = node
    return out


async def test_a_refresh_changes_only_the_nodes_of_changed_memories(home: DemoHome) -> None:
    """A new file, an edit and a delete: the other memories keep their node objects (not a
    cleared and refilled tree), the new one is placed where its name sorts, the edited one
    shows its new memory, the deleted one is gone, and every node points to the new store."""
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        before = memory_nodes(screen, "auto")
        names = sorted(r for r in before if "/" not in r and r != "MEMORY.md")
        edited, deleted = names[0], names[1]
        write_memory(home.auto_memory, "mmm_new.md", description="new")
        write_memory(home.auto_memory, edited, description="edited now")
        (home.auto_memory / deleted).unlink()

        def done() -> bool:
            memories = tree_memories(screen, "auto")
            return ("mmm_new.md" in memories and deleted not in memories
                    and memories[edited].description == "edited now")

        await wait_until(pilot, done, VISIBLE_WITHIN)
        await settle(pilot)  # a worker a later refresh cancelled is over too
        after = memory_nodes(screen, "auto")
        for rel, node in after.items():
            if rel not in ("mmm_new.md", edited):
                assert node is before[rel], f"{rel}: a new node"
        assert after[edited] is before[edited]  # the same row, its memory replaced
        tree = screen.query_one("#tree-auto", StoreTree)
        store = screen.result.stores[0] if screen.result else None
        assert store is not None and tree.stores[0] is store
        top = [n.data.memory.rel_path for n in tree.root.children
               if n.data is not None and n.data.memory is not None]
        assert "mmm_new.md" in top and top[1:] == sorted(top[1:])  # MEMORY.md first
        for node in after.values():
            assert node.data.store is store  # type: ignore[attr-defined]


async def test_a_refresh_runs_the_follow_ups_of_its_changed_stores_only(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written in an agent's memory: the recall manifest is built again for that
    agent only, the team memory's push check and the judge's ledger are not read again."""
    from memtui.core.recall import manifest as manifest_module
    from memtui.core.recall.manifest import build_manifest as real_manifest
    from memtui.tui import team as team_module
    from memtui.tui.team import team_check as real_team

    manifests: list[Path] = []
    teams: list[object] = []

    def manifest(root: Path) -> object:
        manifests.append(root)
        return real_manifest(root)

    def team(*args: object) -> object:
        teams.append(args)
        return real_team(*args)  # type: ignore[arg-type]

    # the main screen imports them when it runs them (after the first paint)
    monkeypatch.setattr(manifest_module, "build_manifest", manifest)
    monkeypatch.setattr(team_module, "team_check", team)
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await settle(pilot)  # a worker a later refresh cancelled is over too
        assert manifests and teams
        manifests.clear()
        teams.clear()
        planner = home.claude_home / "agent-memory" / "planner"
        write_memory(planner, "fresh_agent_note.md", description="new")
        await wait_until(pilot, lambda: "fresh_agent_note.md" in tree_memories(screen, "agents"),
                         VISIBLE_WITHIN)
        for _ in range(3):
            await settle(pilot)  # a worker a later refresh cancelled is over too
            await pilot.pause()
        assert manifests == [planner]
        assert teams == []


async def test_the_detail_pane_is_not_drawn_again_for_another_file(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory on show, another file of its store written: the pane takes the new store's
    objects and is neither read nor drawn again (what it shows did not change)."""
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        rel = sorted(r for r in tree_memories(screen, "auto") if "/" not in r
                     and r != "MEMORY.md")[0]
        await select_memory(pilot, "auto", f"{home.auto_memory}::{rel}")
        detail = screen.query_one(DetailPane)
        assert detail.loaded is not None and detail.loaded.ref.memory is not None
        shown = detail.loaded.ref.memory
        drawn: list[str] = []
        monkeypatch.setattr(DetailPane, "show", lambda self, ref: drawn.append("show"))
        monkeypatch.setattr(DetailPane, "_render_loaded",
                            lambda self, loaded: drawn.append("render"))
        write_memory(home.auto_memory, "zzz_other.md", description="another file")
        await wait_until(pilot, lambda: "zzz_other.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        await settle_all(pilot)
        assert drawn == []
        assert detail.ref is not None and detail.loaded is not None
        assert detail.ref.memory is shown and detail.loaded.ref is detail.ref
        assert screen.result is not None
        assert any(detail.ref.store is s for s in screen.result.stores)


async def test_a_memory_md_on_show_keeps_its_numbered_lines(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEMORY.md on show, a new file (an orphan) written: the view shows the new health from
    the text already read (no read), and its numbered lines are neither made nor given to
    their widget again (it is not drawn again)."""
    from textual.widgets import Static

    from memtui.tui.widgets import detail as detail_module

    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await select_memory(pilot, "auto", f"{home.auto_memory}::MEMORY.md")
        detail = screen.query_one(DetailPane)
        head = detail.query_one("#detail-head", Static)
        health = detail.query_one("#detail-health", Static)
        numbered, before = head.content, health.content
        assert health.display and detail._lines_cache is not None
        assert detail._lines_cache[2] is numbered
        reads: list[object] = []
        monkeypatch.setattr(DetailPane, "_read", lambda self, ref: reads.append(ref))
        made: list[object] = []
        real_lines = detail_module.numbered_view
        monkeypatch.setattr(detail_module, "numbered_view",
                            lambda *args: made.append(args) or real_lines(*args))
        updates: list[object] = []
        real_update = Static.update

        def update(self: Static, *args: Any, **kwargs: Any) -> None:
            updates.append(self.id)
            real_update(self, *args, **kwargs)

        monkeypatch.setattr(Static, "update", update)
        write_memory(home.auto_memory, "zzz_orphan.md", description="no entry points here")

        def orphan_shown() -> bool:
            cached = detail._index_cache
            return cached is not None and "zzz_orphan.md" in cached[0].health.orphans

        await wait_until(pilot, orphan_shown, VISIBLE_WITHIN)
        await settle_all(pilot)
        assert reads == [] and made == []
        assert head.content is numbered and "detail-head" not in updates
        assert health.content is not before and health.display
        assert any("zzz_orphan.md" in row for row in rendered(health.content, 120))


async def settle_all(pilot: Pilot[None]) -> None:
    for _ in range(3):
        await settle(pilot)  # a worker a later refresh cancelled is over too
        await pilot.pause()


async def test_a_refresh_leaves_the_other_panes_and_the_layout_alone(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files added and one deleted at the auto memory's top level: only the Auto pane is
    measured again, its tree is not laid out anew (each new node is placed where its name
    sorts, the gone one removed), and its rows are in the order a new layout gives."""
    from memtui.tui.screens import main as main_module
    from memtui.tui.widgets import store_tree as tree_module

    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        measured: list[str] = []
        real_weight = main_module.pane_weight
        monkeypatch.setattr(main_module, "pane_weight",
                            lambda spec, *a: measured.append(spec.id) or real_weight(spec, *a))
        layouts: list[object] = []
        real_layout = tree_module._layout
        monkeypatch.setattr(tree_module, "_layout",
                            lambda memories: layouts.append(1) or real_layout(memories))
        names = sorted(r for r in tree_memories(screen, "auto") if "/" not in r
                       and r != "MEMORY.md")
        (home.auto_memory / names[2]).unlink()
        for name in ("mmm_placed.md", "aaa_placed.md", "zzz_placed.md"):
            write_memory(home.auto_memory, name, description="new")

        def done() -> bool:
            memories = tree_memories(screen, "auto")
            return {"mmm_placed.md", "aaa_placed.md", "zzz_placed.md"} <= set(memories) and (
                names[2] not in memories)

        await wait_until(pilot, done, VISIBLE_WITHIN)
        await settle_all(pilot)
        assert set(measured) == {"auto"}
        assert layouts == []
        tree = screen.query_one("#tree-auto", StoreTree)
        rows: list[str] = []
        stack = list(reversed(tree.root.children))
        while stack:
            node = stack.pop()
            assert node.data is not None
            rows.append(node.data.key)
            stack.extend(reversed(node.children))
        store = tree.stores[0]
        expected: list[str] = []

        def walk(folder: str) -> None:
            for is_folder, rel in real_layout(store.memories)[folder]:
                expected.append(f"{store.path}::{rel}")
                if is_folder:
                    walk(rel)

        walk("")
        assert rows == expected


def tree_lines(tree: StoreTree) -> list[tuple[tuple[int, ...], bool, int]]:
    """Textual's lines of ``tree``: each row's path (node ids), its ``last`` flag and the
    line its node says it is on."""
    return [(tuple(node.id for node in line.path), line.last, line.path[-1].line)
            for line in tree._tree_lines]


async def test_a_few_top_level_files_edit_the_tree_lines_as_a_build_would(
    home: DemoHome,
) -> None:
    """Files added and deleted at the auto memory's top level (the cursor on a row below
    them): Textual's lines of the tree are edited in place, not built again, and are what a
    build gives, the cursor still on its memory; more files than a few build them again."""
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        tree = screen.query_one("#tree-auto", StoreTree)
        names = sorted(r for r in tree_memories(screen, "auto") if "/" not in r
                       and r != "MEMORY.md")
        on = tree.root.children[-1]
        assert on.data is not None
        await select_memory(pilot, "auto", on.data.key)
        builds: list[int] = []
        build = tree._build

        def counting() -> None:
            builds.append(1)
            build()

        tree._build = counting  # type: ignore[method-assign]
        (home.auto_memory / names[1]).unlink()
        for name in ("aaa_line.md", "mmm_line.md", "zzz_line.md"):
            write_memory(home.auto_memory, name, description="new")

        def done() -> bool:
            memories = tree_memories(screen, "auto")
            return {"aaa_line.md", "mmm_line.md", "zzz_line.md"} <= set(memories) and (
                names[1] not in memories)

        await wait_until(pilot, done, VISIBLE_WITHIN)
        await settle(pilot)
        assert builds == []
        edited, width = tree_lines(tree), tree.virtual_size.width
        assert cursor_key(tree) == on.data.key
        assert tree.cursor_line == on.line
        tree._tree_lines_cached = None
        assert tree_lines(tree) == edited
        assert tree.virtual_size.width <= width  # never narrower than a build's
        assert tree.virtual_size.height == len(edited)
        many = [f"many_{i:02}.md" for i in range(30)]
        for name in many:
            write_memory(home.auto_memory, name, description="new")
        await wait_until(pilot, lambda: set(many) <= set(tree_memories(screen, "auto")),
                         VISIBLE_WITHIN)
        await settle(pilot)
        assert builds
        edited = tree_lines(tree)
        tree._tree_lines_cached = None
        assert tree_lines(tree) == edited


async def test_a_refresh_rescans_with_the_locations_found_before(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written: the refresh does not find the stores' locations first (it uses the
    ones found when the watcher was aimed), and finds them again once it is shown."""
    from memtui.core.scan import refresh as refresh_module
    from memtui.tui import live as live_module

    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await settle_all(pilot)
        assert screen.live.located is not None
        before = screen.live.located
        in_refresh: list[object] = []
        afterwards: list[object] = []
        real = live_module.locate
        monkeypatch.setattr(refresh_module, "locate", lambda *a, **k: in_refresh.append(a))
        monkeypatch.setattr(live_module, "locate",
                            lambda *a, **k: afterwards.append(a) or real(*a, **k))
        write_memory(home.auto_memory, "located.md", description="new")
        await wait_until(pilot, lambda: "located.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        await settle_all(pilot)
        assert in_refresh == []
        assert len(afterwards) == 1
        assert screen.live.located is not None and screen.live.located is not before


async def test_a_setting_changed_meanwhile_scans_the_stores_anew(home: DemoHome) -> None:
    """Auto memory turned off in the project's settings (no store is watched for it), then a
    file written: once the refresh is shown the locations are found again, they moved, and
    the stores are scanned anew (the Auto pane says it is disabled)."""
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await settle_all(pilot)
        settings = home.project / ".claude" / "settings.local.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text('{"autoMemoryEnabled": false}\n')
        write_memory(home.auto_memory, "after_setting.md", description="new")

        def disabled() -> bool:
            result = screen.result
            return result is not None and not next(
                s for s in result.stores if s.path == home.auto_memory).location.enabled

        await wait_until(pilot, disabled, VISIBLE_WITHIN)


async def test_events_lost_by_the_watcher_make_one_scan_of_every_store(home: DemoHome) -> None:
    """inotify's queue overflowed: the kernel dropped the events of a new memory, and
    watchdog says only that events were lost. The tree must not stay stale: every store is
    scanned again, once. The loss is the kernel's overflow record, given to the watcher's
    real observer (``overflow_inotify``); the dropped events, those of the new file."""
    async with live_app(home).run_test(size=SIZE) as pilot:
        screen = await started(pilot)
        await wait_until(pilot, lambda: screen.live.watcher is not None
                         and bool(screen.live.watcher.watched()), VISIBLE_WITHIN)
        watcher = screen.live.watcher
        assert watcher is not None
        dropped: list[str] = []
        dispatch = watcher._handler.dispatch

        def losing(event: FileSystemEvent) -> None:  # the kernel's queue is full
            dropped.append(f"{event.event_type} {event.src_path}")

        watcher._handler.dispatch = losing  # type: ignore[method-assign]
        lost = write_memory(home.auto_memory, "lost_note.md", description="its events lost")
        marker = home.auto_memory / "lost_marker.md"
        marker.write_text("x", encoding="utf-8")  # inotify delivers in order: after the note's
        await wait_until(pilot, lambda: f"closed {marker}" in dropped, VISIBLE_WITHIN)
        assert f"closed {lost}" in dropped
        watcher._handler.dispatch = dispatch  # type: ignore[method-assign]
        await settle(pilot)
        assert "lost_note.md" not in tree_memories(screen, "auto")  # nothing told of it
        refreshes = screen.live.refreshes
        told: list[set[Path]] = []  # the changed paths the watcher reports: none
        changed = screen.live.changed

        def telling(paths: Iterable[Path]) -> None:
            told.append(set(paths))
            changed(paths)

        screen.live.changed = telling  # type: ignore[method-assign]
        overflow_inotify(watcher)
        await wait_until(pilot, lambda: "lost_note.md" in tree_memories(screen, "auto"),
                         VISIBLE_WITHIN)
        assert tree_memories(screen, "auto")["lost_note.md"].description == "its events lost"
        await settle(pilot)
        assert (screen.live.refreshes, watcher.lost_reports, told) == (refreshes + 1, 1, [])
