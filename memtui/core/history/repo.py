"""The history repository: a bare git repository in memtui's data dir, driven through
GitPython (imported only when a version is written or read, never on a recording that finds
nothing changed).

Objects are written with GitPython's object database; trees are built here from the paths and
blob ids of each version (a store whose files did not change keeps its tree), commits with
:meth:`git.Commit.create_from_tree`. A lock file (``flock``) keeps two recordings apart.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.history.paths import HistoryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GIT_DIR = "repo.git"
LOCK_FILE = "lock"
LOCK_WAIT_SECONDS = 20.0
TREE_MODE = 0o040000
BRANCH = "refs/heads/main"

TreeEntries = Mapping[str, tuple[int, str]]
"""Paths (``/`` separated) to (git mode, hex object id); a mode 040000 entry is a tree."""


def make_private_dir(path: Path) -> None:
    """Create ``path`` (and its missing parents) with mode 0o700; an existing history dir is
    made 0o700 too."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)


@contextlib.contextmanager
def locked(directory: Path, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold the history's lock (another recording waits for it, up to ``wait`` seconds, then
    HistoryError: the repository is locked)."""
    try:
        fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise HistoryError(f"cannot open the history's lock in {directory}: "
                           f"{exc.strerror or exc}") from exc
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise HistoryError(f"cannot lock the history: {exc.strerror}") from exc
                if time.monotonic() >= deadline:
                    raise HistoryError(
                        f"the history in {directory} is locked by another recording") from exc
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)


def head_sha(git_dir: Path) -> str | None:
    """The commit the branch points to, read from the ref files (no git), or None."""
    ref = read_file(git_dir / BRANCH, 4096, follow_symlinks=False)
    if ref.readable and ref.complete:
        text = ref.data.decode("ascii", "replace").strip()
        if len(text) == 40:
            return text
    packed = read_file(git_dir / "packed-refs", 1024 * 1024, follow_symlinks=False)
    if packed.readable:
        for line in packed.data.decode("ascii", "replace").splitlines():
            sha, _sep, name = line.partition(" ")
            if name == BRANCH and len(sha) == 40:
                return sha
    return None


def tree_bytes(entries: list[tuple[bytes, int, bytes]]) -> bytes:
    """A git tree object's body from (name, mode, binary id), sorted git's way (a tree's
    name compares as if it ended in ``/``)."""
    ordered = sorted(entries, key=lambda e: e[0] + (b"/" if e[1] == TREE_MODE else b""))
    return b"".join(b"%o %s\0%s" % (mode, name, sha) for name, mode, sha in ordered)


class HistoryRepo:
    """The repository of one history directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.git_dir = directory / GIT_DIR
        self._repo: Any = None
        self._loose: Any = None

    def exists(self) -> bool:
        return (self.git_dir / "HEAD").is_file()

    def head(self) -> str | None:
        return head_sha(self.git_dir)

    @property
    def repo(self) -> Any:
        """The GitPython ``Repo`` (created, bare, on first use); HistoryError when it cannot
        be opened."""
        if self._repo is None:
            self._repo = self._open()
        return self._repo

    def _open(self) -> Any:
        try:
            import git
        except ImportError as exc:  # pragma: no cover - a dependency
            raise HistoryError(f"GitPython cannot be imported: {exc}") from exc
        try:
            if not self.exists():
                make_private_dir(self.directory)
                repo = git.Repo.init(self.git_dir, bare=True, mkdir=True,
                                     initial_branch=BRANCH.rsplit("/", 1)[1])
                os.chmod(self.git_dir, 0o700)
                return repo
            return git.Repo(self.git_dir)
        except (git.GitError, OSError, ValueError) as exc:
            raise HistoryError(f"the history repository {self.git_dir} cannot be opened: "
                               f"{type(exc).__name__}: {exc}") from exc

    @property
    def objects(self) -> Any:
        """The repository's object database (gitdb's, as GitPython uses it: loose objects and
        packs, which ``history gc`` makes): objects written and read in this process, no git
        started per object (new objects are written loose)."""
        if self._loose is None:
            from gitdb import GitDB

            self.repo  # noqa: B018 - created first
            self._loose = GitDB(str(self.git_dir / "objects"))
        return self._loose

    def forget_objects(self) -> None:
        """Drop the object database (after git repacked or pruned: its list of packs is old)."""
        self._loose = None

    def close(self) -> None:
        self._loose = None
        if self._repo is not None:
            with contextlib.suppress(Exception):
                self._repo.close()
            self._repo = None

    def store_object(self, kind: bytes, data: bytes) -> str:
        """Write one object; its hex id."""
        from gitdb import IStream

        try:
            stream = self.objects.store(IStream(kind, len(data), io.BytesIO(data)))
        except OSError as exc:
            raise HistoryError(f"cannot write to the history: {exc.strerror or exc}") from exc
        sha = stream.hexsha
        return sha.decode("ascii") if isinstance(sha, bytes) else str(sha)

    def write_tree(self, entries: TreeEntries) -> str:
        """The tree of ``entries`` (nested by ``/``), written bottom up; its hex id."""
        here: list[tuple[bytes, int, bytes]] = []
        below: dict[str, dict[str, tuple[int, str]]] = {}
        for path, (mode, sha) in entries.items():
            first, sep, rest = path.partition("/")
            if sep:
                below.setdefault(first, {})[rest] = (mode, sha)
            else:
                here.append((os.fsencode(first), mode, bytes.fromhex(sha)))
        for name, sub in below.items():
            here.append((os.fsencode(name), TREE_MODE, bytes.fromhex(self.write_tree(sub))))
        return self.store_object(b"tree", tree_bytes(here))

    def commit(self, tree: str, message: str, author: str, when: float) -> str:
        """A commit of ``tree`` on the branch (its parent the branch's commit); its hex id."""
        import git

        repo = self.repo
        parent = self.head()
        try:
            parents = [repo.commit(parent)] if parent else []
            actor = git.Actor(author, "memtui@localhost")
            stamp = f"{int(when)} +0000"
            made = git.Commit.create_from_tree(
                repo, git.Tree(repo, bytes.fromhex(tree)), message, parent_commits=parents,
                head=True, author=actor, committer=git.Actor("memtui", "memtui@localhost"),
                author_date=stamp, commit_date=stamp)
        except (git.GitError, OSError, ValueError) as exc:
            raise HistoryError(f"cannot commit to the history: {type(exc).__name__}: {exc}"
                               ) from exc
        return str(made.hexsha)

    def read_object(self, sha: str) -> bytes:
        """The body of any object (a commit's, a tree's, a blob's)."""
        return self.read_blob(sha)

    def read_blob(self, sha: str) -> bytes:
        try:
            return bytes(self.objects.stream(bytes.fromhex(sha)).read())
        except Exception as exc:
            raise HistoryError(f"cannot read object {sha[:12]} of the history: {exc}") from exc

    def tree_files(self, commit: str) -> dict[str, tuple[int, str]]:
        """Every blob of a commit's tree: path → (mode, hex id)."""
        import git

        try:
            tree = self.repo.commit(commit).tree
            return {str(item.path): (int(item.mode), str(item.hexsha))
                    for item in tree.traverse() if item.type == "blob"}
        except (git.GitError, ValueError, OSError) as exc:
            raise HistoryError(f"cannot read version {commit[:12]}: {exc}") from exc

    def git(self, *args: str) -> str:
        """Run git in the history repository (reads: log, rev-parse); HistoryError on failure."""
        import git

        try:
            return str(self.repo.git.execute(["git", "-c", "core.quotepath=off", *args],
                                             strip_newline_in_stdout=False))
        except (git.GitError, OSError) as exc:
            raise HistoryError(f"git {args[0]} failed in the history: {exc}") from exc
