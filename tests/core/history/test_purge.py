"""``memtui history purge FILE``: a file taken out of every version, and afterwards no object
of the history's repository (loose or packed) holds its bytes."""

from __future__ import annotations

import os
import subprocess
import zlib
from pathlib import Path

import pytest
from helpers import SmallHome

from memtui.core.history.attribution import Attribution, parse_message
from memtui.core.history.paths import HistoryError
from memtui.core.history.purge import apply_purge, plan_purge
from memtui.core.history.record import history_of, record
from memtui.core.history.rewrite import read_chain
from memtui.core.history.timeline import open_history

SECRET = b"sk-live-7f3c9a1e5b2d8f6a4c0e9b7d3f1a5c8e"


def git_objects(git_dir: Path) -> bytes:
    """Every object of the repository, its contents whole (packed ones resolved)."""
    return subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch-all-objects",
                           "--batch"], check=True, capture_output=True).stdout


def raw_files(directory: Path) -> list[tuple[Path, bytes]]:
    """Every file below the history directory as stored, a loose object inflated."""
    out = []
    for root, _dirs, files in os.walk(directory):
        for name in files:
            path = Path(root) / name
            data = path.read_bytes()
            if path.parent.parent.name == "objects" and len(path.parent.name) == 2:
                data = zlib.decompress(data)
            out.append((path, data))
    return out


def holding(directory: Path, needle: bytes) -> list[Path]:
    return [path for path, data in raw_files(directory) if needle in data]


def test_a_purged_secret_is_in_no_object_of_the_repository(small_home: SmallHome) -> None:
    ctx = small_home.ctx
    leak = small_home.auto / "leak.md"
    testing = small_home.auto / "testing.md"
    record(ctx)
    leak.write_bytes(b"---\nname: leak\n---\nkey = " + SECRET + b"\n")
    record(ctx)  # the secret's first version
    leak.write_bytes(leak.read_bytes() + b"more about it\n")
    record(ctx, Attribution.session("sess-9", "Edit", str(leak)))  # only leak.md changed
    testing.write_text("another change\n")
    record(ctx, Attribution.editor_of(str(testing), "vim"))
    leak.unlink()
    record(ctx)  # its deletion
    repo = history_of(ctx)
    assert SECRET in git_objects(repo.git_dir)  # the test can fail: the secret is there
    before = read_chain(repo)
    history = open_history(ctx)
    try:
        plan = plan_purge(history, leak)
        assert [v.status for v in plan.versions] == ["deleted", "changed", "added"]
        assert len(plan.blobs) == 2 and plan.bytes == sum(plan.blobs.values())
        assert not plan.on_disk and not plan.disk_recorded and plan.shared == {}
        result = apply_purge(history, plan)
    finally:
        history.repo.close()
    assert result.dropped == 3  # the versions that changed only leak.md
    assert result.rewritten == len(before) - 3 and result.left == []
    assert SECRET not in git_objects(repo.git_dir)
    assert holding(repo.directory, SECRET) == []
    assert holding(repo.directory, b"leak.md") == []  # not even its name in a tree
    history = open_history(ctx)
    try:
        assert history.file_timeline(leak) == []
        assert history.deleted() == []
        versions = history.file_timeline(testing)
        assert [v.status for v in versions] == ["changed", "added"]
        assert versions[0].attribution.kind == "editor"
        assert versions[0].attribution.editor == "vim"
    finally:
        history.repo.close()
    assert record(ctx).commits == []  # the state followed: nothing comes back
    log = subprocess.run(["git", "--git-dir", str(repo.git_dir), "log", "--format=%B%x00"],
                         check=True, capture_output=True, text=True).stdout
    assert not any(parse_message(m.strip())[1].session_id == "sess-9" for m in log.split("\0"))


def test_a_file_still_on_disk_is_said_and_recorded_again_as_it_is_then(
        small_home: SmallHome) -> None:
    ctx = small_home.ctx
    leak = small_home.auto / "leak.md"
    leak.write_bytes(b"token " + SECRET + b"\n")
    copy = small_home.auto / "copy.md"
    copy.write_bytes(leak.read_bytes())
    record(ctx)
    history = open_history(ctx)
    try:
        plan = plan_purge(history, leak)
        assert plan.on_disk and plan.disk_recorded
        assert list(plan.shared.values()) == [[f"{plan.key}/copy.md"]]
    finally:
        history.repo.close()
    leak.write_bytes(b"token removed\n")  # what the user does first
    copy.unlink()
    history = open_history(ctx)
    try:
        plan = plan_purge(history, leak)
        assert plan.on_disk and not plan.disk_recorded
        result = apply_purge(history, plan)
    finally:
        history.repo.close()
    assert result.left == [next(iter(plan.blobs))]  # copy.md's version holds the same bytes
    again = record(ctx)
    assert {(c.rel, c.status) for c in again.changes} == {("leak.md", "added"),
                                                          ("copy.md", "deleted")}
    history = open_history(ctx)
    try:
        newest = history.file_timeline(leak)[0]
        assert history.content(newest.rev, newest.key, "leak.md") == b"token removed\n"
    finally:
        history.repo.close()


def test_a_purge_planned_before_another_recording_is_refused(small_home: SmallHome) -> None:
    ctx = small_home.ctx
    testing = small_home.auto / "testing.md"
    record(ctx)
    history = open_history(ctx)
    try:
        plan = plan_purge(history, testing)
        testing.write_text("changed meanwhile\n")
        record(ctx)
        head = history.repo.head()
        with pytest.raises(HistoryError, match="changed since"):
            apply_purge(history, plan)
        assert history.repo.head() == head
        with pytest.raises(HistoryError, match="no version"):
            plan_purge(history, small_home.auto / "never-recorded.md")
    finally:
        history.repo.close()
