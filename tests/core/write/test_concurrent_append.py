"""No lost update on MEMORY.md (issue 8, item 2): a separate process appending to MEMORY.md
with O_APPEND (as Claude Code does) while memtui deletes memories, and so rewrites MEMORY.md,
loses no acknowledged append: each one is in the final MEMORY.md, whether the delete it raced
went through or was refused because of it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memtui.core.demo.writers import write_file
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memory

DELETES = 200

APPENDER = textwrap.dedent(
    """
    import os, random, sys, time
    index, stop = sys.argv[1], sys.argv[2]
    acknowledged = 0
    while not os.path.exists(stop):
        fd = os.open(index, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        line = f"- appended line {acknowledged}\\n".encode()
        written = os.write(fd, line)
        os.close(fd)
        assert written == len(line)
        acknowledged += 1  # the write returned: this append is acknowledged
        time.sleep(random.expovariate(1 / 0.015))  # bursts and pauses, 15 ms apart on average
    print(acknowledged)
    """
)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "mem"
    lines = []
    for n in range(DELETES):
        write_file(root / f"m{n}.md", f"---\nname: m{n}\ndescription: memory {n}\n---\nbody\n")
        lines.append(f"- [Memory {n}](m{n}.md) — memory {n}\n")
    write_file(root / "MEMORY.md", "".join(lines))
    return root


def test_an_appending_process_loses_nothing_to_200_deletes(store: Path, tmp_path: Path) -> None:
    scanned = scan_store(StoreLocation(kind=StoreKind.AUTO, path=store, rule="test"))
    memories = sorted((m for m in scanned.memories if not m.is_index), key=lambda m: m.rel_path)
    assert len(memories) == DELETES
    stop = tmp_path / "stop"
    appender = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(store / "MEMORY.md"), str(stop)],
        stdout=subprocess.PIPE, text=True,
    )
    deleted: list[str] = []
    refused: list[str] = []
    try:
        started = time.monotonic()  # the appender is running: its first append is in the file
        while b"- appended line 0\n" not in (store / "MEMORY.md").read_bytes():
            assert appender.poll() is None and time.monotonic() - started < 60
            time.sleep(0.01)
        deadline = time.monotonic() + 8
        for number, memory in enumerate(memories):
            if time.monotonic() > deadline:
                break
            journal = Journal(tmp_path / "journal" / str(number // 25))
            try:
                apply(plan_delete_memory(scanned, memory), journal)
                deleted.append(memory.rel_path)
            except EditRefused as exc:
                refused.append(exc.reason)
    finally:
        stop.touch()
        out, _ = appender.communicate(timeout=30)
    acknowledged = int(out.strip())
    final = (store / "MEMORY.md").read_text()
    missing = [n for n in range(acknowledged) if f"- appended line {n}\n" not in final]
    assert missing == [], f"{len(missing)} of {acknowledged} acknowledged appends lost"
    assert final.count("- appended line ") == acknowledged  # none doubled either
    for rel in deleted:
        assert f"]({rel})" not in final
        assert not (store / rel).exists()
    assert deleted, "no delete went through: the test raced nothing"
    assert acknowledged > 50
    late = sum("while memtui changed it" in reason for reason in refused)
    print(f"{acknowledged} appends, {len(deleted)} deletes done, {len(refused)} refused "
          f"({late} after the replace)")


def test_an_append_to_the_replaced_inode_is_put_back_and_refused(
    store: Path, tmp_path: Path
) -> None:
    """The window no re-check can close: a writer that opened MEMORY.md just before memtui's
    replace and writes just after it writes into the inode memtui replaced. memtui notices
    (the inode it kept open grew), puts those bytes back, keeps what was appended to the new
    file too, restores the deleted memory and refuses."""
    scanned = scan_store(StoreLocation(kind=StoreKind.AUTO, path=store, rule="test"))
    memory = next(m for m in scanned.memories if m.rel_path == "m7.md")
    index = store / "MEMORY.md"
    original = index.read_bytes()
    memory_bytes = (store / "m7.md").read_bytes()
    late_fd = os.open(index, os.O_WRONLY | os.O_APPEND)  # opened before the replace

    def writer(done: int, total: int) -> None:
        if done == total:  # MEMORY.md was just replaced
            os.write(late_fd, b"- late into the old inode\n")
            with index.open("ab") as new_file:
                new_file.write(b"- appended to the new file\n")

    journal = Journal(tmp_path / "journal")
    try:
        with pytest.raises(EditRefused, match=r"MEMORY\.md was written by another process while"):
            apply(plan_delete_memory(scanned, memory), journal, progress=writer)
    finally:
        os.close(late_fd)
    assert index.read_bytes() == (
        original + b"- late into the old inode\n" + b"- appended to the new file\n"
    )
    assert (store / "m7.md").read_bytes() == memory_bytes
    record = journal.list()[0]
    assert record.state == "rolled-back"
    late_blob = journal.directory / record.id / "1.late"
    assert late_blob.read_bytes() == original + b"- late into the old inode\n"
