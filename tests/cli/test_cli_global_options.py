"""The global options (``--claude-home``, ``--project-dir``, ...) before or after the
command, and a hint for a value that starts with ``-`` (issue 25, item 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, home_args

from memtui.cli import main
from memtui.core.demo.build import DemoHome, build_demo_home


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("demo"))


def test_global_options_after_the_command(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", "--json", *home_args(demo)]) == 0
    data = json.loads(capsys.readouterr()[0])
    assert data["claude_home"] == str(demo.claude_home)
    assert data["project"] == str(demo.project)


def test_global_options_after_a_nested_command(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    """``memtui judge resolve ID a --claude-home H`` said "unrecognized arguments"."""
    assert main(["judge", "resolve", "0000000000", "related", *home_args(demo)]) == 2
    err = capsys.readouterr()[1]
    assert "no candidate pair 0000000000" in err and "unrecognized" not in err
    assert main(["snapshot", "status", "--json", *home_args(demo)]) == 0
    assert {s["agent"] for s in json.loads(capsys.readouterr()[0])} >= {"reviewer", "qa"}


def test_an_option_before_the_command_is_kept(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    """The subcommand's copy of an option does not put its default over the value given
    before the command."""
    before = ["--claude-home", str(demo.claude_home), "--project", str(demo.project)]
    after = ["--agent-memory-home", str(demo.agent_memory_home)]
    assert main([*before, "scan", "--json", *after]) == 0
    data = json.loads(capsys.readouterr()[0])
    assert data["claude_home"] == str(demo.claude_home)
    assert data["project"] == str(demo.project)
    agentmemory = next(s for s in data["stores"] if s["kind"] == "agentmemory")
    assert agentmemory["path"] == str(demo.agent_memory_home)


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_value_starting_with_a_dash_gets_a_hint(tmp_path: Path, where: str) -> None:
    """``--project-dir -tmp-x``: argparse's "expected one argument" now says to write
    ``--project-dir=-tmp-x``. Through the real entry (``python -m memtui``)."""
    option = ["--project-dir", "-tmp-x"]
    argv = [*option, "scan"] if where == "before" else ["scan", *option]
    env = {**os.environ, "PYTHONPATH": str(REPO), "CLAUDE_CONFIG_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "memtui", *argv], env=env, cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "expected one argument" in done.stderr
    assert "use --project-dir=-tmp-x for a value that starts with -" in done.stderr


def test_the_equals_form_is_accepted_after_the_command(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    name = next(p.name for p in (demo.claude_home / "projects").iterdir())
    assert name.startswith("-")
    code = main(["scan", "--json", f"--project-dir={name}",
                 "--claude-home", str(demo.claude_home)])
    assert code == 0, capsys.readouterr()[1]
    assert json.loads(capsys.readouterr()[0])["claude_home"] == str(demo.claude_home)
