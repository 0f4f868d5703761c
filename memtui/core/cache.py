"""A scan cache: what was read from a file, reused while the file's stat is unchanged.

Keys are absolute paths; an entry is valid only while size, mtime, ctime and inode all match
(any write changes ctime). Like git's index, entries for files modified in the last few seconds
are not stored ("racily clean": a second write within the timestamp granularity could keep the
same stat). Payloads are plain values (marshal), so a corrupt or foreign cache is simply ignored.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

CACHE_VERSION = 6
RACY_SECONDS = 3.0

StatKey = tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def identity_digest(identity: tuple[Path, ...]) -> str:
    """16 hex digits naming a cache file (two CRCs: no secret to keep, and ``zlib`` loads in a
    fraction of the time ``hashlib`` takes; files that collided would share entries that are
    keyed by absolute path anyway)."""
    import zlib

    data = "\0".join(str(p) for p in identity).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def cache_enabled(env: Mapping[str, str]) -> bool:
    """False when ``MEMTUI_NO_CACHE`` is set to anything but empty or 0."""
    return env.get("MEMTUI_NO_CACHE", "").strip() in ("", "0")


def cache_dir(env: Mapping[str, str], home: Path) -> Path:
    base = env.get("XDG_CACHE_HOME") or str(home / ".cache")
    return Path(base) / "memtui"


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: a scan builds tens of thousands of acyclic objects,
    and each collection would walk all of them again (refcounting still frees them)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_last_loaded: tuple[tuple[str, StatKey], dict[str, dict[str, tuple[StatKey, Any]]]] | None = None
"""The cache file read last, by path and stat, and its entries (see ``ScanCache._load``)."""


class ScanCache:
    """Per-kind maps of path → (stat key, payload), loaded on first use, saved when changed."""

    clock = staticmethod(time.time)
    """Where "now" comes from (tests move it past the racy window)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._loaded: dict[str, dict[str, tuple[StatKey, Any]]] | None = None
        self._new: dict[str, dict[str, tuple[StatKey, Any]]] = {}
        self._dirty = False
        self._now = self.clock()

    @classmethod
    def for_scan(
        cls, env: Mapping[str, str], home: Path, *identity: Path, prefix: str = "scan"
    ) -> ScanCache:
        """The cache file ``prefix`` for one CC home and project; ``MEMTUI_NO_CACHE=1``
        disables it."""
        if not cache_enabled(env):
            return cls(None)
        return cls(cache_dir(env, home) / f"{prefix}-{identity_digest(identity)}.marshal")

    @property
    def _old(self) -> dict[str, dict[str, tuple[StatKey, Any]]]:
        """The entries saved by the last scan (read from the file the first time they are
        needed: a scan that never asks does not pay for loading them)."""
        if self._loaded is None:
            self._loaded = self._load(self.path) if self.path is not None else {}
        return self._loaded

    @property
    def now(self) -> float:
        """The time this scan started: stats newer than ``RACY_SECONDS`` before it are racy."""
        return self._now

    @staticmethod
    def _load(path: Path) -> dict[str, dict[str, tuple[StatKey, Any]]]:
        """The entries of the file at ``path``; the same dict again while the file is the one
        read last (a live refresh makes a cache per refresh: a large home's file is not
        unmarshalled each time). The entries are never changed in place."""
        global _last_loaded
        try:
            with open(path, "rb") as handle:
                key = (str(path), stat_key(os.fstat(handle.fileno())))
                if _last_loaded is not None and _last_loaded[0] == key:
                    return _last_loaded[1]
                blob = handle.read()
            with gc_paused():
                data = marshal.loads(blob)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(data, tuple) or len(data) != 2 or data[0] != CACHE_VERSION:
            return {}
        payload = data[1]
        if not isinstance(payload, dict):
            return {}
        _last_loaded = (key, payload)
        return payload

    def get(self, kind: str, path: str, st: os.stat_result) -> Any:
        """The payload stored for ``path`` if its stat still matches, else None."""
        return self.get_keyed(kind, path, stat_key(st))

    def get_keyed(self, kind: str, path: str, key: Any) -> Any:
        """The payload stored for ``path`` under exactly ``key`` (a stat key or a digest): put
        in this scan (the scan's whole read of a file gives what a later check asks for), else
        saved by the last one."""
        fresh = self._new.get(kind, {}).get(path)
        if fresh is not None and fresh[0] == key:
            return fresh[1]
        entry = self._old.get(kind, {}).get(path)
        if entry is None or entry[0] != key:
            return None
        self._new.setdefault(kind, {})[path] = entry
        return entry[1]

    def get_checked(self, kind: str, path: str, valid: Callable[[Any], bool]) -> Any:
        """The payload stored for ``path`` if ``valid(key)`` holds for its key, else None."""
        entry = self._old.get(kind, {}).get(path)
        if entry is None or not valid(entry[0]):
            return None
        self._new.setdefault(kind, {})[path] = entry
        return entry[1]

    def peek(self, kind: str, path: str) -> tuple[Any, Any] | None:
        """The (key, payload) stored for ``path``, unchecked (and not kept unless put again)."""
        return self._old.get(kind, {}).get(path)

    def put(self, kind: str, path: str, st: os.stat_result, payload: Any) -> None:
        self.put_keyed(kind, path, stat_key(st), payload, max(st.st_mtime, st.st_ctime))

    def put_keyed(self, kind: str, path: str, key: Any, payload: Any, newest: float) -> None:
        """Store ``payload`` under ``key``; ``newest`` is the latest mtime or ctime behind the
        key: nothing is stored while it is racily recent."""
        if self.path is None or self._now - newest < RACY_SECONDS:
            return
        self._new.setdefault(kind, {})[path] = (key, payload)
        self._dirty = True

    def save(self, *, keep_unused: Callable[[str], bool] | None = None) -> None:
        """Write the entries used or added in this scan, atomically. The others are dropped,
        except those whose path ``keep_unused`` holds on to (for a scan that looked at only
        part of the files: what it did not look at may still be there)."""
        if self.path is None or (self._loaded is None and not self._dirty):
            return
        entries = self._new
        if keep_unused is not None:
            entries = {
                kind: {path: entry for path, entry in old.items() if keep_unused(path)}
                for kind, old in self._old.items()
            }
            for kind, new in self._new.items():
                entries.setdefault(kind, {}).update(new)
        dropped = any(len(entries.get(kind, {})) != len(old) for kind, old in self._old.items())
        if not (self._dirty or dropped):
            return
        try:
            blob = marshal.dumps((CACHE_VERSION, entries))
        except ValueError:
            return
        import tempfile  # only when writing: a warm scan never needs it

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".scan-", suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)
