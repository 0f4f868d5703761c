"""Recording versions of the stores in a real git repository, and reading them back."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SmallHome

from memtui.core.history.attribution import Attribution
from memtui.core.history.files import SIZE_CAP, STUB_MAGIC, stub_fields
from memtui.core.history.paths import HistoryError
from memtui.core.history.record import record
from memtui.core.history.repo import GIT_DIR
from memtui.core.history.timeline import open_history


def versions_of(home: SmallHome, path: Path) -> list[tuple[str, str]]:
    history = open_history(home.ctx)
    try:
        return [(v.status, v.rev) for v in history.file_timeline(path)]
    finally:
        history.repo.close()


def test_the_first_recording_holds_every_store_file_and_nothing_else(
        small_home: SmallHome) -> None:
    (small_home.auto / "leak.jsonl").write_text('{"type": "user"}\n')
    (small_home.auto / ".consolidate-lock").write_text("no pid")
    result = record(small_home.ctx)
    assert len(result.commits) == 1
    recorded = {(c.key.split("/")[0], c.rel) for c in result.changes}
    assert ("auto", "testing.md") in recorded and ("auto", "MEMORY.md") in recorded
    assert ("team", "review.md") in recorded  # under its own key, not auto's team/
    assert not any(rel.startswith("team/") for kind, rel in recorded if kind == "auto")
    assert ("agent", "notes.txt") in recorded
    assert ("session", "summary.md") in recorded
    assert not any(rel.endswith((".jsonl", ".consolidate-lock")) for _k, rel in recorded)
    directory = small_home.data / "history"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / GIT_DIR).stat().st_mode) == 0o700


def test_nothing_changed_records_nothing_and_starts_no_git(small_home: SmallHome) -> None:
    record(small_home.ctx)
    again = record(small_home.ctx)
    assert again.commits == []
    code = (
        "import sys\n"
        "from memtui.core.stores.locations import Context\n"
        "from memtui.core.history.record import record\n"
        f"ctx = Context.create(project={str(small_home.project)!r}, "
        f"claude_home={str(small_home.claude_home)!r}, "
        f"agent_memory_home={str(small_home.root / '.agent-memory')!r}, "
        f"env={{'HOME': {str(small_home.root)!r}, 'MEMTUI_DATA_DIR': {str(small_home.data)!r}}})\n"
        "for _ in range(2):\n"
        "    result = record(ctx)\n"
        "print(len(result.commits), 'git' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "False"]


def test_a_file_changed_by_another_process_shows_both_versions_and_a_diff(
        small_home: SmallHome) -> None:
    target = small_home.auto / "testing.md"
    first = target.read_bytes()
    record(small_home.ctx)
    subprocess.run([sys.executable, "-c",
                    f"open({str(target)!r}, 'a').write('Never mock the database.\\n')"],
                   check=True)
    result = record(small_home.ctx)
    assert [c.rel for c in result.changes] == ["testing.md"]
    versions = versions_of(small_home, target)
    assert [status for status, _rev in versions] == ["changed", "added"]
    history = open_history(small_home.ctx)
    try:
        (_s, new), (_s2, old) = versions
        assert history.content(old, "auto/" + small_home.auto.parent.name, "testing.md") == first
        diff = history.diff(target, old, new)
        assert "+Never mock the database." in diff.unified
        assert history.diff(target, new, None).unified == ""  # the newest is the disk
        timeline = history.file_timeline(target)
        assert timeline[0].size_change == len("Never mock the database.\n")
    finally:
        history.repo.close()


def test_a_deleted_file_is_listed_with_the_version_that_holds_it(
        small_home: SmallHome) -> None:
    target = small_home.auto / "payments.md"
    data = target.read_bytes()
    record(small_home.ctx)
    target.unlink()
    record(small_home.ctx)
    history = open_history(small_home.ctx)
    try:
        deleted = history.deleted()
        assert [d.deleted.rel for d in deleted] == ["payments.md"]
        item = deleted[0]
        assert history.content(item.restore_rev, item.deleted.key, "payments.md") == data
        assert item.deleted.size_change == -len(data)
    finally:
        history.repo.close()


def test_a_whole_store_gone_is_recorded_as_deleted(small_home: SmallHome) -> None:
    import shutil

    record(small_home.ctx)
    shutil.rmtree(small_home.agent)
    result = record(small_home.ctx)
    assert sorted(c.rel for c in result.changes if c.status == "deleted") == [
        "MEMORY.md", "checklist.md", "notes.txt"]


def test_large_and_binary_files_are_recorded_as_stubs_with_their_hash(
        small_home: SmallHome) -> None:
    import hashlib

    big = b"x" * (SIZE_CAP + 10)
    (small_home.auto / "huge.md").write_bytes(big)
    (small_home.auto / "blob.md").write_bytes(b"\0\1\2binary")
    record(small_home.ctx)
    history = open_history(small_home.ctx)
    key = "auto/" + small_home.auto.parent.name
    try:
        stub = history.content("main", key, "huge.md")
        assert stub is not None and stub.startswith(STUB_MAGIC)
        assert stub_fields(stub)["sha256"] == hashlib.sha256(big).hexdigest()
        assert stub_fields(stub)["size"] == str(len(big))
        binary = history.content("main", key, "blob.md")
        assert binary is not None and binary.startswith(STUB_MAGIC)
        assert history.file_timeline(small_home.auto / "huge.md")[0].stub
        assert history.file_timeline(small_home.auto / "huge.md")[0].size == len(big)
    finally:
        history.repo.close()


def test_symlinks_and_fifos_in_a_store_are_never_followed(
        small_home: SmallHome, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("outside the store\n")
    (small_home.auto / "link.md").symlink_to(secret)
    os.mkfifo(small_home.auto / "pipe.md")
    (small_home.auto / "linked-dir").symlink_to(tmp_path)
    result = record(small_home.ctx)
    rels = {c.rel for c in result.changes}
    assert not rels & {"link.md", "pipe.md"}
    assert not any(r.startswith("linked-dir") for r in rels)


def test_a_torn_write_is_never_the_newest_version_after_the_next_recording(
        small_home: SmallHome, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer mid-write: the half-written file may be recorded, but it was read within the
    racy window, so the next recording reads it again and records the finished file, even on
    a filesystem whose timestamps are too coarse to tell the two writes apart (whole seconds,
    no ctime: the finished file has the torn one's size and stat)."""
    from memtui.core.history import record as record_module

    def coarse(st: os.stat_result) -> tuple[int, int, int, int, int]:
        return (st.st_size, int(st.st_mtime), 0, st.st_ino, st.st_mode)

    monkeypatch.setattr(record_module, "stat_key", coarse)
    target = small_home.auto / "testing.md"
    record(small_home.ctx)
    torn = b"A" * 32 + b"\n" + b" " * 32
    finished = b"A" * 32 + b"\n" + b"B" * 31 + b"\n"
    target.write_bytes(torn)
    st = target.stat()
    record(small_home.ctx)
    target.write_bytes(finished)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    record(small_home.ctx)
    history = open_history(small_home.ctx)
    try:
        key = "auto/" + small_home.auto.parent.name
        assert history.content("main", key, "testing.md") == finished
    finally:
        history.repo.close()


