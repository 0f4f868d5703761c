"""The other projects under a CC home, with their real paths where a transcript reveals them."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.cache import ScanCache
from memtui.core.locations import Context, list_dirs
from memtui.core.model import ProjectRef
from memtui.core.sessions import transcript_head


def discover_projects(ctx: Context, cache: ScanCache | None = None) -> list[ProjectRef]:
    """Every project dir under the CC home (and remote base), with its real path if a
    transcript's first lines reveal it."""
    roots = [ctx.claude_home / "projects"]
    if ctx.remote_dir:
        roots.append(ctx.remote_dir / "projects")
    seen: dict[str, ProjectRef] = {}
    for root in roots:
        for project_dir in list_dirs(root):
            ref = seen.setdefault(project_dir.name, ProjectRef(dir=str(project_dir), path=None))
            if ref.path is None:
                ref.path = project_path_from_transcripts(project_dir, cache)
    return sorted(seen.values(), key=lambda r: r.dir)


def project_path_from_transcripts(project_dir: Path, cache: ScanCache | None) -> str | None:
    try:
        with os.scandir(project_dir) as it:
            transcripts = sorted(e.path for e in it if e.name.endswith(".jsonl"))
    except OSError:
        return None
    for transcript in transcripts[:3]:
        head = transcript_head(Path(transcript), cache)
        if head is not None and head.cwd:
            return head.cwd
    return None
