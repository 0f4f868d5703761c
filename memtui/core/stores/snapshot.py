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
    if iso_instant(updated_at) and iso_instant(synced_from):  # as Claude Code writes them
        newer, same = updated_at > synced_from, updated_at == synced_from
    else:
        from memtui.core.parse.jsdate import parse_js_date  # any other form JavaScript reads

        snapshot_ms = parse_js_date(updated_at)
        synced_ms = parse_js_date(synced_from)
        if snapshot_ms is None:
            why = f"snapshot date {updated_at!r} is not a valid JavaScript date"
            return "none", synced_from, f"{why}, so Claude Code never sees it as newer"
        if synced_ms is None:
            why = f"synced date {synced_from!r} is not a valid JavaScript date"
            return "none", synced_from, f"{why}, so Claude Code never sees the snapshot as newer"
        newer, same = snapshot_ms > synced_ms, snapshot_ms == synced_ms
    if newer:
        newer_text = f"snapshot {updated_at} is newer than synced {synced_from}"
        return "prompt-update", synced_from, newer_text
    relation = "the same time as" if same else "older than"
    return (
        "none",
        synced_from,
        f"up to date: snapshot {updated_at} is {relation} synced {synced_from}",
    )


_ISO_SEPARATORS = ((4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z"))
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def iso_instant(text: str) -> bool:
    """Whether ``text`` is a date as JavaScript's ``toISOString`` writes it (what Claude Code
    writes: ``2026-03-01T12:00:00.000Z``), with a day of its month and a time of day. Such
    dates sort as strings as their instants do, and two of them are equal when their
    instants are: they are compared without the JavaScript date parser
    (``memtui.core.parse.jsdate``, with ``datetime``, imported on every warm ``scan --json``
    of a home with snapshots before)."""
    if len(text) != 24 or any(text[i] != mark for i, mark in _ISO_SEPARATORS):
        return False
    fields = (text[0:4], text[5:7], text[8:10], text[11:13], text[14:16], text[17:19],
              text[20:23])
    if not all(f.isascii() and f.isdigit() for f in fields):
        return False
    year, month, day, hour, minute, second = (int(f) for f in fields[:6])
    if not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= day <= _DAYS_IN_MONTH[month - 1] + (month == 2 and leap)


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

