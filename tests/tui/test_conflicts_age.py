"""The conflicts screen's ages follow the TUI's clock (frozen in snapshots and screenshots)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memtui.core.judge.verdicts import JudgeItem
from memtui.tui import clock
from memtui.tui.screens.conflicts import side_text

DAY = 86_400.0


@pytest.fixture
def frozen() -> Iterator[None]:
    clock.freeze(1_000 * DAY + 3_600)
    yield
    clock.freeze(None)


def test_a_side_is_aged_by_the_tui_clock(frozen: None) -> None:
    item = JudgeItem(key="/s/a.md", kind="auto", file="/s/a.md", rel_path="a.md", name="a",
                     description="", body="text", mtime=(1_000 - 3) * DAY, digest="d")
    assert "3 days old" in side_text(item, keep=False).plain
