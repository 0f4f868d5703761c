"""Unreadable directories and hostile files (issue 8, items 3 and 4): every scan finishes, in
bounded time and memory, and says what it could not read."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, demo_context, temp_root

from memtui.core import fileread
from memtui.core.age import age_text
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import run_git
from memtui.core.fileread import check_file, read_file, read_first_lines
from memtui.core.parse.frontmatter import parse_frontmatter
from memtui.core.scan.scanner import scan
from memtui.core.stores.cc_settings import read_settings
from memtui.core.stores.gitroot import canonical_git_root, current_branch
from memtui.core.stores.sessions import read_transcript_head
from memtui.core.stores.snapshot import SNAPSHOT_JSON, read_snapshot_meta

SUBPROCESS_TIMEOUT = 120
"""Generous for a loaded 2-core box: a scan of the demo home takes well under a second."""
MEMORY_LIMIT = 2 * 1024**3
"""Address space of a scan subprocess: reading /dev/zero whole would need more."""
DENIED = "cannot read: permission denied"
NOT_REGULAR = "not a regular file (device, FIFO or socket): not read"


@pytest.fixture
def home(tmp_path: Path) -> Iterator[DemoHome]:
    built = build_demo_home(tmp_path / "demo")
    yield built
    for path in (built.root, *built.root.rglob("*")):  # let pytest clean up mode-000 dirs
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


# --- running memtui without the right to read everything ------------------------------------

_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2
_PR_CAPBSET_DROP = 24


def _drop_file_capabilities() -> None:
    """preexec_fn: root without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH obeys file modes
    (a mode-000 directory is EACCES for it, as for any user) after the exec."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def _works(preexec: Callable[[], None]) -> bool:
    """Whether this interpreter runs under ``preexec`` and then cannot read a mode-000 dir."""
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"memtui-probe-{os.getpid()}"
    probe.mkdir(mode=0o000, exist_ok=True)
    probe.chmod(0o000)
    try:
        done = subprocess.run(
            [sys.executable, "-c", f"import os; os.listdir({str(probe)!r})"],
            preexec_fn=preexec, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        probe.rmdir()
    return "PermissionError" in done.stderr


def unprivileged() -> tuple[Callable[[], None] | None, str | None]:
    """A preexec_fn that makes a subprocess unprivileged as far as file modes go (None when
    we are not root: already so), or the reason none can be had."""
    if os.geteuid() != 0:
        return None, None
    if _works(_drop_file_capabilities):
        return _drop_file_capabilities, None
    if _works(_as_nobody):
        return _as_nobody, None
    return None, (
        "running as root, and neither dropping CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH nor "
        "switching to the unprivileged user nobody (uid 65534) works here"
    )


@pytest.fixture(scope="module")
def drop_rights() -> Callable[[], None] | None:
    preexec, why_not = unprivileged()
    if why_not is not None:
        pytest.skip(why_not)
    return preexec


@pytest.fixture
def unprivileged_home(
    home: DemoHome, drop_rights: Callable[[], None] | None
) -> tuple[DemoHome, Callable[[], None] | None]:
    """The home and the preexec_fn to scan it with; as nobody, the temporary directories
    above the home must be traversable by others."""
    if drop_rights is _as_nobody:
        tmp = temp_root()
        for parent in home.root.parents:
            if parent == tmp or tmp not in parent.parents:
                break
            parent.chmod(parent.stat().st_mode | 0o011)
    return home, drop_rights


def memtui(
    home: DemoHome,
    *args: str,
    preexec: Callable[[], None] | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``memtui --claude-home … --project … ARGS`` in a subprocess with a timeout and a memory
    limit (a hang or a runaway read fails the test instead of stopping the suite)."""

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        if preexec is not None:
            preexec()

    command = [sys.executable, "-m", "memtui", "--claude-home", str(home.claude_home),
               "--project", str(home.project), "--agent-memory-home",
               str(home.agent_memory_home), *args]
    full_env = {**os.environ, "HOME": str(home.root), "MEMTUI_NO_CACHE": "1",
                "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(command, env=full_env, cwd=home.root, preexec_fn=limits,
                          capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT,
                          check=False)


def scan_json(home: DemoHome, **kwargs: Any) -> dict[str, Any]:
    done = memtui(home, "scan", "--json", **kwargs)
    assert done.returncode == 0, done.stderr[-3000:]
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def store_of(data: dict[str, Any], kind: str, agent: str | None = None) -> dict[str, Any]:
    return next(s for s in data["stores"] if s["kind"] == kind and
                (agent is None or s["agent"] == agent))


# --- item 3: unreadable directories ---------------------------------------------------------


def test_a_mode_000_store_shows_its_problem_and_the_rest_loads(
    unprivileged_home: tuple[DemoHome, Callable[[], None] | None],
) -> None:
    home, drop_rights = unprivileged_home
    home.auto_memory.chmod(0o000)
    data = scan_json(home, preexec=drop_rights)
    auto = store_of(data, "auto")
    assert DENIED in auto["problems"] and auto["exists"]
    assert DENIED in store_of(data, "team")["problems"]
    agents = [s for s in data["stores"] if s["kind"] == "agent" and s["memories"]]
    assert len(agents) >= 3
    text = memtui(home, "scan", preexec=drop_rights)
    assert text.returncode == 0, text.stderr[-3000:]
    assert f"! {DENIED}" in text.stdout and "agent docs-writer" in text.stdout
    status = memtui(home, "snapshot", "status", preexec=drop_rights)
    assert status.returncode == 0, status.stderr[-3000:]
    assert "reviewer" in status.stdout


def test_a_mode_000_claude_home_still_loads_the_project_stores(
    unprivileged_home: tuple[DemoHome, Callable[[], None] | None],
) -> None:
    home, drop_rights = unprivileged_home
    home.claude_home.chmod(0o000)
    data = scan_json(home, preexec=drop_rights)
    assert DENIED in store_of(data, "auto")["problems"]
    project_agents = [s for s in data["stores"] if s["kind"] == "agent" and
                      str(home.project) in s["path"] and s["memories"]]
    assert project_agents
    for args in (("scan",), ("snapshot", "status")):
        done = memtui(home, *args, preexec=drop_rights)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "Traceback" not in done.stderr


def test_a_mode_000_subdirectory_is_a_store_problem(
    unprivileged_home: tuple[DemoHome, Callable[[], None] | None],
) -> None:
    home, drop_rights = unprivileged_home
    (home.auto_memory / "locked").mkdir(mode=0o000)
    (home.auto_memory / "locked").chmod(0o000)
    auto = store_of(scan_json(home, preexec=drop_rights), "auto")
    assert f"locked/: {DENIED}" in auto["problems"]
    assert len(auto["memories"]) > 10


def test_an_unreadable_file_keeps_its_real_mtime(
    unprivileged_home: tuple[DemoHome, Callable[[], None] | None],
) -> None:
    home, drop_rights = unprivileged_home
    locked = home.auto_memory / "staging-env.md"
    mtime = locked.lstat().st_mtime
    locked.chmod(0o000)
    auto = store_of(scan_json(home, preexec=drop_rights), "auto")
    memory = next(m for m in auto["memories"] if m["path"] == "staging-env.md")
    assert DENIED in memory["problems"]
    assert memory["mtime"] == pytest.approx(mtime)
    assert memory["size"] == locked.lstat().st_size
    line = next(line for line in memtui(home, "scan", preexec=drop_rights).stdout.splitlines()
                if "staging-env.md" in line)
    assert age_text(mtime) in line


def test_an_unknown_mtime_is_never_shown_as_the_epoch() -> None:
    assert age_text(0.0) == "age unknown"
    assert age_text(time.time() - 3 * 86_400) == "3 days old"


# --- item 4: hostile files ------------------------------------------------------------------


def make_fifo(path: Path) -> Path:
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def zero_link(path: Path) -> Path:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")
    return path


HOSTILE = [zero_link, make_fifo]


@pytest.mark.parametrize("make", HOSTILE, ids=["dev-zero", "fifo"])
def test_settings_that_are_no_regular_file_are_a_problem(home: DemoHome, make: Any) -> None:
    make(home.claude_home / "settings.json")
    make(home.project / ".claude" / "settings.json")
    make(home.project / ".claude" / "settings.local.json")
    data = scan_json(home)
    problems = store_of(data, "auto")["problems"]
    for name in ("user settings", "project settings", "local settings"):
        assert any(p.startswith(name) and NOT_REGULAR in p for p in problems), (name, problems)


@pytest.mark.parametrize("make", HOSTILE, ids=["dev-zero", "fifo"])
def test_snapshot_json_that_is_no_regular_file(home: DemoHome, make: Any) -> None:
    snapshot = home.project / ".claude" / "agent-memory-snapshots" / "reviewer"
    make(snapshot / SNAPSHOT_JSON)
    data = scan_json(home)
    info = store_of(data, "snapshot", "reviewer")["snapshot"]
    assert info["problem"] == f"{SNAPSHOT_JSON} cannot be read: {NOT_REGULAR}"
    done = memtui(home, "snapshot", "status")
    assert done.returncode == 0, done.stderr[-3000:]
    assert NOT_REGULAR in done.stdout


@pytest.mark.parametrize("make", HOSTILE, ids=["dev-zero", "fifo"])
def test_git_head_that_is_no_regular_file(home: DemoHome, make: Any) -> None:
    run_git(home.root, "init", "-q", str(home.project))
    make(home.project / ".git" / "HEAD")
    data = scan_json(home)
    assert data["git_root"] == str(home.project) and data["git_branch"] is None


@pytest.mark.parametrize("make", HOSTILE, ids=["dev-zero", "fifo"])
@pytest.mark.parametrize("name", ["config", "packed-refs", "refs/remotes/o/x"])
def test_the_gitpython_fallback_never_reads_a_hostile_git_file(
    tmp_path: Path, make: Any, name: str
) -> None:
    """A HEAD GitPython must interpret, beside a ``config``, ``packed-refs`` or ref that is
    /dev/zero or a FIFO: GitPython (which reads them unbounded) is not asked, in a subprocess
    that must finish in time and memory."""
    repo = tmp_path / "r"
    run_git(tmp_path, "init", "-q", str(repo))
    (repo / ".git" / "HEAD").write_text("ref: refs/remotes/o/x\n")
    (repo / ".git" / "refs" / "remotes" / "o").mkdir(parents=True)
    make(repo / ".git" / name)
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from memtui.core.stores.gitroot import current_branch\n"
        "print(current_branch(Path(sys.argv[1])))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(repo)], env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, check=False,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT,) * 2),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "None\n"


@pytest.mark.parametrize("make", HOSTILE, ids=["dev-zero", "fifo"])
@pytest.mark.parametrize("name", ["commondir", "gitdir"])
def test_worktree_files_that_are_no_regular_file(
    tmp_path: Path, make: Any, name: str
) -> None:
    """A linked worktree whose ``commondir`` or ``gitdir`` back-link is a FIFO or /dev/zero
    keeps its own root, in a subprocess that must finish in time."""
    main = tmp_path / "main"
    run_git(tmp_path, "init", "-q", "-b", "main", str(main))
    run_git(main, "commit", "-q", "--allow-empty", "-m", "one")
    run_git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    gitdir = main / ".git" / "worktrees" / "wt"
    make(gitdir / name)
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from memtui.core.stores.gitroot import canonical_git_root, current_branch\n"
        "found = canonical_git_root(Path(sys.argv[1]))\n"
        "print(found.root if found else None, found.rule if found else None)\n"
        "print(current_branch(Path(sys.argv[1])))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "wt")], env={**os.environ,
        "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=SUBPROCESS_TIMEOUT, check=False,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT,) * 2),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    root, branch = done.stdout.splitlines()
    assert root.startswith(f"{tmp_path / 'wt'} git root ")
    assert NOT_REGULAR in root or "no readable commondir" in root
    assert branch == "wt"


def test_a_transcript_that_is_a_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path / "session.jsonl")
    assert read_first_lines(fifo, 5) == []
    assert read_file(fifo).problems == [NOT_REGULAR]


def nested_json(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_settings_json_is_invalid_json(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"a": ' + nested_json(depth) + "}", encoding="utf-8")
    settings = read_settings("project", path)
    assert settings.data == {} and settings.problem is not None
    assert settings.problem.endswith("are not valid JSON: nested too deeply to parse")


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_transcript_line_is_skipped(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"x": ' + nested_json(depth) + "}\n"
        + json.dumps({"cwd": "/w", "timestamp": "2026-01-01T00:00:00Z"}) + "\n",
        encoding="utf-8",
    )
    head = read_transcript_head(path)
    assert (head.cwd, head.started) == ("/w", "2026-01-01T00:00:00Z")


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_snapshot_json_is_invalid_json(tmp_path: Path, depth: int) -> None:
    (tmp_path / SNAPSHOT_JSON).write_text(
        '{"updatedAt": "2026-01-01T00:00:00Z", "x": ' + nested_json(depth) + "}",
        encoding="utf-8",
    )
    assert read_snapshot_meta(tmp_path) == (
        None, f"{SNAPSHOT_JSON} is not valid JSON: nested too deeply to parse"
    )


def test_nested_json_everywhere_in_one_scan(home: DemoHome) -> None:
    """The TUI's failure mode was a RecursionError out of the scan: the CLI scan finishes."""
    deep = '{"a": ' + nested_json(1_000) + "}"
    (home.project / ".claude" / "settings.json").write_text(deep, encoding="utf-8")
    (home.project / ".claude" / "agent-memory-snapshots" / "reviewer" / SNAPSHOT_JSON
     ).write_text(deep, encoding="utf-8")
    data = scan_json(home)
    assert any("nested too deeply" in p for p in store_of(data, "auto")["problems"])
    snapshot = store_of(data, "snapshot", "reviewer")["snapshot"]
    assert snapshot["problem"].endswith("nested too deeply to parse")


YAML_DEPTH = 1_500
YAML_BUDGET = 0.5
"""Seconds for one hostile header; ruamel took ~2.5 s (3 s on the issue's machine)."""


@pytest.mark.parametrize("opening", ["[", "{a: ", "!!seq ["])
def test_yaml_nested_1500_deep_is_refused_quickly(opening: str) -> None:
    closing = "]" if opening.endswith("[") else "}"
    text = f"---\ndescription: {opening * YAML_DEPTH}{closing * YAML_DEPTH}\n---\nbody\n"
    start = time.perf_counter()
    fm = parse_frontmatter(text)
    elapsed = time.perf_counter() - start
    assert elapsed < YAML_BUDGET, elapsed
    assert fm.error == "bad YAML in frontmatter: nested too deeply (over 100 levels)"
    assert fm.data == {}


def test_yaml_nested_a_little_still_parses() -> None:
    fm = parse_frontmatter("---\ndescription: x\ntags: " + "[" * 20 + "]" * 20 + "\n---\n")
    assert fm.error is None and fm.data["description"] == "x"


def test_a_store_of_deep_yaml_files_scans_in_bounded_time(home: DemoHome) -> None:
    for i in range(10):
        (home.auto_memory / f"deep-{i}.md").write_text(
            f"---\nname: deep {i}\ndescription: {'[' * YAML_DEPTH}{']' * YAML_DEPTH}\n---\n",
            encoding="utf-8",
        )
    start = time.perf_counter()
    result = scan(demo_context(home, MEMTUI_NO_CACHE="1"))
    elapsed = time.perf_counter() - start
    assert elapsed < 10 * YAML_BUDGET, elapsed
    auto = next(s for s in result.stores if s.kind.value == "auto")
    deep = [m for m in auto.memories if m.rel_path.startswith("deep-")]
    assert len(deep) == 10 and all("nested too deeply" in " ".join(m.problems) for m in deep)


def test_a_symlink_swapped_for_a_file_between_lstat_and_readlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lstat`` sees a symlink leaving the store; before ``readlink`` runs, another process
    replaces it with a regular file (done here, for certain, right after the check that the
    link leaves the store)."""
    store = tmp_path / "store"
    store.mkdir()
    path = store / "swap.md"
    path.symlink_to(tmp_path / "outside.md")
    real_inside = fileread.inside
    swapped: list[bool] = []

    def inside_then_swap(root: Any, target: Any) -> bool:
        verdict = real_inside(root, target)
        if not swapped:
            swapped.append(True)
            path.unlink()
            path.write_text("now a file\n", encoding="utf-8")
        return verdict

    monkeypatch.setattr(fileread, "inside", inside_then_swap)
    _st, problems, readable = check_file(path, store)
    assert swapped
    assert not readable
    assert problems == ["symlink leaves the store (→ ?): not read"]


def test_read_file_caps_what_it_reads(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 5000)
    result = read_file(path, cap=1024)
    assert len(result.data) == 1024 and not result.complete and result.problems
    assert read_file(tmp_path / "none").missing
    assert read_file(tmp_path).problems == ["a directory, not a file: not read"]


def test_current_branch_of_a_head_that_is_a_fifo_does_not_block(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", str(tmp_path / "r"))
    make_fifo(tmp_path / "r" / ".git" / "HEAD")
    assert canonical_git_root(tmp_path / "r") is not None
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(current_branch(tmp_path / "r")),
                              daemon=True)
    worker.start()
    worker.join(SUBPROCESS_TIMEOUT)
    assert done == [None]
