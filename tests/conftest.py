"""Fixtures shared by the test modules."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from helpers import copy_demo

from memtui.core.demo.build import DemoHome, build_demo_home


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """memtui's journal (XDG state dir) and scan cache inside the test's temporary directory,
    no ``MEMTUI_STATE_DIR`` from outside, and a standard input that is not a terminal (so a
    command that would ask refuses instead of waiting)."""
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MEMTUI_STATE_DIR", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return state


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    """The demo home, built once per test module; never written: tests copy it (``demo``)."""
    return build_demo_home(tmp_path_factory.mktemp("pristine") / "demo")


@pytest.fixture
def demo(pristine: DemoHome, tmp_path: Path) -> DemoHome:
    """A private copy of the demo home (mtimes kept), every path moved along."""
    return copy_demo(pristine, tmp_path / "demo")
