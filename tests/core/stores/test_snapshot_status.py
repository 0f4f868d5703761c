"""Snapshot status decisions (docs/claude-code-rules.md#snapshot-status), on real files."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.core.model import Scope
from memtui.core.stores.snapshot import (
    SNAPSHOT_JSON,
    SYNCED_JSON,
    agent_snapshot_info,
    read_snapshot_meta,
    read_synced_from,
    snapshot_files,
    snapshot_status,
)

NEWER = "2026-11-20T10:00:00Z"
OLDER = "2026-11-01T00:00:00Z"


@pytest.fixture
def snap(tmp_path: Path) -> Path:
    path = tmp_path / "project" / ".claude" / "agent-memory-snapshots" / "reviewer"
    path.mkdir(parents=True)
    (path / "MEMORY.md").write_text("- [Style](style.md) — house style\n")
    (path / "style.md").write_text("Use tabs.\n")
    return path


@pytest.fixture
def local(tmp_path: Path) -> Path:
    """A local agent memory dir that already holds memories."""
    path = tmp_path / "home" / ".claude" / "agent-memory" / "reviewer"
    path.mkdir(parents=True)
    (path / "MEMORY.md").write_text("- [Mine](mine.md) — my note\n")
    return path


@pytest.fixture
def utc() -> Iterator[None]:
    previous = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = previous
        time.tzset()


def write_meta(snapshot_dir: Path, content: object) -> None:
    text = content if isinstance(content, str) else json.dumps(content)
    (snapshot_dir / SNAPSHOT_JSON).write_text(text)


def write_synced(local_dir: Path, content: object) -> None:
    text = content if isinstance(content, str) else json.dumps(content, separators=(",", ":"))
    (local_dir / SYNCED_JSON).write_text(text)


# --- reading the two JSON files -------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ({"updatedAt": NEWER}, (NEWER, None)),
        ({"updatedAt": NEWER, "by": "ci", "files": 3}, (NEWER, None)),  # extra keys allowed
        ({"updatedAt": " "}, (" ", None)),  # non-empty is all zod asks for
        ({"updatedAt": ""}, (None, "snapshot.json has no non-empty string updatedAt")),
        ({"updatedAt": 1795168800000}, (None, "snapshot.json has no non-empty string updatedAt")),
        ({"updatedAt": None}, (None, "snapshot.json has no non-empty string updatedAt")),
        ({"other": NEWER}, (None, "snapshot.json has no non-empty string updatedAt")),
        ([{"updatedAt": NEWER}], (None, "snapshot.json has no non-empty string updatedAt")),
        ('"2026-11-20"', (None, "snapshot.json has no non-empty string updatedAt")),
    ],
)
def test_read_snapshot_meta(snap: Path, content: object, expected: tuple[str | None, ...]) -> None:
    write_meta(snap, content)
    assert read_snapshot_meta(snap) == expected


@pytest.mark.parametrize(
    "text",
    [
        "{updatedAt: '2026-11-20'}",
        '{"updatedAt": "2026-11-20",}',
        '{"updatedAt": NaN}',
        "\ufeff" + json.dumps({"updatedAt": NEWER}),  # JSON.parse rejects a BOM
        "",
    ],
)
def test_invalid_json_is_reported(snap: Path, text: str) -> None:
    write_meta(snap, text)
    value, problem = read_snapshot_meta(snap)
    assert value is None
    assert problem is not None
    assert problem.startswith("snapshot.json is not valid JSON: ")


def test_missing_snapshot_json(snap: Path, tmp_path: Path) -> None:
    assert read_snapshot_meta(snap) == (None, "snapshot.json missing")
    assert read_snapshot_meta(tmp_path / "nowhere") == (None, "snapshot.json missing")


def test_snapshot_json_that_is_a_directory(snap: Path) -> None:
    (snap / SNAPSHOT_JSON).mkdir()
    value, problem = read_snapshot_meta(snap)
    assert value is None
    assert problem is not None
    assert problem.startswith("snapshot.json cannot be read")


def test_read_synced_from(local: Path) -> None:
    assert read_synced_from(local) == (None, ".snapshot-synced.json missing")
    write_synced(local, {"syncedFrom": OLDER})
    assert read_synced_from(local) == (OLDER, None)
    write_synced(local, {"syncedFrom": ""})
    assert read_synced_from(local) == (
        None,
        ".snapshot-synced.json has no non-empty string syncedFrom",
    )
    write_synced(local, "{")
    value, problem = read_synced_from(local)
    assert value is None
    assert problem is not None
    assert problem.startswith(".snapshot-synced.json is not valid JSON: ")


# --- snapshot files -------------------------------------------------------------------------


def test_snapshot_files_are_top_level_regular_files(snap: Path, tmp_path: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    (snap / "notes.txt").write_text("any extension ships\n")
    (snap / ".hidden.md").write_text("dotfiles too\n")
    (snap / "team").mkdir()
    (snap / "team" / "deep.md").write_text("subfolders are skipped\n")
    outside = tmp_path / "secret.md"
    outside.write_text("never follow a link out\n")
    (snap / "linked.md").symlink_to(outside)
    assert snapshot_files(snap) == [".hidden.md", "MEMORY.md", "notes.txt", "style.md"]


def test_snapshot_files_of_a_missing_dir(tmp_path: Path) -> None:
    assert snapshot_files(tmp_path / "nowhere") == []


# --- the status decision --------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    ["not json", {"updatedAt": ""}, {"updatedAt": 5}, {"when": NEWER}, None],
)
def test_no_usable_snapshot_gives_none(snap: Path, tmp_path: Path, content: object) -> None:
    if content is not None:
        write_meta(snap, content)
    empty_local = tmp_path / "empty-local"  # would be "initialize" with a valid snapshot
    status, synced, reason = snapshot_status(snap, empty_local)
    assert status == "none"
    assert synced is None
    assert reason.startswith("no usable snapshot: snapshot.json")


def test_missing_local_dir_needs_initialize(snap: Path, tmp_path: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    status, synced, reason = snapshot_status(snap, tmp_path / "missing")
    assert (status, synced) == ("initialize", None)
    assert reason == "the local memory dir does not exist"
    (tmp_path / "a-file").write_text("x")
    assert (
        snapshot_status(snap, tmp_path / "a-file")[2] == "the local memory dir is not a directory"
    )


def test_local_dir_with_only_other_files_needs_initialize(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    (local / "MEMORY.md").unlink()
    (local / "notes.txt").write_text("x")
    (local / "README.MD").write_text("case matters: .MD is not .md")
    write_synced(local, {"syncedFrom": NEWER})
    status, synced, reason = snapshot_status(snap, local)
    assert (status, synced) == ("initialize", NEWER)
    assert reason == "the local memory dir has no top-level .md file"


def test_md_only_in_a_subfolder_needs_initialize(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    (local / "MEMORY.md").unlink()
    (local / "logs").mkdir()
    (local / "logs" / "2026-11-20.md").write_text("deep memory")
    assert snapshot_status(snap, local)[0] == "initialize"


def test_symlinked_md_does_not_count_as_local_memory(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    target = local.parent / "elsewhere.md"
    target.write_text("x")
    (local / "MEMORY.md").unlink()
    (local / "MEMORY.md").symlink_to(target)
    assert snapshot_status(snap, local)[0] == "initialize"


def test_never_synced_prompts_update(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    status, synced, reason = snapshot_status(snap, local)
    assert (status, synced) == ("prompt-update", None)
    assert reason == "not synced yet: .snapshot-synced.json missing"


@pytest.mark.parametrize("content", ["{", {"syncedFrom": ""}, {"syncedFrom": 7}, ["x"]])
def test_invalid_synced_file_prompts_update(snap: Path, local: Path, content: object) -> None:
    write_meta(snap, {"updatedAt": OLDER})
    write_synced(local, content)
    status, synced, reason = snapshot_status(snap, local)
    assert (status, synced) == ("prompt-update", None)
    assert reason.startswith("not synced yet: .snapshot-synced.json")


def test_newer_snapshot_prompts_update(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    write_synced(local, {"syncedFrom": OLDER})
    assert snapshot_status(snap, local) == (
        "prompt-update",
        OLDER,
        f"snapshot {NEWER} is newer than synced {OLDER}",
    )


def test_older_snapshot_is_none(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": OLDER})
    write_synced(local, {"syncedFrom": NEWER})
    status, synced, reason = snapshot_status(snap, local)
    assert (status, synced) == ("none", NEWER)
    assert reason == f"up to date: snapshot {OLDER} is older than synced {NEWER}"


@pytest.mark.parametrize(
    ("updated_at", "synced_from"),
    [
        (NEWER, NEWER),
        ("2026-11-20T10:00:00.000Z", "2026-11-20T10:00:00Z"),  # equal dates, different text
        ("2026-11-20T11:00:00+01:00", "2026-11-20T10:00:00Z"),
    ],
)
def test_equal_dates_are_none(snap: Path, local: Path, updated_at: str, synced_from: str) -> None:
    write_meta(snap, {"updatedAt": updated_at})
    write_synced(local, {"syncedFrom": synced_from})
    status, _, reason = snapshot_status(snap, local)
    assert status == "none"
    assert "the same time as" in reason


def test_date_only_is_utc_and_date_time_is_local(snap: Path, local: Path, utc: None) -> None:
    # The snapshot says local midnight, the sync says UTC midnight: under UTC they are equal.
    write_meta(snap, {"updatedAt": "2026-11-20T00:00"})
    write_synced(local, {"syncedFrom": "2026-11-20"})
    assert snapshot_status(snap, local)[0] == "none"
    # East of UTC, local midnight comes before UTC midnight: the snapshot is older.
    os.environ["TZ"] = "Asia/Tokyo"
    time.tzset()
    assert snapshot_status(snap, local)[0] == "none"
    # West of UTC, local midnight comes after UTC midnight: the snapshot is newer.
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    assert snapshot_status(snap, local)[0] == "prompt-update"


def test_date_only_snapshot_against_date_time_sync(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": "2026-11-21"})
    write_synced(local, {"syncedFrom": "2026-11-20T23:59:59.999Z"})
    assert snapshot_status(snap, local)[0] == "prompt-update"


@pytest.mark.parametrize(
    ("updated_at", "synced_from"),
    [("soon", OLDER), (NEWER, "long ago"), ("soon", "long ago"), ("2026-02-32", OLDER)],
)
def test_unparseable_dates_are_never_newer(
    snap: Path, local: Path, updated_at: str, synced_from: str
) -> None:
    write_meta(snap, {"updatedAt": updated_at})
    write_synced(local, {"syncedFrom": synced_from})
    status, synced, reason = snapshot_status(snap, local)
    assert (status, synced) == ("none", synced_from)
    assert "not a valid JavaScript date" in reason


# --- per agent, per scope -------------------------------------------------------------------


def test_agent_info_for_a_user_scope_agent(snap: Path, local: Path, tmp_path: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER, "note": "extra"})
    write_synced(local, {"syncedFrom": OLDER})
    project_dir = tmp_path / "project" / ".claude" / "agent-memory" / "reviewer"
    info = agent_snapshot_info(
        "reviewer",
        snap,
        {Scope.LOCAL: tmp_path / "local-missing", Scope.USER: local, Scope.PROJECT: project_dir},
        defined_scope=Scope.USER,
        auto_memory_enabled=True,
    )
    assert info.agent == "reviewer"
    assert info.updated_at == NEWER
    assert info.problem is None
    assert info.files == ["MEMORY.md", "style.md"]
    assert [item.scope for item in info.scopes] == [Scope.USER, Scope.PROJECT, Scope.LOCAL]
    assert [item.status for item in info.scopes] == ["prompt-update", "initialize", "initialize"]
    assert [item.cc_acts for item in info.scopes] == [True, False, False]
    assert info.acted_scope is Scope.USER
    assert info.primary.local == local
    assert info.primary.synced_from == OLDER


def test_cc_does_not_act_without_auto_memory(snap: Path, local: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    info = agent_snapshot_info("reviewer", snap, {Scope.USER: local}, Scope.USER, False)
    assert info.primary.status == "prompt-update"
    assert not info.primary.cc_acts


def test_cc_only_checks_user_scope_agents(snap: Path, local: Path, tmp_path: Path) -> None:
    write_meta(snap, {"updatedAt": NEWER})
    project_dir = tmp_path / "project-memory"
    dirs = {Scope.USER: local, Scope.PROJECT: project_dir}
    info = agent_snapshot_info("reviewer", snap, dirs, Scope.PROJECT, True)
    assert info.acted_scope is Scope.PROJECT
    assert info.primary.status == "initialize"
    assert not any(item.cc_acts for item in info.scopes)


def test_agent_without_a_scope_is_acted_on_as_user(snap: Path, local: Path) -> None:
    info = agent_snapshot_info("reviewer", snap, {Scope.USER: local}, None, True)
    assert info.acted_scope is Scope.USER
    assert info.updated_at is None
    assert info.problem == "snapshot.json missing"
    assert info.primary.status == "none"
    assert not info.primary.cc_acts
