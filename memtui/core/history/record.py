"""Recording a version: everything that changed in the stores since the last recording, as
one commit (one per attribution: the changes of a store whose ``.consolidate-lock`` is held get
their own, attributed to the consolidation).

A recording that finds every directory and file with the stat it had lists nothing, reads
nothing and starts no git: it costs about what a warm ``scan --json`` costs
(``bench/bench_history.py``). A file whose stat changed is read again and compared by blob id
(a touched file makes no version). A file changed within :data:`RACY_SECONDS` of being read, or
while it was read (a writer mid-write), is read again at the next recording, so a torn file is
never the newest version once a later recording has run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memtui.core.history.attribution import Attribution, message
from memtui.core.history.files import (
    EXEC_MODE,
    FILE_MODE,
    SIZE_CAP,
    blob_sha,
    list_store,
    read_for_history,
    stat_key,
)
from memtui.core.history.paths import (
    MANIFEST_DIR,
    MANIFEST_NAME,
    HistoryError,
    StoreRef,
    history_dir,
    project_key,
    store_ref,
)
from memtui.core.history.repo import TREE_MODE, HistoryRepo, locked, make_private_dir
from memtui.core.history.state import (
    FileState,
    HistoryState,
    StoreState,
    load_state,
    manifest_bytes,
    save_state,
)
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.stores.locations import Context, Locations, locate
from memtui.core.write.lock import live_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.core.history.retention import RetentionLimits

RACY_SECONDS = 2.0
"""A file whose mtime or ctime is this close to the moment it was read may change again within
the same clock tick without its stat changing: it is read again next time (git's "racily
clean" rule)."""

Status = Literal["added", "changed", "deleted"]


@dataclass
class Change:
    """One file of a version."""

    key: str
    rel: str
    path: Path
    status: Status
    stub: bool = False


@dataclass
class RecordResult:
    """What a recording did: its commits (empty: nothing changed) and changes, and what could
    not be read."""

    commits: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    directory: Path | None = None


@dataclass
class _Pending:
    """A store's new state and its changes, with the bytes of the blobs to write."""

    ref: StoreRef
    state: StoreState
    changes: list[Change]
    blobs: dict[str, bytes]
    attribution: Attribution


def history_of(ctx: Context) -> HistoryRepo:
    """The history repository of ``ctx``'s environment (not created)."""
    return HistoryRepo(history_dir(ctx.env, ctx.home, ctx.claude_home))


def located_stores(locations: Locations) -> list[StoreLocation]:
    """Every store of the project that history records (all kinds; sessions for their
    summaries: transcripts are never recorded)."""
    return [locations.auto, locations.team, *locations.agents, *locations.snapshots,
            *locations.sessions, locations.agentmemory]


def record(
    ctx: Context,
    attribution: Attribution | None = None,
    *,
    touching: Iterable[Path] | None = None,
    only: Iterable[Path] | None = None,
    skip: Iterable[Path] | None = None,
    locations: Locations | None = None,
    size_cap: int = SIZE_CAP,
    create: bool = True,
    retention: Callable[[], RetentionLimits] | None = None,
) -> RecordResult:
    """Record every change in the project's stores (and the deletion of every file of a
    recorded store that is gone from disk) as a version attributed to ``attribution``.

    ``touching``: only the stores holding one of these paths (or lying inside one);
    ``only``: only these files (the others are left for the next recording); ``skip``: not
    these files. ``create=False``: nothing is done unless the repository exists.
    ``retention``: the limits (asked only when a version was made and a day has passed since
    the last check; default: memtui's config of ``ctx``), see :mod:`retention`.
    HistoryError when the repository cannot be used."""
    repo = history_of(ctx)
    if not create and not repo.exists():
        return RecordResult(directory=repo.directory)
    make_private_dir(repo.directory)
    attribution = attribution or Attribution.unknown()
    locations = locations or locate(ctx, confirm_sessions=True)
    with locked(repo.directory):
        try:
            result = _record(repo, ctx, locations, attribution, touching, only, skip, size_cap)
            if result.commits:
                _retain(repo, ctx, result, retention)
            return result
        finally:
            repo.close()


def _retain(repo: HistoryRepo, ctx: Context, result: RecordResult,
            retention: Callable[[], RetentionLimits] | None) -> None:
    """Once a day, after making a version: prune the history when it is over a limit (a
    failure is one of the recording's problems, never its failure)."""
    from memtui.core.history.retention import RetentionLimits, gc_when_due

    def limits() -> RetentionLimits:
        if retention is not None:
            return retention()
        from memtui.core.config import load_config

        return RetentionLimits.from_config(load_config(ctx.env, ctx.home))

    try:
        report = gc_when_due(repo, limits, time.time())
    except (HistoryError, OSError) as exc:
        result.problems.append(f"the history's retention did not run: {exc}")
        return
    if report is not None:
        result.commits = [report.renamed.get(c, c) for c in result.commits]


def _record(
    repo: HistoryRepo,
    ctx: Context,
    locations: Locations,
    attribution: Attribution,
    touching: Iterable[Path] | None,
    only: Iterable[Path] | None,
    skip: Iterable[Path] | None,
    size_cap: int,
) -> RecordResult:
    result = RecordResult(directory=repo.directory)
    head = repo.head() if repo.exists() else None
    state = load_state(repo.directory)
    if state is None or state.head != head:
        state = _state_from(repo, head)
    project = project_key(locations.memory_root, ctx.project)
    manifest = dict(state.manifest)
    wanted = _store_refs(locations, project, manifest, touching)
    for ref in wanted:
        manifest.setdefault(ref.key, ref)
    wanted_keys = {ref.key for ref in wanted}
    gone = [ref for key, ref in state.manifest.items()
            if touching is None and key not in wanted_keys and key in state.stores
            and state.stores[key].files and not os.path.lexists(ref.path)]
    only_set = {os.path.abspath(p) for p in only} if only is not None else None
    skip_set = {os.path.abspath(p) for p in skip or ()}
    pending: list[_Pending] = []
    refreshed = manifest != state.manifest
    now = time.time()
    for ref in [*wanted, *gone]:
        old = state.stores.get(ref.key, StoreState())
        if _unchanged(ref, old):
            continue
        found = _store_changes(ref, old, only_set, skip_set, size_cap, now, result.problems)
        if found is None:
            continue
        new_state, changes, blobs = found
        if not changes:
            if new_state != old:
                state.stores[ref.key] = new_state  # stats refreshed, nothing to record
                refreshed = True
            continue
        pending.append(_Pending(ref, new_state, changes, blobs,
                                _attribution_of(ref, attribution)))
    if not pending:
        if refreshed and (state.head is not None or state.stores):
            state.manifest = manifest
            _save(repo, state)
        return result
    groups: dict[Attribution, list[_Pending]] = {}
    for item in pending:
        groups.setdefault(item.attribution, []).append(item)
    for who, items in groups.items():
        for item in items:
            for sha, data in item.blobs.items():
                repo.store_object(b"blob", data)
                del sha
            item.state.tree = (repo.write_tree({rel: (f.mode, f.sha)
                                                for rel, f in item.state.files.items()})
                               if item.state.files else None)
            state.stores[item.ref.key] = item.state
        state.manifest = manifest
        tree = _top_tree(repo, state)
        changes = [c for item in items for c in item.changes]
        commit = repo.commit(tree, message(_summary(changes), who), who.author_name(), now)
        state.head = commit
        result.commits.append(commit)
        result.changes += changes
    _save(repo, state)
    return result


def _save(repo: HistoryRepo, state: HistoryState) -> None:
    try:
        save_state(repo.directory, state)
    except OSError as exc:
        raise HistoryError(f"cannot save the history's state in {repo.directory}: "
                           f"{exc.strerror or exc}") from exc


def _state_from(repo: HistoryRepo, head: str | None) -> HistoryState:
    """The state of ``head`` from its tree (no stat known: every file is hashed again)."""
    state = HistoryState(head=head)
    if head is None:
        return state
    from memtui.core.fileread import parse_json
    from memtui.core.history.state import manifest_from_json

    files = repo.tree_files(head)
    manifest_path = f"{MANIFEST_DIR}/{MANIFEST_NAME}"
    if manifest_path in files:
        data, _problem = parse_json(repo.read_blob(files[manifest_path][1]))
        if isinstance(data, dict):
            state.manifest = manifest_from_json(data)
    for key in sorted(state.manifest, key=len, reverse=True):
        prefix = key + "/"
        store = StoreState()
        for path in [p for p in files if p.startswith(prefix)]:
            mode, sha = files.pop(path)
            store.files[path[len(prefix):]] = FileState(None, mode, sha)
        state.stores[key] = store
    return state


def _store_refs(
    locations: Locations,
    project: str,
    manifest: dict[str, StoreRef],
    touching: Iterable[Path] | None,
) -> list[StoreRef]:
    refs: dict[str, StoreRef] = {}
    touched = [os.path.abspath(p) for p in touching] if touching is not None else None
    by_path = {(str(r.path), r.kind): r for r in manifest.values()}
    for location in located_stores(locations):
        ref = store_ref(location, project, manifest, by_path)
        if touched is not None and not any(_related(str(ref.path), t) for t in touched):
            continue
        if ref.key not in refs:
            manifest.setdefault(ref.key, ref)
            by_path.setdefault((str(ref.path), ref.kind), ref)
            refs[ref.key] = ref
    return list(refs.values())


def _related(store: str, path: str) -> bool:
    """``path`` lies in the store, or the store lies in ``path``."""
    return (path == store or path.startswith(store.rstrip(os.sep) + os.sep)
            or store.startswith(path.rstrip(os.sep) + os.sep))


def _skip_dirs(ref: StoreRef) -> frozenset[str]:
    return frozenset({"team"}) if ref.kind == StoreKind.AUTO.value else frozenset()


def _unchanged(ref: StoreRef, old: StoreState) -> bool:
    """Every directory and file of the store still has the stat the last recording saw (no
    file left to read again): nothing to list or read."""
    if not old.dirs:
        return False
    root = str(ref.path)
    for rel, key in old.dirs.items():
        try:
            st = os.lstat(os.path.join(root, rel) if rel else root)
        except OSError:
            return False
        if stat_key(st) != key:
            return False
    for rel, item in old.files.items():
        if item.key is None:
            return False
        try:
            st = os.lstat(os.path.join(root, rel))
        except OSError:
            return False
        if stat_key(st) != item.key:
            return False
    return True


def _store_changes(
    ref: StoreRef,
    old: StoreState,
    only: set[str] | None,
    skip: set[str],
    size_cap: int,
    now: float,
    problems: list[str],
) -> tuple[StoreState, list[Change], dict[str, bytes]] | None:
    """The store's new state, its changes and the blobs they need."""
    listing = list_store(str(ref.path), _skip_dirs(ref))
    problems += [f"{ref.key}: {p}" for p in listing.problems]
    new = StoreState(dirs=dict(listing.dirs) if listing.exists else {})
    changes: list[Change] = []
    blobs: dict[str, bytes] = {}

    def wanted(path: str) -> bool:
        return path not in skip and (only is None or path in only)

    for rel, st in listing.files.items():
        path = os.path.join(str(ref.path), rel)
        before = old.files.get(rel)
        if not wanted(path):
            if before is not None:
                new.files[rel] = FileState(None, before.mode, before.sha)
            continue
        key = stat_key(st)
        if before is not None and before.key == key:
            new.files[rel] = before
            continue
        read = read_for_history(path, st, size_cap)
        if read.data is None:
            problems.append(f"{ref.key}/{rel}: {read.problem}")
            if before is not None:
                new.files[rel] = FileState(None, before.mode, before.sha)
            continue
        sha = blob_sha(read.data)
        mode = EXEC_MODE if st.st_mode & 0o111 else FILE_MODE
        seen = read.stat or st
        settled = not read.unsettled and max(seen.st_mtime, seen.st_ctime) < now - RACY_SECONDS
        new.files[rel] = FileState(stat_key(seen) if settled else None, mode, sha)
        if before is not None and before.sha == sha and before.mode == mode:
            continue
        blobs[sha] = read.data
        changes.append(Change(ref.key, rel, Path(path), "changed" if before else "added",
                              read.stub))
    for rel, before in old.files.items():
        if rel in listing.files:
            continue
        path = os.path.join(str(ref.path), rel)
        if not wanted(path):
            new.files[rel] = FileState(None, before.mode, before.sha)
            continue
        changes.append(Change(ref.key, rel, Path(path), "deleted"))
    if any(f.key is None for f in new.files.values()):
        new.dirs = {}  # something is left to read again: no fast path next time
    return new, changes, blobs


def _attribution_of(ref: StoreRef, base: Attribution) -> Attribution:
    """``base``, or the consolidation when Claude Code holds the store's lock (and the
    change is not memtui's own)."""
    if base.kind == "memtui":
        return base
    lock_dir = ref.path if ref.kind in ("auto", "agent") else (
        ref.path.parent if ref.kind == "team" else None)
    if lock_dir is None:
        return base
    holder = live_lock(lock_dir)
    if holder is None or holder.pid == os.getpid():
        return base
    return Attribution("consolidation", lock_pid=str(holder.pid), source=base.source)


def _top_tree(repo: HistoryRepo, state: HistoryState) -> str:
    entries: dict[str, tuple[int, str]] = {}
    for key, store in state.stores.items():
        if store.tree is None and store.files:
            store.tree = repo.write_tree({rel: (f.mode, f.sha) for rel, f in store.files.items()})
        if store.tree is not None and store.files:
            entries[key] = (TREE_MODE, store.tree)
    manifest = {k: v for k, v in state.manifest.items()}
    entries[f"{MANIFEST_DIR}/{MANIFEST_NAME}"] = (
        FILE_MODE, repo.store_object(b"blob", manifest_bytes(manifest)))
    return repo.write_tree(entries)


def _summary(changes: list[Change]) -> str:
    counts: dict[str, int] = {}
    for change in changes:
        counts[change.status] = counts.get(change.status, 0) + 1
    keys = sorted({c.key for c in changes})
    where = keys[0] if len(keys) == 1 else f"{len(keys)} stores"
    parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return f"{len(changes)} file{'s' if len(changes) != 1 else ''} in {where} ({parts})"
