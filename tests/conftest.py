"""Fixtures shared by the test modules, and how the suite runs in parallel.

Fixtures: ``state_home`` (journal, scan cache and stdin of the test's own), ``pristine`` (the
demo home, built once per module, never written) and ``demo`` (a private copy of it per test).

Parallel runs (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject.toml): a run of the
whole suite or of a folder gets one worker process per CPU; a run of named files or tests
(``pytest tests/tui/test_help.py``, ``pytest path::test``) runs in-process, where starting
workers would cost more than it saves (``-n 2`` or ``-n 0`` on the command line decides
instead). So every test must pass next to any other test running at the same time in another
process: its files in its own ``tmp_path``, its journal and cache in it (``state_home``), no
fixed path, port or user directory; tests that must share a fixed path (the snapshot tests'
demo home) go to one worker with ``pytest.mark.xdist_group`` and also lock it against other
runs.

Temporary directories (``pytest_configure``): in memory, under ``/dev/shm``, where it is a
writable tmpfs with room and programs may run from it, unless ``$PYTEST_DEBUG_TEMPROOT`` or
``--basetemp`` says where. memtui fsyncs every journal record and every replaced file, and on a
disk shared with other work each fsync waits for it: ``tests/core/write`` took 299 s on disk
and 130 s in memory for the same CPU time (62 s + 13 s and 59 s + 9 s) at load 5 to 7. The
files are as real either way: only the wait for the disk goes.

Hypothesis (the ``suite`` profile, loaded here): no deadline and no ``too_slow`` health check
unless a test sets its own: both are wall-clock bounds, which a busy machine breaks (a draw of
a small dictionary once took 35 s at load 5) while the property holds.

Order (``pytest_collection_modifyitems``): the costliest tests first, so that the last tests
a worker is handed are short ones and no worker is left with a long test (or the snapshot
tests' group, one unit of work) while the other has nothing left to do: the
``xdist_group`` tests, then the TUI's, the CLI's, ``core/write``'s, the rest of core, the
repository's own checks. Each module's tests stay together and in their order.
"""

from __future__ import annotations

import gc
import io
import os
import sys
from pathlib import Path

PYCACHE = Path(__file__).resolve().parent.parent / ".pytest_cache" / "pycache"
"""Where the suite keeps compiled bytecode when ``$PYTHONDONTWRITEBYTECODE`` keeps it out of
the source tree (set here, before memtui is imported): without any, every run compiled every
module of memtui and rewrote the asserts of every test module again, in the main process and
in each worker (about 10 s of CPU per process, of a 13 s collection), and every ``python -m
memtui`` a test starts compiled memtui again (about 0.3 s each). Like the benches, and like an
installed package: compiled once, to a private prefix (``sys.pycache_prefix``), for this
process and the processes the tests start (``$PYTHONPYCACHEPREFIX``, and no
``$PYTHONDONTWRITEBYTECODE`` for them: a prefix is where Python looks for all bytecode, the
standard library's too, so a child that could not write there compiled every module it
imported, each time: ``memtui --help`` took 0.16 s of CPU instead of 0.04 s)."""


def _bytecode_kept() -> None:
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return  # bytecode beside the sources, or where the environment already says
    sys.pycache_prefix = str(PYCACHE)
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_bytecode_kept()

import pytest  # noqa: E402
from helpers import TEMP_ROOT_ENV, copy_demo  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from memtui.core.demo.build import DemoHome, build_demo_home  # noqa: E402


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: workers (xdist's own count: ``$PYTEST_XDIST_AUTO_NUM_WORKERS`` or one per
    CPU) when a folder is run or that variable is set, none when only files or tests are named."""
    where = config.invocation_params.dir
    folder = any((where / arg.split("::")[0]).is_dir() for arg in config.args)
    return None if folder or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") else 0


settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

GC_YOUNG = 10_000
"""Allocations between two collections of the youngest generation (Python's default: 700).
A pilot allocates a great many short-lived objects (Textual's strips and segments of every
frame): with the default the cyclic collector took 11 % of the TUI tests' CPU (9,500 young,
840 middle and 58 full collections in 44 pilots). Only how often it runs changes: every cycle
is still collected, a little later."""


def _collect_less() -> None:
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, middle, old)


_collect_less()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the run holds to its end (modules, the collected tests) left out of the full
    collections that follow (``gc.freeze``): each of them went through it all again."""
    gc.collect()
    gc.freeze()

MEMORY_TEMP = Path("/dev/shm")
MEMORY_TEMP_ROOM = 2 << 30
"""Bytes free at least for the suite's temporary directories in memory."""


def _memory_temp_usable(path: Path) -> bool:
    try:
        st = os.statvfs(path)
    except OSError:
        return False
    noexec = getattr(os, "ST_NOEXEC", 0)
    return (os.access(path, os.W_OK | os.X_OK) and not st.f_flag & (os.ST_RDONLY | noexec)
            and st.f_bavail * st.f_frsize >= MEMORY_TEMP_ROOM)


def pytest_configure(config: pytest.Config) -> None:
    """Temporary directories in memory when nothing says where (the module docstring says
    why). Set in the main process before xdist starts its workers: they inherit it, and their
    base directories are made below the main process's."""
    if os.environ.get(TEMP_ROOT_ENV) or config.option.basetemp:
        return
    if _memory_temp_usable(MEMORY_TEMP):
        os.environ[TEMP_ROOT_ENV] = str(MEMORY_TEMP)


_FIRST = ("tui", "cli", "core/write", "core")
"""Folders below tests/ in the order they run, costliest tests first (what is in none last)."""


def _rank(item: pytest.Item) -> int:
    if item.get_closest_marker("xdist_group") is not None:
        return 0
    where = item.path.relative_to(Path(__file__).parent).as_posix()
    return next(
        (rank for rank, folder in enumerate(_FIRST, 1) if where.startswith(f"{folder}/")),
        len(_FIRST) + 1,
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The costliest tests first (the module docstring says why); a stable sort, so each
    module's tests keep their order."""
    items.sort(key=_rank)


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """memtui's journal (XDG state dir), scan cache and history (XDG data dir) inside the
    test's temporary directory, no ``MEMTUI_STATE_DIR`` or ``MEMTUI_DATA_DIR`` from outside,
    and a standard input that is not a terminal (so a command that would ask refuses instead
    of waiting)."""
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the history's repository
    monkeypatch.delenv("MEMTUI_STATE_DIR", raising=False)
    monkeypatch.delenv("MEMTUI_DATA_DIR", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return state


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    """The demo home, built once per test module; never written: tests copy it (``demo``)."""
    return build_demo_home(tmp_path_factory.mktemp("pristine") / "demo")


@pytest.fixture
def demo(pristine: DemoHome, tmp_path: Path) -> DemoHome:
    """A private copy of the demo home (mtimes kept), every path moved along."""
    return copy_demo(pristine, tmp_path / "demo")
