"""Pruning the journal: by age and total size, oldest first, undo chains kept whole, interrupted
operations never; automatically after each operation."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memtui.core.config import load_config
from memtui.core.demo.writers import write_file
from memtui.core.write import recovery
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal, journal_for
from memtui.core.write.proposal import FileChange, Proposal, sha256_hex
from memtui.core.write.prune import (
    DEFAULT_MAX_AGE_DAYS,
    DEFAULT_MAX_MB,
    MB,
    JournalLimits,
    prune_journal,
)

KB = 1024
NO_LIMITS = JournalLimits(max_age_days=None, max_bytes=None)


def limits_of(env: dict[str, str]) -> JournalLimits:
    """The limits of the config ``env`` finds, as a shell hands them to the journal."""
    return JournalLimits.from_config(load_config(env))


def rewrite(root: Path, name: str, size: int, journal: Journal, title: str) -> str:
    """One operation replacing ``name`` with ``size`` fresh bytes (old and new journaled)."""
    path = root / name
    old = path.read_bytes() if path.exists() else None
    data = os.urandom(size)
    change = FileChange(path, "write", data, None if old is None else sha256_hex(old))
    return apply(Proposal("test", title, root, root, [change]), journal).op_id


def age(journal: Journal, op_id: str, days: float) -> None:
    """Make operation ``op_id`` look ``days`` old."""
    record = journal.get(op_id)
    stamp = datetime.now(UTC) - timedelta(days=days)
    record.time = stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    journal.save(record)


def ids(journal: Journal) -> set[str]:
    return {r.id for r in journal.list()}


def test_limits_come_from_the_environment() -> None:
    default = limits_of({})
    assert default.max_age_days == DEFAULT_MAX_AGE_DAYS == 30
    assert default.max_bytes == DEFAULT_MAX_MB * MB == 100 * MB
    custom = limits_of(
        {"MEMTUI_JOURNAL_MAX_AGE_DAYS": "7", "MEMTUI_JOURNAL_MAX_MB": "0.5"}
    )
    assert (custom.max_age_days, custom.max_bytes) == (7, MB // 2)
    off = limits_of({"MEMTUI_JOURNAL_MAX_AGE_DAYS": "0", "MEMTUI_JOURNAL_MAX_MB": "0"})
    assert (off.max_age_days, off.max_bytes) == (None, None)
    bad = limits_of({"MEMTUI_JOURNAL_MAX_MB": "lots"})
    assert bad.max_bytes == 100 * MB
    assert bad.problems == ("MEMTUI_JOURNAL_MAX_MB='lots' is not a number of 0 or more; using 100",)


def test_operations_past_the_age_limit_go(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    journal = Journal(tmp_path / "journal", limits=NO_LIMITS)
    old = rewrite(root, "a.md", KB, journal, "old")
    new = rewrite(root, "b.md", KB, journal, "new")
    age(journal, old, 40)
    report = journal.prune()
    assert report.removed == []  # no limits: nothing goes
    limits = JournalLimits(max_age_days=30, max_bytes=None)
    report = prune_journal(journal.directory, limits, datetime.now(UTC))
    assert [item.name for item in report.removed] == [old]
    assert report.removed[0].reason == "older than 30 days"
    assert report.freed > KB  # its new bytes and its record
    assert ids(journal) == {new}
    assert not (journal.directory / old).exists()
    assert sorted(os.listdir(journal.directory)) == [new]  # nothing left behind


def test_beyond_the_size_limit_the_oldest_go_first_and_the_newest_stays(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    journal = Journal(tmp_path / "journal", limits=NO_LIMITS)
    made = [rewrite(root, f"{n}.md", 40 * KB, journal, f"op {n}") for n in range(4)]
    limits = JournalLimits(max_age_days=None, max_bytes=100 * KB)
    report = prune_journal(journal.directory, limits, datetime.now(UTC))
    assert [item.name for item in report.removed] == made[:2]  # 4 x ~40 KB: 2 fit in 100 KB
    assert ids(journal) == set(made[2:])
    assert report.kept == 2 and report.kept_bytes <= 100 * KB
    tiny = JournalLimits(max_age_days=None, max_bytes=1)
    prune_journal(journal.directory, tiny, datetime.now(UTC))
    assert ids(journal) == {made[3]}  # the latest change stays undoable


def test_an_interrupted_operation_is_never_pruned(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    journal = Journal(tmp_path / "journal", limits=NO_LIMITS)
    stuck = rewrite(root, "a.md", 40 * KB, journal, "stuck")
    record = journal.get(stuck)
    record.state, record.pid = "applying", 0  # as a crash leaves it: no live process
    journal.save(record)
    age(journal, stuck, 400)
    later = rewrite(root, "b.md", 40 * KB, journal, "later")
    limits = JournalLimits(max_age_days=1, max_bytes=1)
    report = prune_journal(journal.directory, limits, datetime.now(UTC))
    assert report.removed == []
    assert report.protected == [stuck]
    assert ids(journal) == {stuck, later}
    assert [r.id for r in journal.incomplete()] == [stuck]


def test_an_undo_chain_goes_whole_or_not_at_all(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    write_file(root / "a.md", "alpha\n")
    journal = Journal(tmp_path / "journal", limits=NO_LIMITS)
    target = rewrite(root, "a.md", KB, journal, "target")
    undo = recovery.undo(journal, target).op_id
    other = rewrite(root, "b.md", KB, journal, "other")
    age(journal, target, 60)  # the target is old, its undo is not: the chain stays
    limits = JournalLimits(max_age_days=30, max_bytes=None)
    assert prune_journal(journal.directory, limits, datetime.now(UTC)).removed == []
    assert journal.is_undone(journal.get(target))
    age(journal, undo, 45)  # now the whole chain is old: both go, together
    report = prune_journal(journal.directory, limits, datetime.now(UTC))
    assert {item.name for item in report.removed} == {target, undo}
    assert ids(journal) == {other}
    latest = journal.latest_undoable()
    assert latest is not None and latest.id == other


def test_each_finished_operation_prunes_the_journal(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    limits = JournalLimits(max_age_days=30, max_bytes=None)
    journal = Journal(tmp_path / "journal", limits=limits)
    old = rewrite(root, "a.md", KB, journal, "old")
    age(journal, old, 31)
    new = rewrite(root, "b.md", KB, journal, "new")
    assert ids(journal) == {new}


def test_a_half_prepared_directory_goes_once_it_is_an_hour_old(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal", limits=NO_LIMITS)
    stale = journal.directory / "20261101-000000-000000-dead"
    fresh = journal.directory / "20261201-000000-000000-beef"
    for directory in (stale, fresh):
        write_file(directory / "0.old", "x" * 1000)
    hour_ago = time.time() - 3700
    os.utime(stale, (hour_ago, hour_ago))
    report = journal.prune()
    assert [(item.name, item.record, item.size) for item in report.removed] == [
        (stale.name, None, 1000)
    ]
    assert not stale.exists() and fresh.exists()  # maybe still being written


def test_an_unreadable_record_is_left_alone(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal", limits=JournalLimits(max_age_days=1, max_bytes=1))
    odd = journal.directory / "20200101-000000-000000-0bad"
    write_file(odd / "op.json", json.dumps({"id": "no other field"}))
    hour_ago = time.time() - 3700
    os.utime(odd, (hour_ago, hour_ago))
    assert journal.prune().removed == []
    assert odd.is_dir()


@pytest.mark.parametrize("missing", [True, False])
def test_an_empty_or_missing_journal_prunes_to_nothing(tmp_path: Path, missing: bool) -> None:
    directory = tmp_path / "journal"
    if not missing:
        directory.mkdir()
    report = Journal(directory, limits=JournalLimits()).prune()
    assert (report.removed, report.kept, report.freed) == ([], 0, 0)


def test_an_odd_record_never_fails_the_operation_that_prunes(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    journal = Journal(tmp_path / "journal", limits=JournalLimits(max_age_days=1, max_bytes=1))
    first = rewrite(root, "a.md", KB, journal, "first")
    record = journal.get(first)
    record.time = 20260101  # type: ignore[assignment]  # a record some other tool mangled
    journal.save(record)
    second = rewrite(root, "b.md", KB, journal, "second")
    assert journal.get(second).state == "done"
    assert (root / "b.md").exists()


def test_the_journal_reads_no_config(tmp_path: Path) -> None:
    """Regression (issue 21): ``Journal.default`` read the config file itself (without the
    home the shell used); now the limits come only from the settings the shell hands over."""
    config = tmp_path / ".config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[journal]\nmax_age_days = 1\nmax_mb = 0\n", encoding="utf-8")
    env = {"HOME": str(tmp_path), "MEMTUI_STATE_DIR": str(tmp_path / "state")}
    assert Journal.default(env).prune().limits == JournalLimits()

    class Ctx:
        def __init__(self) -> None:
            self.env, self.claude_home = env, tmp_path / ".claude"

    journal = journal_for(Ctx(), load_config(env))
    assert journal.prune().limits == JournalLimits(max_age_days=1, max_bytes=None)
    assert journal.home is not None and journal_for(Ctx()).limits is None
