#!/usr/bin/env python3
"""Regenerate the README screenshots from the real app on the demo home.

    python scripts/screenshots.py [--out screenshots] [--theme NAME] [--no-png]

Builds the demo home at a fixed path with a fixed clock (so ages and paths are the same on every
run), drives the app with a Pilot into each scene and writes ``<scene>.svg`` into ``--out``, plus
a ``<scene>.png`` rendered by ``rsvg-convert`` when it is installed
(``apt-get install librsvg2-bin fonts-dejavu-core``).
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from textual.pilot import Pilot  # noqa: E402
from textual.widgets import Static  # noqa: E402

from memtui.core.demo.build import DemoHome, build_demo_home  # noqa: E402
from memtui.core.demo.writers import STORY_NOW  # noqa: E402
from memtui.core.stores.locations import Context  # noqa: E402
from memtui.tui import clock  # noqa: E402
from memtui.tui.app import MemtuiApp, make_app  # noqa: E402
from memtui.tui.screens.main import MainScreen  # noqa: E402
from memtui.tui.testing import settle, still_cursors  # noqa: E402
from memtui.tui.widgets.detail import DetailPane  # noqa: E402
from memtui.tui.widgets.store_tree import StoreTree  # noqa: E402

DEMO_ROOT = Path(tempfile.gettempdir()) / "memtui-screenshots-home"
SIZE = (160, 45)
CUT_MARK = "Claude stops reading here"
SEARCH_QUERY = "refund"
RSVG_FONT_PX = 20.26

Scene = Callable[[Pilot[None], DemoHome], Awaitable[None]]


@dataclass(frozen=True)
class Shot:
    name: str
    scene: Scene
    size: tuple[int, int] = SIZE


# ------------------------------------------------------------------------- demo and app


@contextmanager
def demo_home(root: Path = DEMO_ROOT) -> Iterator[DemoHome]:
    """A fresh demo home at ``root``, locked against a concurrent run using the same path."""
    with open(f"{root}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        clock.freeze(STORY_NOW.timestamp())
        try:
            yield build_demo_home(root, now=STORY_NOW.timestamp())
        finally:
            clock.freeze(None)
            shutil.rmtree(root, ignore_errors=True)


def demo_context(home: DemoHome) -> Context:
    """The demo as the user whose HOME is the demo root: paths show as ``~/...``."""
    env = {"HOME": str(home.root), "XDG_CONFIG_HOME": str(home.root / ".config")}
    return Context.create(
        project=home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env=env,
    )


def main_screen(pilot: Pilot[None]) -> MainScreen:
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen), f"expected the main screen, got {screen!r}"
    return screen


async def select(pilot: Pilot[None], pane: str, path: Path, rel_path: str = "") -> None:
    """Put the cursor of ``pane``'s tree on ``path`` (a store) or a file in it, and open it."""
    screen = main_screen(pilot)
    tree = screen.query_one(f"#tree-{pane}", StoreTree)
    tree.focus()
    await pilot.pause()
    assert tree.select_key(f"{path}::{rel_path}"), f"no node {rel_path or path} in {pane}"
    await settle(pilot)
    node = tree.cursor_node
    detail = screen.query_one(DetailPane)
    if (
        node is not None
        and node.data is not None
        and (detail.ref is None or detail.ref.key != node.data.key)
    ):
        detail.show(node.data)  # the cursor did not move, so no highlight event showed it
        await settle(pilot)


def scroll_detail_to(pilot: Pilot[None], mark: str, lines_above: int = 6) -> None:
    """Scroll the detail pane so the first line containing ``mark`` sits near the top. A
    MEMORY.md's health (``#detail-health``) comes first, its numbered lines (``#detail-head``)
    next: a line's place counts from the first of them shown."""
    detail = main_screen(pilot).query_one(DetailPane)
    parts = [w for w in (detail.query_one("#detail-health", Static),
                         detail.query_one("#detail-head", Static)) if w.display]
    top = parts[0].virtual_region.y
    for widget in parts:
        for y, strip in enumerate(widget.render_lines(widget.size.region)):
            if mark in strip.text:
                at = widget.virtual_region.y - top + y
                detail.scroll_to(y=max(0, at - lines_above), animate=False, immediate=True)
                return
    raise AssertionError(f"{mark!r} not found in the detail pane")


# ------------------------------------------------------------------------- scenes


