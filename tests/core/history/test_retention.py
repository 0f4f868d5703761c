"""The history's retention (``memtui history gc``): versions past an age or over a size cap are
pruned oldest first, never the newest version of a file; the chain is written again (kept
versions keep their attribution) and git frees the space."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import SmallHome

import memtui.core.history.record as record_module
from memtui.core.history.attribution import Attribution, parse_message
from memtui.core.history.files import blob_sha
from memtui.core.history.record import history_of, record
from memtui.core.history.retention import (
    CHECK_FILE,
    DAY,
    MB,
    RetentionLimits,
    gc_history,
)
from memtui.core.history.rewrite import pruned_of, read_chain
from memtui.core.history.timeline import open_history

START = float(int(time.time()) + 100)  # the fake clock starts ahead: every file written is settled


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The recordings' clock (``now`` of each version), in seconds; ``clock[0] = ...`` moves
    it."""
    now = [START]
    monkeypatch.setattr(record_module, "time", SimpleNamespace(time=lambda: now[0]))
    return now


def objects(git_dir: Path) -> set[str]:
    out = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch-all-objects",
                          "--batch-check=%(objectname)"], check=True, capture_output=True,
                         text=True).stdout
    return set(out.split())


def messages(git_dir: Path) -> list[str]:
    out = subprocess.run(["git", "--git-dir", str(git_dir), "log", "--format=%B%x00", "main"],
                         check=True, capture_output=True, text=True).stdout
    return [m.strip("\n") for m in out.split("\0") if m.strip()]


def test_versions_past_the_age_go_but_the_newest_of_each_file_stays(
        small_home: SmallHome, clock: list[float]) -> None:
    ctx = small_home.ctx
    testing = small_home.auto / "testing.md"
    first = testing.read_bytes()
    record(ctx)  # day 0
    clock[0] = START + 10 * DAY
    testing.write_bytes(first + b"second\n")
    second = testing.read_bytes()
    record(ctx)  # day 10
    gone = small_home.auto / "gone.md"
    clock[0] = START + 20 * DAY
    gone.write_bytes(b"a memory deleted long ago\n")
    record(ctx)  # day 20: the last version holding gone.md
    clock[0] = START + 30 * DAY
    gone.unlink()
    record(ctx, Attribution.session("sess-1", "Bash", None))  # day 30: its deletion
    clock[0] = START + 40 * DAY
    testing.write_bytes(first + b"third\n")
    record(ctx, Attribution.editor_of(str(testing), "nano"))  # day 40
    repo = history_of(ctx)
    chain = read_chain(repo)
    assert len(chain) == 5

    report = gc_history(repo, RetentionLimits(max_age_days=180, max_bytes=None),
                        now=START + 215 * DAY)  # versions before day 35 are past the age

    assert [v.rev for v in report.removed] == [chain[0].sha, chain[1].sha]
    assert report.kept == 3 and report.pinned == 2  # day 20 and day 30 hold gone.md
    assert report.head_after != report.head_before
    kept = read_chain(repo)
    assert [c.summary for c in kept] == [c.summary for c in chain[2:]]
    assert [c.time for c in kept] == [c.time for c in chain[2:]]
    assert pruned_of(messages(repo.git_dir)[-1]) == 2  # the new oldest says what went before
    who = [parse_message(m)[1] for m in messages(repo.git_dir)]
    assert who[0].kind == "editor" and who[0].editor == "nano"
    assert who[1].kind == "session" and who[1].session_id == "sess-1"
    present = objects(repo.git_dir)
    assert blob_sha(first) not in present  # only day 0 had it: freed
    assert blob_sha(second) in present  # day 20 still holds it
    history = open_history(ctx)
    try:
        deleted = history.deleted()
        assert [d.deleted.rel for d in deleted] == ["gone.md"]
        assert deleted[0].deleted.attribution.session_id == "sess-1"
        assert history.content(deleted[0].restore_rev, deleted[0].deleted.key, "gone.md") == (
            b"a memory deleted long ago\n")
        timeline = history.file_timeline(testing)
        newest = timeline[0]
        assert history.content(newest.rev, newest.key, "testing.md") == testing.read_bytes()
        assert [v.pruned for v in timeline] == [0, 2]  # the oldest kept: 2 pruned before it
    finally:
        history.repo.close()
    assert record(ctx).commits == []  # the state followed the new chain: nothing to record


