"""canonical_git_root and current_branch against real git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memtui.core.stores.gitroot import GitRoot, canonical_git_root, current_branch, tilde

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "memtui tests",
    "GIT_AUTHOR_EMAIL": "tests@memtui.invalid",
    "GIT_COMMITTER_NAME": "memtui tests",
    "GIT_COMMITTER_EMAIL": "tests@memtui.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
}


def git(cwd: Path, *args: str) -> str:
    result = subprocess.run(
        [
            "git",
            "-c",
            "user.name=memtui tests",
            "-c",
            "user.email=tests@memtui.invalid",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
            *args,
        ],
        cwd=cwd,
        env={**os.environ, **_GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout.strip()


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "README.md").write_text("hello\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "first")
    return path


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A real (symlink-free) directory to build repositories in."""
    return Path(os.path.realpath(tmp_path))


@pytest.fixture
def shop(base: Path) -> Path:
    return make_repo(base / "src" / "shop")


@pytest.fixture
def hotfix(shop: Path) -> Path:
    """A linked worktree of ``shop`` (``git worktree add``)."""
    path = shop.parent / "shop-hotfix"
    git(shop, "worktree", "add", "-q", "-b", "hotfix", str(path))
    return path


def found(project: Path) -> GitRoot:
    result = canonical_git_root(project)
    assert result is not None
    return result


# --- plain repositories ---------------------------------------------------------------------


def test_plain_repo_is_its_own_root(shop: Path) -> None:
    result = found(shop)
    assert result.root == shop
    assert result.checkout == shop
    assert not result.is_worktree
    assert result.rule == f"git root {shop}"


def test_subdirectory_finds_the_checkout_top(shop: Path) -> None:
    deep = shop / "app" / "models"
    deep.mkdir(parents=True)
    result = found(deep)
    assert (result.root, result.checkout, result.is_worktree) == (shop, shop, False)


def test_no_repository_gives_none(base: Path) -> None:
    lonely = base / "not-a-repo"
    lonely.mkdir()
    if any((parent / ".git").exists() for parent in lonely.parents):
        pytest.skip("the temporary directory itself lies inside a git checkout")
    assert canonical_git_root(lonely) is None


def test_symlinked_project_uses_the_real_path(base: Path, shop: Path) -> None:
    (shop / "app").mkdir()
    link = base / "elsewhere" / "app-link"
    link.parent.mkdir()
    link.symlink_to(shop / "app")
    # Lexically, app-link has no .git above it; its real path is inside shop.
    result = found(link)
    assert result.root == shop
    assert result.checkout == shop


def test_rule_writes_home_as_tilde(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(base))
    shop = make_repo(base / "src" / "shop")
    assert found(shop).rule == "git root ~/src/shop"
    assert tilde(base) == "~"
    assert tilde(base.parent / "other") == str(base.parent / "other")


# --- worktrees ------------------------------------------------------------------------------


def test_linked_worktree_shares_the_main_root(shop: Path, hotfix: Path) -> None:
    result = found(hotfix)
    assert result.root == shop
    assert result.checkout == hotfix
    assert result.is_worktree
    assert result.rule == f"canonical git root of the worktree {hotfix} is {shop}"


def test_worktree_subdirectory_and_tilde_rule(
    base: Path, shop: Path, hotfix: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(base))
    inner = hotfix / "docs"
    inner.mkdir()
    result = found(inner)
    assert result.root == shop
    assert result.rule == "canonical git root of the worktree ~/src/shop-hotfix is ~/src/shop"


def test_worktree_reached_through_a_symlink(base: Path, shop: Path, hotfix: Path) -> None:
    link = base / "hotfix-link"
    link.symlink_to(hotfix)
    result = found(link)
    assert result.root == shop
    assert result.checkout == hotfix


def test_worktree_with_a_relative_gitdir_line(shop: Path, hotfix: Path) -> None:
    gitdir = Path(git(hotfix, "rev-parse", "--absolute-git-dir"))
    relative = os.path.relpath(gitdir, hotfix)
    (hotfix / ".git").write_text(f"gitdir: {relative}\r\n")
    result = found(hotfix)
    assert result.root == shop
    assert result.is_worktree


def test_worktree_of_a_bare_repository_uses_the_common_dir(base: Path, shop: Path) -> None:
    bare = base / "srv" / "shop.git"
    bare.parent.mkdir()
    git(base, "clone", "-q", "--bare", str(shop), str(bare))
    tree = base / "bare-tree"
    git(bare, "worktree", "add", "-q", str(tree), "main")
    result = found(tree)
    assert result.root == bare
    assert result.checkout == tree
    assert result.is_worktree
    assert "bare repository" in result.rule


