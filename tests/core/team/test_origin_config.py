"""The origin of team memory read from the repository's git config with the bounded reader
(issue 25 item 5): ``/dev/zero``, a FIFO or a 300 MB file there is refused in bounded time and
memory, and what is read agrees with git."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import REPO

from memtui.core.demo.writers import run_git
from memtui.core.team.gitconfig import parse_git_config
from memtui.core.team.repo import origin_repo

SUBPROCESS_TIMEOUT = 120
"""Generous for a loaded 2-core box; a check of a small home takes well under a second."""
MEMORY_LIMIT = 2 * 1024**3
"""Address space of the subprocess: reading /dev/zero whole would need more."""


def zero_link(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


def fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def huge(path: Path) -> None:
    """A 300 MB config (sparse): a valid origin first, then zeros."""
    path.write_text('[remote "origin"]\n\turl = https://github.com/acme/shop.git\n')
    os.truncate(path, 300 * 1024 * 1024)


@pytest.mark.parametrize("make", [zero_link, fifo, huge], ids=["dev-zero", "fifo", "300MB"])
def test_team_check_with_a_hostile_git_config_ends(
    tmp_path: Path, make: Callable[[Path], None]
) -> None:
    project = tmp_path / "p"
    run_git(tmp_path, "init", "-q", str(project))
    make(project / ".git" / "config")
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "--claude-home", str(tmp_path / "cc"), "--project",
         str(project), "team", "check"],
        env={**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
             "MEMTUI_STATE_DIR": str(tmp_path / "state")},
        capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, check=False,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT,) * 2),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "no GitHub origin (its git config" in done.stdout, done.stdout


def test_a_config_over_the_cap_is_not_read(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", str(tmp_path / "p"))
    huge(tmp_path / "p" / ".git" / "config")
    assert origin_repo(tmp_path / "p") == (None, "its git config is over 64 KB: not read")


CONFIGS = {
    "plain": '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n',
    "case and spaces": '[Remote  "origin"]\n  URL   =   https://github.com/acme/shop  \n',
    "quoted and comment": '[remote "origin"] url = "https://github.com/a b/c.git" ; x\n',
    "escapes": '[remote "origin"]\nurl = https://github.com/acme/sh\\\nop.git # c\n',
    "two urls": '[remote "origin"]\nurl = https://gitlab.com/x/y\nurl = git@github.com:a/b\n',
    "other remote": '[remote "upstream"]\nurl = https://github.com/a/b\n',
    "subsection case": '[remote "Origin"]\nurl = https://github.com/a/b\n',
    "dotted": "[remote.origin]\nurl = https://github.com/a/b\n",
    "insteadOf": '[url "https://github.com/"]\ninsteadOf = gh:\n[url "x"]\ninsteadOf = g\n'
                 '[remote "origin"]\nurl = gh:acme/shop\n',
    "crlf": '[remote "origin"]\r\n\turl = https://github.com/acme/shop\r\n',
    "hash in quotes": '[remote "origin"]\nurl = "https://github.com/a/b#x"\n',
    "tab escape": '[remote "origin"]\nurl = https://github.com/a/b\\tc\n',
}


@pytest.mark.parametrize("text", CONFIGS.values(), ids=CONFIGS.keys())
def test_the_origin_agrees_with_git(tmp_path: Path, text: str) -> None:
    project = tmp_path / "p"
    run_git(tmp_path, "init", "-q", str(project))
    (project / ".git" / "config").write_text(text, newline="")
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
           "XDG_CONFIG_HOME": str(tmp_path)}
    done = subprocess.run(["git", "-C", str(project), "remote", "get-url", "--all", "origin"],
                          capture_output=True, text=True, env=env, check=False)
    git_urls = done.stdout.splitlines() if done.returncode == 0 else []
    slug, found = origin_repo(project)
    if not git_urls:
        assert slug is None and found.startswith("no origin remote")
    elif slug is None:
        assert found == f"origin is not on GitHub ({git_urls[0]})"
    else:
        assert found in git_urls


def test_a_bad_line_stops_the_parse_and_says_so() -> None:
    config = parse_git_config(b'[remote "origin"]\nurl = "open\n[remote "x"]\nurl = y\n')
    assert config.entries == [] and config.problem == "bad value on line 2: not read further"
    assert parse_git_config(b"[include]\npath = ~/x\n").has_includes
