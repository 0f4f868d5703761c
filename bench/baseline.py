"""The baseline for bench_scan.py: the least any scanner must do.

Walk the given store roots and read the first 30 lines of every ``.md`` file; list the projects
folder. Runs as a script (``python bench/baseline.py PROJECTS ROOT...``) or in-process.
"""

from __future__ import annotations

import os
import sys


def walk(path: str) -> int:
    """Read the first 30 lines of every ``.md`` file below ``path``; return how many."""
    count = 0
    try:
        entries = list(os.scandir(path))
    except OSError:
        return 0
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            count += walk(entry.path)
        elif entry.name.endswith(".md"):
            try:
                with open(entry.path, "rb") as handle:
                    for _ in range(30):
                        if not handle.readline(65536):
                            break
                count += 1
            except OSError:
                pass
    return count


def run(projects: str, roots: list[str]) -> int:
    count = sum(walk(root) for root in roots)
    for _entry in os.scandir(projects):
        pass
    return count


if __name__ == "__main__":
    print(run(sys.argv[1], sys.argv[2:]))
