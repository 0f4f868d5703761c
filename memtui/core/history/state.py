"""What the last recording saw: each store's directories and files with their stat and blob
id, so a recording that finds every stat unchanged lists no directory, opens no file and does
not start git. Kept in ``state.json`` beside the repository (0o600), valid for the commit it
names: any other commit (a recording that died before saving it, a lost file) makes the state
be rebuilt from that commit's tree, every file then hashed again.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import parse_json, read_file
from memtui.core.history.files import StatKey
from memtui.core.history.paths import StoreRef

STATE_FILE = "state.json"
STATE_VERSION = 1
STATE_READ_CAP = 256 * 1024 * 1024


@dataclass
class FileState:
    """A recorded file: its stat when read (None: read it again next time), git mode and blob
    id."""

    key: StatKey | None
    mode: int
    sha: str

    def to_json(self) -> list[object]:
        return [list(self.key) if self.key else None, self.mode, self.sha]

    @classmethod
    def from_json(cls, data: object) -> FileState | None:
        if not isinstance(data, list) or len(data) != 3:
            return None
        key, mode, sha = data
        if not (isinstance(mode, int) and isinstance(sha, str) and len(sha) == 40):
            return None
        good_key = (isinstance(key, list) and len(key) == 5
                    and all(isinstance(k, int) for k in key))
        return cls(tuple(key) if good_key else None, mode, sha)


@dataclass
class StoreState:
    """A recorded store: its directories' stat keys, its files, its tree's id."""

    dirs: dict[str, StatKey] = field(default_factory=dict)
    files: dict[str, FileState] = field(default_factory=dict)
    tree: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"dirs": {k: list(v) for k, v in self.dirs.items()},
                "files": {k: v.to_json() for k, v in self.files.items()}, "tree": self.tree}

    @classmethod
    def from_json(cls, data: object) -> StoreState:
        out = cls()
        if not isinstance(data, dict):
            return out
        dirs, files, tree = data.get("dirs"), data.get("files"), data.get("tree")
        if isinstance(dirs, dict):
            for rel, key in dirs.items():
                if isinstance(key, list) and len(key) == 5 and all(isinstance(k, int) for k in key):
                    out.dirs[rel] = (key[0], key[1], key[2], key[3], key[4])
        if isinstance(files, dict):
            for rel, item in files.items():
                parsed = FileState.from_json(item)
                if parsed is not None:
                    out.files[rel] = parsed
        out.tree = tree if isinstance(tree, str) and len(tree) == 40 else None
        return out


@dataclass
class HistoryState:
    """The state of every store the history holds, for the commit ``head``."""

    head: str | None = None
    stores: dict[str, StoreState] = field(default_factory=dict)
    manifest: dict[str, StoreRef] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"version": STATE_VERSION, "head": self.head,
                "manifest": {k: v.to_json() for k, v in self.manifest.items()},
                "stores": {k: v.to_json() for k, v in self.stores.items()}}


def load_state(directory: Path) -> HistoryState | None:
    """The saved state, or None when there is none or it cannot be used."""
    result = read_file(directory / STATE_FILE, STATE_READ_CAP, follow_symlinks=False)
    if not result.readable or not result.complete:
        return None
    data, problem = parse_json(result.data)
    if problem is not None or not isinstance(data, dict) or data.get("version") != STATE_VERSION:
        return None
    head = data.get("head")
    state = HistoryState(head=head if isinstance(head, str) else None)
    manifest = data.get("manifest")
    if isinstance(manifest, dict):
        state.manifest = manifest_from_json(manifest)
    stores = data.get("stores")
    if isinstance(stores, dict):
        state.stores = {k: StoreState.from_json(v) for k, v in stores.items()
                        if k in state.manifest}
    return state


def manifest_from_json(data: dict[str, object]) -> dict[str, StoreRef]:
    out: dict[str, StoreRef] = {}
    for key, value in data.items():
        ref = StoreRef.from_json(key, value)
        safe = key and not key.startswith(("/", ".")) and ".." not in key.split("/")
        if ref is not None and safe:
            out[key] = ref
    return out


def manifest_bytes(manifest: dict[str, StoreRef]) -> bytes:
    return json.dumps({k: manifest[k].to_json() for k in sorted(manifest)}, indent=1,
                      ensure_ascii=False).encode("utf-8") + b"\n"


def save_state(directory: Path, state: HistoryState) -> None:
    """Write the state atomically (0o600)."""
    data = json.dumps(state.to_json(), separators=(",", ":"), ensure_ascii=False).encode()
    tmp = directory / f".{STATE_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, directory / STATE_FILE)
