"""The one write path: atomic writes and modes, the revision check, the consolidation lock,
confinement, previews, cancellation, and deleting a memory with its index lines."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import tree_state

from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import index_entry, write_file, write_index
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write import recovery
from memtui.core.write.apply import EditCancelled, apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.lock import LOCK_NAME, live_lock
from memtui.core.write.ops.memory import plan_delete_memory, remove_lines
from memtui.core.write.proposal import FileChange, Proposal, sha256_hex

pytestmark = pytest.mark.usefixtures("state_home")


@pytest.fixture
def journal() -> Journal:
    return Journal.default()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A small memory dir: an index, two memories (modes 0o644 and 0o640), a subfolder."""
    root = tmp_path / "mem"
    write_file(root / "MEMORY.md", "- [A](a.md) — first\n- [B](b.md) — second\n", mode=0o644)
    write_file(root / "a.md", "alpha\n", mode=0o644)
    write_file(root / "b.md", "beta\n", mode=0o640)
    write_file(root / "logs" / "day.md", "log\n", mode=0o644)
    return root


def digest(path: Path) -> str:
    return sha256_hex(path.read_bytes())


def write(path: Path, data: bytes, expected: str | None, mode: int | None = None) -> FileChange:
    return FileChange(path, "write", data, expected, mode)


def proposal(root: Path, *changes: FileChange, lock: bool = True) -> Proposal:
    return Proposal("test", "a test edit", root, root if lock else None, list(changes))


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


# --- atomic writes and modes --------------------------------------------------------------


def test_writes_keep_modes_and_new_files_and_dirs_are_private(
    store: Path, journal: Journal
) -> None:
    plan = proposal(
        store,
        write(store / "a.md", b"ALPHA\n", digest(store / "a.md")),
        write(store / "b.md", b"BETA\n", digest(store / "b.md")),
        write(store / "new" / "deeper" / "c.md", b"gamma\n", None),
        write(store / "d.md", b"delta\n", None, mode=0o644),
    )
    op = apply(plan, journal)
    assert (store / "a.md").read_bytes() == b"ALPHA\n"
    assert mode_of(store / "a.md") == 0o644
    assert mode_of(store / "b.md") == 0o640
    assert mode_of(store / "new" / "deeper" / "c.md") == 0o600
    assert mode_of(store / "new") == 0o700
    assert mode_of(store / "new" / "deeper") == 0o700
    assert mode_of(store / "d.md") == 0o644
    assert op.files == [store / "a.md", store / "b.md", store / "new/deeper/c.md", store / "d.md"]
    assert not [p for p in store.rglob("*.tmp")], "temp files left behind"
    assert journal.get(op.op_id).state == "done"


def test_delete_and_a_delete_of_an_absent_file(store: Path, journal: Journal) -> None:
    apply(
        proposal(
            store,
            FileChange(store / "a.md", "delete", None, digest(store / "a.md")),
            FileChange(store / "never.md", "delete", None, None),
        ),
        journal,
    )
    assert not (store / "a.md").exists()
    assert not (store / "never.md").exists()


def test_file_change_needs_consistent_bytes(store: Path) -> None:
    with pytest.raises(ValueError):
        FileChange(store / "a.md", "write", None, None)
    with pytest.raises(ValueError):
        FileChange(store / "a.md", "delete", b"x", None)


def test_an_empty_proposal_is_refused(store: Path, journal: Journal) -> None:
    with pytest.raises(EditRefused, match="nothing to change"):
        apply(proposal(store), journal)


# --- the revision check -------------------------------------------------------------------


def test_a_file_changed_between_plan_and_apply_is_refused(store: Path, journal: Journal) -> None:
    plan = proposal(
        store,
        write(store / "a.md", b"mine\n", digest(store / "a.md")),
        write(store / "b.md", b"mine too\n", digest(store / "b.md")),
    )
    (store / "b.md").write_bytes(b"the agent wrote this meanwhile\n")  # a concurrent writer
    before = tree_state(store)
    with pytest.raises(EditRefused) as caught:
        apply(plan, journal)
    assert caught.value.path == store / "b.md"
    assert "changed on disk since the preview (another process wrote it)" in caught.value.reason
    assert "nothing was written" in caught.value.reason
    assert tree_state(store) == before
    assert [r for r in journal.list() if r.state == "done"] == []


