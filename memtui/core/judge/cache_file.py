"""The judge's cache files in memtui's cache dir (the candidates, the memories' bodies): read
capped and never through a symlink, written whole and atomically. A cache that cannot be read
or written is no cache, never an error."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from memtui.core.fileread import read_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def read_json(path: Path | None, cap: int) -> Any | None:
    """The JSON value in ``path`` (read up to ``cap`` bytes, not through a symlink); None when
    there is no path (the cache is off) or the file is missing, unreadable, cut by the cap or
    not JSON (invalid UTF-8 included)."""
    if path is None:
        return None
    result = read_file(path, cap, follow_symlinks=False)
    if not result.complete:
        return None
    try:
        return json.loads(result.data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def write_json(path: Path, data: object) -> bool:
    """Write ``data`` as compact JSON to ``path``: a temporary file beside it, then renamed
    over it (the folder made 0700 when missing). False, and the old file left, on failure."""
    body = json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(tmp, "wb") as handle:
            handle.write(body)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True
