"""Restoring a version through the one write path: byte-identical, undoable, refused when it
cannot be exact; memtui's own operations recorded before and after."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SmallHome, tree_state

from memtui.core.history.files import SIZE_CAP
from memtui.core.history.observe import record_operations
from memtui.core.history.record import record
from memtui.core.history.timeline import History, open_history
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.history import plan_restore
from memtui.core.write.proposal import FileChange, Proposal, file_sha256
from memtui.core.write.recovery import undo_operation


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def history(home: SmallHome) -> History:
    return open_history(home.ctx)


def test_a_deleted_file_is_restored_byte_identical_with_its_index_line(
        small_home: SmallHome, journal: Journal) -> None:
    target = small_home.auto / "payments.md"
    index = small_home.auto / "MEMORY.md"
    data, index_before = target.read_bytes(), index.read_bytes()
    record(small_home.ctx)
    target.unlink()
    index.write_text(index_before.decode().replace(
        "- [Payments](payments.md) — PSP sandbox\n", ""))
    record(small_home.ctx)
    found = history(small_home)
    deleted = found.deleted()[0]
    plan = plan_restore(found, target, deleted.restore_rev)
    found.repo.close()
    assert [d.status for d in plan.diff()] == ["added", "changed"]
    assert any("adds back to MEMORY.md" in note for note in plan.notes)
    before = tree_state(small_home.auto)
    applied = apply(plan, journal)
    assert target.read_bytes() == data
    assert index.read_bytes() == index_before  # the line is back, at the end as it was
    undo_operation(journal, applied.record)
    assert tree_state(small_home.auto) == before


def test_restore_then_undo_is_byte_identical(small_home: SmallHome, journal: Journal) -> None:
    target = small_home.auto / "testing.md"
    first = target.read_bytes()
    record(small_home.ctx)
    target.write_bytes(b"rewritten by the agent\n")
    record(small_home.ctx)
    found = history(small_home)
    old_rev = found.file_timeline(target)[1].rev
    plan = plan_restore(found, target, old_rev[:10])
    found.repo.close()
    before = tree_state(small_home.root)
    applied = apply(plan, journal)
    assert target.read_bytes() == first
    undo_operation(journal, applied.record)
    assert tree_state(small_home.root) == before


def test_a_restore_planned_before_another_write_is_refused(
        small_home: SmallHome, journal: Journal) -> None:
    target = small_home.auto / "testing.md"
    record(small_home.ctx)
    target.write_bytes(b"second\n")
    record(small_home.ctx)
    found = history(small_home)
    plan = plan_restore(found, target, found.file_timeline(target)[1].rev)
    found.repo.close()
    target.write_bytes(b"third, since the preview\n")
    with pytest.raises(EditRefused):
        apply(plan, journal)
    assert target.read_bytes() == b"third, since the preview\n"


def test_a_stub_version_and_a_missing_version_are_refused(small_home: SmallHome) -> None:
    big = small_home.auto / "huge.md"
    big.write_bytes(b"y" * (SIZE_CAP + 1))
    record(small_home.ctx)
    big.unlink()
    record(small_home.ctx)
    found = history(small_home)
    try:
        deleted = found.deleted()[0]
        with pytest.raises(EditRefused, match="kept only the hash"):
            plan_restore(found, big, deleted.restore_rev)
        with pytest.raises(EditRefused, match="does not hold"):
            plan_restore(found, big, deleted.deleted.rev)
        with pytest.raises(EditRefused, match="no version"):
            plan_restore(found, big, "--help")
        with pytest.raises(EditRefused, match="already holds"):
            plan_restore(found, small_home.auto / "testing.md", "main")
    finally:
        found.repo.close()


def test_memtuis_operations_are_recorded_before_and_after_with_their_id(
        small_home: SmallHome, journal: Journal) -> None:
    record(small_home.ctx)
    registration = record_operations(small_home.ctx)
    try:
        (small_home.auto / "payments.md").write_text("changed while memtui was closed\n")
        target = small_home.auto / "testing.md"
        plan = Proposal("edit", "edit testing.md", small_home.auto, small_home.auto,
                        [FileChange(target, "write", b"memtui wrote this\n",
                                    file_sha256(target))])
        applied = apply(plan, journal)
    finally:
        registration.remove()
    found = history(small_home)
    try:
        newest = found.file_timeline(target)[0]
        assert newest.attribution.kind == "memtui"
        assert newest.attribution.op_id == applied.op_id
        other = found.file_timeline(small_home.auto / "payments.md")[0]
        assert other.attribution.kind == "unknown"
        assert other.attribution.phase == "before"
    finally:
        found.repo.close()


def test_no_recording_around_operations_until_the_history_exists(
        small_home: SmallHome, journal: Journal) -> None:
    registration = record_operations(small_home.ctx)
    try:
        target = small_home.auto / "testing.md"
        apply(Proposal("edit", "edit", small_home.auto, small_home.auto,
                       [FileChange(target, "write", b"x\n", file_sha256(target))]), journal)
    finally:
        registration.remove()
    assert not (small_home.data / "history").exists()
