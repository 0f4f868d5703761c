"""A slow writer loses nothing (issue 25, item 5): a process that opened MEMORY.md for
appending and pauses before it writes (Claude Code's append, on a busy machine) would write
into the inode memtui replaced, after memtui's last look at it. memtui refuses, nothing
written, while another process holds a file it would replace or delete open for writing; and
after replacing, it waits for any writer still holding the old inode to close before it
checks that inode's bytes. Each interleaving is forced over pipes (``helpers.PipedWriter``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import PipedWriter, tree_state

import memtui.core.write.writers as writers
from memtui.core.demo.writers import write_file
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memory
from memtui.core.write.proposal import Proposal


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "mem"
    lines = []
    for n in range(3):
        write_file(root / f"m{n}.md", f"---\nname: m{n}\ndescription: memory {n}\n---\nbody\n")
        lines.append(f"- [Memory {n}](m{n}.md) — memory {n}\n")
    write_file(root / "MEMORY.md", "".join(lines))
    return root


def delete_plan(store: Path, rel: str) -> Proposal:
    scanned = scan_store(StoreLocation(kind=StoreKind.AUTO, path=store, rule="test"))
    return plan_delete_memory(scanned, next(m for m in scanned.memories if m.rel_path == rel))


def test_a_writer_holding_memory_md_open_refuses_the_delete_and_loses_nothing(
    store: Path, tmp_path: Path
) -> None:
    """The attack run's lost append: the writer opened MEMORY.md and writes only after memtui
    is done. Before the fix the delete went through and the line went to the old inode."""
    index = store / "MEMORY.md"
    plan = delete_plan(store, "m1.md")
    before = tree_state(store)
    journal = Journal(tmp_path / "journal")
    with PipedWriter(index) as writer:
        writer("open")  # open, then pause
        with pytest.raises(EditRefused) as refused:
            apply(plan, journal)
        writer("write-close", "- the slow writer's line")
    assert "MEMORY.md is open for writing by another process" in refused.value.reason
    assert f"pid {writer.process.pid}" in refused.value.reason
    assert "nothing was written" in refused.value.reason
    assert index.read_text().endswith("- the slow writer's line\n")
    after = tree_state(store)
    assert after.pop("MEMORY.md") != before.pop("MEMORY.md")
    assert after == before
    assert journal.list() == []  # refused before the journal: nothing to undo


def test_a_writer_holding_a_memory_open_refuses_its_delete(store: Path, tmp_path: Path) -> None:
    plan = delete_plan(store, "m2.md")
    before = tree_state(store)
    with PipedWriter(store / "m2.md") as writer:
        writer("open")
        with pytest.raises(EditRefused, match=r"m2\.md is open for writing by another process"):
            apply(plan, Journal(tmp_path / "journal"))
        writer("write-close", "a late line")
    after = tree_state(store)
    assert after.pop("m2.md") != before.pop("m2.md")
    assert after == before
    assert (store / "m2.md").read_text().endswith("body\na late line\n")


def test_a_writer_that_opens_during_the_apply_is_waited_for(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer opens MEMORY.md after the check, before the replace, and writes only once
    memtui is looking at the replaced inode (the first pause of its wait): memtui sees it
    still open, waits until it closes, finds the line, puts it back and refuses."""
    index = store / "MEMORY.md"
    original = index.read_bytes()
    memory = (store / "m0.md").read_bytes()
    plan = delete_plan(store, "m0.md")
    journal = Journal(tmp_path / "journal")
    with PipedWriter(index) as writer:

        def progress(done: int, total: int) -> None:
            if done == 0:  # checked and journaled, nothing replaced yet
                writer("open")

        pauses: list[float] = []
        real_pause = writers.pause

        def pause(seconds: float) -> None:
            if not pauses:  # memtui saw the writer on the replaced inode
                writer("write-close", "- written into the replaced inode")
            pauses.append(seconds)
            real_pause(seconds)

        monkeypatch.setattr(writers, "pause", pause)
        with pytest.raises(EditRefused, match=r"MEMORY\.md was written by another process while"):
            apply(plan, journal, progress=progress)
    assert pauses, "memtui never waited for the writer"
    assert index.read_bytes() == original + b"- written into the replaced inode\n"
    assert (store / "m0.md").read_bytes() == memory
    assert journal.list()[0].state == "rolled-back"


def test_a_writer_that_never_closes_is_named_and_its_bytes_kept(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that opens during the apply, writes into the replaced inode and keeps it open
    past the wait: the operation is rolled back (the old bytes and what it wrote so far back
    in place) and refused, naming the process."""
    index = store / "MEMORY.md"
    original = index.read_bytes()
    plan = delete_plan(store, "m0.md")
    monkeypatch.setattr(writers, "WRITER_WAIT", 0.0)
    with PipedWriter(index) as writer:

        def progress(done: int, total: int) -> None:
            if done == 0:  # checked and journaled, nothing replaced yet
                writer("open")
            if done == total:  # MEMORY.md replaced: the writer holds the old inode
                writer("write", "- into the replaced inode")

        with pytest.raises(EditRefused) as refused:
            apply(plan, Journal(tmp_path / "journal"), progress=progress)
        writer("close")
    assert f"pid {writer.process.pid}" in refused.value.reason
    assert "still holds" in refused.value.reason
    assert index.read_bytes() == original + b"- into the replaced inode\n"
    assert (store / "m0.md").exists()
