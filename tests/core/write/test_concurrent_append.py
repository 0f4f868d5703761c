"""No lost update on MEMORY.md (issue 8, item 2; issue 25, items 3 and 5): a separate process
appending to MEMORY.md with O_APPEND (as Claude Code does) while memtui deletes memories, and so
rewrites MEMORY.md, loses no acknowledged append: each one is in the final MEMORY.md, whether
the delete it raced went through or was refused because of it. The interleavings are forced
over pipes (``helpers.PipedWriter``), so the test never races nothing and never depends on
timing."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import PipedWriter

import memtui.core.write.writers as writers
from memtui.core.demo.writers import write_file
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memory

DELETES = 200

STALE = "changed on disk since the preview"
OPEN = "is open for writing by another process"
LATE = "was written by another process while memtui changed it"
DONE = "done"

PHASES: list[tuple[str, str]] = [
    ("appends between the plan and the apply", STALE),
    ("appends after the checks, before MEMORY.md is replaced", STALE),
    ("holds MEMORY.md open across the apply, writes after it", OPEN),
    ("opens after the checks, writes into the replaced inode", LATE),
    ("opens after the checks, writes while memtui waits for it to close", LATE),
    ("appends to the new MEMORY.md right after the replace", DONE),
    ("appends after the apply", DONE),
]
"""What the appender does during each delete (delete k: phase k mod 7), and the outcome."""


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "mem"
    lines = []
    for n in range(DELETES):
        write_file(root / f"m{n}.md", f"---\nname: m{n}\ndescription: memory {n}\n---\nbody\n")
        lines.append(f"- [Memory {n}](m{n}.md) — memory {n}\n")
    write_file(root / "MEMORY.md", "".join(lines))
    return root


def test_an_appending_process_loses_nothing_to_200_deletes(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned = scan_store(StoreLocation(kind=StoreKind.AUTO, path=store, rule="test"))
    memories = sorted((m for m in scanned.memories if not m.is_index), key=lambda m: m.rel_path)
    assert len(memories) == DELETES
    on_pause: list[Callable[[], None]] = []  # run when memtui waits for a writer to close
    real_pause = writers.pause

    def pause(seconds: float) -> None:
        while on_pause:
            on_pause.pop()()
        real_pause(seconds)

    monkeypatch.setattr(writers, "pause", pause)
    outcomes: dict[int, str] = {}
    with PipedWriter(store / "MEMORY.md") as writer:
        for number, memory in enumerate(memories):
            phase = number % len(PHASES)
            line = f"- appended line {number}"
            plan = plan_delete_memory(scanned, memory)

            def progress(done: int, total: int, phase: int = phase, line: str = line) -> None:
                if done == 0 and phase == 1:
                    writer("append", line)
                elif done == 0 and phase in (3, 4):
                    writer("open")
                    if phase == 4:
                        on_pause.append(lambda: writer("write-close", line))
                elif done == total and phase == 3:
                    writer("write-close", line)
                elif done == total and phase == 5:
                    writer("append", line)

            if phase == 0:
                writer("append", line)
            elif phase == 2:
                writer("open")
            journal = Journal(tmp_path / "journal" / str(number // 25))
            try:
                apply(plan, journal, progress=progress)
                outcomes[number] = DONE
            except EditRefused as exc:
                outcomes[number] = next(
                    (kind for kind in (STALE, OPEN, LATE) if kind in exc.reason), exc.reason)
            assert on_pause == [], f"delete {number}: memtui never waited for the writer"
            if phase == 2:
                writer("write-close", line)
            elif phase == 6:
                writer("append", line)
    final = (store / "MEMORY.md").read_text()
    missing = [line for line in writer.acknowledged if f"{line}\n" not in final]
    assert missing == [], f"{len(missing)} of {len(writer.acknowledged)} acknowledged appends lost"
    assert final.count("- appended line ") == len(writer.acknowledged) == DELETES  # none doubled
    for number, memory in enumerate(memories):
        expected = PHASES[number % len(PHASES)][1]
        assert outcomes[number] == expected, f"delete {number}: {PHASES[number % 7][0]}"
        gone = expected == DONE
        assert (f"]({memory.rel_path})" not in final) == gone
        assert (store / memory.rel_path).exists() != gone
    counts = Counter(outcomes.values())  # 200 = 28 rounds of the 7 phases + phases 0 to 3
    assert counts == {STALE: 58, OPEN: 29, LATE: 57, DONE: 56}
    assert sorted(os.listdir(store)) == sorted(
        ["MEMORY.md", *(m.rel_path for n, m in enumerate(memories) if outcomes[n] != DONE)])


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