async def scene_main(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    await select(pilot, "auto", home.auto_memory, "refund-coupons.md")


async def scene_memory_index(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    await select(pilot, "auto", home.auto_memory, "MEMORY.md")
    scroll_detail_to(pilot, CUT_MARK)
    await settle(pilot)


async def scene_snapshots(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    snapshots = home.project / ".claude" / "agent-memory-snapshots" / "reviewer"
    await select(pilot, "snapshots", snapshots)
    await pilot.press("z")
    await settle(pilot)


async def scene_search(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    await pilot.press("slash")
    await settle(pilot)
    still_cursors(pilot.app)
    await pilot.press(*SEARCH_QUERY)
    await settle(pilot)
    await pilot.pause(0.3)
    await settle(pilot)


async def scene_snapshot_review(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    snapshots = home.project / ".claude" / "agent-memory-snapshots" / "reviewer"
    await select(pilot, "snapshots", snapshots)
    await pilot.press("s")
    await settle(pilot)
    await pilot.press("down", "down")  # highlight a local memory that replace would delete
    await settle(pilot)


async def scene_conflicts(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    await pilot.press("J")
    await settle(pilot)
    await pilot.press("down", "down", "down")  # the planner's flag against the project's
    await settle(pilot)


async def scene_distil(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    await select(pilot, "auto", home.auto_memory, "MEMORY.md")
    await pilot.press("D")
    await settle(pilot)
    await pilot.press("down", "down")  # a pointer dropped because its file is gone
    await settle(pilot)


async def scene_recall(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    await pilot.press("R")
    await settle(pilot)
    await pilot.press(*["space" if c == " " else c for c in "roll back production"])
    await pilot.press("enter")
    await settle(pilot)
    still_cursors(pilot.app)


async def scene_context(pilot: Pilot[None], home: DemoHome) -> None:
    await settle(pilot)
    await pilot.press("C")
    await settle(pilot)


async def scene_history(pilot: Pilot[None], home: DemoHome) -> None:
    """``H`` on a memory with three versions (the history made by ``memtui history record``,
    then two edits recorded the same way; the version times are the wall clock's)."""
    from memtui.core.history.record import record

    await settle(pilot)
    ctx = demo_context(home)
    target = home.auto_memory / "user-role.md"
    record(ctx)
    original = target.read_text(encoding="utf-8")
    target.write_text(original + "\nPrefers short answers with the command first.\n",
                      encoding="utf-8")
    record(ctx)
    target.write_text(original.replace("Backend", "Platform", 1), encoding="utf-8")
    record(ctx)
    await select(pilot, "auto", home.auto_memory, "user-role.md")
    await pilot.press("H")
    await settle(pilot)
    await pilot.press("down")
    await settle(pilot)


def search_screen_exists() -> bool:
    return importlib.util.find_spec("memtui.tui.dialogs.search") is not None


SHOTS = (
    Shot("main", scene_main),
    Shot("memory-index", scene_memory_index),
    Shot("snapshots", scene_snapshots),
    Shot("snapshot-review", scene_snapshot_review),
    Shot("search", scene_search),
    Shot("conflicts", scene_conflicts),
    Shot("distil", scene_distil),
    Shot("recall", scene_recall),
    Shot("context", scene_context),
    Shot("history", scene_history),
)


# ------------------------------------------------------------------------- output


async def take(shot: Shot, theme: str | None) -> str:
    with demo_home() as home:
        app: MemtuiApp = make_app(demo_context(home), watch=False, theme=theme)
        async with app.run_test(size=shot.size) as pilot:
            await shot.scene(pilot, home)
            return app.export_screenshot(title=f"memtui · {shot.name}", simplify=True)


def with_stable_ids(svg: str, name: str) -> str:
    """Rich numbers each export at random; a fixed id keeps regenerated files diff-free."""
    return re.sub(r"\bterminal-\d+-", f"terminal-{name}-", svg)


def with_preserved_space(svg: str) -> str:
    """rsvg-convert collapses runs of spaces unless the root element asks to keep them."""
    if 'xml:space="preserve"' in svg:
        return svg
    return svg.replace("<svg ", '<svg xml:space="preserve" ', 1)


def for_rsvg(svg: str) -> str:
    """The SVG as rsvg-convert should draw it.

    Rich places each run of text at a 12.2 px cell pitch and relies on ``textLength``, which
    rsvg ignores; the fallback font (DejaVu Sans Mono, 0.602 em) then drifts left along long
    runs such as borders. A font size giving that font a 12.2 px advance keeps columns aligned.
    """
    return with_preserved_space(svg).replace("font-size: 20px;", f"font-size: {RSVG_FONT_PX}px;")


def to_png(svg_path: Path) -> Path | None:
    converter = shutil.which("rsvg-convert")
    if converter is None:
        return None
    png = svg_path.with_suffix(".png")
    svg = for_rsvg(svg_path.read_text("utf-8"))
    subprocess.run([converter, "-o", str(png)], input=svg.encode("utf-8"), check=True)
    return png


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=REPO / "screenshots")
    parser.add_argument("--theme", help="theme name (default: memtui's default theme)")
    parser.add_argument("--no-png", action="store_true", help="write the SVGs only")
    parser.add_argument("only", nargs="*", help="scene names to take (default: all)")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.only) or {shot.name for shot in SHOTS}
    if not args.no_png and shutil.which("rsvg-convert") is None:
        print("rsvg-convert not found: writing SVGs only", file=sys.stderr)
    for shot in SHOTS:
        if shot.name not in wanted:
            continue
        if shot.name == "search" and not search_screen_exists():
            print("search: skipped (memtui/tui/dialogs/search.py does not exist yet)")
            continue
        svg_path = args.out / f"{shot.name}.svg"
        svg = with_stable_ids(asyncio.run(take(shot, args.theme)), shot.name)
        svg_path.write_text(with_preserved_space(svg), "utf-8")
        png = None if args.no_png else to_png(svg_path)
        print(f"{shot.name}: {svg_path}" + (f" and {png.name}" if png else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
