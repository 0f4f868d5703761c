"""Purging a file from the history (``memtui history purge FILE``): for a secret that must not
be kept. The file is taken out of every version (a version that changed nothing else goes), the
chain is written again and git deletes every object no version reaches, so afterwards no object
of the repository holds the file's bytes (but bytes another file has too: those are named in
the plan, purge that file as well).

The file on disk is not touched: if it still holds the secret, the next recording records it
again (the plan says so); remove the secret from it first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.history.files import SIZE_CAP, blob_sha
from memtui.core.history.paths import HistoryError
from memtui.core.history.repo import locked
from memtui.core.history.rewrite import (
    drop_unreachable,
    is_store_path,
    move_state,
    read_chain,
    repo_bytes,
    rewrite_chain,
    tree_without,
)
from memtui.core.history.timeline import FileVersion, History

VERSION_CAP = 1_000_000


@dataclass
class PurgePlan:
    """What purging a file removes: its versions, their distinct contents (blobs) and their
    size, and what stays."""

    key: str
    rel: str
    path: Path
    head: str
    versions: list[FileVersion]
    blobs: dict[str, int]
    """Each distinct content the file had (blob id) and its size in bytes."""
    shared: dict[str, list[str]] = field(default_factory=dict)
    """Contents another file of the history has too (blob → those files): they stay."""
    on_disk: bool = False
    disk_recorded: bool = False
    """The file on disk holds one of the contents purged: the next recording records it
    again."""

    @property
    def bytes(self) -> int:
        return sum(self.blobs.values())

    def to_json(self) -> dict[str, object]:
        return {"store": self.key, "rel": self.rel, "path": str(self.path), "head": self.head,
                "versions": [v.to_json() for v in self.versions],
                "contents": len(self.blobs), "bytes": self.bytes,
                "shared": self.shared, "on_disk": self.on_disk,
                "disk_recorded": self.disk_recorded}


@dataclass
class PurgeResult:
    plan: PurgePlan
    rewritten: int
    dropped: int
    """Versions that changed nothing but the file: gone."""
    bytes_before: int
    bytes_after: int
    head: str | None
    left: list[str] = field(default_factory=list)
    """Contents of the file still in the repository (another file has them)."""

    @property
    def freed(self) -> int:
        return max(0, self.bytes_before - self.bytes_after)

    def to_json(self) -> dict[str, object]:
        return {"store": self.plan.key, "rel": self.plan.rel, "path": str(self.plan.path),
                "versions_rewritten": self.rewritten, "versions_dropped": self.dropped,
                "bytes_before": self.bytes_before, "bytes_after": self.bytes_after,
                "freed": self.freed, "head": self.head, "left": self.left}


def plan_purge(history: History, path: Path | str) -> PurgePlan:
    """What purging ``path`` (a file of a store, on disk or deleted) would remove;
    HistoryError when the history has no version of it."""
    found = history.store_of(path)
    if found is None or not found[1]:
        raise HistoryError(f"{path} is in no store of the history")
    ref, rel = found
    head = history.repo.head()
    versions = history.file_timeline(ref.path / rel, VERSION_CAP)
    if head is None or not versions:
        raise HistoryError(f"the history has no version of {path}")
    blobs: dict[str, int] = {}
    for version in versions:
        if version.blob is not None and version.blob not in blobs:
            blobs[version.blob] = len(history.repo.read_blob(version.blob))
    full = f"{ref.key}/{rel}"
    shared = _shared(history, full, set(blobs))
    disk = ref.path / rel
    on_disk = os.path.lexists(disk)
    recorded = False
    if on_disk:
        read = read_file(disk, SIZE_CAP, follow_symlinks=False)
        recorded = read.readable and read.complete and blob_sha(read.data) in blobs
    return PurgePlan(ref.key, rel, ref.path / rel, head, versions, blobs, shared, on_disk,
                     recorded)


def _shared(history: History, full: str, blobs: set[str]) -> dict[str, list[str]]:
    """Which of ``blobs`` another path of any version holds too."""
    out = history.repo.git("log", "--format=", "--raw", "-z", "--no-abbrev", "--no-renames",
                           "--root", "main")
    tokens = out.lstrip("\0\n").split("\0")
    shared: dict[str, set[str]] = {}
    for meta, name in zip(tokens[0::2], tokens[1::2], strict=False):
        parts = meta.strip("\n:").split()
        if len(parts) < 4 or name == full or not is_store_path(name):
            continue
        for blob in (parts[2], parts[3]):
            if blob in blobs:
                shared.setdefault(blob, set()).add(name)
    return {blob: sorted(names) for blob, names in shared.items()}


def apply_purge(history: History, plan: PurgePlan) -> PurgeResult:
    """Take the file out of every version and let git delete its objects (the history's lock
    held); HistoryError when the history changed since the plan."""
    repo = history.repo
    full = f"{plan.key}/{plan.rel}"
    with locked(repo.directory):
        try:
            if repo.head() != plan.head:
                raise HistoryError("the history changed since the purge was planned: "
                                   "run it again")
            before = repo_bytes(repo.git_dir)
            chain = read_chain(repo)
            memo: dict[tuple[str, str], str] = {}
            head, mapping = rewrite_chain(
                repo, chain, lambda c: True, lambda c: tree_without(repo, c.tree, full, memo),
                drop_empty=True, count_pruned=False)
            drop_unreachable(repo)
            move_state(repo, plan.head, head,
                       forget=lambda key, rel: key == plan.key and rel == plan.rel)
            present = set(repo.git("cat-file", "--batch-check=%(objectname)",
                                   "--batch-all-objects").split())
            left = [blob for blob in plan.blobs if blob in present]
            return PurgeResult(plan, len(mapping), len(chain) - len(mapping), before,
                               repo_bytes(repo.git_dir), head, left)
        finally:
            repo.close()

