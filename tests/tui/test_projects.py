"""The project switcher: list every project, open one with a real path, refuse the others."""

from __future__ import annotations

import pytest
from helpers import demo_app
from pilots import notified
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind
from memtui.tui.dialogs.projects import ProjectsScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.store_tree import StoreTree

SIZE = (160, 45)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("tui-projects") / "home")


async def open_projects(pilot: Pilot[None]) -> ProjectsScreen:
    await settle(pilot)
    await pilot.press("p")
    await pilot.app.workers.wait_for_complete()  # the path checks
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ProjectsScreen)
    return screen


async def pick(pilot: Pilot[None], screen: ProjectsScreen, name_part: str) -> None:
    """Highlight the project whose dir name contains ``name_part`` and press Enter."""
    target = next(n for n, row in enumerate(screen.rows) if name_part in row.name)
    options = screen.query_one(OptionList)
    options.highlighted = target
    await pilot.press("enter")
    await settle(pilot)


def session_ids(screen: MainScreen) -> set[str]:
    tree = screen.query_one("#tree-sessions", StoreTree)
    return {s.location.session or "" for s in tree.stores}


def header(screen: MainScreen) -> str:
    return str(screen.query_one("#header", Static).render())


async def test_lists_every_project_with_its_path_state(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_projects(pilot)
        states = {row.name: row.state for row in screen.rows}
        assert states["-home-dev-old-prototype"] == "unknown"
        assert states["-home-dev-src-blog"] == "missing"
        project_rows = [row for row in screen.rows if row.ref.path == str(demo.project)]
        assert len(project_rows) == 1 and project_rows[0].current
        assert project_rows[0].state == "exists"
        prompts = [str(screen.query_one(OptionList).get_option_at_index(n).prompt)
                   for n in range(len(screen.rows))]  # fmt: skip
        assert any("path unknown" in p for p in prompts)
        assert any("missing on disk" in p and "/home/dev/src/blog" in p for p in prompts)


async def test_switching_to_the_worktree_rescans_for_it(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        before = session_ids(main)
        assert demo.session_ids[3] not in before  # the worktree's session
        claude_home = main.context.claude_home
        screen = await open_projects(pilot)
        await pick(pilot, screen, "project-worktree")
        assert app.screen is main
        assert main.context.project == demo.worktree
        assert main.context.claude_home == claude_home
        assert main.context.env["HOME"] == str(demo.root)
        assert main.result is not None and main.result.project == demo.worktree
        assert session_ids(main) == {demo.session_ids[3]}
        assert main.result.git_branch == "hotfix"
        assert "project-worktree" in header(main)
        assert "hotfix" in header(main)
        # the worktree shares the repo's auto memory (one memory dir per git repo)
        auto = [s for s in main.result.stores if s.kind == StoreKind.AUTO]
        assert auto[0].path == demo.auto_memory


async def test_switch_project_method(demo: DemoHome) -> None:
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.switch_project(demo.worktree)
        await settle(pilot)
        assert main.context.project == demo.worktree
        main.switch_project(demo.project)
        await settle(pilot)
        assert main.context.project == demo.project
        assert demo.session_ids[3] not in session_ids(main)
        assert len(session_ids(main)) == 3


def tree_memories(screen: MainScreen, pane: str) -> set[str]:
    tree = screen.query_one(f"#tree-{pane}", StoreTree)
    return {m.rel_path for store in tree.stores for m in store.memories}


@pytest.mark.parametrize(
    ("name", "note"),
    [
        ("-home-dev-old-prototype", "source path unknown"),
        ("-home-dev-src-infra-tools", "source path /home/dev/src/infra_tools missing on disk"),
    ],
)
async def test_an_orphaned_project_opens_by_its_cc_home_dir(
    demo: DemoHome, name: str, note: str
) -> None:
    """A project whose source path is unknown or gone opens by its directory under the CC
    home: its memories show, the header says how it was opened, and p marks it current."""
    app = demo_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        screen = await open_projects(pilot)
        row = next(r for r in screen.rows if r.name == name)
        prompt = str(screen.query_one(OptionList).get_option_at_index(
            screen.rows.index(row)).prompt)
        assert "opens its stores under the CC home only" in prompt
        await pick(pilot, screen, name)
        assert app.screen is main
        project_dir = demo.claude_home / "projects" / name
        assert main.context.project_dir == project_dir
        assert main.result is not None
        auto = next(s for s in main.result.stores if s.kind == StoreKind.AUTO)
        assert auto.path == project_dir / "memory"
        assert tree_memories(main, "auto") == {
            p.name for p in (project_dir / "memory").iterdir()}
        assert not [s for s in main.result.stores if s.kind == StoreKind.SNAPSHOT]
        assert main.result.git_branch is None
        text = header(main)
        assert name in text
        assert f"{note}: showing its stores under the CC home only" in text
        assert not [n for n in notified(app) if n.severity != "information"]

        screen = await open_projects(pilot)  # the opened project is the current one
        assert [r.name for r in screen.rows if r.current] == [name]
        await pick(pilot, screen, "project-worktree")
        assert main.context.project_dir is None and main.context.project == demo.worktree
        assert "showing its stores" not in header(main)
