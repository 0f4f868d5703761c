"""Refresh a scan after files changed: rescan only the stores the changed paths touch.

``watch_targets`` says which directories to watch for a scan (every store root plus the
parents where new stores appear); ``plan_refresh`` sorts changed paths into stores to rescan,
structural changes (a store may have appeared or gone) and noise; ``apply_refresh`` does the
I/O. ``refresh`` chains the three and returns the same ``ScanResult`` object when nothing
relevant changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from memtui.core.cache import ScanCache
from memtui.core.contents import ScanResult, Store
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.incremental import rescan_store_changed
from memtui.core.scan.scanner import scan, scan_session, scan_snapshot, scan_store
from memtui.core.stores.gitroot import canonical_git_root
from memtui.core.stores.locations import (
    SNAPSHOTS_DIR,
    Context,
    Locations,
    agent_scope_roots,
    definition_dirs,
    locate,
    sessions_dir,
)
from memtui.core.stores.sessions import TRANSCRIPT_SUFFIX, session_template

SESSION_DIR = "session-memory"
AGENT_KINDS = (StoreKind.AGENT, StoreKind.SNAPSHOT)


@dataclass(frozen=True)
class WatchTargets:
    """The directories whose changes matter for one scan result."""

    stores: tuple[Path, ...]
    sessions_root: Path
    agent_roots: tuple[Path, ...]
    snapshots_root: Path
    definition_dirs: tuple[Path, ...]

    @property
    def containers(self) -> tuple[Path, ...]:
        """Parents in which new stores (or agent definitions) can appear."""
        return (self.sessions_root, *self.agent_roots, self.snapshots_root, *self.definition_dirs)

    @property
    def roots(self) -> frozenset[Path]:
        """Everything to hand to a watcher: store roots and containers."""
        return frozenset((*self.stores, *self.containers))


@dataclass
class RefreshPlan:
    """What a set of changed paths calls for."""

    stores: set[Path] = field(default_factory=set)
    files: dict[Path, set[str]] = field(default_factory=dict)
    """Of each store to rescan, the paths that changed in it (posix, from its root): only
    those are read again (``incremental``); a store without any is listed again and its
    memories kept (a snapshot whose agent's memory changed, a session whose transcript did)."""
    structural: bool = False
    full: bool = False

    @property
    def empty(self) -> bool:
        return not (self.stores or self.structural or self.full)


def watch_targets(ctx: Context, result: ScanResult) -> WatchTargets:
    """Store roots of ``result`` and the parents that can gain stores for ``ctx``."""
    sessions_root, _rule = sessions_dir(ctx)
    # only the local scope uses git (a project opened by its CC home dir has none)
    git = canonical_git_root(ctx.project) if ctx.remote_dir and not ctx.project_dir else None
    agent_roots = tuple(root for root, _rule in agent_scope_roots(ctx, git).values())
    return WatchTargets(
        stores=tuple(store.path for store in result.stores),
        sessions_root=sessions_root,
        agent_roots=agent_roots,
        snapshots_root=ctx.project / SNAPSHOTS_DIR,
        definition_dirs=tuple(definition_dirs(ctx)),
    )


# ---------------------------------------------------------------------------------- planning


class _RealPaths:
    """``os.path.realpath`` asked once per directory during one plan: a burst of 200 files
    in one folder costs one call for the folder, not two per file and store."""

    def __init__(self) -> None:
        self._known: dict[Path, Path] = {}
        self.calls = 0

    def real(self, path: Path) -> Path:
        found = self._known.get(path)
        if found is None:
            self.calls += 1
            found = self._known[path] = Path(os.path.realpath(path))
        return found

    def real_parent(self, path: Path) -> Path:
        """``path`` with its parent's symlinks resolved (the entry itself may be a symlink)."""
        return self.real(path.parent) / path.name

    def relative(self, path: Path, root: Path) -> tuple[str, ...] | None:
        """``path``'s parts below ``root`` (empty when equal), trying real paths as well."""
        for candidate, base in ((path, root), (self.real_parent(path), self.real(root))):
            if candidate == base:
                return ()
            if base in candidate.parents:
                return candidate.parts[len(base.parts) :]
        return None


class _StoreRoots:
    """Store roots by path as given and by real path, for a longest-prefix lookup.

    A root is resolved only when it can be the real path of a changed path's folder or of one
    of its parents: when it is the same directory (device and inode) as one of them, or does
    not exist (a large home has hundreds of stores, and ``realpath`` stats every part of a
    path; one ``stat`` of each root finds the few that can match)."""

    def __init__(self, stores: list[Store], paths: _RealPaths) -> None:
        self.stores = stores
        self.paths = paths
        self.given: dict[Path, list[int]] = {}
        for i, store in enumerate(stores):
            self.given.setdefault(store.path, []).append(i)
        self.real: dict[Path, list[int]] = {}
        self._by_inode: dict[tuple[int, int], list[int]] | None = None
        self._resolved: set[int] = set()
        self._checked: set[Path] = set()

    def _resolve(self, i: int) -> None:
        if i not in self._resolved:
            self._resolved.add(i)
            self.real.setdefault(self.paths.real(self.stores[i].path), []).append(i)

    def _inodes(self) -> dict[tuple[int, int], list[int]]:
        """Existing roots by (device, inode); a missing root is resolved at once."""
        if self._by_inode is None:
            self._by_inode = {}
            for i, store in enumerate(self.stores):
                try:
                    st = os.stat(store.path)
                except (OSError, ValueError):
                    self._resolve(i)
                    continue
                self._by_inode.setdefault((st.st_dev, st.st_ino), []).append(i)
        return self._by_inode

    def _real_table(self, real_path: Path) -> dict[Path, list[int]]:
        """``real`` with every root that ``real_path`` or a parent of it can be resolved."""
        inodes = self._inodes()
        for prefix in (real_path, *real_path.parents):
            if prefix in self._checked:
                break  # and so were its parents
            self._checked.add(prefix)
            try:
                st = os.stat(prefix)
            except (OSError, ValueError):
                continue
            for i in inodes.get((st.st_dev, st.st_ino), ()):
                self._resolve(i)
        return self.real

    def owner(self, path: Path) -> tuple[Store, tuple[str, ...]] | None:
        """The deepest store whose root holds ``path`` (the first one listed among equally deep
        ones), with the parts below that root; a store matched by the path as given is not
        tried by real path."""
        found: dict[int, tuple[str, ...]] = {}
        real_path = self.paths.real_parent(path)
        for candidate, table in ((path, self.given), (real_path, self._real_table(real_path))):
            for prefix in (candidate, *candidate.parents):
                for i in table.get(prefix, ()):
                    found.setdefault(i, candidate.parts[len(prefix.parts) :])
        if not found:
            return None
        best = max(found, key=lambda i: (len(self.stores[i].path.parts), -i))
        return self.stores[best], found[best]


def _transcript_store(result: ScanResult, session_id: str) -> Store | None:
    """The session store whose transcript is ``<session_id>.jsonl``, if it still needs it."""
    for store in result.stores:
        if store.kind != StoreKind.SESSION or store.location.session != session_id:
            continue
        info = store.session_info
        if info is None or info.transcript is None or info.cwd is None:
            return store
    return None


def _plan_store_change(
    plan: RefreshPlan, result: ScanResult, store: Store, rel: tuple[str, ...]
) -> None:
    plan.stores.add(store.path)
    plan.files.setdefault(store.path, set()).add("/".join(rel))
    if store.kind in AGENT_KINDS:
        # snapshot statuses read both the snapshot dir and the agent's local memory dir
        plan.stores.update(s.path for s in result.stores if s.kind == StoreKind.SNAPSHOT)


def _plan_sessions_change(plan: RefreshPlan, result: ScanResult, rel: tuple[str, ...]) -> None:
    if len(rel) == 1 and rel[0].endswith(TRANSCRIPT_SUFFIX):
        store = _transcript_store(result, rel[0].removesuffix(TRANSCRIPT_SUFFIX))
        if store is not None:
            plan.stores.add(store.path)
    elif len(rel) <= 1 or (len(rel) == 2 and rel[1] == SESSION_DIR):
        plan.structural = True


def _plan_container_change(
    plan: RefreshPlan, result: ScanResult, targets: WatchTargets, path: Path, paths: _RealPaths
) -> None:
    """A path outside every store: a new store, an agent definition, or noise."""
    _relative = paths.relative
    rel = _relative(path, targets.sessions_root)
    if rel is not None:
        _plan_sessions_change(plan, result, rel)
        return
    for root in targets.definition_dirs:
        rel = _relative(path, root)
        if rel is not None and (not rel or (len(rel) == 1 and rel[0].endswith(".md"))):
            plan.full = True  # definitions decide scopes and snapshot statuses
            return
    for root in (*targets.agent_roots, targets.snapshots_root):
        rel = _relative(path, root)
        if rel is not None and len(rel) <= 1:
            plan.structural = True
            return
    for root in targets.roots:
        if _relative(root, path) is not None:
            plan.structural = True  # a directory on the way to a root appeared or went
            return


def plan_refresh(
    result: ScanResult,
    targets: WatchTargets,
    changed: Iterable[Path],
    paths: _RealPaths | None = None,
) -> RefreshPlan:
    """Sort changed paths into stores to rescan, structural changes and noise.

    Each store root and each changed path's folder is resolved once (``paths``: where the
    real paths are kept; a new one per call by default)."""
    plan = RefreshPlan()
    paths = paths if paths is not None else _RealPaths()
    roots = _StoreRoots(result.stores, paths)
    for path in changed:
        path = Path(os.path.abspath(path))
        owner = roots.owner(path)
        if owner is None:
            _plan_container_change(plan, result, targets, path, paths)
            continue
        store, rel = owner
        if not rel:
            plan.structural = True  # the store dir itself appeared, went or was replaced
        else:
            _plan_store_change(plan, result, store, rel)
    return plan


# ---------------------------------------------------------------------------------- applying


def all_locations(locations: Locations) -> list[StoreLocation]:
    return [
        locations.auto,
        locations.team,
        *locations.sessions,
        *locations.agents,
        *locations.snapshots,
        locations.agentmemory,
    ]


def _layout_changed(
    result: ScanResult, locations: Locations, only: set[Path] | None = None
) -> bool:
    """Whether the set of stores, or whether one exists, differs from ``result`` (``only``:
    whether one of these stores exists is looked at, not every store's)."""
    found = {(loc.kind, loc.path) for loc in all_locations(locations)}
    known = {(store.kind, store.path) for store in result.stores}
    if found != known:
        return True
    return any(store.exists != store.path.is_dir() for store in result.stores
               if only is None or store.path in only)


def rescan_store(
    ctx: Context, locations: Locations, location: StoreLocation, cache: ScanCache | None = None
) -> Store:
    """One store scanned as a full scan would scan it (``cache``: unchanged files' headers
    are not parsed again)."""
    location = replace(location)
    if location.kind == StoreKind.AUTO:
        store = scan_store(location, skip={"team"}, cache=cache)
        store.problems.extend(locations.problems)
        return store
    if location.kind == StoreKind.SESSION:
        return scan_session(location, session_template(ctx.claude_home), cache)
    if location.kind == StoreKind.SNAPSHOT:
        return scan_snapshot(location, locations, cache)
    return scan_store(location, cache=cache)


def apply_refresh(
    ctx: Context,
    result: ScanResult,
    plan: RefreshPlan,
    cache: ScanCache | None = None,
    locations: Locations | None = None,
) -> ScanResult:
    """A new result with the planned stores rescanned, or a full scan when the layout moved.

    A planned store reads only its changed files (``plan.files``) and keeps every other
    memory object of ``result`` (``incremental.rescan_store_changed``): one new file in a
    store of 3,000 costs one header and a listing. ``cache`` is read from (never saved by a
    partial rescan). ``locations``: the stores' locations to rescan with, found before
    (``locate(ctx)`` when None; reading settings, the Claude Code version and 500 session
    folders costs a large home ~10 ms: a live refresh passes the ones it found last and
    finds them again once the result is shown, ``tui.live``)."""
    if plan.empty:
        return result
    if plan.full:
        return scan(ctx, cache=cache)
    locations = locations if locations is not None else locate(ctx)
    # a store root (or a folder above one) that appeared or went is a structural change:
    # without one, only the stores to rescan are looked at (a large home has 500 stores)
    if _layout_changed(result, locations, None if plan.structural else plan.stores):
        return scan(ctx, cache=cache)
    if not plan.stores:
        return result
    fresh = {loc.path: loc for loc in all_locations(locations)}
    stores = [
        rescan_store_changed(ctx, locations, fresh[store.path], store,
                             plan.files.get(store.path, set()), cache)
        if store.path in plan.stores
        else store
        for store in result.stores
    ]
    return replace(result, stores=stores)


def refresh(
    ctx: Context,
    result: ScanResult,
    changed: Iterable[Path],
    targets: WatchTargets | None = None,
    cache: ScanCache | None = None,
    locations: Locations | None = None,
) -> ScanResult:
    """``result`` brought up to date after ``changed`` paths changed on disk (``locations``:
    see ``apply_refresh``).

    Returns ``result`` itself when none of the paths matters."""
    targets = targets or watch_targets(ctx, result)
    return apply_refresh(ctx, result, plan_refresh(result, targets, changed), cache, locations)
