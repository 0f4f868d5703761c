"""The Claude Code hook: its input, and the settings edit that installs and removes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.core.history.hook import (
    HOOK_EVENT,
    HOOK_MATCHER,
    SettingsProblem,
    hook_command,
    parse_hook_input,
    with_hook,
    without_hook,
)
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.history import plan_hook
from memtui.core.write.recovery import undo_operation

COMMAND = hook_command("/opt/memtui/bin/memtui")
CC_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo ran"}]}]},
    "autoMemoryDirectory": "~/notes/ünïcode",
}


def cc_bytes(settings: dict[str, object]) -> bytes:
    """A settings file as Claude Code writes it (``JSON.stringify(value, null, 2)``)."""
    return (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode()


def test_the_hook_input_gives_session_tool_and_file() -> None:
    data = json.dumps({
        "session_id": "2afc901a-1111", "transcript_path": "/x.jsonl", "cwd": "/src/shop",
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": "/m/testing.md", "content": "x" * 1000},
        "tool_response": {"filePath": "/m/testing.md", "success": True},
    }).encode()
    hook, problem = parse_hook_input(data)
    assert problem is None and hook is not None
    assert (hook.session_id, hook.tool_name, hook.file_path, hook.cwd) == (
        "2afc901a-1111", "Write", "/m/testing.md", "/src/shop")
    who = hook.attribution()
    assert who.kind == "session" and who.session_id == "2afc901a-1111"


def test_hostile_hook_input_is_cleaned_or_refused() -> None:
    hook, _ = parse_hook_input(json.dumps({"session_id": "a\nMemtui-Kind: memtui\x1b[2J",
                                           "tool_input": {"file_path": 7}}).encode())
    assert hook is not None and hook.session_id is not None
    assert "\n" not in hook.session_id and "\x1b" not in hook.session_id
    assert hook.file_path is None
    for bad in (b"", b"[1]", b"{", b"\xff\xfe"):
        assert parse_hook_input(bad)[0] is None


def test_install_then_remove_gives_back_the_same_bytes() -> None:
    original = cc_bytes(CC_SETTINGS)
    installed = with_hook(original, COMMAND)
    assert installed is not None
    value = json.loads(installed)
    assert value["model"] == "opus" and list(value) == list(CC_SETTINGS)
    groups = value["hooks"][HOOK_EVENT]
    assert groups[0] == CC_SETTINGS["hooks"]["PostToolUse"][0]  # type: ignore[index]
    assert groups[1] == {"matcher": HOOK_MATCHER,
                         "hooks": [{"type": "command", "command": COMMAND}]}
    assert with_hook(installed, COMMAND) is None  # once
    assert without_hook(installed) == original
    assert without_hook(original) is None


def test_install_into_a_file_without_hooks_and_remove_again() -> None:
    for original in (cc_bytes({"model": "opus"}), b'{"model":"opus"}', b"{\n    \"a\": 1\n}"):
        installed = with_hook(original, COMMAND)
        assert installed is not None
        assert without_hook(installed) == original


@pytest.mark.parametrize("bad", [b"{ not json", b"[]", b'{"hooks": []}',
                                 b'{"hooks": {"PostToolUse": {}}}', b'{"a": 1, "a": 2}'])
def test_settings_memtui_cannot_edit_safely_are_refused(bad: bytes) -> None:
    with pytest.raises(SettingsProblem, match="left untouched"):
        with_hook(bad, COMMAND)


def test_installing_is_one_journaled_undoable_operation(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = cc_bytes(CC_SETTINGS)
    settings.write_bytes(original)
    journal = Journal(tmp_path / "journal")
    plan = plan_hook(settings, COMMAND, install=True)
    assert [d.status for d in plan.diff()] == ["changed"]
    applied = apply(plan, journal)
    assert COMMAND in settings.read_text()
    undo_operation(journal, applied.record)
    assert settings.read_bytes() == original
    apply(plan_hook(settings, COMMAND, install=True), journal)
    apply(plan_hook(settings, COMMAND, install=False), journal)
    assert settings.read_bytes() == original


def test_a_malformed_settings_file_is_refused_untouched(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_bytes(b'{"model": "opus",,}')
    with pytest.raises(EditRefused, match="not valid JSON"):
        plan_hook(settings, COMMAND, install=True)
    assert settings.read_bytes() == b'{"model": "opus",,}'


def test_a_missing_settings_file_is_created_with_the_hook(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    apply(plan_hook(settings, COMMAND, install=True), Journal(tmp_path / "journal"))
    assert json.loads(settings.read_text())["hooks"][HOOK_EVENT][0]["matcher"] == HOOK_MATCHER
