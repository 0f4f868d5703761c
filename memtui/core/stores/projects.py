"""The other projects under a CC home, with their real paths where a transcript reveals them."""

from __future__ import annotations

import os

from memtui.core.cache import ScanCache
from memtui.core.model import ProjectRef
from memtui.core.stores.locations import Context, list_dir_names
from memtui.core.stores.sessions import TRANSCRIPT_SUFFIX, transcript_head

TRANSCRIPT_LIST = "first-transcripts"


def discover_projects(ctx: Context, cache: ScanCache | None = None) -> list[ProjectRef]:
    """Every project dir under the CC home (and remote base), with its real path if a
    transcript's first lines reveal it."""
    roots = [ctx.claude_home / "projects"]
    if ctx.remote_dir:
        roots.append(ctx.remote_dir / "projects")
    seen: dict[str, ProjectRef] = {}
    for root in roots:
        for name in list_dir_names(str(root)):
            project_dir = os.path.join(root, name)
            ref = seen.setdefault(name, ProjectRef(dir=project_dir, path=None))
            if ref.path is None:
                ref.path = project_path_from_transcripts(project_dir, cache)
    return sorted(seen.values(), key=lambda r: r.dir)


def project_path_from_transcripts(project_dir: str, cache: ScanCache | None) -> str | None:
    """The cwd in the first lines of one of the project's first three transcripts."""
    for transcript in first_transcripts(project_dir, cache):
        head = transcript_head(transcript, cache)
        if head is not None and head.cwd:
            return head.cwd
    return None


def first_transcripts(project_dir: str, cache: ScanCache | None, count: int = 3) -> list[str]:
    """The paths of the project's first ``count`` transcripts by name. With a cache, the
    directory is listed again only when its stat changed (adding, removing or renaming an
    entry changes a directory's mtime; its stat is taken before the listing, so a change
    during the listing is seen next time)."""
    key: tuple[int, int, int] | None = None
    if cache is not None:
        try:
            st = os.stat(project_dir)
        except OSError:
            return []
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        found = cache.get_keyed(TRANSCRIPT_LIST, project_dir, key)
        if found is not None:
            return list(found)
    try:
        with os.scandir(project_dir) as it:
            transcripts = sorted(e.path for e in it if e.name.endswith(TRANSCRIPT_SUFFIX))
    except OSError:
        return []
    if cache is not None and key is not None:
        cache.put_keyed(
            TRANSCRIPT_LIST, project_dir, key, transcripts[:count], max(st.st_mtime, st.st_ctime)
        )
    return transcripts[:count]