def test_a_file_created_or_deleted_since_the_plan_is_refused(store: Path, journal: Journal) -> None:
    plan = proposal(store, write(store / "new.md", b"x", None))
    (store / "new.md").write_bytes(b"someone else's")
    with pytest.raises(EditRefused, match="was created on disk since the preview"):
        apply(plan, journal)
    plan = proposal(store, write(store / "a.md", b"x", digest(store / "a.md")))
    (store / "a.md").unlink()
    with pytest.raises(EditRefused, match="was deleted on disk since the preview"):
        apply(plan, journal)
    assert not (store / "a.md").exists()
    assert (store / "new.md").read_bytes() == b"someone else's"


def test_a_change_during_the_apply_rolls_back_what_was_written(
    store: Path, journal: Journal
) -> None:
    before = tree_state(store)

    def meddle(done: int, total: int) -> None:
        if done == 1:  # after the first file, another process rewrites the second
            (store / "b.md").write_bytes(b"agent\n")

    plan = proposal(
        store,
        write(store / "a.md", b"mine\n", digest(store / "a.md")),
        write(store / "b.md", b"mine\n", digest(store / "b.md")),
    )
    with pytest.raises(EditRefused, match=r"b\.md changed on disk since the preview"):
        apply(plan, journal, progress=meddle)
    after = tree_state(store)
    assert after.pop("b.md")[1] == sha256_hex(b"agent\n")  # the other writer's bytes are kept
    before.pop("b.md")
    assert after == before  # a.md is back, byte for byte, with its mode and mtime
    assert [r.state for r in journal.list()] == ["rolled-back"]


def test_progress_and_cancel(store: Path, journal: Journal) -> None:
    seen: list[tuple[int, int]] = []
    plan = proposal(
        store,
        write(store / "a.md", b"1", digest(store / "a.md")),
        write(store / "b.md", b"2", digest(store / "b.md")),
    )
    apply(plan, journal, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(0, 2), (1, 2), (2, 2)]

    before = tree_state(store)
    calls = iter([False, True])
    plan = proposal(
        store,
        write(store / "a.md", b"3", digest(store / "a.md")),
        write(store / "b.md", b"4", digest(store / "b.md")),
    )
    with pytest.raises(EditCancelled):
        apply(plan, journal, cancelled=lambda: next(calls))
    assert tree_state(store) == before
    assert journal.list()[0].state == "rolled-back"


def test_an_interrupt_during_the_apply_puts_files_back(store: Path, journal: Journal) -> None:
    before = tree_state(store)

    def interrupt(done: int, total: int) -> None:
        if done == 1:
            raise KeyboardInterrupt

    plan = proposal(
        store,
        write(store / "a.md", b"1", digest(store / "a.md")),
        write(store / "b.md", b"2", digest(store / "b.md")),
    )
    with pytest.raises(KeyboardInterrupt):
        apply(plan, journal, progress=interrupt)
    assert tree_state(store) == before
    assert journal.incomplete() == []


