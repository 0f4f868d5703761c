"""The Claude Code hook that records a version after the agent writes a file, and the input
Claude Code gives it (docs/claude-code-rules.md#the-history-hook).

Installed in a settings file's ``hooks``: a ``PostToolUse`` group whose ``matcher`` is
``Write|Edit|MultiEdit`` running ``memtui history record --hook``. Claude Code runs it after each
such tool call with a JSON object on stdin (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, ``tool_name``, ``tool_input`` with ``file_path``, ``tool_response``). The
settings are edited as JSON; every other key is kept, in its order; a file CC wrote
(``JSON.stringify`` with 2 spaces) comes back byte for byte when the hook is removed again.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from memtui.core.fileread import parse_json
from memtui.core.history.attribution import Attribution, clean

HOOK_EVENT = "PostToolUse"
HOOK_MATCHER = "Write|Edit|MultiEdit"
HOOK_MARK = "history record --hook"
"""What identifies memtui's hook among the commands of a settings file."""
HOOK_INPUT_CAP = 16 * 1024 * 1024
"""A Write's input holds the whole content it wrote: read this much of stdin at most."""


class SettingsProblem(Exception):
    """The settings file cannot be edited safely: the reason; the file is left untouched."""


@dataclass(frozen=True)
class HookInput:
    """What memtui uses of a hook's input."""

    session_id: str | None
    tool_name: str | None
    file_path: str | None
    cwd: str | None
    event: str | None

    def attribution(self) -> Attribution:
        return Attribution.session(self.session_id, self.tool_name, self.file_path)


def parse_hook_input(data: bytes) -> tuple[HookInput | None, str | None]:
    """The hook input's fields, or None and why it is no hook input (values cut short and
    stripped of control characters; a field of another type is absent)."""
    value, problem = parse_json(data)
    if problem is not None:
        return None, f"the hook's input is not JSON: {problem}"
    if not isinstance(value, dict):
        return None, "the hook's input is not a JSON object"

    def text(obj: Any, name: str) -> str | None:
        item = obj.get(name) if isinstance(obj, dict) else None
        return clean(item) if isinstance(item, str) and item else None

    tool_input = value.get("tool_input")
    file_path = text(tool_input, "file_path") or text(tool_input, "notebook_path")
    return HookInput(text(value, "session_id"), text(value, "tool_name"), file_path,
                     text(value, "cwd"), text(value, "hook_event_name")), None


def hook_command(program: str) -> str:
    """The command the hook runs (``program``: how memtui is started, quoted for the shell)."""
    return f"{shlex.quote(program)} {HOOK_MARK}"


def _parse_settings(data: bytes | None) -> tuple[dict[str, Any], str | None, bool]:
    """(settings, indent, ends with a newline); SettingsProblem when they cannot be edited."""
    if data is None or not data.strip():
        return {}, "  ", True
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                duplicates.append(key)
            out[key] = value
        return out

    value, problem = parse_json(data, object_pairs_hook=pairs)
    if problem is not None:
        raise SettingsProblem(f"not valid JSON ({problem}); left untouched")
    if not isinstance(value, dict):
        raise SettingsProblem("not a JSON object; left untouched")
    if duplicates:
        raise SettingsProblem(f"key {clean(duplicates[0])!r} appears twice; left untouched")
    text = data.decode("utf-8", "replace")
    return value, _indent_of(text), text.endswith("\n")


def _indent_of(text: str) -> str | None:
    """The indent of the file's second line (None: all on one line)."""
    lines = text.splitlines()
    if len(lines) < 2:
        return None
    second = lines[1]
    return second[: len(second) - len(second.lstrip(" \t"))] or None


def _dump(settings: dict[str, Any], indent: str | None, newline: bool) -> bytes:
    if indent is None:
        text = json.dumps(settings, ensure_ascii=False, separators=(",", ":"))
    else:
        text = json.dumps(settings, ensure_ascii=False, indent=indent)
    return (text + ("\n" if newline else "")).encode("utf-8")


def reformats(data: bytes | None) -> bool:
    """Whether editing the file also changes how its other keys are written (a file not in
    the JSON layout memtui writes back)."""
    if data is None or not data.strip():
        return False
    settings, indent, newline = _parse_settings(data)
    return _dump(settings, indent, newline) != data


def _groups(settings: dict[str, Any]) -> list[Any] | None:
    hooks = settings.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise SettingsProblem('"hooks" is not an object; left untouched')
    groups = hooks.get(HOOK_EVENT)
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise SettingsProblem(f'"hooks.{HOOK_EVENT}" is not a list; left untouched')
    return groups


def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and (
        HOOK_MARK in hook["command"])


def installed(data: bytes | None) -> bool:
    for group in _groups(_parse_settings(data)[0]) or []:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list) and any(_is_ours(h) for h in inner):
            return True
    return False


def with_hook(data: bytes | None, command: str) -> bytes | None:
    """The settings with memtui's hook added (None: it is there already)."""
    settings, indent, newline = _parse_settings(data)
    if installed(data):
        return None
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsProblem('"hooks" is not an object; left untouched')
    groups = hooks.setdefault(HOOK_EVENT, [])
    if not isinstance(groups, list):
        raise SettingsProblem(f'"hooks.{HOOK_EVENT}" is not a list; left untouched')
    groups.append({"matcher": HOOK_MATCHER, "hooks": [{"type": "command", "command": command}]})
    return _dump(settings, indent, newline)


def without_hook(data: bytes | None) -> bytes | None:
    """The settings without memtui's hook (and without the group, event and ``hooks`` object
    it leaves empty); None when it is not installed."""
    if data is None or not installed(data):
        return None
    settings, indent, newline = _parse_settings(data)
    groups = _groups(settings) or []
    kept: list[Any] = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list) and any(_is_ours(h) for h in inner):
            rest = [h for h in inner if not _is_ours(h)]
            if not rest:
                continue
            group = {**group, "hooks": rest}
        kept.append(group)
    hooks = settings["hooks"]
    if kept:
        hooks[HOOK_EVENT] = kept
    else:
        del hooks[HOOK_EVENT]
    if not hooks:
        del settings["hooks"]
    return _dump(settings, indent, newline)
