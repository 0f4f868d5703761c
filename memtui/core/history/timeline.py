"""Reading the history: the versions of a file or a store, what a version held, the diff
between two versions (or a version and the disk), and the files recently deleted.

This is the API a history screen shows: :func:`open_history` once, then
:meth:`History.file_timeline`, :meth:`History.store_timeline`, :meth:`History.recent`,
:meth:`History.diff` and :meth:`History.deleted`; restoring a version is a plan
(:func:`memtui.core.write.ops.history.plan_restore`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.history.attribution import Attribution, parse_message
from memtui.core.history.files import SIZE_CAP, is_stub, stub_fields
from memtui.core.history.paths import MANIFEST_DIR, HistoryError, StoreRef
from memtui.core.history.repo import HistoryRepo
from memtui.core.history.rewrite import pruned_of
from memtui.core.history.state import load_state, manifest_from_json
from memtui.core.stores.locations import Context
from memtui.core.write.proposal import BINARY_NOTE, unified_diff

STATUS_OF = {"A": "added", "M": "changed", "D": "deleted", "T": "changed"}
NULL_SHA = "0" * 40
SMALL_BLOB = 512
"""Blobs this small are read to tell a stub (a stub is about 130 bytes)."""


@dataclass
class FileVersion:
    """One file in one version: how it changed, its blob, size and size change (a stub's
    size is the file's, from the stub)."""

    rev: str
    time: float
    attribution: Attribution
    summary: str
    key: str
    rel: str
    path: Path
    status: str
    blob: str | None
    size: int | None
    size_change: int | None
    stub: bool = False
    pruned: int = 0
    """Versions pruned right before this one (``history gc``): its change holds theirs too."""

    def to_json(self) -> dict[str, object]:
        return {"rev": self.rev, "time": self.time, "attribution": self.attribution.to_json(),
                "summary": self.summary, "store": self.key, "rel": self.rel,
                "path": str(self.path), "status": self.status, "blob": self.blob,
                "size": self.size, "size_change": self.size_change, "stub": self.stub,
                "pruned_before": self.pruned}


@dataclass
class StoreVersion:
    """One version (commit) and the files it changed."""

    rev: str
    time: float
    attribution: Attribution
    summary: str
    files: list[FileVersion] = field(default_factory=list)
    pruned: int = 0
    """Versions pruned right before this one (``history gc``): its changes hold theirs too."""

    def to_json(self) -> dict[str, object]:
        return {"rev": self.rev, "time": self.time, "attribution": self.attribution.to_json(),
                "summary": self.summary, "files": [f.to_json() for f in self.files],
                "pruned_before": self.pruned}


@dataclass
class DeletedFile:
    """A file whose newest version is its deletion (and which is not back on disk):
    ``restore_rev`` is the version that still held it."""

    deleted: FileVersion
    restore_rev: str
    last_blob: str
    exists_now: bool = False

    def to_json(self) -> dict[str, object]:
        return {**self.deleted.to_json(), "restore_rev": self.restore_rev,
                "last_blob": self.last_blob}


@dataclass
class VersionDiff:
    """Two versions of a file (``None`` rev: the file on disk now) and their unified diff."""

    rel: str
    old_rev: str | None
    new_rev: str | None
    old_text: str | None
    new_text: str | None
    unified: str
    binary: bool = False


class History:
    """The history of one data dir, for reading."""

    def __init__(self, repo: HistoryRepo, manifest: dict[str, StoreRef]) -> None:
        self.repo = repo
        self.manifest = manifest

    # -- where things are

    def stores(self) -> list[StoreRef]:
        return sorted(self.manifest.values(), key=lambda r: r.key)

    def store_of(self, path: Path | str) -> tuple[StoreRef, str] | None:
        """The store a file (on disk, or gone) belongs to and its path in it ("" for the
        store itself); the innermost store."""
        where = os.path.abspath(path)
        best: tuple[StoreRef, str] | None = None
        for ref in self.manifest.values():
            root = str(ref.path)
            if where == root:
                rel = ""
            elif where.startswith(root.rstrip(os.sep) + os.sep):
                rel = where[len(root.rstrip(os.sep)) + 1:].replace(os.sep, "/")
            else:
                continue
            if best is None or len(str(best[0].path)) < len(root):
                best = (ref, rel)
        return best

    def store(self, key: str) -> StoreRef | None:
        return self.manifest.get(key)

    def disk_path(self, key: str, rel: str) -> Path:
        ref = self.manifest.get(key)
        if ref is None:
            raise HistoryError(f"no store {key} in the history")
        return ref.path / rel

    # -- versions

    def file_timeline(self, path: Path | str, limit: int = 200) -> list[FileVersion]:
        """Every version of a file, newest first."""
        found = self.store_of(path)
        if found is None or not found[1]:
            return []
        ref, rel = found
        return [f for v in self._log(f"{ref.key}/{rel}", limit) for f in v.files
                if f.key == ref.key and f.rel == rel]

    def store_timeline(self, store: StoreRef, limit: int = 200) -> list[StoreVersion]:
        """Every version that changed a file of the store, newest first (only its files)."""
        versions = self._log(store.key + "/", limit)
        for version in versions:
            version.files = [f for f in version.files if f.key == store.key]
        return [v for v in versions if v.files]

    def recent(self, limit: int = 50) -> list[StoreVersion]:
        """The newest versions of every store."""
        versions = self._log(None, limit)
        for version in versions:
            version.files = [f for f in version.files if not f.key.startswith(MANIFEST_DIR)]
        return [v for v in versions if v.files]

    def deleted(self, limit: int = 100) -> list[DeletedFile]:
        """Files deleted from a store, newest first, each once (not those back on disk)."""
        if self.repo.head() is None:
            return []
        seen: set[tuple[str, str]] = set()
        out: list[DeletedFile] = []
        for version in self._log(None, 2000, deleted_only=True):
            for item in version.files:
                if (item.key, item.rel) in seen or item.status != "deleted":
                    continue
                seen.add((item.key, item.rel))
                newest = self.file_timeline(item.path, 1)
                if newest and newest[0].status != "deleted":
                    continue  # recorded again since
                parent = self._parent(version.rev)
                if parent is None or item.size_change is None:
                    continue
                out.append(DeletedFile(item, parent, item.blob or "",
                                       os.path.lexists(item.path)))
                if len(out) >= limit:
                    return out
        return out

    def resolve(self, rev: str) -> str:
        """A full commit id from a prefix (or any git revision); HistoryError when none."""
        if not rev or rev.startswith("-") or any(not c.isprintable() for c in rev):
            raise HistoryError(f"no version {rev!r} in the history")
        try:
            return self.repo.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
        except HistoryError as exc:
            raise HistoryError(f"no version {rev!r} in the history") from exc

    def blob_at(self, rev: str, key: str, rel: str) -> str | None:
        """The blob id of the file at version ``rev`` (None: not in that version)."""
        out = self.repo.git("ls-tree", "-z", "--full-tree", self.resolve(rev), "--",
                            f":(literal){key}/{rel}")
        for record in out.split("\0"):
            meta, _tab, name = record.partition("\t")
            parts = meta.split()
            if name == f"{key}/{rel}" and len(parts) == 3 and parts[1] == "blob":
                return parts[2]
        return None

    def content(self, rev: str, key: str, rel: str) -> bytes | None:
        """The bytes the file had at version ``rev`` (a stub for a large or binary file)."""
        blob = self.blob_at(rev, key, rel)
        return None if blob is None else self.repo.read_blob(blob)

    def diff(self, path: Path | str, old_rev: str | None, new_rev: str | None) -> VersionDiff:
        """The diff of a file between two versions; ``None`` for the file on disk now."""
        found = self.store_of(path)
        if found is None or not found[1]:
            raise HistoryError(f"{path} is in no store of the history")
        ref, rel = found
        old = self._side(ref, rel, old_rev)
        new = self._side(ref, rel, new_rev)
        if any(d is not None and (is_stub(d) or b"\0" in d) for d in (old, new)):
            return VersionDiff(rel, old_rev, new_rev, None, None,
                               f"{BINARY_NOTE} ({_stub_text(old)} → {_stub_text(new)})", True)
        old_text = None if old is None else old.decode("utf-8", "replace")
        new_text = None if new is None else new.decode("utf-8", "replace")
        unified = unified_diff(rel, old_text, new_text) if old != new else ""
        return VersionDiff(rel, old_rev, new_rev, old_text, new_text, unified)

    def _side(self, ref: StoreRef, rel: str, rev: str | None) -> bytes | None:
        if rev is not None:
            return self.content(rev, ref.key, rel)
        result = read_file(ref.path / rel, SIZE_CAP, follow_symlinks=False)
        return result.data if result.readable else None

    def _parent(self, rev: str) -> str | None:
        try:
            out = self.repo.git("rev-parse", "--verify", "--quiet", f"{rev}^")
        except HistoryError:
            return None
        return out.strip() or None

    def _log(self, pathspec: str | None, limit: int, *,
             deleted_only: bool = False) -> list[StoreVersion]:
        if self.repo.head() is None:
            return []
        args = ["log", "-z", "--no-renames", "--raw", "--no-abbrev", "--root",
                "--format=%x1e%H%x1f%at%x1f%B%x1f", f"--max-count={max(1, limit)}"]
        if deleted_only:
            args.append("--diff-filter=D")
        args.append("main")
        if pathspec is not None:
            args += ["--", f":(literal){pathspec}"]
        return self._parse_log(self.repo.git(*args))

    def _parse_log(self, out: str) -> list[StoreVersion]:
        versions: list[StoreVersion] = []
        for record in out.split("\x1e")[1:]:
            head = record.split("\x1f", 3)
            if len(head) < 4:
                continue
            rev, at, body, raw = head
            summary, who = parse_message(body)
            version = StoreVersion(rev, float(at or 0), who, summary, pruned=pruned_of(body))
            tokens = raw.lstrip("\0\n").split("\0")
            for meta, name in zip(tokens[0::2], tokens[1::2], strict=False):
                item = self._raw_item(version, meta, name)
                if item is not None:
                    version.files.append(item)
            versions.append(version)
        return versions

    def _raw_item(self, version: StoreVersion, meta: str, name: str) -> FileVersion | None:
        parts = meta.lstrip("\n:").split()
        if len(parts) < 5 or name.startswith(MANIFEST_DIR + "/"):
            return None
        old_blob, new_blob, letter = parts[2], parts[3], parts[4][:1]
        found = self._key_of(name)
        if found is None:
            return None
        key, rel = found
        old_size, _old_stub = self._size(old_blob)
        new_size, new_stub = self._size(new_blob)
        status = STATUS_OF.get(letter, "changed")
        blob = None if new_blob == NULL_SHA else new_blob
        if status == "deleted":
            blob = old_blob
        change = None
        if old_size is not None or new_size is not None:
            change = (new_size or 0) - (old_size or 0)
        return FileVersion(version.rev, version.time, version.attribution, version.summary,
                           key, rel, self.manifest[key].path / rel, status, blob,
                           new_size, change, new_stub, version.pruned)

    def _key_of(self, name: str) -> tuple[str, str] | None:
        best = None
        for key in self.manifest:
            if name.startswith(key + "/") and (best is None or len(key) > len(best)):
                best = key
        return None if best is None else (best, name[len(best) + 1:])

    def _size(self, blob: str) -> tuple[int | None, bool]:
        """A blob's size (a stub's: the file's) and whether it is a stub."""
        if blob == NULL_SHA:
            return None, False
        try:
            info = self.repo.objects.info(bytes.fromhex(blob))
            size = int(info.size)
        except Exception:
            return None, False
        if size <= SMALL_BLOB:
            data = self.repo.read_blob(blob)
            if is_stub(data):
                value = stub_fields(data).get("size", "")
                return (int(value) if value.isdigit() else None), True
        return size, False


def _stub_text(data: bytes | None) -> str:
    if data is None:
        return "absent"
    if is_stub(data):
        fields = stub_fields(data)
        return f"{fields.get('size', '?')} bytes, sha256 {fields.get('sha256', '?')[:12]}"
    return f"{len(data)} bytes"


def open_history(ctx: Context) -> History:
    """The history of ``ctx``'s data dir for reading (HistoryError when there is none or it
    cannot be read)."""
    from memtui.core.history.record import history_of

    repo = history_of(ctx)
    if not repo.exists():
        raise HistoryError(f"no history yet in {repo.directory}: `memtui history record` "
                           "records the first version")
    state = load_state(repo.directory)
    head = repo.head()
    if state is not None and state.head == head:
        return History(repo, state.manifest)
    return History(repo, _manifest_of_head(repo, head))


def _manifest_of_head(repo: HistoryRepo, head: str | None) -> dict[str, StoreRef]:
    from memtui.core.fileread import parse_json
    from memtui.core.history.paths import MANIFEST_NAME

    if head is None:
        return {}
    files = repo.tree_files(head)
    entry = files.get(f"{MANIFEST_DIR}/{MANIFEST_NAME}")
    if entry is None:
        return {}
    data, _problem = parse_json(repo.read_blob(entry[1]))
    return manifest_from_json(data) if isinstance(data, dict) else {}
