"""Agent memory snapshots: the status Claude Code computes
(docs/claude-code-rules.md#snapshot-status).

Mirrors CC's ``checkAgentMemorySnapshot``: ``snapshot.json`` must hold a non-empty string
``updatedAt``; a local dir without a top-level ``*.md`` file needs ``initialize``; otherwise a
missing sync record or a newer snapshot (JavaScript date comparison) means ``prompt-update``.
Directory entries are judged without following symlinks, as Node's ``Dirent.isFile()`` does.
"""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.fileread import parse_json, read_file
from memtui.core.model import (
    Scope,
    SnapshotInfo,
    SnapshotScopeStatus,
    StoreKind,
    StoreLocation,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Sequence

    from memtui.core.contents import Store
    from memtui.core.model import SnapshotStatus
    from memtui.core.stores.locations import Locations

__all__ = [
    "SNAPSHOT_JSON",
    "SYNCED_JSON",
    "agent_snapshot_info",
    "read_snapshot_meta",
    "read_synced_from",
    "snapshot_files",
    "snapshot_info",
    "snapshot_status",
    "snapshot_store_of",
]

SNAPSHOT_JSON = "snapshot.json"
SYNCED_JSON = ".snapshot-synced.json"


def read_snapshot_meta(snapshot_dir: Path) -> tuple[str | None, str | None]:
    """(``updatedAt``, None) from ``snapshot.json``, or (None, the problem in words)."""
    return _read_string_field(snapshot_dir / SNAPSHOT_JSON, "updatedAt")


def read_synced_from(local_dir: Path) -> tuple[str | None, str | None]:
    """(``syncedFrom``, None) from ``.snapshot-synced.json``, or (None, the problem in words)."""
    return _read_string_field(local_dir / SYNCED_JSON, "syncedFrom")


def snapshot_files(snapshot_dir: Path) -> list[str]:
    """Names of the files a snapshot ships: top-level regular files except ``snapshot.json``.

    Symlinks are never counted (CC's ``Dirent.isFile()`` is false for them), so nothing outside
    the snapshot dir can be copied through one. Subfolders are skipped. Unreadable dir: [].
    """
    return sorted(name for name in _regular_file_names(snapshot_dir) if name != SNAPSHOT_JSON)


def snapshot_status(snapshot_dir: Path, local_dir: Path) -> tuple[SnapshotStatus, str | None, str]:
    """(status, ``syncedFrom`` of the local dir or None, the reason in words)."""
    updated_at, problem = read_snapshot_meta(snapshot_dir)
    return _status(updated_at, problem, local_dir)


def agent_snapshot_info(
    agent: str,
    snapshot_dir: Path,
    local_dirs: dict[Scope, Path],
    defined_scope: Scope | None,
    auto_memory_enabled: bool,
) -> SnapshotInfo:
    """The snapshot status for every scope in ``local_dirs`` (in user, project, local order).

    ``acted_scope`` is the agent's own scope (user when it has none). CC itself only checks
    snapshots for agents defined with ``memory: user`` while auto memory is enabled, and only in
    the user scope: that is the one entry with ``cc_acts``. ``acted_scope`` should be a key of
    ``local_dirs`` for :attr:`SnapshotInfo.primary` to work.
    """
    updated_at, problem = read_snapshot_meta(snapshot_dir)
    cc_checks = defined_scope is Scope.USER and auto_memory_enabled
    scopes: list[SnapshotScopeStatus] = []
    for scope in Scope:
        local = local_dirs.get(scope)
        if local is None:
            continue
        status, synced_from, reason = _status(updated_at, problem, local)
        cc_acts = cc_checks and scope is Scope.USER
        scopes.append(SnapshotScopeStatus(scope, local, status, synced_from, cc_acts, reason))
    return SnapshotInfo(
        agent=agent,
        snapshot_dir=snapshot_dir,
        updated_at=updated_at,
        problem=problem,
        files=snapshot_files(snapshot_dir),
        scopes=scopes,
        acted_scope=defined_scope or Scope.USER,
    )


# --- the decision ---------------------------------------------------------------------------


def _status(
    updated_at: str | None, problem: str | None, local_dir: Path
) -> tuple[SnapshotStatus, str | None, str]:
    synced_from, synced_problem = read_synced_from(local_dir)
    if updated_at is None:
        return "none", synced_from, f"no usable snapshot: {problem}"
    if not _has_top_level_md(local_dir):
        return "initialize", synced_from, f"the local memory dir {_why_no_memory(local_dir)}"
    if synced_from is None:
        return "prompt-update", None, f"not synced yet: {synced_problem}"
    return _compare(updated_at, synced_from)


def _compare(updated_at: str, synced_from: str) -> tuple[SnapshotStatus, str | None, str]:
    """``new Date(updatedAt) > new Date(syncedFrom)``: NaN on either side is never newer."""
    from memtui.core.parse.jsdate import parse_js_date  # only when there are two dates to compare

    snapshot_ms = parse_js_date(updated_at)
    synced_ms = parse_js_date(synced_from)
    if snapshot_ms is None:
        why = f"snapshot date {updated_at!r} is not a valid JavaScript date"
        return "none", synced_from, f"{why}, so Claude Code never sees it as newer"
    if synced_ms is None:
        why = f"synced date {synced_from!r} is not a valid JavaScript date"
        return "none", synced_from, f"{why}, so Claude Code never sees the snapshot as newer"
    if snapshot_ms > synced_ms:
        newer = f"snapshot {updated_at} is newer than synced {synced_from}"
        return "prompt-update", synced_from, newer
    relation = "the same time as" if snapshot_ms == synced_ms else "older than"
    return (
        "none",
        synced_from,
        f"up to date: snapshot {updated_at} is {relation} synced {synced_from}",
    )


# --- files ----------------------------------------------------------------------------------


def _read_string_field(path: Path, key: str) -> tuple[str | None, str | None]:
    """A non-empty string field of a JSON object file, read as CC reads it."""
    name = path.name
    read = read_file(path)
    if read.missing:
        return None, f"{name} missing"
    if not read.readable:
        why = "; ".join(p.removeprefix("cannot read: ") for p in read.problems)
        return None, f"{name} cannot be read: {why}"
    if not read.complete:
        return None, f"{name} is too large to be a snapshot record ({read.size:,} bytes)"
    # Node decodes invalid UTF-8 as U+FFFD; JSON.parse has no NaN or Infinity.
    text = read.data.decode("utf-8", errors="replace")
    data, problem = parse_json(text, parse_constant=_no_constant)
    if problem is not None:
        return None, f"{name} is not valid JSON: {problem}"
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, str) or not value:
        return None, f"{name} has no non-empty string {key}"
    return value, None