def test_over_the_size_cap_the_oldest_versions_go_until_it_fits(
        small_home: SmallHome, clock: list[float]) -> None:
    ctx = small_home.ctx
    big = small_home.auto / "big.md"
    contents = []
    for n in range(6):  # six versions of ~330 KB that do not compress much, nor delta
        clock[0] = START + n * DAY
        contents.append(base64.b64encode(os.urandom(250_000)) + b"\n")
        big.write_bytes(contents[-1])
        record(ctx)
    repo = history_of(ctx)
    chain = read_chain(repo)
    cap = 1 * MB
    report = gc_history(repo, RetentionLimits(max_age_days=None, max_bytes=cap),
                        now=START + 7 * DAY)
    assert report.bytes_before > cap >= report.bytes_after
    assert report.removed, "something had to go"
    gone = [v.rev for v in report.removed]
    assert gone == [c.sha for c in chain[:len(gone)]], "the oldest first"
    assert report.freed > 0 and report.kept == len(chain) - len(gone)
    present = objects(repo.git_dir)
    assert blob_sha(contents[0]) not in present
    assert blob_sha(contents[-1]) in present
    assert all(v.reason.startswith("over the size cap") for v in report.removed)


def test_zero_limits_prune_nothing_and_the_newest_version_always_stays(
        small_home: SmallHome, clock: list[float]) -> None:
    ctx = small_home.ctx
    testing = small_home.auto / "testing.md"
    record(ctx)
    testing.write_text("changed\n")
    record(ctx)
    repo = history_of(ctx)
    head = repo.head()
    off = gc_history(repo, RetentionLimits(None, None), now=START + 10_000 * DAY)
    assert off.removed == [] and repo.head() == head
    everything = gc_history(repo, RetentionLimits(max_age_days=1, max_bytes=1),
                            now=START + 10_000 * DAY)
    assert len(everything.removed) == 1 and everything.kept == 1
    history = open_history(ctx)
    try:
        assert history.content(history.resolve("main"), history.file_timeline(testing)[0].key,
                               "testing.md") == b"changed\n"
    finally:
        history.repo.close()


def test_a_recording_prunes_once_a_day_when_over_a_limit(
        small_home: SmallHome, clock: list[float]) -> None:
    ctx = small_home.ctx
    testing = small_home.auto / "testing.md"
    asked: list[float] = []

    def limits() -> RetentionLimits:
        asked.append(clock[0])
        return RetentionLimits(max_age_days=5, max_bytes=None)

    record(ctx, retention=limits)  # day 0: the first check is due a day later
    repo = history_of(ctx)
    check = repo.directory / CHECK_FILE
    assert json.loads(check.read_text())["checked"] == START
    for day in (3, 3.5):
        clock[0] = START + day * DAY
        testing.write_text(f"day {day}\n")
        record(ctx, retention=limits)
    assert asked == [START + 3 * DAY]  # day 3 checked (within the limits); 3.5: not a day yet
    assert len(read_chain(repo)) == 3
    clock[0] = START + 9 * DAY
    testing.write_text("day 9\n")
    result = record(ctx, retention=limits)
    assert asked[-1] == START + 9 * DAY
    chain = read_chain(repo)
    assert [c.time for c in chain] == [START + 9 * DAY]  # days 0, 3 and 3.5 are past 5 days
    assert result.commits == [chain[-1].sha]  # the recording's version, by its new id
    assert result.problems == []
    clock[0] = START + 9.5 * DAY
    testing.write_text("day 9.5\n")
    record(ctx, retention=limits)
    assert len(asked) == 2  # checked at most once a day


def test_a_recording_takes_the_limits_from_the_config(
        small_home: SmallHome, clock: list[float], tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[history]\nmax_age_days = 2\nmax_size_mb = 0\n")
    ctx = small_home.ctx
    ctx = type(ctx).create(project=ctx.project, claude_home=ctx.claude_home,
                           agent_memory_home=small_home.root / ".agent-memory",
                           env={**ctx.env, "MEMTUI_CONFIG": str(config)})
    testing = small_home.auto / "testing.md"
    record(ctx)
    clock[0] = START + 3 * DAY
    testing.write_text("three days later\n")
    record(ctx)
    assert len(read_chain(history_of(ctx))) == 1


def test_pruning_again_adds_up_what_each_kept_version_had_folded_in(
        small_home: SmallHome, clock: list[float]) -> None:
    ctx = small_home.ctx
    testing = small_home.auto / "testing.md"
    for day in range(5):
        clock[0] = START + day * DAY
        testing.write_text(f"day {day}\n")
        record(ctx)
    repo = history_of(ctx)
    gc_history(repo, RetentionLimits(max_age_days=10, max_bytes=None), now=START + 11.5 * DAY)
    assert [pruned_of(m) for m in messages(repo.git_dir)] == [0, 0, 2]  # days 0, 1 went
    gc_history(repo, RetentionLimits(max_age_days=10, max_bytes=None), now=START + 13.5 * DAY)
    assert [pruned_of(m) for m in messages(repo.git_dir)] == [4]  # days 2, 3 and their 2
