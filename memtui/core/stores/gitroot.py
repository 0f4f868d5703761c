"""Claude Code's canonical git root: the directory whose sanitized path names the auto memory dir.

Mirrors CC's ``findGitRoot`` + ``resolveCanonicalRoot``
(docs/claude-code-rules.md#canonical-git-root-and-worktrees): walk up to the first
``.git``; a linked worktree maps to its main repository (so all worktrees share one memory dir)
only when the worktree's files check out; everything else keeps the checkout itself.
"""

from __future__ import annotations

import os
import posixpath
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.parse.jsstring import js_trim
from memtui.core.stores.paths import tilde

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from memtui.core.cache import ScanCache

__all__ = ["GitRoot", "canonical_git_root", "common_git_dir", "current_branch", "find_checkout",
           "tilde"]

_GITDIR_PREFIX = "gitdir:"
GIT_FILE_CAP = 64 * 1024
"""``HEAD``, ``.git``, ``commondir`` and ``gitdir`` hold one line: nothing longer is read."""
BRANCH_KIND = "git-branch"
_REFTABLE_HEAD = "ref: refs/heads/.invalid"
"""What a reftable repository keeps in ``HEAD`` for older tools: the branch is elsewhere."""


@dataclass
class GitRoot:
    """``root`` names the memory dir; ``checkout`` is the top of the working tree found."""

    root: Path
    checkout: Path
    rule: str
    is_worktree: bool


def canonical_git_root(project: Path) -> GitRoot | None:
    """The git root CC uses for ``project`` (walking up from its real path), or None."""
    start = os.path.realpath(project)
    found = _find_checkout(start)
    if found is None:
        return None
    return _resolve_canonical(_nfc(found), start)


def current_branch(checkout: Path, cache: ScanCache | None = None) -> str | None:
    """The checked-out branch, ``detached at <sha7>``, or None when git cannot tell.

    Reads ``HEAD`` directly (a scan must not pay for importing GitPython). Without a HEAD
    that is a readable regular file (an empty or broken repository, a FIFO) git cannot tell
    either: None, and GitPython is never imported. Anything else unusual (reftable's
    ``.invalid``, a symbolic ref outside refs/heads) is left to GitPython, whose answer
    ``cache`` keeps while the stats of the git dir's entries it depends on are unchanged
    (importing GitPython runs ``git version``: a warm scan must not)."""
    gitdir, head = _read_head(checkout)
    if head is None:
        return None
    if head.startswith("ref: refs/heads/") and head != _REFTABLE_HEAD:
        return head.removeprefix("ref: refs/heads/")
    if len(head) in (40, 64) and all(c in "0123456789abcdef" for c in head):
        return f"detached at {head[:7]}"
    if not _vetted_for_gitpython(gitdir, head):
        return None
    if cache is None:
        return _branch_from_gitpython(checkout)
    key, newest = _fallback_key(checkout, gitdir)
    found = cache.get_keyed(BRANCH_KIND, str(checkout), key)
    if found is not None:
        return found[0]  # type: ignore[no-any-return]
    branch = _branch_from_gitpython(checkout)
    cache.put_keyed(BRANCH_KIND, str(checkout), key, (branch,), newest)
    return branch


GITPYTHON_TIME_LIMIT = 10.0
"""Seconds GitPython gets to name the branch; a file swapped for a FIFO after it was vetted
blocks only its daemon thread."""
_PACKED_REFS_CAP = 8 * 1024 * 1024


def _vetted_for_gitpython(gitdir: str, head: str) -> bool:
    """Whether every file GitPython reads to name the branch (HEAD, config, commondir,
    packed-refs, the ref HEAD names, in the git dir and its common dir) is absent or a regular
    file the bounded reader reads whole: GitPython itself reads them unbounded (``/dev/zero``
    as ``config`` grew memory, a FIFO blocked)."""
    common = common_git_dir_of(gitdir)
    names = ["HEAD", "config", "commondir", "packed-refs"]
    target = head.removeprefix("ref:").strip() if head.startswith("ref:") else ""
    if target and ".." not in target.split("/") and not target.startswith("/"):
        names.append(target)
    for base in dict.fromkeys((gitdir, common)):
        for name in names:
            path = os.path.join(base, name)
            if not os.path.lexists(path):
                continue
            cap = _PACKED_REFS_CAP if name == "packed-refs" else GIT_FILE_CAP
            read = read_file(path, cap)
            if not read.readable or not read.complete:
                return False
    return True


