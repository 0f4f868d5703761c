"""A scan cache: what was read from a file, reused while the file's stat is unchanged.

Keys are absolute paths; an entry is valid only while size, mtime, ctime and inode all match
(any write changes ctime). Like git's index, entries for files modified in the last few seconds
are not stored ("racily clean": a second write within the timestamp granularity could keep the
same stat). Payloads are plain values (marshal), so a corrupt or foreign cache is simply ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CACHE_VERSION = 3
RACY_SECONDS = 3.0

StatKey = tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def cache_dir(env: Mapping[str, str], home: Path) -> Path:
    base = env.get("XDG_CACHE_HOME") or str(home / ".cache")
    return Path(base) / "memtui"


class ScanCache:
    """Per-kind maps of path → (stat key, payload), loaded once and saved when changed."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._old: dict[str, dict[str, tuple[StatKey, Any]]] = {}
        self._new: dict[str, dict[str, tuple[StatKey, Any]]] = {}
        self._dirty = False
        self._now = time.time()
        if path is not None:
            self._old = self._load(path)

    @classmethod
    def for_scan(cls, env: Mapping[str, str], home: Path, *identity: Path) -> ScanCache:
        """The cache file for one CC home and project; ``MEMTUI_NO_CACHE=1`` disables it."""
        if env.get("MEMTUI_NO_CACHE", "").strip() not in ("", "0"):
            return cls(None)
        digest = hashlib.sha256("\0".join(str(p) for p in identity).encode()).hexdigest()[:16]
        return cls(cache_dir(env, home) / f"scan-{digest}.marshal")

    @staticmethod
    def _load(path: Path) -> dict[str, dict[str, tuple[StatKey, Any]]]:
        try:
            data = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(data, tuple) or len(data) != 2 or data[0] != CACHE_VERSION:
            return {}
        payload = data[1]
        return payload if isinstance(payload, dict) else {}

    def get(self, kind: str, path: str, st: os.stat_result) -> Any:
        """The payload stored for ``path`` if its stat still matches, else None."""
        entry = self._old.get(kind, {}).get(path)
        if entry is None:
            return None
        key = stat_key(st)
        if tuple(entry[0]) != key:
            return None
        self._new.setdefault(kind, {})[path] = entry
        return entry[1]

    def put(self, kind: str, path: str, st: os.stat_result, payload: Any) -> None:
        if self.path is None:
            return
        if self._now - st.st_mtime < RACY_SECONDS or self._now - st.st_ctime < RACY_SECONDS:
            return
        self._new.setdefault(kind, {})[path] = (stat_key(st), payload)
        self._dirty = True

    def save(self) -> None:
        """Write the entries used or added in this scan (others are dropped), atomically."""
        if self.path is None:
            return
        dropped = any(
            len(self._new.get(kind, {})) != len(entries) for kind, entries in self._old.items()
        )
        if not (self._dirty or dropped):
            return
        try:
            blob = marshal.dumps((CACHE_VERSION, self._new))
        except ValueError:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".scan-", suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)