def test_without_a_journal_nothing_is_written(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = write_file(tmp_path / "not-a-dir", "x")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    before = tree_state(store)
    with pytest.raises(EditRefused, match="cannot write the undo journal"):
        apply(
            proposal(store, write(store / "a.md", b"x", digest(store / "a.md"))), Journal.default()
        )
    assert tree_state(store) == before


# --- the consolidation lock ---------------------------------------------------------------


def set_lock(store: Path, body: str, age_seconds: float = 5) -> Path:
    lock = store / LOCK_NAME
    lock.write_text(body)
    stamp = time.time() - age_seconds
    os.utime(lock, (stamp, stamp))
    return lock


def test_a_live_lock_blocks_writes(store: Path, journal: Journal) -> None:
    set_lock(store, str(os.getpid()))
    before = tree_state(store)
    with pytest.raises(EditRefused) as caught:
        apply(proposal(store, write(store / "a.md", b"x", digest(store / "a.md"))), journal)
    assert f"Claude Code is consolidating memory in {store} (pid {os.getpid()}, since " in str(
        caught.value
    )
    assert tree_state(store) == before
    assert journal.list() == []
    holder = live_lock(store)
    assert holder is not None
    assert holder.pid == os.getpid()


@pytest.mark.parametrize(
    "why", ["dead pid", "older than 60 minutes", "no pid in the body", "empty body"]
)
def test_a_stale_lock_does_not_block_and_is_put_back(
    store: Path, journal: Journal, why: str
) -> None:
    body, age = {
        "dead pid": (str(dead_pid()), 5.0),
        "older than 60 minutes": (str(os.getpid()), 61 * 60.0),
        "no pid in the body": ("consolidating", 5.0),
        "empty body": ("", 5.0),
    }[why]
    lock = set_lock(store, body, age)
    os.chmod(lock, 0o644)
    old = lock.stat()
    assert live_lock(store) is None
    apply(proposal(store, write(store / "a.md", b"x", digest(store / "a.md"))), journal)
    assert (store / "a.md").read_bytes() == b"x"
    now = lock.stat()
    assert lock.read_text() == body
    assert now.st_mtime_ns == old.st_mtime_ns  # CC reads it as the last consolidation time
    assert mode_of(lock) == 0o644


def test_memtui_holds_the_lock_while_writing_and_removes_it_after(
    store: Path, journal: Journal
) -> None:
    held: list[str] = []

    def look(done: int, total: int) -> None:
        held.append((store / LOCK_NAME).read_text())

    apply(
        proposal(store, write(store / "a.md", b"x", digest(store / "a.md"))),
        journal,
        progress=look,
    )
    assert held == [str(os.getpid())] * 2
    assert not (store / LOCK_NAME).exists()


def test_the_lock_file_itself_is_never_a_target(store: Path, journal: Journal) -> None:
    with pytest.raises(EditRefused, match="consolidation lock"):
        apply(proposal(store, write(store / LOCK_NAME, b"1", None)), journal)


# --- confinement --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    ["../outside.md", "logs/../../outside.md", "/tmp/memtui-outside.md", "."],
)
def test_paths_outside_the_root_are_refused(store: Path, journal: Journal, target: str) -> None:
    before = tree_state(store.parent)
    with pytest.raises(EditRefused, match="outside"):
        apply(proposal(store, write(Path(target), b"x", None)), journal)
    assert tree_state(store.parent) == before
    assert not Path("/tmp/memtui-outside.md").exists()


def test_absolute_path_outside_the_root_is_refused(
    store: Path, tmp_path: Path, journal: Journal
) -> None:
    victim = write_file(tmp_path / "victim.md", "keep\n")
    with pytest.raises(EditRefused, match="is outside"):
        apply(proposal(store, write(victim, b"x", digest(victim))), journal)
    assert victim.read_text() == "keep\n"


def test_a_symlinked_dir_that_escapes_the_root_is_refused(
    store: Path, tmp_path: Path, journal: Journal
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, store / "escape")
    for target in (store / "escape" / "x.md", store / "escape" / "new" / "y.md"):
        with pytest.raises(EditRefused, match=f"escape is a symlink to {elsewhere}: "):
            apply(proposal(store, write(target, b"x", None)), journal)
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_file_is_never_written_through(
    store: Path, tmp_path: Path, journal: Journal
) -> None:
    secret = write_file(tmp_path / "secret.md", "secret\n")
    os.symlink(secret, store / "out.md")
    os.symlink(store / "a.md", store / "in.md")
    with pytest.raises(EditRefused, match="symbolic link"):
        apply(proposal(store, write(store / "out.md", b"x", digest(secret))), journal)
    with pytest.raises(EditRefused, match="symbolic link"):
        apply(proposal(store, write(store / "in.md", b"x", digest(store / "a.md"))), journal)
    with pytest.raises(EditRefused, match="symbolic link"):
        apply(proposal(store, FileChange(store / "in.md", "delete", None, None)), journal)
    assert secret.read_text() == "secret\n"
    assert (store / "a.md").read_text() == "alpha\n"