def _branch_from_gitpython(checkout: Path) -> str | None:
    """GitPython's answer, within :data:`GITPYTHON_TIME_LIMIT` (None after it)."""
    import threading

    answer: list[str | None] = []
    worker = threading.Thread(target=lambda: answer.append(_ask_gitpython(checkout)),
                              name="memtui-git-branch", daemon=True)
    worker.start()
    worker.join(GITPYTHON_TIME_LIMIT)
    return answer[0] if answer else None


def _ask_gitpython(checkout: Path) -> str | None:
    try:
        import git

        with git.Repo(checkout) as repo:
            if repo.head.is_detached:
                return f"detached at {repo.head.commit.hexsha[:7]}"
            return str(repo.active_branch.name)
    except Exception:
        return None


_FALLBACK_INPUTS = ("", "HEAD", "config", "packed-refs", "reftable", "reftable/tables.list")


def _fallback_key(checkout: Path, gitdir: str) -> tuple[tuple[object, ...], float]:
    """The stat keys of what GitPython's answer depends on (``.git``, the git dir and its
    HEAD, config, packed refs and reftable), and the newest mtime or ctime among them."""
    keys: list[object] = []
    newest = 0.0
    for path in (os.path.join(checkout, ".git"), *(os.path.join(gitdir, n) for n in
                                                    _FALLBACK_INPUTS)):
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            keys.append(None)
            continue
        keys.append((st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        newest = max(newest, st.st_mtime, st.st_ctime)
    return tuple(keys), newest


def _read_head(checkout: Path) -> tuple[str, str | None]:
    """The git dir of the checkout (following a ``.git`` file's gitdir) and the first line of
    its ``HEAD`` file (None when it cannot be read)."""
    dot_git = os.path.join(checkout, ".git")
    if not os.path.isdir(dot_git):
        first = _first_line(dot_git)
        if first is None or not first.startswith("gitdir:"):
            return dot_git, None
        dot_git = os.path.join(checkout, first.removeprefix("gitdir:").strip())
    return dot_git, _first_line(os.path.join(dot_git, "HEAD"))


def _first_line(path: str) -> str | None:
    read = read_file(path, GIT_FILE_CAP)
    if not read.readable:
        return None
    try:
        lines = read.data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    return lines[0].strip() if lines else None


def find_checkout(project: Path) -> str | None:
    """The top of the working tree holding ``project`` (its real path, walking up), or None."""
    return _find_checkout(os.path.realpath(project))


def common_git_dir(checkout: str) -> str:
    """The git dir holding the checkout's ``config``: ``.git``, or for a ``.git`` file its
    gitdir's ``commondir`` (the gitdir itself without one). Read with the bounded reader."""
    gitdir, _head = _read_head(Path(checkout))
    return common_git_dir_of(gitdir)


def common_git_dir_of(gitdir: str) -> str:
    """The common dir a git dir's ``commondir`` names, else the git dir itself."""
    text, _ = _read_text(os.path.join(gitdir, "commondir"))
    first = text.splitlines()[0].strip() if text and text.strip() else ""
    return _js_resolve(gitdir, first) if first else gitdir


# --- walking up -----------------------------------------------------------------------------


def _find_checkout(start: str) -> str | None:
    """The first directory from ``start`` upwards holding a ``.git`` directory or file."""
    current = start
    while True:
        if _is_git_entry(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _is_git_entry(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode)


# --- worktree resolution --------------------------------------------------------------------


def _resolve_canonical(checkout: str, project: str) -> GitRoot:
    """CC's ``resolveCanonicalRoot``: every failed check falls back to the checkout."""
    here = Path(checkout)
    git_path = os.path.join(checkout, ".git")
    if os.path.isdir(git_path):
        return GitRoot(here, here, f"git root {tilde(here)}", is_worktree=False)
    content, problem = _read_text(git_path)
    if content is None:
        return _own_root(here, f"its .git file cannot be read ({problem})")
    content = js_trim(content)
    if not content.startswith(_GITDIR_PREFIX):
        return _own_root(here, "its .git file has no 'gitdir:' line")
    gitdir = _js_resolve(checkout, js_trim(content[len(_GITDIR_PREFIX) :]))
    commondir_text, _ = _read_text(os.path.join(gitdir, "commondir"))
    if commondir_text is None:
        return _own_root(
            here,
            f"its gitdir {tilde(gitdir)} has no readable commondir file "
            "(a submodule or separate git dir keeps its own root)",
        )
    common = _js_resolve(gitdir, js_trim(commondir_text))
    failure = _check_worktree_links(checkout, gitdir, common, project)
    if failure is not None:
        return _own_root(here, failure)
    return _worktree_root(here, common)


def _check_worktree_links(checkout: str, gitdir: str, common: str, project: str) -> str | None:
    """The two checks CC makes before trusting ``commondir``; the failure in words, or None."""
    worktrees = posixpath.join(common, "worktrees")
    if _js_resolve(os.path.dirname(gitdir), "") != worktrees:
        return f"worktree check failed: {tilde(gitdir)} is not inside {tilde(worktrees)}"
    backlink_text, problem = _read_text(os.path.join(gitdir, "gitdir"))
    if backlink_text is None:
        return f"worktree check failed: {tilde(gitdir)}/gitdir cannot be read ({problem})"
    backlink = js_trim(backlink_text)
    # CC realpaths the back-link relative to its own working directory, i.e. the project.
    target = backlink if os.path.isabs(backlink) else os.path.join(project, backlink)
    try:
        backlink_real = os.path.realpath(target, strict=True)
        expected = os.path.join(os.path.realpath(checkout, strict=True), ".git")
    except (OSError, ValueError) as exc:
        return f"worktree check failed: back-link {backlink!r} does not resolve ({_why(exc)})"
    if backlink_real != expected:
        return (
            f"worktree check failed: {tilde(gitdir)}/gitdir points to {tilde(backlink_real)}, "
            f"not to this checkout's .git"
        )
    return None


def _worktree_root(checkout: Path, common: str) -> GitRoot:
    if posixpath.basename(common) != ".git":
        root = Path(_nfc(common))
        rule = (
            f"canonical git root of the worktree {tilde(checkout)} is the bare repository "
            f"{tilde(root)}"
        )
    else:
        root = Path(_nfc(posixpath.dirname(common)))
        rule = f"canonical git root of the worktree {tilde(checkout)} is {tilde(root)}"
    return GitRoot(root, checkout, rule, is_worktree=True)


def _own_root(checkout: Path, why: str) -> GitRoot:
    return GitRoot(checkout, checkout, f"git root {tilde(checkout)}: {why}", is_worktree=False)


# --- JavaScript-compatible helpers ----------------------------------------------------------


def _read_text(path: str) -> tuple[str | None, str | None]:
    """File text decoded like Node's ``readFileSync(path, 'utf-8')``, or (None, why)."""
    read = read_file(path, GIT_FILE_CAP)
    if not read.readable:
        return None, "; ".join(read.problems).removeprefix("cannot read: ")
    return read.data.decode("utf-8", errors="replace"), None


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def _js_resolve(base: str, path: str) -> str:
    """Node's ``path.resolve(base, path)`` for an absolute ``base`` (lexical, no symlinks)."""
    joined = path if path.startswith("/") else posixpath.join(base, path)
    normal = posixpath.normpath(joined)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def _nfc(path: str) -> str:
    return unicodedata.normalize("NFC", path)
