"""Helpers shared by the tests: tree fingerprints and private copies of the demo home."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from watchdog.observers.inotify_c import InotifyConstants, InotifyFD

from memtui.core.demo.build import DemoHome
from memtui.core.scan.watch import StoreWatcher
from memtui.core.stores.locations import Context
from memtui.core.write.apply import CRASH_ENV, apply
from memtui.core.write.journal import Journal
from memtui.core.write.proposal import Proposal
from memtui.tui.app import MemtuiApp, make_app

REPO = Path(__file__).resolve().parent.parent
"""The repository's root (tests/helpers.py is one folder below it)."""

State = dict[str, tuple[object, ...]]

TEMP_ROOT_ENV = "PYTEST_DEBUG_TEMPROOT"
"""pytest's own variable for the root of its temporary directories (``tmp_path`` and the rest;
tests/conftest.py sets it to a directory in memory where it can)."""


def temp_root() -> Path:
    """The directory pytest makes its temporary directories in (``pytest-of-USER`` below it)."""
    return Path(os.path.realpath(os.environ.get(TEMP_ROOT_ENV) or tempfile.gettempdir()))


def tree_state(root: Path, *, mtimes: bool = True) -> State:
    """Every entry below ``root``: files by sha256, mode and (unless ``mtimes`` is False)
    mtime; dirs by mode; links by target."""
    found: State = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                stamp = st.st_mtime_ns if mtimes else None
                found[rel] = ("file", digest, stat.S_IMODE(st.st_mode), stamp)
    return found


def copy_demo(pristine: DemoHome, root: Path, *, keep_auto: bool = False) -> DemoHome:
    """A private copy of a demo home at ``root`` (mtimes kept, every path moved along),
    without git data, the worktree and, unless ``keep_auto``, the projects folder (kept, the
    project's auto memory moves to the folder named for the copied project)."""

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = {".git"}
        if Path(directory) == pristine.root:
            skipped.add("project-worktree")
        if Path(directory) == pristine.claude_home and not keep_auto:
            skipped.add("projects")
        return skipped & set(names)

    shutil.copytree(pristine.root, root, symlinks=True, ignore=ignore)
    moved = {
        f.name: root / getattr(pristine, f.name).relative_to(pristine.root)
        for f in dataclasses.fields(pristine)
        if isinstance(getattr(pristine, f.name), Path)
    }
    copied = dataclasses.replace(pristine, **moved)
    if not keep_auto:
        return copied
    from memtui.core.stores.sanitize import sanitize_path

    auto = copied.claude_home / "projects" / sanitize_path(str(copied.project)) / "memory"
    moved_auto = copied.auto_memory.parent
    os.replace(moved_auto, auto.parent)
    return dataclasses.replace(copied, auto_memory=auto, team_memory=auto / "team")


def demo_context(home: DemoHome, **env: str) -> Context:
    """A Context for a demo home, isolated from the machine's HOME and settings."""
    return Context.create(
        project=home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env={"HOME": str(home.root), **env},
    )


def demo_app(home: DemoHome, *, watch: bool = False, **env: str) -> MemtuiApp:
    """The real app on a demo home; file watching off unless a test is about it."""
    return make_app(demo_context(home, **env), watch=watch)


def home_args(home: DemoHome) -> list[str]:
    """The CLI options that point memtui at ``home``."""
    return ["--claude-home", str(home.claude_home), "--project", str(home.project),
            "--agent-memory-home", str(home.agent_memory_home)]


def counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the scan modules read whole, from now on (the real reader is
    called: the scan sees what it would)."""
    from memtui.core.fileread import FULL_READ_CAP, ReadResult
    from memtui.core.scan import scanner, store_index

    read: list[str] = []
    original = scanner.read_full

    def counted(path: Path | str, store_root: Path, cap: int = FULL_READ_CAP) -> ReadResult:
        read.append(Path(path).name)
        return original(path, store_root, cap)

    monkeypatch.setattr(scanner, "read_full", counted)
    monkeypatch.setattr(store_index, "read_full", counted)
    return read


def run_killed(plan: Proposal, journal: Journal, step: int) -> int:
    """Apply ``plan`` in a forked child told to die after ``step`` steps (the test-only
    ``MEMTUI_TEST_CRASH_AFTER`` hook); its exit code."""
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 0
        try:
            os.environ[CRASH_ENV] = str(step)
            apply(plan, journal)
        except BaseException:
            code = 3
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@dataclasses.dataclass
class SmallHome:
    """What :func:`build_small_home` made."""

    root: Path
    claude_home: Path
    project: Path
    auto: Path
    agent: Path
    data: Path
    ctx: Context


def build_small_home(tmp_path: Path) -> SmallHome:
    """A small Claude Code home (auto memory with an index, a team folder, a user-scope agent
    memory with a plain file, a session with its transcript) in ``tmp_path/home``, memtui's
    data dir in ``tmp_path/data`` (``ctx`` uses it)."""
    from memtui.core.demo.writers import (
        index_entry,
        write_file,
        write_index,
        write_memory,
        write_session,
    )
    from memtui.core.stores.sanitize import sanitize_path

    root = tmp_path / "home"
    claude_home = root / ".claude"
    project = root / "src" / "shop"
    project.mkdir(parents=True)
    auto = claude_home / "projects" / sanitize_path(str(project)) / "memory"
    write_memory(auto, "testing.md", description="run the suite with -n 0", type="feedback",
                 body="Use real files in temp dirs.\n")
    write_memory(auto, "payments.md", description="PSP sandbox", type="project",
                 body="The sandbox resets nightly.\n")
    write_index(auto, [index_entry("Testing", "testing.md", "real files"),
                       index_entry("Payments", "payments.md", "PSP sandbox")])
    write_memory(auto / "team", "review.md", description="two approvals", type="project")
    write_index(auto / "team", [index_entry("Review", "review.md", "two approvals")])
    agent = claude_home / "agent-memory" / "reviewer"
    write_memory(agent, "checklist.md", description="what to check", type="reference")
    write_index(agent, [index_entry("Checklist", "checklist.md", "what to check")])
    write_session(claude_home, str(project), "5e551011-aaaa-4bbb-8ccc-0123456789ab",
                  sections={"Session Title": "history"})
    write_file(agent / "notes.txt", "plain\n")
    data = tmp_path / "data"
    ctx = Context.create(project=project, claude_home=claude_home,
                         agent_memory_home=root / ".agent-memory",
                         env={"HOME": str(root), "MEMTUI_DATA_DIR": str(data)})
    return SmallHome(root, claude_home, project, auto, agent, data, ctx)


_WRITER = textwrap.dedent(
    """
    import os, sys
    path, fd = sys.argv[1], None
    for command in sys.stdin:
        verb, _, text = command.rstrip("\\n").partition(" ")
        data = (text + "\\n").encode()
        if verb == "open":
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        elif verb in ("write", "write-close"):
            assert os.write(fd, data) == len(data)
            if verb == "write-close":
                os.close(fd)
                fd = None
        elif verb == "close":
            os.close(fd)
            fd = None
        elif verb == "append":
            one = os.open(path, os.O_WRONLY | os.O_APPEND)
            assert os.write(one, data) == len(data)
            os.close(one)
        print("ok", flush=True)  # the step is done: a write is acknowledged
    """
)


class PipedWriter:
    """Another process appending to ``path`` as Claude Code does (``O_APPEND``), one step at
    a time and only when told over its stdin: ``open`` (and pause there), ``write LINE``,
    ``write-close LINE``, ``close``, ``append LINE`` (open, write, close). Each call returns
    once the child has done the step, so a test forces an interleaving without any timing."""

    def __init__(self, path: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self.acknowledged: list[str] = []
        """Every line the child has written, in order."""

    def __call__(self, verb: str, line: str = "") -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{verb} {line}\n" if line else f"{verb}\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        assert reply == "ok\n", f"the writer failed on {verb!r}: {reply!r}"
        if line:
            self.acknowledged.append(line)

    def __enter__(self) -> PipedWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


OVERFLOW = struct.pack("iIII", -1, int(InotifyConstants.IN_Q_OVERFLOW), 0, 0)
"""What the kernel reads out of an inotify descriptor whose queue overflowed (``wd`` -1,
``IN_Q_OVERFLOW``, no name)."""


def overflow_inotify(watcher: StoreWatcher) -> None:
    """The kernel's overflow record, put where watchdog's reader puts what it read from the
    watcher's observer's inotify descriptor: watchdog parses it and takes it through its real
    path (its recursive watches rebuilt, an ``EventsLostEvent`` from each emitter, filtered by the
    watch's event filter, dispatched to the handler). A real overflow needs 16,384 events
    queued faster than watchdog's reader empties the queue: not reliably had in a test."""
    inotify: InotifyFD = watcher._observer._inotify_fd
    inotify._raw_queue.put(OVERFLOW)


def run_script_on_home(
    script: str, home: DemoHome, mode: str, *, timeout: float
) -> dict[str, object]:
    """Run ``script`` in a fresh interpreter (where a fork is allowed: no xdist threads) with
    the home's root, ``mode``, project, Claude home and agentmemory home as its arguments and
    no ``MEMTUI_`` variable; its last line of output, JSON, is the result."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMTUI_")}
    tests = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [tests, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", script, str(home.root), mode, str(home.project),
         str(home.claude_home), str(home.agent_memory_home)],
        env=env, capture_output=True, text=True, timeout=timeout, check=True)
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found