def test_borrowed_worktree_entry_is_refused(base: Path, shop: Path, hotfix: Path) -> None:
    """A .git file pointing at someone else's worktree entry fails the back-link check."""
    gitdir = git(hotfix, "rev-parse", "--absolute-git-dir")
    intruder = base / "intruder"
    intruder.mkdir()
    (intruder / ".git").write_text(f"gitdir: {gitdir}\n")
    result = found(intruder)
    assert result.root == intruder
    assert not result.is_worktree
    assert "back-link" in result.rule or "points to" in result.rule


def test_commondir_outside_a_worktrees_dir_is_refused(base: Path, shop: Path) -> None:
    """A forged gitdir whose commondir names a trusted repo, but which does not live in it."""
    intruder = base / "intruder"
    fake_gitdir = intruder / "fake-gitdir"
    fake_gitdir.mkdir(parents=True)
    (fake_gitdir / "commondir").write_text(str(shop / ".git") + "\n")
    (fake_gitdir / "gitdir").write_text(str(intruder / ".git") + "\n")
    (intruder / ".git").write_text("gitdir: fake-gitdir\n")
    result = found(intruder)
    assert result.root == intruder
    assert "is not inside" in result.rule


# --- submodules and broken .git files -------------------------------------------------------


def test_submodule_keeps_its_own_root(base: Path, shop: Path) -> None:
    library = make_repo(base / "lib")
    git(shop, "submodule", "add", "-q", str(library), "vendor/lib")
    sub = shop / "vendor" / "lib"
    assert (sub / ".git").is_file()
    result = found(sub / ".")
    assert result.root == sub
    assert result.checkout == sub
    assert not result.is_worktree
    assert "commondir" in result.rule


def test_git_file_pointing_nowhere(base: Path) -> None:
    checkout = base / "broken"
    checkout.mkdir()
    (checkout / ".git").write_text("gitdir: /nonexistent/memtui/worktrees/x\n")
    result = found(checkout)
    assert (result.root, result.checkout, result.is_worktree) == (checkout, checkout, False)
    assert "/nonexistent/memtui/worktrees/x" in result.rule


@pytest.mark.parametrize(
    "content",
    [b"", b"not a gitdir line\n", b"\xff\xfe\x00garbage", b"gitdir:", b"gitdir: \n"],
)
def test_odd_git_files_fall_back_to_the_checkout(base: Path, content: bytes) -> None:
    checkout = base / "odd"
    checkout.mkdir()
    (checkout / ".git").write_bytes(content)
    result = found(checkout)
    assert result.root == checkout
    assert not result.is_worktree


def test_worktree_with_a_missing_back_link(shop: Path, hotfix: Path) -> None:
    gitdir = Path(git(hotfix, "rev-parse", "--absolute-git-dir"))
    (gitdir / "gitdir").unlink()
    result = found(hotfix)
    assert result.root == hotfix
    assert "cannot be read" in result.rule


def test_dangling_git_symlink_is_not_a_repository(shop: Path) -> None:
    inner = shop / "inner"
    inner.mkdir()
    (inner / ".git").symlink_to(inner / "missing")
    assert found(inner).checkout == shop


# --- branch ---------------------------------------------------------------------------------


def test_current_branch_of_repo_and_worktree(shop: Path, hotfix: Path) -> None:
    assert current_branch(shop) == "main"
    assert current_branch(hotfix) == "hotfix"


def test_current_branch_when_detached(shop: Path) -> None:
    sha = git(shop, "rev-parse", "HEAD")
    git(shop, "checkout", "-q", "--detach")
    assert current_branch(shop) == f"detached at {sha[:7]}"


def test_current_branch_outside_a_repository(base: Path) -> None:
    plain = base / "plain"
    plain.mkdir()
    (plain / ".git").write_text("gitdir: /nowhere\n")
    assert current_branch(plain) is None
    assert current_branch(base / "missing") is None


def test_gitpython_that_does_not_answer_in_time_gives_no_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback's time limit: GitPython blocked (a file swapped for a FIFO after it was
    vetted) gives None instead of hanging the scan; its daemon thread is left blocked."""
    import threading

    from memtui.core.stores import gitroot

    release = threading.Event()
    monkeypatch.setattr(gitroot, "GITPYTHON_TIME_LIMIT", 0.0)
    monkeypatch.setattr(gitroot, "_ask_gitpython", lambda _checkout: release.wait() and "x")
    try:
        assert gitroot._branch_from_gitpython(tmp_path) is None
    finally:
        release.set()
