"""Claude Code settings files and environment switches, as far as memory locations need them."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import parse_json, read_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

POLICY_SETTINGS_BY_PLATFORM = {
    "darwin": Path("/Library/Application Support/ClaudeCode/managed-settings.json"),
    "win32": Path("C:/ProgramData/ClaudeCode/managed-settings.json"),
}
POLICY_SETTINGS = POLICY_SETTINGS_BY_PLATFORM.get(
    sys.platform, Path("/etc/claude-code/managed-settings.json")
)
"""Where Claude Code reads managed (policy) settings on this platform."""

TRUTHY = {"1", "true", "yes", "on"}
FALSY = {"0", "false", "no", "off"}


def env_truthy(env: Mapping[str, str], name: str) -> bool:
    value = env.get(name)
    return value is not None and value.strip().lower() in TRUTHY


def env_defined_falsy(env: Mapping[str, str], name: str) -> bool:
    value = env.get(name)
    return value is not None and value.strip().lower() in FALSY


@dataclass
class SettingsFile:
    """One settings file: its source name, path, parsed keys and any problem reading it."""

    source: str
    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None
    exists: bool = False


def read_settings(source: str, path: Path) -> SettingsFile:
    """Read a settings JSON file; a missing file is empty, a broken one is empty with a problem."""
    result = SettingsFile(source=source, path=path)
    read = read_file(path)
    if read.missing:
        return result
    result.exists = True
    if not read.readable or not read.complete:
        result.problem = f"{source} settings {path} unreadable: {'; '.join(read.problems)}"
        return result
    try:
        text = read.data.decode("utf-8")
    except UnicodeDecodeError as err:
        result.problem = f"{source} settings {path} unreadable: invalid UTF-8 at byte {err.start}"
        return result
    data, problem = parse_json(text)
    if problem is not None:
        result.problem = f"{source} settings {path} are not valid JSON: {problem}"
        return result
    if not isinstance(data, dict):
        result.problem = f"{source} settings {path} are not a JSON object"
        return result
    result.data = data
    return result


@dataclass
class SettingsSet:
    """The settings files CC reads, highest precedence first."""

    policy: SettingsFile
    local: SettingsFile
    project: SettingsFile
    user: SettingsFile

    @classmethod
    def load(cls, claude_home: Path, project: Path, policy_path: Path) -> SettingsSet:
        return cls(
            policy=read_settings("policy", policy_path),
            local=read_settings("local", project / ".claude" / "settings.local.json"),
            project=read_settings("project", project / ".claude" / "settings.json"),
            user=read_settings("user", claude_home / "settings.json"),
        )

    def in_precedence(self) -> list[SettingsFile]:
        return [self.policy, self.local, self.project, self.user]

    def problems(self) -> list[str]:
        return [f.problem for f in self.in_precedence() if f.problem]

    def first(self, key: str, *, trusted_only: bool = False) -> tuple[Any, SettingsFile] | None:
        """The highest-precedence value of ``key``; ``trusted_only`` skips the checked-in file."""
        for settings in self.in_precedence():
            if trusted_only and settings is self.project:
                continue
            if key in settings.data:
                return settings.data[key], settings
        return None
