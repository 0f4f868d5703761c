"""The MEMORY.md view's health on real-world shapes (issue 10, item 7): bold entries point to
their files, a missing folder is dangling, and a ``[[wikilink]]`` past a file's 30th line is
flagged once the app has checked whole files after its first paint (and again after a live
refresh)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import demo_app
from pilots import detail_rows, index_view, started, wait_until
from textual.pilot import Pilot

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_index, write_memory
from memtui.core.distil.plan import plan_distil
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.parse.index_entries import parse_entries
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane

SIZE = (160, 45)
LATE = "".join(f"step {i}\n" for i in range(40)) + "Then [[late-ghost]].\n"


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    home = build_demo_home(tmp_path)
    root = home.auto_memory
    write_memory(root, "runbook.md", name="runbook", description="a long runbook", body=LATE)
    write_memory(root, "bold.md", name="bold", description="linked in bold")
    write_index(root, [
        "# Memory",
        "- [Runbook](runbook.md) — steps",
        "- **[Bold](bold.md)** — a bold entry",
        "- **[ephemeral/](ephemeral/)** — scratch, deleted since",
    ])
    for path in root.glob("*.md"):  # the demo's other memories are orphans now: no entries
        if path.name not in ("MEMORY.md", "runbook.md", "bold.md"):
            path.unlink()
    return home


def health_rows(detail: DetailPane) -> list[str]:
    """The health part of the MEMORY.md view ([] while the file is being read again)."""
    rows = detail_rows(detail)
    start = next((i for i, row in enumerate(rows) if row.startswith("Index health")), len(rows))
    return rows[start:]


async def test_the_index_view_checks_real_shapes(home: DemoHome) -> None:
    async with demo_app(home).run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail, _tree, _key = await index_view(pilot, home)
        rows = health_rows(detail)
        assert "  ✕ line 4: ephemeral/ does not exist" in rows
        assert "  ✕ [[late-ghost]] in runbook.md matches no memory" in rows
        assert not any("◌" in row for row in rows), rows  # no orphans: bold.md has its entry
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        assert "jobs:" not in screen.header_text().plain


async def test_a_live_refresh_checks_the_changed_file_whole(home: DemoHome) -> None:
    async with demo_app(home, watch=True).run_test(size=SIZE) as pilot:
        await started(pilot)
        detail, _tree, _key = await index_view(pilot, home)
        assert "  ✕ [[late-ghost]] in runbook.md matches no memory" in health_rows(detail)
        runbook = home.auto_memory / "runbook.md"
        runbook.write_text(runbook.read_text().replace("[[late-ghost]]", "[[later-ghost]]"))

        def shown(pilot: Pilot[None] = pilot) -> bool:
            return "  ✕ [[later-ghost]] in runbook.md matches no memory" in health_rows(detail)

        await wait_until(pilot, shown, timeout=20)
        assert not any("late-ghost]]" in row for row in health_rows(detail))


async def test_a_topic_files_dangling_entry_is_marked_with_its_file_and_line(
    tmp_path: Path,
) -> None:
    home = build_demo_home(tmp_path)
    root = home.auto_memory
    location = StoreLocation(kind=StoreKind.AUTO, path=root, rule="test")
    proposal = plan_distil(scan_store(location)).outcome().proposal
    assert proposal is not None
    apply(proposal, Journal(tmp_path / "journal"))
    topic = root / "memory-section-area-notes.md"
    line = next(e.line for e in parse_entries(topic.read_text()) if e.target == "cart-runbook.md")
    (root / "cart-runbook.md").unlink()  # deleted outside memtui
    async with demo_app(home).run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail, _tree, _key = await index_view(pilot, home)
        rows = health_rows(detail)
        assert (f"  ✕ memory-section-area-notes.md line {line}: cart-runbook.md does not exist"
                in rows), rows
