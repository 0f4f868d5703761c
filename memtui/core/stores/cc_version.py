"""Which Claude Code version's rules memtui follows, and where it learnt the version
([the rule](../../../docs/claude-code-rules.md#the-claude-code-version)).

In order: ``--claude-code-version`` (the user's word); the ``version`` Claude Code writes into
every transcript record, read from the first lines of this project's newest transcript (a
transcript is never read further); ``claude --version`` when ``claude`` is on the PATH (at most
:data:`CLI_TIMEOUT` seconds); else unknown, and the newest rules memtui knows apply
(:data:`NEWEST_KNOWN`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memtui.core.claude_version import ClaudeCodeVersion, Version, parse_version
from memtui.core.fileread import parse_json, read_first_lines

CLI_TIMEOUT = 3.0
PROBE_LINES = 12
TRANSCRIPT_SUFFIX = ".jsonl"


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