def test_a_symlinked_dir_inside_the_root_is_refused_too(store: Path, journal: Journal) -> None:
    os.symlink(store / "logs", store / "alias")
    before = tree_state(store)
    with pytest.raises(EditRefused, match=r"alias is a symlink to .*/logs: memtui writes only"):
        apply(proposal(store, write(store / "alias" / "new.md", b"x", None)), journal)
    assert tree_state(store) == before


def test_a_root_reached_through_a_symlink_is_refused(
    store: Path, tmp_path: Path, journal: Journal
) -> None:
    link = tmp_path / "linked-home"
    os.symlink(store, link)
    before = tree_state(store)
    with pytest.raises(EditRefused, match=f"linked-home is a symlink to {store}: memtui writes"):
        apply(proposal(link, write(link / "a.md", b"x", digest(store / "a.md"))), journal)
    assert tree_state(store) == before


# --- previews -----------------------------------------------------------------------------


def test_diff_statuses_and_texts(store: Path) -> None:
    write_file(store / "bin.dat", b"\x00\x01")
    plan = proposal(
        store,
        write(store / "new.md", b"hello\n", None),
        write(store / "a.md", b"alpha\nmore", digest(store / "a.md")),
        FileChange(store / "b.md", "delete", None, digest(store / "b.md")),
        write(store / "MEMORY.md", (store / "MEMORY.md").read_bytes(), None),
        write(store / "bin.dat", b"\x00\x02", digest(store / "bin.dat")),
        write(store / "bad.md", b"caf\xe9\n", None),
    )
    diffs = {d.rel: d for d in plan.diff()}
    assert {rel: d.status for rel, d in diffs.items()} == {
        "new.md": "added",
        "a.md": "changed",
        "b.md": "deleted",
        "MEMORY.md": "unchanged",
        "bin.dat": "changed",
        "bad.md": "added",
    }
    assert diffs["new.md"].unified == "--- /dev/null\n+++ b/new.md\n@@ -0,0 +1 @@\n+hello\n"
    assert diffs["a.md"].unified.endswith("+more\n\\ No newline at end of file\n")
    assert diffs["b.md"].old_text == "beta\n"
    assert diffs["b.md"].new_text is None
    assert diffs["MEMORY.md"].unified == ""
    assert diffs["bin.dat"].binary
    assert diffs["bin.dat"].old_text is None
    assert "binary" in diffs["bin.dat"].unified
    assert diffs["bad.md"].new_text == "caf\ufffd\n"


# --- deleting a memory --------------------------------------------------------------------


def agent_store(path: Path) -> Store:
    return scan_store(StoreLocation(kind=StoreKind.AGENT, path=path, rule="test"))


def test_delete_memory_removes_the_file_and_its_index_lines(
    tmp_path: Path, journal: Journal
) -> None:
    root = tmp_path / "agent"
    index_lines = [
        "---",
        "name: idx",
        "---",
        "# Memory",
        index_entry("Deploy", "deploy.md", "freeze rules"),
        index_entry("Other", "other.md", "keep me"),
        "* [Deploy again](./deploy.md#rules) - a second link to it",
        "- [Elsewhere](https://example.com/deploy.md) — external, kept",
        "Prose mentioning deploy.md stays.",
    ]
    text = "\r\n".join(index_lines)  # CRLF line endings, no final newline
    write_file(root / "MEMORY.md", text, mode=0o644)
    write_file(root / "deploy.md", "---\nname: deploy\n---\nNo Friday deploys.\n")
    write_file(root / "other.md", "other\n")
    store = agent_store(root)
    memory = next(m for m in store.memories if m.rel_path == "deploy.md")
    before = tree_state(root)

    plan = plan_delete_memory(store, memory)
    assert plan.root == root
    assert plan.lock_dir == root
    assert [d.status for d in plan.diff()] == ["deleted", "changed"]
    assert any("removes MEMORY.md line 5" in note for note in plan.notes)
    apply(plan, journal)

    assert not (root / "deploy.md").exists()
    expected = "\r\n".join(index_lines[:4] + index_lines[5:6] + index_lines[7:])
    assert (root / "MEMORY.md").read_bytes() == expected.encode()
    assert mode_of(root / "MEMORY.md") == 0o644

    recovery.undo(journal, journal.list()[0].id)
    assert tree_state(root) == before


