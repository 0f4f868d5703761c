"""The other projects under a CC home, with their real paths where a transcript reveals them;
and what to say when a project has no memory at all."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.cache import ScanCache
from memtui.core.model import ProjectRef, StoreKind
from memtui.core.stores.locations import Context, list_dir_names, sessions_dir
from memtui.core.stores.sessions import TRANSCRIPT_SUFFIX, transcript_head

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:  # not on scan --json's warm path, which builds no Store
    from collections.abc import Sequence

    from memtui.core.contents import Store

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


def project_dir_named(ctx: Context, name_or_dir: str) -> Path:
    """A project's directory under the CC home from its name (``-home-dev-app``, or without
    its leading ``-``, which a command line would take for an option) or a path."""
    if os.sep in name_or_dir or (os.altsep and os.altsep in name_or_dir):
        return Path(os.path.abspath(name_or_dir))
    found = ctx.claude_home / "projects" / name_or_dir
    dashed = ctx.claude_home / "projects" / f"-{name_or_dir}"
    if not name_or_dir.startswith("-") and not os.path.isdir(found) and os.path.isdir(dashed):
        return dashed
    return found


KIND_WORDS = {
    StoreKind.AUTO: "auto memory",
    StoreKind.TEAM: "team memory",
    StoreKind.AGENT: "agent memory",
    StoreKind.SNAPSHOT: "snapshots",
    StoreKind.AGENTMEMORY: "agentmemory",
}


def nothing_found(ctx: Context, stores: Sequence[Store]) -> str | None:
    """What was looked for and where, when no store of the scan holds a memory (None when one
    does). Looks at two directories (the CC home, the project); the UIs add what to try."""
    if any(store.memories for store in stores):
        return None
    if not os.path.isdir(ctx.claude_home):
        head = (f"no Claude Code home at {ctx.show(ctx.claude_home)} ({ctx.claude_home_rule}): "
                "Claude Code has written no memory for this user")
    elif ctx.project_dir is None and not os.path.isdir(ctx.project):
        head = f"no project directory {ctx.show(ctx.project)}"
    else:
        head = f"no memory found for {ctx.show(ctx.project)}"
    places: dict[str, list[str]] = {}
    for store in stores:
        if store.kind == StoreKind.SESSION:
            continue
        where = ctx.show(store.path) + ("" if store.exists else " (no directory)")
        places.setdefault(KIND_WORDS[store.kind], []).append(where)
    sessions_root, _name = sessions_dir(ctx)
    places["sessions"] = [ctx.show(sessions_root) + (
        "" if os.path.isdir(sessions_root) else " (no directory)")]
    looked = "; ".join(f"{kind}: {', '.join(where)}" for kind, where in places.items())
    return f"{head}. Looked in {looked}"