def _no_constant(token: str) -> object:
    raise ValueError(f"{token} is not JSON")


def _regular_file_names(directory: Path) -> list[str]:
    """Top-level entries that are regular files themselves (symlinks excluded)."""
    try:
        with os.scandir(directory) as entries:
            return [entry.name for entry in entries if _is_regular_file(entry)]
    except OSError:
        return []


def _is_regular_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _why_no_memory(local_dir: Path) -> str:
    if os.path.isdir(local_dir):
        return "has no top-level .md file"
    if os.path.lexists(local_dir):
        return "is not a directory"
    return "does not exist"


def _has_top_level_md(local_dir: Path) -> bool:
    return any(name.endswith(".md") for name in _regular_file_names(local_dir))


def snapshot_info(location: StoreLocation, locations: Locations) -> SnapshotInfo:
    """The status of a shipped snapshot in every scope of its agent."""
    agent_type = location.agent or location.path.name
    dir_name = agent_type.replace(":", "-")  # as agents.agent_dir_name
    local_dirs = {
        item.scope: item.path for item in locations.agents if item.agent == dir_name and item.scope
    }
    roots = {
        Scope.USER: locations.context.base / "agent-memory",
        Scope.PROJECT: locations.context.project / ".claude" / "agent-memory",
        Scope.LOCAL: next(
            (p.parent for s, p in local_dirs.items() if s == Scope.LOCAL),
            locations.context.project / ".claude" / "agent-memory-local",
        ),
    }
    for scope, root in roots.items():
        local_dirs.setdefault(scope, root / dir_name)
    definition = locations.definitions.get(agent_type)
    return agent_snapshot_info(
        agent_type,
        location.path,
        local_dirs,
        definition.memory if definition else None,
        locations.auto.enabled,
    )


def snapshot_store_of(store: Store, stores: Sequence[Store]) -> Store | None:
    """The snapshot store that belongs to ``store``: itself when it is a snapshot store (with
    a snapshot), else, for an agent's memory store, the snapshot a project ships for that
    agent (matched by agent type or its directory name, ``:`` as ``-``); None otherwise."""
    if store.kind == StoreKind.SNAPSHOT:
        return store if store.snapshot is not None else None
    if store.kind != StoreKind.AGENT:
        return None
    for candidate in stores:
        snap = candidate.snapshot
        if candidate.kind != StoreKind.SNAPSHOT or snap is None:
            continue
        dir_name = snap.agent.replace(":", "-")  # as agents.agent_dir_name (not imported:
        if store.location.agent in (snap.agent, dir_name):  # ``index`` loads no agents)
            return candidate
    return None

