"""Team memory as Claude Code would push it (docs/claude-code-rules.md#team-push-rules): every
file a key, files over 250,000 bytes skipped, a file holding a secret or with an invalid key
refused, the rest in upload batches of at most 200,000 bytes, each with its ``sha256:`` checksum.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memtui.core.fileread import read_file
from memtui.core.secrets.scanner import find_secrets
from memtui.core.team.keys import key_problem, path_problem

MAX_FILE_BYTES = 250_000
MAX_BATCH_BYTES = 200_000
READ_CAP = MAX_FILE_BYTES + 1
Fate = Literal["push", "skipped", "refused"]


@dataclass(frozen=True)
class SecretHit:
    rule: str
    line: int
    masked: str


@dataclass
class TeamFile:
    key: str
    fate: Fate
    reason: str = ""
    """Why it is skipped or refused, in words (``over 250,000 bytes``, ``secret (github-pat)``)."""
    size: int = 0
    checksum: str | None = None
    secrets: list[SecretHit] = field(default_factory=list)


@dataclass
class PushPlan:
    team_dir: Path
    files: list[TeamFile]
    batches: list[list[str]]
    """The keys of each upload batch, in key order, each at most 200,000 bytes (a file between
    200,000 and 250,000 bytes goes alone)."""

    @property
    def refused(self) -> list[TeamFile]:
        return [f for f in self.files if f.fate == "refused"]


def checksum(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def team_keys(team_dir: Path) -> list[str]:
    """Every file under ``team_dir`` (links too: their fate is decided by where they lead),
    without descending into linked directories; sorted."""
    keys: list[str] = []
    for dirpath, dirnames, filenames in os.walk(team_dir, followlinks=False):
        base = Path(dirpath).relative_to(team_dir)
        for name in list(dirnames):
            if os.path.islink(os.path.join(dirpath, name)):
                dirnames.remove(name)
                filenames.append(name)
        for name in filenames:
            keys.append((base / name).as_posix())
    return sorted(keys)


def _judge(team_dir: Path, key: str) -> TeamFile:
    problem = key_problem(key) or path_problem(team_dir, key)
    if problem is not None:
        return TeamFile(key, "refused", f"invalid key ({problem})")
    path = team_dir / key
    try:
        st = os.stat(path)
    except OSError as err:
        return TeamFile(key, "refused", f"cannot read ({err.strerror or err})")
    if not stat.S_ISREG(st.st_mode):
        return TeamFile(key, "refused", "invalid key (not a regular file)")
    if st.st_size > MAX_FILE_BYTES:
        return TeamFile(key, "skipped", f"over {MAX_FILE_BYTES:,} bytes", st.st_size)
    result = read_file(path, READ_CAP)
    if not result.readable:
        reason = "; ".join(result.problems) or "cannot read"
        return TeamFile(key, "refused", f"cannot read ({reason})")
    return _content_fate(key, result.data)


def fate_of_bytes(team_dir: Path, key: str, data: bytes) -> TeamFile:
    """The fate ``data`` would have pushed as ``key`` of ``team_dir``: the same checks as a
    file on disk (the key, the size, secrets), for a file about to be written."""
    problem = key_problem(key) or path_problem(team_dir, key)
    if problem is not None:
        return TeamFile(key, "refused", f"invalid key ({problem})")
    return _content_fate(key, data)


def _content_fate(key: str, data: bytes) -> TeamFile:
    if len(data) > MAX_FILE_BYTES:  # a file read from disk: it grew since the stat
        return TeamFile(key, "skipped", f"over {MAX_FILE_BYTES:,} bytes", len(data))
    found = find_secrets(data.decode("utf-8", "replace"), path=key)
    hits = [SecretHit(f.rule, f.line, f.masked) for f in found]
    if hits:
        rules = ", ".join(dict.fromkeys(h.rule for h in hits))
        return TeamFile(key, "refused", f"secret ({rules})", len(data), checksum(data), hits)
    return TeamFile(key, "push", "", len(data), checksum(data))


def plan_push(team_dir: Path) -> PushPlan:
    """Each file's fate and the upload batches, read from disk (nothing is sent anywhere)."""
    files: list[TeamFile] = []
    batches: list[list[str]] = []
    current: list[str] = []
    current_bytes = 0
    for key in team_keys(team_dir) if team_dir.is_dir() else []:
        item = _judge(team_dir, key)
        files.append(item)
        if item.fate != "push":
            continue
        if current and current_bytes + item.size > MAX_BATCH_BYTES:
            batches.append(current)
            current, current_bytes = [], 0
        current.append(key)
        current_bytes += item.size
    if current:
        batches.append(current)
    return PushPlan(team_dir, files, batches)