def test_delete_memory_on_the_demo_reviewer(pristine: DemoHome, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "reviewer"
    shutil.copytree(pristine.claude_home / "agent-memory" / "reviewer", root)
    store = agent_store(root)
    memory = next(m for m in store.memories if m.rel_path == "common-bugs.md")
    old_index = (root / "MEMORY.md").read_bytes()
    journal = Journal.default()
    apply(plan_delete_memory(store, memory), journal)
    new_index = (root / "MEMORY.md").read_bytes()
    removed = [line for line in old_index.split(b"\n") if line not in new_index.split(b"\n")]
    assert removed == [
        index_entry("Common bugs", "common-bugs.md", "bugs seen more than twice").encode()
    ]
    assert len(new_index) == len(old_index) - len(removed[0]) - 1
    recovery.undo(journal, journal.list()[0].id)
    assert (root / "MEMORY.md").read_bytes() == old_index
    assert (root / "common-bugs.md").exists()


def test_delete_memory_without_index_lines_touches_only_the_file(
    tmp_path: Path, journal: Journal
) -> None:
    root = tmp_path / "auto"
    write_index(root, ["# Memory", index_entry("A", "a.md", "x")])
    write_file(root / "orphan.md", "nobody links me\n")
    store = scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"))
    memory = next(m for m in store.memories if m.rel_path == "orphan.md")
    plan = plan_delete_memory(store, memory)
    assert [c.path for c in plan.changes] == [root / "orphan.md"]


@pytest.mark.parametrize(
    ("data", "lines", "expected"),
    [
        (b"a\nb\nc\n", {2}, b"a\nc\n"),
        (b"a\nb", {2}, b"a\n"),
        (b"a\r\nb\r\nc", {1, 3}, b"b\r\n"),
        (b"only", {1}, b""),
        (b"a\n\nb\n", {2}, b"a\nb\n"),
    ],
)
def test_remove_lines_keeps_every_other_byte(data: bytes, lines: set[int], expected: bytes) -> None:
    assert remove_lines(data, lines) == expected


def test_a_file_the_plan_read_is_checked_again(store: Path, journal: Journal) -> None:
    """``Proposal.reads``: a file read (not changed) by the plan must still hold what the plan
    saw, in the part it read; a change after that part does not matter."""
    from memtui.core.write.proposal import FileRead

    head = (store / "b.md").read_bytes()[:3]
    read = FileRead(store / "b.md", sha256_hex(head), len(head))
    index = store / "MEMORY.md"

    def edit() -> Proposal:
        data = index.read_bytes()
        change = write(index, data + b"- [C](c.md)\n", digest(index))
        return Proposal("test", "a test edit", store, store, [change], reads=[read])

    with (store / "b.md").open("ab") as tail:
        tail.write(b"more\n")  # after the part read
    apply(edit(), journal)
    (store / "b.md").write_bytes(b"BETA\n")
    planned = edit()
    before = tree_state(store)
    with pytest.raises(EditRefused, match=r"b\.md changed on disk since the preview"):
        apply(planned, journal)
    assert tree_state(store) == before
    (store / "b.md").unlink()
    with pytest.raises(EditRefused, match=r"b\.md was deleted"):
        apply(edit(), journal)
