"""What tripped a newcomer walking through the demo (issue 10, "Bugs seen" 1, 2, 3, 5, 6, 8):
each test drives the real app on the demo home and failed before its fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import copy_demo, demo_app, demo_context, tree_state
from pilots import notifications, open_review, plain, rendered
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_memory
from memtui.core.write.apply import apply
from memtui.core.write.journal import journal_for
from memtui.core.write.ops.snapshot import plan_snapshot
from memtui.core.write.recovery import undo_operation
from memtui.tui.app import MemtuiApp
from memtui.tui.panes import PANES
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.snapshot_diff import SnapshotDiffScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("walk") / "demo")


@pytest.fixture
def demo(pristine: DemoHome) -> DemoHome:
    """The demo home as built, for the tests that write nothing."""
    return pristine


@pytest.fixture
def private(pristine: DemoHome, tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    """A private copy for the tests that write (no auto memory: its folder is named after the
    project's path, which moved)."""
    return copy_demo(pristine, tmp_path_factory.mktemp("copy") / "demo")


def app_for(home: DemoHome) -> MemtuiApp:
    return demo_app(home, MEMTUI_NO_CACHE="1")


def shown(widget: Static) -> str:
    """The text a Static shows, without trailing blanks."""
    return plain(widget).rstrip()


def visible_panes(app: MemtuiApp) -> list[str]:
    return [
        spec.id for spec in PANES
        if app.screen.query_one(f"#pane-{spec.id}").styles.display != "none"
        and not app.screen.query_one(f"#pane-{spec.id}").has_class("hidden", "absent")
    ]


def focused_id(app: MemtuiApp) -> str | None:
    return app.focused.id if app.focused is not None else None


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def detail_pane_id(app: MemtuiApp) -> str:
    """The pane the detail pane's node came from."""
    ref = app.screen.query_one(DetailPane).ref
    assert ref is not None
    return next(spec.id for spec in PANES if ref.store.kind in spec.kinds)


# --- 1: the info line, z and ← follow the focused widget -----------------------------------


async def test_the_detail_pane_belongs_to_the_pane_its_node_came_from(demo: DemoHome) -> None:
    """Every tree visited once and back to Auto on its MEMORY.md, then Tab through agentmemory
    into the detail pane: the info line, ``z`` and ``←`` follow the pane of what the detail
    shows (they named, zoomed and stepped from agentmemory above Auto's MEMORY.md)."""
    app = app_for(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await press(pilot, *["right"] * 5, *["left"] * 5, "down", "up")  # no wrap: back
        assert focused_id(app) == "tree-auto"
        await press(pilot, *["tab"] * 6)
        assert isinstance(app.focused, DetailPane)
        pane = detail_pane_id(app)
        title = next(spec.title for spec in PANES if spec.id == pane)
        info = shown(app.screen.query_one("#pane-info", Static))
        assert info.strip().startswith(f"{title}:"), info
        await press(pilot, "z")
        assert visible_panes(app) == [pane]
        await press(pilot, "z")
        order = [spec.id for spec in PANES]
        await press(pilot, "left")
        assert focused_id(app) == f"tree-{order[order.index(pane) - 1]}"


async def test_entering_a_tree_shows_its_cursor_node(demo: DemoHome) -> None:
    """Back in a tree visited before, the detail shows that tree's node again (it kept the
    node of the pane left, and the keys acted on that)."""
    app = app_for(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await press(pilot, "right", "down", "left")
        assert focused_id(app) == "tree-auto"
        detail = app.screen.query_one(DetailPane)
        tree = app.screen.query_one("#tree-auto", StoreTree)
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert detail.ref is not None and detail.ref.key == tree.cursor_node.data.key


# --- 2: s on any node under an agent opens that agent's review -----------------------------


async def select_in_agents(pilot: Pilot[None], agent: str, rel_path: str) -> None:
    """Focus the Agents pane and put its cursor on ``rel_path`` of ``agent``'s user store."""
    screen = pilot.app.screen
    tree = screen.query_one("#tree-agents", StoreTree)
    store = next(s for s in tree.stores if s.location.agent == agent)
    await press(pilot, "right", "right", "right")
    assert focused_id(pilot.app) == "tree-agents"
    assert tree.select_key(f"{store.path}::{rel_path}")
    await settle(pilot)
    node = tree.cursor_node
    assert node is not None and node.data is not None and node.data.memory is not None
    assert node.data.memory.rel_path == rel_path


@pytest.mark.parametrize("elsewhere", [("left", "down", "right"), ("right", "left")])
async def test_s_on_a_file_of_an_agent_opens_its_review(
    demo: DemoHome, elsewhere: tuple[str, ...]
) -> None:
    """On a file of the reviewer's memory, after a look at a session (or the Snapshots pane)
    and back: ``s`` opens the reviewer's review (it said "No snapshot here" for the session
    the detail still showed, or opened the docs-writer's review for the Snapshots node)."""
    app = app_for(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await select_in_agents(pilot, "reviewer", "common-bugs.md")
        await press(pilot, *elsewhere)
        assert focused_id(app) == "tree-agents"
        await press(pilot, "s")
        assert notifications(app) == []
        head = app.screen.query_one("#snap-head", Static)
        assert "snapshot: reviewer" in shown(head)


async def test_s_in_the_detail_pane_opens_the_review_of_its_agent(demo: DemoHome) -> None:
    app = app_for(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await select_in_agents(pilot, "planner", "roadmap.md")
        app.screen.query_one(DetailPane).focus()
        await settle(pilot)
        await press(pilot, "s")
        assert "snapshot: planner" in shown(app.screen.query_one("#snap-head", Static))


# --- 3 and 6: the snapshot review offers only what it can do --------------------------------


def footer_keys(screen: SnapshotDiffScreen) -> dict[str, bool]:
    """The keys the footer shows, and whether each is enabled."""
    return {key: active.enabled for key, active in screen.active_bindings.items()
            if active.binding.show}


async def test_an_action_that_changes_nothing_is_not_offered(
    private: DemoHome, state_home: Path
) -> None:
    """The planner's memory is synced with its snapshot: mark synced would rewrite the same
    bytes. The review says there is nothing to do, its key is disabled, and pressing it (and
    y) writes and journals nothing."""
    before = tree_state(private.root)
    app = app_for(private)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        review = await open_review(pilot, "planner")
        assert review.view == "mark-synced"
        message = shown(review.query_one("#snap-message", Static))
        assert "Nothing to do" in message
        assert footer_keys(review) == {"escape": True, "i": True, "R": True, "m": False,
                                       "question_mark": True, "q": True}
        await press(pilot, "m", "y")
        assert app.screen is review
    assert tree_state(private.root) == before
    assert not (state_home / "memtui" / "journal").exists() or not any(
        (state_home / "memtui" / "journal").iterdir()
    )


async def test_an_unusable_snapshot_offers_no_action_and_says_why_once(demo: DemoHome) -> None:
    """docs-writer's snapshot.json is not valid JSON: no i/R/m in the footer, the JSON error
    said once (it was said four times), its reason indented under the heading."""
    app = app_for(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        review = await open_review(pilot, "docs-writer")
        assert review.invalid is not None
        assert footer_keys(review) == {"escape": True, "question_mark": True, "q": True}
        lines = app.export_screenshot().replace("&#160;", " ")  # the screen as shown
        error = "Expecting property name"
        assert lines.count(error) == 1
        text = "\n".join(shown(w) for w in review.query(Static) if w.display)
        assert text.count(error) == 1  # not repeated per scope
        assert not review.query_one("#snap-controls").display
        await press(pilot, "i", "R", "m")
        assert app.screen is review and notifications(app) == []


async def test_the_unusable_snapshot_reason_wraps_indented(demo: DemoHome) -> None:
    """At 80 columns the reason wraps: every line of it stays indented."""
    app = app_for(demo)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        review = await open_review(pilot, "docs-writer")
        message = review.query_one("#snap-message", Static)
        width = message.content_region.width
        assert 0 < width < 80
        rows = rendered(message.content, width)
        start = next(i for i, row in enumerate(rows) if "snapshot.json is not" in row)
        reason = rows[start:start + 2]
        assert "(line 1)" in reason[1], rows  # it wraps at this width
        assert all(row.startswith("  ") and row[2] != " " for row in reason), rows


# --- 5: the undo history shows every state whole --------------------------------------------


async def test_the_undo_history_shows_the_state_whole_at_160_columns(private: DemoHome) -> None:
    """An operation with a long title and its undo: at 160 columns the history shows every
    column whole, the title cut with an ellipsis (the state column was cut: "undone" read
    "undo")."""
    context = demo_context(private)
    journal = journal_for(context)
    reviewer = private.claude_home / "agent-memory" / "reviewer"
    snapshot_dir = private.project / ".claude" / "agent-memory-snapshots" / "reviewer"
    proposal = plan_snapshot(snapshot_dir, reviewer, "replace")
    proposal.title += " (user scope), deleting common-bugs.md and deploy-freeze.md"
    done = apply(proposal, journal)
    undo_operation(journal, done.record)
    app = app_for(private)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await press(pilot, "U")
        table = app.screen.query_one("#undo-table", DataTable)
        assert table.row_count == 2
        assert table.virtual_size.width <= table.scrollable_content_region.width
        assert [cell.plain for cell in table.get_column_at(4)] == ["done", "undone"]
        titles = [cell.plain for cell in table.get_column_at(2)]
        assert titles[0].endswith("…") and titles[1].startswith("replace reviewer memory")


# --- 8: counts, the raw view, an agent without a directory ---------------------------------


async def scrolled_then_r(pilot: Pilot[None], pane: str, store: Store, rel_path: str) -> None:
    """Open ``rel_path``, scroll down, ``r`` twice: the detail pane stays where it was."""
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    screen.select_path(store, rel_path)
    await settle(pilot)
    assert focused_id(pilot.app) == f"tree-{pane}"
    detail = screen.query_one(DetailPane)
    assert detail.ref is not None and detail.ref.memory is not None
    assert detail.max_scroll_y > 20, "the file must be longer than the pane"
    target = min(40, detail.max_scroll_y - 5)
    detail.scroll_to(y=target, animate=False)
    await settle(pilot)
    assert detail.scroll_y == target
    await press(pilot, "r")
    assert detail.raw_mode
    assert abs(detail.scroll_y - target) <= 3
    await press(pilot, "r")
    assert not detail.raw_mode
    assert abs(detail.scroll_y - target) <= 3


async def test_r_keeps_the_scroll_position_in_memory_md(demo: DemoHome) -> None:
    """Scrolled down the numbered MEMORY.md, ``r`` (raw view and back) stays there (it
    jumped to the top)."""
    app = app_for(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        store = app.screen.query_one("#tree-auto", StoreTree).stores[0]
        await scrolled_then_r(pilot, "auto", store, "MEMORY.md")


async def test_r_keeps_the_scroll_position_in_a_memory(private: DemoHome) -> None:
    """The same in a long memory rendered as Markdown."""
    reviewer = private.claude_home / "agent-memory" / "reviewer"
    body = "\n".join(f"- rule {n}: check the refund path {n}" for n in range(150))
    write_memory(reviewer, "long-rules.md", description="Many rules", type="feedback",
                 body=body)
    app = app_for(private)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree-agents", StoreTree)
        store = next(s for s in tree.stores if s.location.agent == "reviewer")
        await scrolled_then_r(pilot, "agents", store, "long-rules.md")


async def test_a_long_memory_is_drawn_as_one_widget_and_a_short_one_as_markdown(
        private: DemoHome) -> None:
    """A body of many blocks (an agentmemory daily log, a long rules list) is drawn by Rich's
    Markdown in one widget: Textual's Markdown mounted a widget per list item, and 150 items
    took seconds to show. It still parses no markup, and a link shows its target."""
    from textual.widgets import Markdown

    reviewer = private.claude_home / "agent-memory" / "reviewer"
    rules = "\n".join(f"- rule {n}: check the refund path {n}" for n in range(150))
    write_memory(reviewer, "long-rules.md", description="Many rules", type="feedback",
                 body=f"# Rules\n\nSee [the runbook](https://runbook.example/refunds).\n\n"
                      f"{rules}\n- [bold red]not markup[/] rule\n")
    app = app_for(private)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        tree = screen.query_one("#tree-agents", StoreTree)
        store = next(s for s in tree.stores if s.location.agent == "reviewer")
        detail = screen.query_one(DetailPane)
        long, markdown = detail.query_one("#detail-long", Static), detail.query_one(Markdown)
        screen.select_path(store, "long-rules.md")
        await settle(pilot)
        assert long.display and not markdown.display
        drawn = plain(long)
        assert "rule 0: check the refund path 0" in drawn and "rule 149:" in drawn
        assert "[bold red]not markup[/] rule" in drawn  # shown as written
        assert "the runbook (https://runbook.example/refunds)" in drawn  # its target, shown
        screen.select_path(store, "common-bugs.md")  # short: Textual's Markdown, as before
        await settle(pilot)
        assert markdown.display and not long.display


async def test_one_store_and_one_file_are_counted_in_the_singular(private: DemoHome) -> None:
    """One snapshot shipped and an agentmemory home of one file: the pane subtitles, the info
    line and a store of one file's summary say "1 store" and "1 file" (they said "1 stores",
    "1 files")."""
    snapshots = private.project / ".claude" / "agent-memory-snapshots"
    for agent in ("reviewer", "planner", "docs-writer"):
        shutil.rmtree(snapshots / agent)
    for child in private.agent_memory_home.iterdir():
        if child.name != "MEMORY.md":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    for name in ("rules.md", "ignores.md"):
        (private.claude_home / "agent-memory" / "acme-lint" / name).unlink()
    app = app_for(private)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#pane-snapshots").border_subtitle == "1 store"
        assert screen.query_one("#pane-agentmemory").border_subtitle == "1 file"
        screen.query_one("#tree-snapshots", StoreTree).focus()
        await settle(pilot)
        info = shown(screen.query_one("#pane-info", Static))
        assert info.endswith("· 1 store") or "  ·  1 store" in info, info
        assert "stores" not in info
        tree = screen.query_one("#tree-agents", StoreTree)
        store = next(s for s in tree.stores if s.location.agent == "acme-lint")
        assert isinstance(screen, MainScreen)
        screen.select_path(store, None)
        await settle(pilot)
        summary = plain(screen.query_one("#detail-head", Static))
        assert "\n1 file\n" in summary, summary


async def test_an_agent_without_a_directory_is_labelled_as_its_review_says(
    demo: DemoHome,
) -> None:
    """qa has a user-scope definition and no memory dir yet: its label said "empty" while its
    review says the directory does not exist."""
    app = app_for(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree-agents", StoreTree)
        store = next(s for s in tree.stores if s.location.agent == "qa")
        assert not store.exists
        labels = [node.label.plain for node in tree.root.children
                  if node.data is not None and node.data.store is store]
        assert len(labels) == 1 and "no dir" in labels[0] and "empty" not in labels[0]
        review = await open_review(pilot, "qa")
        scopes = shown(review.query_one("#snap-scopes", Static))
        user_line = next(row for row in scopes.splitlines() if row.strip().startswith("▶ user")
                         or row.strip().startswith("user"))
        assert "memory dir does not exist" in user_line
