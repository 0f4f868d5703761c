"""What a change to users' memory files is, and how a user previews it.

A :class:`Proposal` is a list of :class:`FileChange`, each stating the sha256 of the bytes it was
planned against; :mod:`memtui.core.write.apply` carries it out. :meth:`Proposal.diff` shows each
change against the disk (read without following a link) and :func:`target_text` names the real
directory the writes would land in, or why memtui refuses to write there.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memtui.core.write.dirfd import (
    DirTree,
    EditRefused,
    absolute,
    read_capped,
    store_target,
)
from memtui.core.write.journal import (
    OpRecord,
)

ChangeAction = Literal["write", "delete"]
DiffStatus = Literal["added", "changed", "deleted", "unchanged"]
NEW_FILE_MODE = 0o600
NEW_DIR_MODE = 0o700
BINARY_NOTE = "binary file: no text diff"


@dataclass(frozen=True)
class FileChange:
    """Write ``new_bytes`` to ``path`` or delete it.

    ``expected`` is the sha256 (hex) of the bytes the plan saw, or None when the file must not
    exist. ``mode`` forces the file's mode (default: an existing file keeps its mode, a new one
    gets 0o600); ``mtime_ns`` sets the mtime after writing (undo restores the original one).
    """

    path: Path
    action: ChangeAction
    new_bytes: bytes | None = None
    expected: str | None = None
    mode: int | None = None
    mtime_ns: int | None = None

    def __post_init__(self) -> None:
        if self.action == "write" and self.new_bytes is None:
            raise ValueError("a write needs new_bytes")
        if self.action == "delete" and self.new_bytes is not None:
            raise ValueError("a delete has no new_bytes")


@dataclass(frozen=True)
class FileRead:
    """A file a plan read but does not change: :func:`memtui.core.write.apply.apply` refuses the
    operation when its first ``length`` bytes no longer have the sha256 ``expected`` (a plan that
    read only a file's header depends on nothing after it). ``expected`` None: the file must not
    exist; ``length`` None: the whole file."""

    path: Path
    expected: str | None
    length: int | None = None

    def matches(self, data: bytes | None) -> bool:
        if data is None or self.expected is None:
            return data is None and self.expected is None
        if self.length is not None and len(data) < self.length:
            return False
        part = data if self.length is None else data[: self.length]
        return sha256_hex(part) == self.expected


@dataclass(frozen=True)
class DirListing:
    """A directory a plan listed to know which files to read: :func:`memtui.core.write.apply.apply`
    refuses the operation when the names in it ending in ``suffix`` are no longer ``names`` (a
    file added or removed since the preview). An absent directory lists no name."""

    path: Path
    names: tuple[str, ...]
    suffix: str = ""

    def difference(self, found: Iterable[str]) -> tuple[list[str], list[str]]:
        """(added, gone): the names of ``found`` (with ``suffix``) the plan did not list, and
        the listed names no longer there."""
        now = {name for name in found if name.endswith(self.suffix)}
        return sorted(now - set(self.names)), sorted(set(self.names) - now)


@dataclass
class FileDiff:
    """One file of a proposal as a user previews it (texts are UTF-8 with replacement)."""

    path: Path
    rel: str
    status: DiffStatus
    old_text: str | None
    new_text: str | None
    unified: str
    binary: bool = False


@dataclass(frozen=True)
class StoreRoot:
    """One store root an operation writes into: nothing outside ``path`` is touched there, and
    ``lock_dir`` is the memory dir whose ``.consolidate-lock`` applies (None: no lock)."""

    path: Path
    lock_dir: Path | None


@dataclass(frozen=True)
class StateFile:
    """A file of memtui's own state dir (never a user's memory) that an operation writes once
    its changes are made: an archive entry, a decision for the judge's ledger. ``rel`` is
    relative to the state dir of the journal the operation is applied with. Journaled with the
    operation (so an interrupted one finished by recovery writes it too), removed by its
    rollback; never previewed, and left alone by an undo."""

    rel: str
    data: bytes


@dataclass
class Proposal:
    """A planned operation: nothing outside ``root`` is touched; ``lock_dir`` is the memory
    dir whose ``.consolidate-lock`` applies (None: no lock). ``remove_dirs`` are directories to
    remove afterwards when empty (undo of an operation that created them).

    An operation across stores with separate roots names the others in ``more_roots``: each
    change then belongs to the root it lies in (:meth:`root_of`), each root is confined and
    locked on its own, and it is still ONE operation (one preview, one journal entry, one
    undo). :func:`combine` makes one from the proposals of single stores."""

    kind: str
    title: str
    root: Path
    lock_dir: Path | None
    changes: list[FileChange]
    notes: list[str] = field(default_factory=list)
    remove_dirs: list[Path] = field(default_factory=list)
    reads: list[FileRead] = field(default_factory=list)
    """Files the plan read and does not change, checked again before anything is written."""
    listings: list[DirListing] = field(default_factory=list)
    """Directories the plan listed, listed again before anything is written."""
    shown: Callable[[str], str] | None = None
    """What a preview shows of each old and new text (the plans of files that may hold a
    secret mask it); None: the texts as they are."""
    more_roots: list[StoreRoot] = field(default_factory=list)
    """The operation's other store roots, each with its own lock (empty: one root)."""
    state_files: list[StateFile] = field(default_factory=list)
    """memtui's own records the operation writes once its changes are made."""
    op_id: str | None = None
    """The id the journal gives the operation, chosen by a plan whose state files name it
    (``memtui.core.write.journal.new_op_id``); None: a new one."""

    def roots(self) -> list[StoreRoot]:
        """Every store root of the operation, ``root`` first."""
        return [StoreRoot(self.root, self.lock_dir), *self.more_roots]

    def root_of(self, path: Path) -> StoreRoot:
        """The root ``path`` belongs to: the innermost root it lies in (``root`` when none:
        the confinement check then refuses it)."""
        return root_of(self.roots(), path)

    @property
    def base(self) -> Path:
        """Where a preview says the operation writes: ``root``, or the directory holding every
        root of an operation across stores (file names are shown relative to it)."""
        return roots_base([r.path for r in self.roots()])

    def diff(self) -> list[FileDiff]:
        """Each change against the file as it is on disk now (read without following a link:
        a store behind a link previews nothing of what lies behind it)."""
        base = self.base
        with DirTree() as tree:
            return [file_diff(base, change, tree, self.shown) for change in self.changes]

    def target(self) -> tuple[str, str | None]:
        """The real directory the writes land in (each root's, joined by " and "), and why
        memtui refuses to write there (None: it does not; a symlink on the way is named with
        its real target)."""
        found = [store_target(r.path) for r in self.roots()]
        problem = next((p for _real, p in found if p is not None), None)
        return " and ".join(real for real, _p in found), problem

    def target_text(self) -> str:
        """One preview line: the real target directory of each root, or the refusal."""
        return target_text(*(r.path for r in self.roots()))


