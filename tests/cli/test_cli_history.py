"""``memtui history``: record (by hand and from Claude Code's hook), timelines, diff, restore
asked like ``delete``, install-hook / remove-hook on a real settings file."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from helpers import SmallHome, build_small_home

from memtui.cli import main

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SmallHome:
    built = build_small_home(tmp_path)
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(built.data))
    monkeypatch.setenv("HOME", str(built.root))
    return built


def args_of(home: SmallHome) -> list[str]:
    return ["--claude-home", str(home.claude_home), "--project", str(home.project),
            "--agent-memory-home", str(home.root / ".agent-memory")]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def hook_stdin(monkeypatch: pytest.MonkeyPatch, payload: dict[str, object]) -> None:
    stream = io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode()))
    monkeypatch.setattr(sys, "stdin", stream)


def test_record_is_quiet_and_the_timeline_shows_each_version(
        home: SmallHome, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, *args_of(home), "history", "record") == (0, "", "")
    target = home.auto / "testing.md"
    target.write_text("changed\n")
    assert run(capsys, *args_of(home), "history", "record")[0] == 0
    code, out, _err = run(capsys, *args_of(home), "history", str(target), "--json")
    assert code == 0
    versions = json.loads(out)["versions"]
    assert [v["status"] for v in versions] == ["changed", "added"]
    code, out, _err = run(capsys, *args_of(home), "history", "auto")
    assert code == 0 and "testing.md" in out
    code, out, _err = run(capsys, *args_of(home), "history", "diff", str(target),
                          versions[1]["rev"][:12], versions[0]["rev"])
    assert code == 0 and "+changed" in out


def test_the_hook_attributes_the_file_to_its_session(
        home: SmallHome, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(capsys, *args_of(home), "history", "record")[0] == 0
    target = home.auto / "payments.md"
    other = home.agent / "checklist.md"
    target.write_text("the agent wrote this\n")
    other.write_text("someone else wrote this\n")
    hook_stdin(monkeypatch, {
        "session_id": "2afc901a-7c1e", "transcript_path": "/t.jsonl",
        "cwd": str(home.project), "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": str(target), "content": "the agent wrote this\n"},
        "tool_response": {"filePath": str(target), "success": True}})
    code, out, err = run(capsys, "--claude-home", str(home.claude_home),
                         "--agent-memory-home", str(home.root / ".agent-memory"),
                         "history", "record", "--hook")
    assert (code, out, err) == (0, "", "")
    code, out, _ = run(capsys, *args_of(home), "history", str(target), "--json")
    newest = json.loads(out)["versions"][0]["attribution"]
    assert (newest["kind"], newest["session_id"], newest["tool"], newest["file"]) == (
        "session", "2afc901a-7c1e", "Write", str(target))
    code, out, _ = run(capsys, *args_of(home), "history", str(other), "--json")
    assert json.loads(out)["versions"][0]["attribution"]["kind"] == "unknown"


def test_restore_asks_and_refuses_without_a_terminal_then_applies_with_yes(
        home: SmallHome, capsys: pytest.CaptureFixture[str]) -> None:
    target = home.auto / "testing.md"
    original = target.read_bytes()
    run(capsys, *args_of(home), "history", "record")
    target.unlink()
    run(capsys, *args_of(home), "history", "record")
    code, out, _ = run(capsys, *args_of(home), "history", "--json")
    deleted = json.loads(out)["deleted"]
    assert [d["rel"] for d in deleted] == ["testing.md"]
    spec = f"{target}@{deleted[0]['restore_rev'][:12]}"
    code, out, err = run(capsys, *args_of(home), "history", "restore", spec)
    assert code == 1 and "re-run with --yes" in err and "added" in out
    assert not target.exists()
    code, out, err = run(capsys, *args_of(home), "history", "restore", spec, "--yes")
    assert code == 0, err
    assert target.read_bytes() == original
    op_id = out.split("memtui undo ")[-1].strip()
    assert run(capsys, *args_of(home), "undo", op_id, "--yes")[0] == 0
    assert not target.exists()
    code, out, _ = run(capsys, *args_of(home), "history", str(target), "--json")
    kinds = [v["attribution"]["kind"] for v in json.loads(out)["versions"]]
    assert kinds[:2] == ["memtui", "memtui"]  # the restore and its undo, recorded


def test_install_then_remove_hook_leaves_the_settings_byte_identical(
        home: SmallHome, capsys: pytest.CaptureFixture[str]) -> None:
    settings = home.claude_home / "settings.json"
    original = (json.dumps({"model": "opus", "hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "say done"}]}]}}, indent=2) + "\n").encode()
    settings.write_bytes(original)
    code, out, err = run(capsys, *args_of(home), "history", "install-hook")
    assert code == 1 and "history record --hook" in out and settings.read_bytes() == original
    assert run(capsys, *args_of(home), "history", "install-hook", "--yes")[0] == 0
    value = json.loads(settings.read_text())
    assert value["hooks"]["PostToolUse"][0]["matcher"] == "Write|Edit|MultiEdit"
    assert value["hooks"]["Stop"] == json.loads(original)["hooks"]["Stop"]
    code, _out, err = run(capsys, *args_of(home), "history", "install-hook", "--yes")
    assert code == 1 and "already installed" in err
    assert run(capsys, *args_of(home), "history", "remove-hook", "--yes")[0] == 0
    assert settings.read_bytes() == original


def test_a_settings_file_that_is_not_json_is_refused_untouched(
        home: SmallHome, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    settings = tmp_path / "elsewhere.json"
    settings.write_bytes(b'{"model": "opus"')
    code, _out, err = run(capsys, *args_of(home), "history", "install-hook",
                          "--settings", str(settings), "--yes")
    assert code == 1 and "not valid JSON" in err
    assert settings.read_bytes() == b'{"model": "opus"'


def test_without_a_history_the_commands_say_so(
        home: SmallHome, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, *args_of(home), "history")
    assert code == 1 and "history record" in err
    code, _out, err = run(capsys, *args_of(home), "history", "restore", "nope")
    assert code == 2


def git_objects(home: SmallHome) -> bytes:
    import subprocess

    return subprocess.run(["git", "--git-dir", str(home.data / "history" / "repo.git"),
                           "cat-file", "--batch-all-objects", "--batch"],
                          check=True, capture_output=True).stdout


def test_gc_prunes_to_the_configs_cap_and_says_what_it_removed(
        home: SmallHome, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    target = home.auto / "testing.md"
    for text in ("one\n", "two\n"):
        assert run(capsys, *args_of(home), "history", "record")[0] == 0
        target.write_text(text)
    assert run(capsys, *args_of(home), "history", "record")[0] == 0
    config = tmp_path / "config.toml"
    config.write_text("[history]\nmax_age_days = 0\nmax_size_mb = 0.0001\n")
    monkeypatch.setenv("MEMTUI_CONFIG", str(config))
    code, out, err = run(capsys, *args_of(home), "history", "gc", "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["limits"] == {"max_age_days": None, "max_bytes": 104}
    assert len(report["removed"]) == 2 and report["kept"] == 1
    assert all("over the size cap" in v["reason"] for v in report["removed"])
    assert {"bytes_before", "bytes_after", "freed"} <= set(report)
    code, out, _ = run(capsys, *args_of(home), "history", str(target), "--json")
    versions = json.loads(out)["versions"]
    assert len(versions) == 1 and versions[0]["pruned_before"] == 2
    code, out, err = run(capsys, *args_of(home), "history", "gc")
    assert code == 0 and "removed 0 versions, kept 1" in out and "no age limit" in out
    config.write_text("[history]\nmax_size_mb = -3\n")
    code, out, err = run(capsys, *args_of(home), "history", "gc")
    assert code == 0 and "history.max_size_mb" in err and "a number of 0 or more" in err


def test_purge_shows_what_goes_asks_and_with_yes_leaves_no_byte_of_it(
        home: SmallHome, capsys: pytest.CaptureFixture[str]) -> None:
    secret = b"ghp_0123456789abcdefABCDEF0123456789abcd"
    target = home.auto / "leak.md"
    target.write_bytes(b"token: " + secret + b"\n")
    assert run(capsys, *args_of(home), "history", "record")[0] == 0
    target.write_bytes(b"token: (removed)\n")
    assert run(capsys, *args_of(home), "history", "record")[0] == 0
    code, out, err = run(capsys, *args_of(home), "history", "purge", str(target))
    assert code == 1 and "re-run with --yes" in err
    assert "2 versions, 2 distinct contents" in out
    assert "the next recording records it again" in out
    assert secret in git_objects(home)  # nothing changed without --yes
    code, out, err = run(capsys, *args_of(home), "history", "purge", str(target), "--yes",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["versions_dropped"] == 1  # the first held every other file too
    assert secret not in git_objects(home)
    assert run(capsys, *args_of(home), "history", "purge", "a", "b")[0] == 2


def test_record_prunes_by_the_config_once_its_daily_check_is_due(
        home: SmallHome, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    target = home.auto / "testing.md"
    assert run(capsys, *args_of(home), "history", "record")[0] == 0
    target.write_text("one\n")
    assert run(capsys, *args_of(home), "history", "record")[0] == 0
    config = tmp_path / "config.toml"
    config.write_text("[history]\nmax_size_mb = 0.0001\n")
    monkeypatch.setenv("MEMTUI_CONFIG", str(config))
    target.write_text("two\n")
    assert run(capsys, *args_of(home), "history", "record") == (0, "", "")
    code, out, _ = run(capsys, *args_of(home), "history", str(target), "--json")
    assert code == 0
    assert len(json.loads(out)["versions"]) == 3, "not checked yet: the check is daily"
    check = home.data / "history" / "gc.json"
    check.write_text(json.dumps({"checked": 0}))  # the last check long ago
    target.write_text("three\n")
    assert run(capsys, *args_of(home), "history", "record") == (0, "", "")
    code, out, _ = run(capsys, *args_of(home), "history", str(target), "--json")
    versions = json.loads(out)["versions"]
    assert code == 0
    assert len(versions) == 1 and versions[0]["pruned_before"] == 3
    assert json.loads(check.read_text())["checked"] > 0
