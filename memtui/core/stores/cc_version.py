"""Which Claude Code version's rules memtui follows, and where it learnt the version
([the rule](../../../docs/claude-code-rules.md#the-claude-code-version)).

In order: ``--claude-code-version`` (the user's word); the ``version`` Claude Code writes into
every transcript record, read from the first lines of this project's newest transcript (a
transcript is never read further); ``claude --version`` when ``claude`` is on the PATH (at most
:data:`CLI_TIMEOUT` seconds); else unknown, and the newest rules memtui knows apply
(:data:`NEWEST_KNOWN`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memtui.core.fileread import parse_json, read_first_lines

Version = tuple[int, int, int]
NEWEST_KNOWN: Version = (2, 1, 240)
"""The newest Claude Code version whose rules memtui implements (its CHANGELOG was read up to
it): an unknown or newer version gets these."""
CLI_TIMEOUT = 3.0
PROBE_LINES = 12
TRANSCRIPT_SUFFIX = ".jsonl"
_VERSION = re.compile(r"(\d{1,4})\.(\d{1,4})\.(\d{1,6})")

# The versions the rules memtui follows changed at (docs/claude-code-rules.md).
MODIFIED_TIMESTAMPS: Version = (2, 1, 75)
INDEX_BYTE_CAP: Version = (2, 1, 83)
SAFE_MODE: Version = (2, 1, 169)
PROJECT_DIR_NAME: Version = (2, 1, 234)
PROJECT_MEMORY_DIRECTORY: Version = (2, 1, 89)
"""``autoMemoryDirectory`` from project settings, for a trusted workspace: 2.1.88's code
ignores it, the memory docs now take it from every scope; the first version that does is not
in the CHANGELOG, so memtui takes it from every version after 2.1.88."""


def parse_version(text: str) -> Version | None:
    """``2.1.88`` (also inside ``2.1.88 (Claude Code)``) as a tuple, or None."""
    match = _VERSION.search(text)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def version_text(version: Version) -> str:
    return ".".join(str(part) for part in version)


@dataclass(frozen=True)
class ClaudeCodeVersion:
    """The version whose rules apply, and how memtui knows it."""

    version: Version | None
    source: str
    """``--claude-code-version``, ``transcript <path>``, ``claude --version``, or ``unknown``."""

    @property
    def rules(self) -> Version:
        """The version whose rules memtui applies: the known one, capped at the newest memtui
        implements; the newest when unknown."""
        if self.version is None:
            return NEWEST_KNOWN
        return min(self.version, NEWEST_KNOWN)

    def at_least(self, version: Version) -> bool:
        return self.rules >= version

    def to_json(self) -> dict[str, str | None]:
        """``scan --json``'s ``claude_code_version``: the version found (None: unknown), the
        version whose rules memtui followed, and where it learnt the version."""
        return {
            "version": version_text(self.version) if self.version is not None else None,
            "rules": version_text(self.rules),
            "source": self.source,
        }

    def short(self) -> str:
        """The header's words: ``CC 2.1.88``, or ``CC ? (2.1.240 rules)`` when unknown."""
        rules = version_text(self.rules)
        if self.version is None:
            return f"CC version unknown ({rules} rules)"
        known = version_text(self.version)
        return f"CC {known}" if known == rules else f"CC {known} ({rules} rules)"

    def describe(self) -> str:
        rules = version_text(self.rules)
        if self.version is None:
            return f"Claude Code version unknown: following {rules}'s rules"
        known = version_text(self.version)
        newer = ("" if self.version <= NEWEST_KNOWN
                 else f" (newer than memtui knows: {rules}'s rules)")
        return f"Claude Code {known} ({self.source}){newer}"


def newest_transcript(directory: Path) -> str | None:
    """The newest ``*.jsonl`` directly in ``directory`` by mtime (None when there is none)."""
    best: tuple[float, str] | None = None
    try:
        with os.scandir(directory) as it:
            for entry in it:
                if not entry.name.endswith(TRANSCRIPT_SUFFIX):
                    continue
                try:
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    mtime = entry.stat(follow_symlinks=False).st_mtime
                except OSError:
                    continue
                if best is None or (mtime, entry.path) > best:
                    best = (mtime, entry.path)
    except OSError:
        return None
    return None if best is None else best[1]


def transcript_version(path: str) -> Version | None:
    """The ``version`` of the first records of a transcript that name one."""
    for raw in read_first_lines(path, PROBE_LINES):
        record, _problem = parse_json(raw)
        if isinstance(record, dict) and isinstance(record.get("version"), str):
            found = parse_version(record["version"])
            if found is not None:
                return found
    return None


_ASKED: dict[tuple[str, int, int], Version | None] = {}
"""``claude --version`` answers, by the executable's real path and stat: asked once a process
while the executable is unchanged."""


def cli_version(env: Mapping[str, str]) -> Version | None:
    """What ``claude --version`` prints, when ``claude`` is on the PATH and answers in time."""
    import shutil  # not on every command's path: it imports bz2 and lzma

    executable = shutil.which("claude", path=env.get("PATH"))
    if executable is None:
        return None
    try:
        st = os.stat(executable)
    except OSError:
        return None
    key = (os.path.realpath(executable), st.st_mtime_ns, st.st_size)
    if key not in _ASKED:
        _ASKED[key] = _ask(executable, env)
    return _ASKED[key]


def _ask(executable: str, env: Mapping[str, str]) -> Version | None:
    import subprocess

    try:
        done = subprocess.run([executable, "--version"], capture_output=True, text=True,
                              timeout=CLI_TIMEOUT, stdin=subprocess.DEVNULL, check=False,
                              env=dict(env))
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_version(done.stdout) if done.returncode == 0 else None


def detect_version(
    override: str | None,
    sessions_root: Path,
    env: Mapping[str, str],
    *,
    ask_cli: bool = True,
) -> ClaudeCodeVersion:
    """The Claude Code version (see the module's doc); ``sessions_root`` is the project's
    directory under ``<CC home>/projects``. An override that is no version is refused
    (``ValueError``)."""
    if override is not None:
        version = parse_version(override)
        if version is None:
            raise ValueError(f"--claude-code-version {override!r} is no version (e.g. 2.1.88)")
        return ClaudeCodeVersion(version, "--claude-code-version")
    transcript = newest_transcript(sessions_root)
    if transcript is not None:
        version = transcript_version(transcript)
        if version is not None:
            return ClaudeCodeVersion(version, f"transcript {Path(transcript).name}")
    if ask_cli:
        version = cli_version(env)
        if version is not None:
            return ClaudeCodeVersion(version, "claude --version")
    return ClaudeCodeVersion(None, "unknown")