def root_of(roots: Sequence[StoreRoot], path: Path) -> StoreRoot:
    """The innermost of ``roots`` that ``path`` lies in (the first one when none)."""
    where = absolute(path)
    inside = [r for r in roots if where.is_relative_to(absolute(r.path))]
    if not inside:
        return roots[0]
    return max(inside, key=lambda r: len(absolute(r.path).parts))


def roots_base(roots: Sequence[Path]) -> Path:
    """The one root, or the deepest directory holding all of them."""
    if len(roots) == 1:
        return roots[0]
    return Path(os.path.commonpath([str(absolute(r)) for r in roots]))


def combine(kind: str, title: str, parts: Sequence[Proposal]) -> Proposal:
    """ONE operation doing every change of ``parts`` (proposals of single stores, each with
    its root and lock): the first part's root comes first, a root two parts share is one
    root. Notes, reads, listings, directories to remove and state files are joined; the
    first ``shown`` applies."""
    if not parts:
        raise EditRefused("nothing to change")
    roots: list[StoreRoot] = []
    for part in parts:
        for root in part.roots():
            if root not in roots:
                roots.append(root)
    return Proposal(
        kind=kind,
        title=title,
        root=roots[0].path,
        lock_dir=roots[0].lock_dir,
        changes=[c for p in parts for c in p.changes],
        notes=[n for p in parts for n in p.notes],
        remove_dirs=[d for p in parts for d in p.remove_dirs],
        reads=[r for p in parts for r in p.reads],
        listings=[d for p in parts for d in p.listings],
        shown=next((p.shown for p in parts if p.shown is not None), None),
        more_roots=roots[1:],
        state_files=[f for p in parts for f in p.state_files],
    )


