"""Snapshot actions (docs/claude-code-rules.md#snapshot-operations) on real demo directories,
file by file, and undo of each back to a byte-identical tree."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import tree_state

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file
from memtui.core.stores.snapshot import SNAPSHOT_JSON, SYNCED_JSON, snapshot_status
from memtui.core.write import recovery
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.snapshot import (
    SNAPSHOT_ACTIONS,
    SnapshotAction,
    plan_snapshot,
    synced_bytes,
)

pytestmark = pytest.mark.usefixtures("state_home")


def snapshot_dir(demo: DemoHome, agent: str) -> Path:
    return demo.project / ".claude" / "agent-memory-snapshots" / agent


def top_level_files(directory: Path) -> dict[str, bytes]:
    if not directory.is_dir():
        return {}
    return {
        p.name: p.read_bytes() for p in directory.iterdir() if p.is_file() and not p.is_symlink()
    }


def expected_files(
    before: dict[str, bytes], snap: Path, action: SnapshotAction, updated_at: str
) -> dict[str, bytes]:
    """The rule, restated: what the local dir's top-level files must be after ``action``."""
    after = dict(before)
    if action == "replace":
        after = {name: data for name, data in after.items() if not name.endswith(".md")}
    if action in ("initialize", "replace"):
        after.update(
            {name: data for name, data in top_level_files(snap).items() if name != SNAPSHOT_JSON}
        )
    after[SYNCED_JSON] = f'{{"syncedFrom":"{updated_at}"}}'.encode()
    return after


def updated_at_of(snap: Path) -> str:
    value = json.loads((snap / SNAPSHOT_JSON).read_text())["updatedAt"]
    assert isinstance(value, str)
    return value


# Each snapshot status of the demo: (agent, local dir from the demo home, status before).
CASES: dict[str, tuple[str, Callable[[DemoHome], Path]]] = {
    "initialize-missing-dir": ("qa", lambda d: d.claude_home / "agent-memory" / "qa"),
    "initialize-dir-without-md": (
        "planner",
        lambda d: d.project / ".claude" / "agent-memory-local" / "planner",
    ),
    "prompt-update": ("reviewer", lambda d: d.claude_home / "agent-memory" / "reviewer"),
    "none-up-to-date": ("planner", lambda d: d.claude_home / "agent-memory" / "planner"),
}
STATUS = {
    "initialize-missing-dir": "initialize",
    "initialize-dir-without-md": "initialize",
    "prompt-update": "prompt-update",
    "none-up-to-date": "none",
}


def prepare_case(demo: DemoHome, case: str) -> tuple[Path, Path]:
    agent, local_of = CASES[case]
    snap = snapshot_dir(demo, agent)
    local = local_of(demo)
    if case == "initialize-dir-without-md":
        write_file(local / "notes.txt", "my own notes, not a memory\n")
        write_file(local / "sub" / "kept.md", "a subfolder memory: not top-level\n")
    if local.is_dir():
        # Files replace must keep: non-.md files and subfolders (with .md inside).
        write_file(local / "keep.json", '{"mine": true}')
        write_file(local / "nested" / "deep.md", "nested memories are not top-level\n")
    # Things a snapshot must never ship: a symlink and a subfolder (the demo has one already).
    os.symlink(demo.outside_file, snap / "linked.md")
    return snap, local


