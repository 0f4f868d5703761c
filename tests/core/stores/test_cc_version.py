"""The Claude Code version memtui follows, and the rules that depend on it
(docs/claude-code-rules.md#the-claude-code-version)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from memtui.core.claude_version import NEWEST_KNOWN, ClaudeCodeVersion, parse_version
from memtui.core.demo.writers import write_file
from memtui.core.stores.cc_version import detect_version
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


def _long_index(ctx: Context) -> Path:
    """A MEMORY.md of 150 lines of 200 characters (30,000 units): over the unit cut, under the
    line cap."""
    memory = ctx.claude_home / "projects" / sanitize_path(str(ctx.project)) / "memory"
    lines = [f"- [note {i}](note-{i}.md) " + "x" * (200 - len(f"- [note {i}](note-{i}.md) "))
             for i in range(150)]
    return write_file(memory / "MEMORY.md", "\n".join(lines) + "\n")


def test_the_unit_cut_holds_from_2_1_83(tmp_path: Path) -> None:
    from memtui.core.scan.scanner import scan

    ctx = home(tmp_path)
    _long_index(ctx)
    transcript(ctx, "2.1.83")
    index = scan(ctx).stores[0].index
    assert index is not None and index.byte_truncated and index.binds == "bytes"
    assert index.cut_line is not None and index.cut_line < 150
    assert index.warning is not None and "(limit: 24.4KB)" in index.warning


def test_before_2_1_83_only_the_line_cap_cuts(tmp_path: Path) -> None:
    from memtui.core.scan.scanner import scan

    ctx = home(tmp_path)
    _long_index(ctx)
    transcript(ctx, "2.1.82")
    index = scan(ctx).stores[0].index
    assert index is not None
    assert (index.byte_truncated, index.binds, index.cut_line, index.warning) == (
        False, "none", None, None)
    assert len(index.dropped) == 0


def test_the_cut_rule_follows_a_version_change_through_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan caches index reports by the files' stats: a newer Claude Code (a newer
    transcript) must not get the older version's report from the cache."""
    from memtui.core.scan import cached_report
    from memtui.core.scan.scanner import cache_for, scan

    # a file just written is "racy" and never cached: here every stat may be cached
    monkeypatch.setattr(cached_report, "RACY_SECONDS", float("-inf"))
    ctx = home(tmp_path, XDG_CACHE_HOME=str(tmp_path / "cache"))
    _long_index(ctx)
    transcript(ctx, "2.1.82", name="old", age=100)
    first = scan(ctx, cache=cache_for(ctx)).stores[0].index
    assert first is not None and not first.byte_truncated
    transcript(ctx, "2.1.90", name="new")
    second = scan(ctx, cache=cache_for(ctx)).stores[0].index
    assert second is not None and second.byte_truncated


@pytest.mark.parametrize(("version", "cut"), [("2.1.82", False), ("2.1.83", True)])
def test_scan_json_says_the_version_it_followed(tmp_path: Path, version: str, cut: bool) -> None:
    from memtui.core.scan.json_text import scan_json_text

    ctx = home(tmp_path)
    _long_index(ctx)
    path = transcript(ctx, version)
    data = json.loads(scan_json_text(ctx).text)
    assert data["claude_code_version"] == {
        "version": version, "rules": version, "source": f"transcript {path.name}"}
    assert data["stores"][0]["index"]["byte_truncated"] is cut


def test_scan_json_says_an_unknown_version_follows_the_newest_rules(tmp_path: Path) -> None:
    from memtui.core.scan.json_text import scan_json_text

    data = json.loads(scan_json_text(home(tmp_path)).text)
    assert data["claude_code_version"] == {
        "version": None, "rules": ".".join(map(str, NEWEST_KNOWN)), "source": "unknown"}


def test_the_context_view_cuts_by_the_version_too(tmp_path: Path) -> None:
    from memtui.core.recall.context import session_context

    ctx = home(tmp_path)
    _long_index(ctx)
    transcript(ctx, "2.1.82")
    old = next(p for p in session_context(ctx).parts if p.kind == "memory_index")
    assert old.note is None and len(old.text.splitlines()) == 150
    ctx_new = home(tmp_path / "b")
    _long_index(ctx_new)
    transcript(ctx_new, "2.1.83")
    new = next(p for p in session_context(ctx_new).parts if p.kind == "memory_index")
    assert new.note is not None and new.note.startswith("cut at line")
