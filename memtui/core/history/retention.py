"""Keeping the history small: versions past an age or a total size are pruned, oldest first
(``memtui history gc``, and a recording once a day when the history is over a limit).

Limits come from memtui's config, ``[history]`` under the environment variables:

- ``max_age_days`` / ``MEMTUI_HISTORY_MAX_AGE_DAYS`` (default 180): versions older go;
- ``max_size_mb`` / ``MEMTUI_HISTORY_MAX_SIZE_MB`` (default 200): while the repository would
  take more than this on disk, the oldest versions go.

``0`` turns a limit off. The newest version of every file is never pruned: the newest version
(which holds every file on disk) always stays, and so do, for each file deleted from a store,
the last version that held it and the version that deleted it (when, and by whom), until the
file is recorded again or purged (``memtui history purge``). A version is a snapshot of every
store, so keeping one keeps what every file was then. A kept version whose neighbours before it
were pruned says how many in its ``Memtui-Pruned`` trailer: its diff against the version before
it holds their changes too. Pruning rewrites the chain of versions (:mod:`rewrite`) and lets
git delete what no kept version reaches, so the space is freed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from memtui.core.config import Config, HistoryConfig
from memtui.core.fileread import parse_json, read_file
from memtui.core.history.paths import HistoryError
from memtui.core.history.repo import HistoryRepo, locked, make_private_dir
from memtui.core.history.rewrite import (
    ChainCommit,
    drop_unreachable,
    is_store_path,
    move_state,
    objects_of_trees,
    read_chain,
    repo_bytes,
    rewrite_chain,
)

MB = 1024 * 1024
DAY = 86400.0
CHECK_FILE = "gc.json"
CHECK_INTERVAL = DAY
"""A recording checks the limits at most this often (seconds)."""
LOOSE_REPACK = 256
"""Over the size cap with more loose objects than this: git packs them first (which may be
enough)."""


@dataclass(frozen=True)
class RetentionLimits:
    """How old (days) and how large (bytes) the history may grow; None: no limit."""

    max_age_days: float | None = HistoryConfig.max_age_days
    max_bytes: int | None = int(HistoryConfig.max_size_mb * MB)
    problems: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, config: Config) -> RetentionLimits:
        age, size = config.history.max_age_days, config.history.max_size_mb
        return cls(max_age_days=age or None, max_bytes=int(size * MB) if size else None,
                   problems=tuple(config.problems_of("history")))

    def describe(self) -> str:
        age = "no age limit" if self.max_age_days is None else f"{self.max_age_days:g} days"
        size = "no size limit" if self.max_bytes is None else _mb(self.max_bytes)
        return f"{age}, {size}"


def _mb(size: int) -> str:
    return f"{size / MB:.3g} MB"


@dataclass
class PrunedVersion:
    rev: str
    time: float
    summary: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"rev": self.rev, "time": self.time, "summary": self.summary,
                "reason": self.reason}


@dataclass
class GcReport:
    """What a gc did: the versions it removed, what it kept, the space before and after."""

    limits: RetentionLimits
    removed: list[PrunedVersion] = field(default_factory=list)
    kept: int = 0
    pinned: int = 0
    """Versions past a limit kept because they hold a deleted file's last version (or its
    deletion)."""
    bytes_before: int = 0
    bytes_after: int = 0
    head_before: str | None = None
    head_after: str | None = None
    renamed: dict[str, str] = field(default_factory=dict)
    """Old → new id of every kept version (the chain is written again)."""

    @property
    def freed(self) -> int:
        return max(0, self.bytes_before - self.bytes_after)

    def to_json(self) -> dict[str, object]:
        return {"limits": {"max_age_days": self.limits.max_age_days,
                           "max_bytes": self.limits.max_bytes},
                "removed": [v.to_json() for v in self.removed], "kept": self.kept,
                "pinned": self.pinned, "bytes_before": self.bytes_before,
                "bytes_after": self.bytes_after, "freed": self.freed,
                "head_before": self.head_before, "head_after": self.head_after,
                "problems": list(self.limits.problems)}


def gc_history(repo: HistoryRepo, limits: RetentionLimits, now: float | None = None) -> GcReport:
    """Prune the history of ``repo`` to ``limits`` (taking its lock)."""
    if not repo.exists():
        raise HistoryError(f"no history yet in {repo.directory}: `memtui history record` "
                           "records the first version")
    with locked(repo.directory):
        try:
            report = run_gc(repo, limits, time.time() if now is None else now)
            _save_check(repo, time.time() if now is None else now)
            return report
        finally:
            repo.close()


def run_gc(repo: HistoryRepo, limits: RetentionLimits, now: float) -> GcReport:
    """Prune (the caller holds the lock)."""
    report = GcReport(limits, bytes_before=repo_bytes(repo.git_dir))
    chain = read_chain(repo)
    report.head_before = report.head_after = chain[-1].sha if chain else None
    report.kept = len(chain)
    report.bytes_after = report.bytes_before
    if len(chain) <= 1:
        return report
    cutoff = None if limits.max_age_days is None else now - limits.max_age_days * DAY
    old = [c for c in chain[:-1] if cutoff is not None and c.time < cutoff]
    over = limits.max_bytes is not None and report.bytes_before > limits.max_bytes
    if not old and not over:
        return report  # within the limits: nothing else is read
    protected = protected_versions(repo, chain)
    prune: dict[str, str] = {}
    past_limits = {c.sha for c in old}
    for commit in old:
        if commit.sha not in protected:
            prune[commit.sha] = f"older than {limits.max_age_days:g} days"
    if limits.max_bytes is not None and over:
        if _loose_count(repo) > LOOSE_REPACK:
            repo.git("-c", "gc.auto=0", "gc", "--quiet")  # packing alone may be enough
            repo.forget_objects()
        if repo_bytes(repo.git_dir) > limits.max_bytes:
            dropped = _over_size(repo, chain, protected, prune, limits.max_bytes)
            past_limits.update(dropped)
            for sha in dropped:
                if sha not in protected:
                    prune.setdefault(sha, f"over the size cap of {_mb(limits.max_bytes)}")
    report.pinned = len(past_limits & protected)
    if prune:
        head, mapping = rewrite_chain(repo, chain, lambda c: c.sha not in prune)
        report.removed = [PrunedVersion(c.sha, c.time, c.summary, prune[c.sha])
                          for c in chain if c.sha in prune]
        report.kept = len(mapping)
        report.renamed = mapping
        report.head_after = head
        drop_unreachable(repo)
        move_state(repo, chain[-1].sha, head)
    report.bytes_after = repo_bytes(repo.git_dir)
    return report


def protected_versions(repo: HistoryRepo, chain: list[ChainCommit]) -> set[str]:
    """The versions no limit prunes: the newest, and for each file deleted from a store (and
    not recorded since) the last version holding it and the one deleting it."""
    protected = {chain[-1].sha}
    present = set(repo.git("ls-tree", "-r", "--name-only", "-z", "main").split("\0"))
    parent_of = {chain[i].sha: chain[i - 1].sha for i in range(1, len(chain))}
    out = repo.git("log", "--first-parent", "--no-renames", "--raw", "-z", "--no-abbrev",
                   "--diff-filter=D", "--format=%x1e%H%x1f", "main")
    seen: set[str] = set()
    for record in out.split("\x1e")[1:]:
        sha, _sep, raw = record.partition("\x1f")
        tokens = raw.lstrip("\0\n").split("\0")
        for meta, name in zip(tokens[0::2], tokens[1::2], strict=False):
            if not meta.startswith(":") or not is_store_path(name):
                continue
            if name in present or name in seen:
                continue
            seen.add(name)
            protected.add(sha)
            if sha in parent_of:
                protected.add(parent_of[sha])
    return protected


def _over_size(repo: HistoryRepo, chain: list[ChainCommit], protected: set[str],
               prune: dict[str, str], cap: int) -> set[str]:
    """The versions to drop, oldest first, so that what the others reach fits in ``cap``
    (by each object's size on disk): the protected ones are counted first, then the others
    newest first until one does not fit; it and every older one go."""
    sizes: dict[str, int] = {}
    out = repo.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) "
                   "%(objectsize:disk)")
    for row in out.splitlines():
        sha, _sep, size = row.partition(" ")
        if size.isdigit():
            sizes[sha] = int(size)
    seen: set[str] = set()
    total = 0
    newest_first = list(reversed(chain))
    order = ([c for c in newest_first if c.sha in protected]
             + [c for c in newest_first if c.sha not in protected and c.sha not in prune])
    position = {c.sha: i for i, c in enumerate(chain)}
    for commit in order:
        cost = sizes.get(commit.sha, 0) + sum(
            sizes.get(sha, 0) for sha in objects_of_trees(repo, [commit.tree], seen))
        if commit.sha not in protected and total + cost > cap:
            return {c.sha for c in chain[:position[commit.sha] + 1]}
        total += cost
    return set()


def _loose_count(repo: HistoryRepo) -> int:
    count = 0
    objects = repo.git_dir / "objects"
    try:
        with os.scandir(objects) as it:
            for entry in it:
                if len(entry.name) == 2 and entry.is_dir(follow_symlinks=False):
                    with os.scandir(entry.path) as inner:
                        count += sum(1 for _ in inner)
    except OSError:
        return 0
    return count


# ------------------------------------------------------------------------------ from recordings


def _last_check(repo: HistoryRepo) -> float | None:
    result = read_file(repo.directory / CHECK_FILE, 4096, follow_symlinks=False)
    if not result.readable:
        return None
    data, problem = parse_json(result.data)
    if problem is not None or not isinstance(data, dict):
        return None
    value = data.get("checked")
    return float(value) if isinstance(value, int | float) else None


def _save_check(repo: HistoryRepo, now: float) -> None:
    make_private_dir(repo.directory)
    tmp = repo.directory / f".{CHECK_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"checked": now}, handle)
    os.replace(tmp, repo.directory / CHECK_FILE)


def gc_due(repo: HistoryRepo, now: float) -> bool:
    """Whether a recording should check the limits now (once a day: the first recording after
    a day without a check)."""
    last = _last_check(repo)
    if last is None:
        with contextlib.suppress(OSError):
            _save_check(repo, now)  # a new history: the first check a day from now
        return False
    return not 0 <= now - last < CHECK_INTERVAL


def over_limits(repo: HistoryRepo, limits: RetentionLimits, now: float) -> bool:
    """A cheap look (the objects' size on disk, the oldest version's time): is a gc needed?"""
    if limits.max_bytes is not None and repo_bytes(repo.git_dir) > limits.max_bytes:
        return True
    if limits.max_age_days is None:
        return False
    out = repo.git("rev-list", "--first-parent", "--max-parents=0", "--format=%at", "main")
    stamps = [line for line in out.splitlines() if line.isdigit()]
    return bool(stamps) and float(stamps[0]) < now - limits.max_age_days * DAY


def gc_when_due(
    repo: HistoryRepo, limits: Callable[[], RetentionLimits], now: float
) -> GcReport | None:
    """From a recording that made a version (the lock held): once a day, the limits are
    checked and the history pruned when it is over one. None: not checked, or within them."""
    if not gc_due(repo, now):
        return None
    try:
        _save_check(repo, now)
    except OSError as exc:
        raise HistoryError(f"cannot write {repo.directory / CHECK_FILE}: "
                           f"{exc.strerror or exc}") from exc
    wanted = limits()
    if not over_limits(repo, wanted, now):
        return None
    return run_gc(repo, wanted, now)
