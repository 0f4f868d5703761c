"""Who holds a file open for writing (memtui/core/write/writers.py), from ``/proc``: writers
only (a reader is no writer), each process once per descriptor, this process never, a bounded
scan, nothing at all where there is no ``/proc``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import PipedWriter

import memtui.core.write.writers as writers
from memtui.core.write.writers import Writer, inode_of, wait_until_closed, writers_of

READER = "import sys; f = open(sys.argv[1], 'rb'); print('ok', flush=True); sys.stdin.read()"

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="the scan reads Linux's /proc")


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    path.write_text("- one\n")
    return path


def test_a_writer_is_found_by_pid_and_name(target: Path, tmp_path: Path) -> None:
    inode = inode_of(os.stat(target))
    other = tmp_path / "other.md"
    other.write_text("x\n")
    with PipedWriter(target) as writer:
        assert writers_of([inode]) == {}
        writer("open")
        found = writers_of([inode, inode_of(os.stat(other))])
        assert found == {inode: [Writer(writer.process.pid, found[inode][0].name)]}
        assert found[inode][0].name.startswith("python")
        assert str(found[inode][0]).startswith(f"pid {writer.process.pid}, python")
        writer("close")
        assert writers_of([inode]) == {}


def test_a_writer_of_a_replaced_inode_is_still_found(target: Path) -> None:
    """The inode memtui replaced has no name any more; its writer is still found."""
    inode = inode_of(os.stat(target))
    with PipedWriter(target) as writer:
        writer("open")
        target.with_name("new").write_text("new\n")
        os.replace(target.with_name("new"), target)
        assert [w.pid for w in writers_of([inode])[inode]] == [writer.process.pid]
        assert writers_of([inode_of(os.stat(target))]) == {}
        writer("close")


def test_a_reader_and_this_process_are_no_writers(target: Path) -> None:
    inode = inode_of(os.stat(target))
    reader = subprocess.Popen([sys.executable, "-c", READER, str(target)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    own = os.open(target, os.O_WRONLY | os.O_APPEND)
    try:
        assert reader.stdout is not None and reader.stdout.readline() == "ok\n"
        assert writers_of([inode]) == {}
    finally:
        os.close(own)
        assert reader.stdin is not None
        reader.stdin.close()
        reader.wait()


def test_the_scan_is_bounded(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inode = inode_of(os.stat(target))
    with PipedWriter(target) as writer:
        writer("open")
        monkeypatch.setattr(writers, "MAX_DESCRIPTORS", 0)
        assert writers_of([inode]) == {}
        writer("close")


def test_without_proc_nothing_is_found(
    target: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writers, "PROC", tmp_path / "no-proc")
    with PipedWriter(target) as writer:
        writer("open")
        assert writers_of([inode_of(os.stat(target))]) == {}
        assert wait_until_closed([inode_of(os.stat(target))]) == {}
        writer("close")


def test_the_wait_ends_when_the_writer_closes(
    target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inode = inode_of(os.stat(target))
    with PipedWriter(target) as writer:
        writer("open")
        pauses: list[float] = []

        def pause(seconds: float) -> None:
            pauses.append(seconds)
            writer("close")

        monkeypatch.setattr(writers, "pause", pause)
        assert wait_until_closed([inode]) == {}
        assert pauses == [writers.POLL]


def test_the_wait_gives_up_and_names_the_writer(
    target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inode = inode_of(os.stat(target))
    monkeypatch.setattr(writers, "WRITER_WAIT", 0.0)
    with PipedWriter(target) as writer:
        writer("open")
        assert [w.pid for w in wait_until_closed([inode])[inode]] == [writer.process.pid]
        writer("close")