@pytest.mark.parametrize("action", SNAPSHOT_ACTIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_each_status_and_action_follows_the_spec(demo: DemoHome, case: str, action: str) -> None:
    snap, local = prepare_case(demo, case)
    act: SnapshotAction = action  # type: ignore[assignment]
    assert snapshot_status(snap, local)[0] == STATUS[case]
    before_top = top_level_files(local)
    before_sub = {
        p.relative_to(local).as_posix(): p.read_bytes()
        for p in local.rglob("*")
        if p.is_file() and p.parent != local
    }
    updated_at = updated_at_of(snap)

    apply(plan_snapshot(snap, local, act), Journal.default())

    after_top = top_level_files(local)
    assert after_top == expected_files(before_top, snap, act, updated_at)
    # The synced file, byte for byte: compact JSON, no newline.
    assert (local / SYNCED_JSON).read_bytes() == b'{"syncedFrom":"' + updated_at.encode() + b'"}'
    # Never copied: snapshot.json, subfolders, symlinks.
    assert not (local / SNAPSHOT_JSON).exists()
    assert not (local / "linked.md").exists()
    for sub in ("drafts", "archive", "fixtures", "old"):
        assert not (local / sub).exists()
    # Subfolders of the local dir are never touched, even by replace.
    after_sub = {
        p.relative_to(local).as_posix(): p.read_bytes()
        for p in local.rglob("*")
        if p.is_file() and p.parent != local
    }
    assert after_sub == before_sub
    # What CC concludes afterwards.
    has_md = any(name.endswith(".md") for name in after_top)
    assert snapshot_status(snap, local)[0] == ("none" if has_md else "initialize")


@pytest.mark.parametrize("action", SNAPSHOT_ACTIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_undo_after_each_action_restores_the_tree(demo: DemoHome, case: str, action: str) -> None:
    snap, local = prepare_case(demo, case)
    before = tree_state(demo.root)
    journal = Journal.default()
    op = apply(plan_snapshot(snap, local, action), journal)  # type: ignore[arg-type]
    assert tree_state(demo.root) != before

    recovery.undo(journal, op.op_id)

    assert tree_state(demo.root) == before  # bytes, modes, mtimes; created files and dirs gone


def test_replace_on_the_reviewer_deletes_exactly_the_local_md_files(demo: DemoHome) -> None:
    snap = snapshot_dir(demo, "reviewer")
    local = demo.claude_home / "agent-memory" / "reviewer"
    write_file(local / "private.txt", "stays\n")
    plan = plan_snapshot(snap, local, "replace")
    statuses = {d.rel: d.status for d in plan.diff()}
    assert statuses == {
        "common-bugs.md": "deleted",
        "deploy-freeze.md": "deleted",
        "MEMORY.md": "changed",
        "review-checklist.md": "changed",
        "house-style.txt": "added",
        "security-checklist.md": "added",
        SYNCED_JSON: "changed",
    }
    assert "deletes your local memories: common-bugs.md, deploy-freeze.md" in plan.notes
    assert plan.root == local
    assert plan.lock_dir == local
    deleted = next(d for d in plan.diff() if d.rel == "deploy-freeze.md")
    assert deleted.old_text == (local / "deploy-freeze.md").read_text()
    assert deleted.new_text is None
    assert deleted.unified.startswith("--- a/deploy-freeze.md\n+++ /dev/null\n")
    apply(plan, Journal.default())
    assert sorted(p.name for p in local.iterdir()) == [
        SYNCED_JSON,
        "MEMORY.md",
        "house-style.txt",
        "private.txt",
        "review-checklist.md",
        "security-checklist.md",
    ]
    assert (local / "private.txt").read_text() == "stays\n"
    assert (local / "house-style.txt").read_bytes() == (snap / "house-style.txt").read_bytes()


def test_mark_synced_writes_only_the_synced_file(demo: DemoHome) -> None:
    snap = snapshot_dir(demo, "reviewer")
    local = demo.claude_home / "agent-memory" / "reviewer"
    plan = plan_snapshot(snap, local, "mark-synced")
    assert [c.path for c in plan.changes] == [local / SYNCED_JSON]
    assert plan.changes[0].new_bytes == b'{"syncedFrom":"2026-11-25T09:00:00.000Z"}'


def test_initialize_creates_the_missing_dir_privately(demo: DemoHome) -> None:
    snap = snapshot_dir(demo, "reviewer")
    local = demo.root / "fresh-home" / "agent-memory" / "reviewer"
    apply(plan_snapshot(snap, local, "initialize"), Journal.default())
    assert stat.S_IMODE(local.stat().st_mode) == 0o700
    assert stat.S_IMODE(local.parent.stat().st_mode) == 0o700
    for path in local.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in local.iterdir()) == sorted(
        [
            SYNCED_JSON,
            "MEMORY.md",
            "review-checklist.md",
            "security-checklist.md",
            "house-style.txt",
        ]
    )


@pytest.mark.parametrize("action", SNAPSHOT_ACTIONS)
def test_an_invalid_snapshot_is_explained_not_applied(demo: DemoHome, action: str) -> None:
    snap = snapshot_dir(demo, "docs-writer")  # its snapshot.json is cut off: not JSON
    local = demo.project / ".claude" / "agent-memory" / "docs-writer"
    before = tree_state(demo.root)
    with pytest.raises(EditRefused, match=r"snapshot\.json is not valid JSON"):
        plan_snapshot(snap, local, action)  # type: ignore[arg-type]
    assert tree_state(demo.root) == before


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"updatedAt": ""}', "no non-empty string updatedAt"),
        ('{"other": 1}', "no non-empty string updatedAt"),
        (None, "snapshot.json missing"),
    ],
)
def test_a_snapshot_without_updated_at_is_refused(
    demo: DemoHome, content: str | None, problem: str
) -> None:
    snap = snapshot_dir(demo, "qa")
    if content is None:
        (snap / SNAPSHOT_JSON).unlink()
    else:
        (snap / SNAPSHOT_JSON).write_text(content)
    with pytest.raises(EditRefused, match=problem):
        plan_snapshot(snap, demo.claude_home / "agent-memory" / "qa", "initialize")


def test_synced_bytes_are_compact_json() -> None:
    assert synced_bytes("2026-11-25T09:00:00.000Z") == b'{"syncedFrom":"2026-11-25T09:00:00.000Z"}'
    assert synced_bytes('a"b') == b'{"syncedFrom":"a\\"b"}'
