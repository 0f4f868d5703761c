"""One scratch directory per benchmark run, removed when the run ends, even after an error: a
generated home holds 2 GB of sparse transcripts and must not pile up in the temp dir."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def subdir(root: Path, name: str) -> str:
    """``root/name``, created; as a string for environment variables."""
    path = root / name
    path.mkdir(parents=True, exist_ok=True)
    return str(path)
