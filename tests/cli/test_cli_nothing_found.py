"""Saying when nothing is found: a ``--project`` that does not exist is bad usage (exit 2), a
first run without a Claude Code home says what was looked for and where (exit 0), and a project
of the CC home opens by its directory with ``--project-dir``. Real ``memtui`` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import REPO, home_args

from memtui.core.demo.build import DemoHome

TRY = "try `memtui --demo` for a demo home"


def memtui(*argv: str, home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m memtui`` in a clean environment whose HOME is ``home``."""
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(REPO),
        "MEMTUI_NO_CACHE": "1",
        "XDG_STATE_HOME": str(home / "state"),
    }
    return subprocess.run([sys.executable, "-m", "memtui", *argv], cwd=cwd or home, env=env,
                          capture_output=True, text=True, timeout=60)


def test_a_project_that_does_not_exist_is_bad_usage(tmp_path: Path) -> None:
    for argv in (["--project", str(tmp_path / "nope"), "scan"],
                 ["--project", str(tmp_path / "nope")],  # the TUI never starts
                 ["--project", str(tmp_path / "nope"), "delete", str(tmp_path), "a.md"]):
        done = memtui(*argv, home=tmp_path)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stdout == ""
        assert f"memtui: --project {tmp_path / 'nope'} does not exist; nothing to show" in (
            done.stderr)
        assert TRY in done.stderr and "`p` in the TUI" in done.stderr
    (tmp_path / "file").write_text("x")
    done = memtui("--project", str(tmp_path / "file"), "scan", home=tmp_path)
    assert done.returncode == 2 and "is not a directory" in done.stderr


def test_a_first_run_without_a_claude_home_says_what_was_looked_for(tmp_path: Path) -> None:
    project = tmp_path / "work" / "app"
    project.mkdir(parents=True)
    for argv in (["scan"], ["scan", "--json"]):
        done = memtui(*argv, home=tmp_path, cwd=project)
        assert done.returncode == 0, done.stderr
        assert "memtui: no Claude Code home at ~/.claude (default ~/.claude)" in done.stderr
        assert TRY in done.stderr
    assert "auto memory: ~/.claude/projects/-work-app/memory (no directory)" not in done.stderr
    done = memtui("scan", home=tmp_path, cwd=project)
    assert "Looked in auto memory: ~/.claude/projects/" in done.stderr
    assert "sessions: ~/.claude/projects/" in done.stderr


def test_a_project_without_memory_says_so_and_one_with_memory_says_nothing(
    pristine: DemoHome, tmp_path: Path
) -> None:
    project = tmp_path / "empty-project"
    project.mkdir()
    (tmp_path / ".claude").mkdir()
    done = memtui("--project", str(project), "scan", home=tmp_path)
    assert done.returncode == 0
    assert "memtui: no memory found for ~/empty-project. Looked in auto memory:" in done.stderr
    assert TRY in done.stderr
    done = memtui(*home_args(pristine), "scan", home=pristine.root)
    assert done.returncode == 0 and "memtui: no" not in done.stderr


def test_project_dir_opens_an_orphaned_project_of_the_cc_home(pristine: DemoHome) -> None:
    homes = [a for a in home_args(pristine) if a != "--project" and a != str(pristine.project)]
    done = memtui(*homes, "--project-dir=-home-dev-old-prototype", "scan", home=pristine.root)
    assert done.returncode == 0, done.stderr
    again = memtui(*homes, "--project-dir", "home-dev-old-prototype", "scan", home=pristine.root)
    assert again.stdout == done.stdout
    project_dir = pristine.claude_home / "projects" / "-home-dev-old-prototype"
    assert "source path unknown: showing its stores under the CC home only" in done.stdout
    assert "notes.md" in done.stdout
    assert f"auto  ~/{(project_dir / 'memory').relative_to(pristine.root)}" in done.stdout
    done = memtui(*homes, "--project-dir", "home-dev-nothing", "scan", home=pristine.root)
    assert done.returncode == 2
    assert "--project-dir home-dev-nothing: no project directory" in done.stderr