def target_text(root: Path, *more: Path) -> str:
    """One preview line for writes into ``root`` (and the ``more`` roots of an operation
    across stores): the real directory each lands in, or why memtui refuses to write there
    (a symlink on the way, with its real target)."""
    reals: list[str] = []
    for each in (root, *more):
        real, problem = store_target(each)
        if problem is not None:
            return f"refused: {problem}; nothing will be written"
        reals.append(real)
    return "writes into " + " and ".join(reals)


def record_target_text(record: OpRecord) -> str:
    """:func:`target_text` of every root a journaled operation wrote into."""
    first, *more = (Path(r.root) for r in record.roots())
    return target_text(first, *more)


@dataclass
class AppliedOp:
    op_id: str
    kind: str
    title: str
    files: list[Path]
    record: OpRecord


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str | None:
    """The sha256 of a regular file's bytes, or None when there is no such file."""
    data, _st = read_regular(path)
    return None if data is None else sha256_hex(data)


def read_regular(path: Path) -> tuple[bytes | None, os.stat_result | None]:
    """(bytes, stat) of a regular file, (None, None) when absent; EditRefused otherwise (a
    link, a FIFO: the open never blocks). For plans and previews; writes read by descriptor."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, None
    except NotADirectoryError as exc:
        raise EditRefused(f"{path} cannot exist: a parent is not a directory", path) from exc
    if stat.S_ISLNK(st.st_mode):
        raise EditRefused(f"{path} is a symbolic link; memtui does not write through links", path)
    if not stat.S_ISREG(st.st_mode):
        raise EditRefused(f"{path} is not a regular file", path)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise EditRefused(f"{path} is not a regular file", path)
        return read_capped(fd, path), st
    finally:
        os.close(fd)


def current_hash(tree: DirTree, path: Path) -> tuple[str | None, os.stat_result | None, bool]:
    """(hash, stat, readable as a plain file or absent) without raising."""
    try:
        data, st = tree.read(path)
    except (EditRefused, OSError):
        return None, None, False
    return (None if data is None else sha256_hex(data)), st, True


def file_diff(
    root: Path,
    change: FileChange,
    tree: DirTree | None = None,
    shown: Callable[[str], str] | None = None,
) -> FileDiff:
    """Preview one change: status and a unified diff (no text for binary files); ``shown``
    makes each text what the preview shows of it."""
    try:
        if tree is None:
            old, _st = read_regular(change.path)
        else:
            old, _st = tree.read(absolute(change.path))
    except (EditRefused, OSError):
        old = None
    new = change.new_bytes if change.action == "write" else None
    rel = _rel(root, change.path)
    status = _diff_status(change.action, old, new)
    binary = any(data is not None and b"\0" in data for data in (old, new))
    if binary:
        return FileDiff(change.path, rel, status, None, None, BINARY_NOTE, binary=True)
    old_text = None if old is None else old.decode("utf-8", errors="replace")
    new_text = None if new is None else new.decode("utf-8", errors="replace")
    if shown is not None:
        old_text = None if old_text is None else shown(old_text)
        new_text = None if new_text is None else shown(new_text)
    unified = unified_diff(rel, old_text, new_text) if status != "unchanged" else ""
    return FileDiff(change.path, rel, status, old_text, new_text, unified)


def _diff_status(action: ChangeAction, old: bytes | None, new: bytes | None) -> DiffStatus:
    if action == "delete":
        return "unchanged" if old is None else "deleted"
    if old is None:
        return "added"
    return "unchanged" if old == new else "changed"


def unified_diff(rel: str, old: str | None, new: str | None) -> str:
    """A ``diff -u`` style text, ``/dev/null`` for a missing side."""
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=f"a/{rel}" if old is not None else "/dev/null",
        tofile=f"b/{rel}" if new is not None else "/dev/null",
    )
    out: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
