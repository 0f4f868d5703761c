"""The Claude Code version memtui follows, and the rules that depend on it
(docs/claude-code-rules.md#the-claude-code-version)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from memtui.core.demo.writers import write_file
from memtui.core.stores.cc_version import (
    NEWEST_KNOWN,
    ClaudeCodeVersion,
    detect_version,
    parse_version,
)
from memtui.core.stores.locations import Context, locate
from memtui.core.stores.sanitize import sanitize_path


def home(tmp_path: Path, **env: str) -> Context:
    claude = tmp_path / "claude"
    project = tmp_path / "src" / "app"
    project.mkdir(parents=True)
    return Context.create(project=project, claude_home=claude,
                          env={"HOME": str(tmp_path), "PATH": "", **env}, home=tmp_path)


def transcript(ctx: Context, version: str, name: str = "s1", age: float = 0) -> Path:
    directory = ctx.claude_home / "projects" / sanitize_path(str(ctx.project))
    records = [{"type": "summary"}, {"cwd": str(ctx.project), "version": version}]
    path = write_file(directory / f"{name}.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    stamp = 1_700_000_000 - age
    os.utime(path, (stamp, stamp))
    return path


def test_parse_version() -> None:
    assert parse_version("2.1.88 (Claude Code)") == (2, 1, 88)
    assert parse_version("v2.10.3") == (2, 10, 3) and parse_version("latest") is None


def test_the_override_wins_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    ctx = home(tmp_path)
    transcript(ctx, "2.1.100")
    found = detect_version("2.1.50", ctx.claude_home / "projects", ctx.env)
    assert found == ClaudeCodeVersion((2, 1, 50), "--claude-code-version")
    with pytest.raises(ValueError, match="no version"):
        detect_version("newest", tmp_path, ctx.env)


def test_the_newest_transcript_says_the_version(tmp_path: Path) -> None:
    ctx = home(tmp_path)
    transcript(ctx, "2.1.90", "old", age=100)
    transcript(ctx, "2.1.200", "new")
    version = locate(ctx).version
    assert version.version == (2, 1, 200) and version.source == "transcript new.jsonl"


def test_claude_on_the_path_is_asked(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    script = write_file(bin_dir / "claude", "#!/bin/sh\necho '2.1.230 (Claude Code)'\n")
    os.chmod(script, stat.S_IRWXU)
    ctx = home(tmp_path, PATH=str(bin_dir))
    version = locate(ctx).version
    assert version == ClaudeCodeVersion((2, 1, 230), "claude --version")
    assert "2.1.230" in version.describe()


def test_unknown_follows_the_newest_rules(tmp_path: Path) -> None:
    version = locate(home(tmp_path)).version
    assert version.version is None and version.rules == NEWEST_KNOWN
    assert "unknown" in version.describe()
    assert ClaudeCodeVersion((9, 0, 0), "x").rules == NEWEST_KNOWN


def test_project_dir_name_names_the_project_dir_from_2_1_234(tmp_path: Path) -> None:
    ctx = home(tmp_path, CLAUDE_CODE_PROJECT_DIR_NAME="my-app", CLAUDE_CONFIG_DIR="x")
    found = locate(ctx)
    assert found.auto.path == ctx.claude_home / "projects" / "my-app" / "memory"
    assert "$CLAUDE_CODE_PROJECT_DIR_NAME" in found.auto.rule


def test_project_dir_name_is_ignored_before_2_1_234(tmp_path: Path) -> None:
    ctx = home(tmp_path, CLAUDE_CODE_PROJECT_DIR_NAME="my-app", CLAUDE_CONFIG_DIR="x")
    transcript(ctx, "2.1.200")
    found = locate(ctx)
    assert found.auto.path.parent.name == sanitize_path(str(ctx.project))
    assert "ignored: Claude Code reads it from 2.1.234" in found.auto.rule


@pytest.mark.parametrize("name", ["nul", "COM1", "a/b", "x" * 65, "dot.dir"])
def test_a_project_dir_name_claude_code_refuses_is_ignored(tmp_path: Path, name: str) -> None:
    ctx = home(tmp_path, CLAUDE_CODE_PROJECT_DIR_NAME=name, CLAUDE_CONFIG_DIR="x")
    found = locate(ctx)
    assert found.auto.path.parent.name == sanitize_path(str(ctx.project))
    assert "ignored" in found.auto.rule


def test_project_dir_name_needs_claude_config_dir(tmp_path: Path) -> None:
    found = locate(home(tmp_path, CLAUDE_CODE_PROJECT_DIR_NAME="my-app"))
    assert "only with $CLAUDE_CONFIG_DIR set" in found.auto.rule


def test_safe_mode_turns_memory_off_from_2_1_169(tmp_path: Path) -> None:
    ctx = home(tmp_path, CLAUDE_CODE_SAFE_MODE="1")
    assert not locate(ctx).auto.enabled
    transcript(ctx, "2.1.100")
    assert locate(ctx).auto.enabled
