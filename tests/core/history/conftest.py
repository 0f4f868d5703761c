"""A small Claude Code home of the test's own (``helpers.small_home``) and memtui's data dir
beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SmallHome, build_small_home


@pytest.fixture
def small_home(tmp_path: Path) -> SmallHome:
    return build_small_home(tmp_path)