def test_a_change_while_the_consolidate_lock_is_held_is_the_consolidation(
        small_home: SmallHome) -> None:
    record(small_home.ctx)
    holder = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                              stdin=subprocess.PIPE)
    try:
        (small_home.auto / ".consolidate-lock").write_text(str(holder.pid))
        (small_home.auto / "testing.md").write_text("pruned by the dream\n")
        (small_home.agent / "checklist.md").write_text("changed by someone\n")
        result = record(small_home.ctx, Attribution.unknown())
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait()
    assert len(result.commits) == 2  # one version per attribution
    history = open_history(small_home.ctx)
    try:
        auto = history.file_timeline(small_home.auto / "testing.md")[0].attribution
        agent = history.file_timeline(small_home.agent / "checklist.md")[0].attribution
    finally:
        history.repo.close()
    assert auto.kind == "consolidation" and auto.lock_pid == str(holder.pid)
    assert agent.kind == "unknown"


def test_a_lost_state_file_is_rebuilt_from_the_repository(small_home: SmallHome) -> None:
    record(small_home.ctx)
    (small_home.data / "history" / "state.json").write_text("{not json")
    assert record(small_home.ctx).commits == []
    (small_home.auto / "testing.md").write_text("new\n")
    assert [c.status for c in record(small_home.ctx).changes] == ["changed"]


def test_a_corrupt_repository_is_reported(small_home: SmallHome) -> None:
    record(small_home.ctx)
    objects = small_home.data / "history" / GIT_DIR / "objects"
    os.chmod(objects, 0o500)
    try:
        (small_home.auto / "testing.md").write_text("new\n")
        if os.geteuid() == 0:  # root writes anyway: break the repository instead
            (small_home.data / "history" / GIT_DIR / "HEAD").write_text("garbage\n")
        with pytest.raises(HistoryError):
            record(small_home.ctx)
    finally:
        os.chmod(objects, 0o700)


def test_a_data_dir_inside_the_claude_home_is_refused(small_home: SmallHome) -> None:
    from memtui.core.stores.locations import Context

    ctx = Context.create(project=small_home.project, claude_home=small_home.claude_home,
                         env={"HOME": str(small_home.root),
                              "MEMTUI_DATA_DIR": str(small_home.claude_home / "memtui")})
    with pytest.raises(HistoryError, match="inside the Claude Code home"):
        record(ctx)


def test_only_and_skip_leave_the_other_files_for_the_next_recording(
        small_home: SmallHome) -> None:
    record(small_home.ctx)
    a, b = small_home.auto / "testing.md", small_home.auto / "payments.md"
    a.write_text("a\n")
    b.write_text("b\n")
    first = record(small_home.ctx, skip=[a])
    assert [c.rel for c in first.changes] == ["payments.md"]
    second = record(small_home.ctx, Attribution.session("s1", "Write", str(a)), only=[a])
    assert [c.rel for c in second.changes] == ["testing.md"]
    assert record(small_home.ctx).commits == []


def test_a_locked_history_is_reported_and_the_scan_goes_on(
    small_home: SmallHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another recording holding the history's lock: a recording says the history is locked
    (after its wait, shortened here), and reading the stores does not depend on it."""
    import fcntl

    from memtui.core.history import repo
    from memtui.core.scan.scanner import scan

    record(small_home.ctx)
    monkeypatch.setattr(repo.locked.__wrapped__, "__defaults__", (0.2,))  # type: ignore[attr-defined]
    held = os.open(small_home.data / "history" / repo.LOCK_FILE, os.O_RDWR)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        (small_home.auto / "testing.md").write_text("changed while locked\n")
        with pytest.raises(HistoryError, match="locked by another recording"):
            record(small_home.ctx)
        assert any(m.rel_path == "testing.md" for s in scan(small_home.ctx).stores
                   for m in s.memories)
    finally:
        os.close(held)
    assert [c.status for c in record(small_home.ctx).changes] == ["changed"]  # and after it
