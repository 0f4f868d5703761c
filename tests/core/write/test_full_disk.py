"""A snapshot replace on a really full filesystem (a small tmpfs) rolls back to the exact
previous tree, leaves no temporary file, and says what happened."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import tree_state

from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.snapshot import plan_snapshot

pytestmark = pytest.mark.usefixtures("state_home")

FILE = 48 * 1024
MOUNT_SIZE = 180 * 1024


def _mount(where: Path, size: int = MOUNT_SIZE) -> str | None:
    """Mount a small tmpfs at ``where``; None when done, else why it cannot be done here."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    return None if done.returncode == 0 else f"mount failed: {done.stderr.strip()}"


@pytest.fixture
def full_store(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A project agent memory dir on its own small tmpfs holding 3 memories, and a snapshot
    (on the ordinary disk) whose 4 files cannot all fit there."""
    project = tmp_path / "project"
    memory = project / ".claude" / "agent-memory"
    memory.mkdir(parents=True)
    why = _mount(memory)
    if why is not None:
        pytest.skip(f"no real full filesystem here ({why}); test_cli_undo injects ENOSPC")
    try:
        local = memory / "reviewer"
        local.mkdir()
        for n in range(3):
            (local / f"mine-{n}.md").write_bytes(bytes([65 + n]) * FILE)
        (local / "notes.txt").write_bytes(b"kept by replace\n")
        snap = project / ".claude" / "agent-memory-snapshots" / "reviewer"
        snap.mkdir(parents=True)
        (snap / "snapshot.json").write_text('{"updatedAt": "2026-11-30T10:00:00Z"}')
        for n in range(4):
            (snap / f"shipped-{n}.md").write_bytes(bytes([97 + n]) * FILE)
        yield snap, local
    finally:
        subprocess.run(["umount", "-l", str(memory)], check=False)


def test_replace_on_a_full_tmpfs_rolls_back_to_the_exact_tree(
    full_store: tuple[Path, Path],
) -> None:
    snap, local = full_store
    before = tree_state(local.parent)
    with pytest.raises(EditRefused) as refused:
        apply(plan_snapshot(snap, local, "replace"), Journal.default())
    assert "No space left on device" in refused.value.reason
    assert "every file was put back as it was" in refused.value.reason
    assert tree_state(local.parent) == before  # no mixed store, no temporary file
    with contextlib.suppress(OSError):  # the space is free again: the tmpfs is as it was
        st = os.statvfs(local)
        assert st.f_bfree * st.f_bsize >= MOUNT_SIZE - 3 * FILE - 64 * 1024


@pytest.fixture
def full_home(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs to hold a judge home and memtui's state dir (room for the records of the
    operations rolled back on the way: the journal keeps them)."""
    where = tmp_path / "fs"
    where.mkdir()
    why = _mount(where, 2 * 1024 * 1024)
    if why is not None:
        pytest.skip(f"no real full filesystem here ({why}); test_decisions_journaled injects "
                    "ENOSPC")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(where: Path, leave: int) -> Path:
    """A file taking all but ``leave`` bytes of ``where``'s free space."""
    st = os.statvfs(where)
    filler = where / "filler"
    with open(filler, "wb") as out, contextlib.suppress(OSError):
        out.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return filler


def test_a_merge_on_a_full_disk_says_the_truth_and_leaves_no_temp_file(
    full_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``judge resolve PAIR merge`` with less and less room left, until it fits: every refusal
    says what happened (never "putting files back also failed" for a store left intact), no
    ``.tmp`` stays in the journal, and the merge that fits has its archive entry and ledger
    decision."""
    import json

    from core.judge.homes import cli_args, write_timeout_home

    from memtui.cli import main

    ctx = write_timeout_home(full_home / "home")
    monkeypatch.setenv("MEMTUI_STATE_DIR", str(full_home / "state"))
    args = cli_args(ctx)
    assert main([*args, "judge", "--json"]) == 1
    [pair] = [p["id"] for p in json.loads(capsys.readouterr().out)["pairs"]
              if {p["a"]["path"], p["b"]["path"]} == {"api-timeout.md", "gateway-timeout.md"}]
    home = full_home / "home"
    for leave in range(0, 128 * 1024, 4096):
        before = tree_state(home)
        filler = _fill(full_home, leave)
        code = main([*args, "judge", "resolve", pair, "merge", "--yes"])
        err = capsys.readouterr().err
        filler.unlink()
        assert list((full_home / "state").rglob("*.tmp")) == [], leave
        if code == 0:
            break
        assert "also failed" not in err, err
        assert "nothing was written" in err or "every file was put back as it was" in err, err
        assert tree_state(home) == before
    else:
        pytest.fail(f"the merge never fitted: {err}")
    assert main([*args, "judge", "archive", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["entries"]
    assert entry["reason"].startswith("merged into")
