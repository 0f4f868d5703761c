"""``memtui judge`` lists groups with readable names; ``memtui judge resolve GROUP ...`` takes
a group id as it takes a pair id: keep MEMBER, merge, scoped, not_conflict; each previewed,
applied as one journaled operation, undone as a whole by one ``memtui undo``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core.judge.group_homes import AUTO_NAMES, FACT, write_group_home
from core.judge.homes import cli_args, store_dir
from helpers import tree_state

from memtui.cli import main
from memtui.core.stores.locations import Context

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Context]:
    return tmp_path / "home", write_group_home(tmp_path / "home")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def the_group(ctx: Context, capsys: pytest.CaptureFixture[str]) -> dict:
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    [group] = json.loads(out)["groups"]
    assert code == 1 and len(group["members"]) == 4 and len(group["pairs"]) == 6
    return group


def open_count(ctx: Context, capsys: pytest.CaptureFixture[str]) -> int:
    _code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    return int(json.loads(out)["open"])


def test_the_text_output_lists_the_group_by_its_readable_name_not_its_pairs(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    _root, ctx = home
    group = the_group(ctx, capsys)
    assert group["name"] == "feedback_testing-{postgres ×2, postgres-2, postgres-3}"
    code, out, _ = run(capsys, *cli_args(ctx), "judge")
    assert code == 1
    assert (f"[{group['id']}] group: duplicate · 4 memories, 6 pairs: "
            "feedback_testing-{postgres ×2, postgres-2, postgres-3}") in out
    assert "1 agent:planner (user) · feedback_testing-postgres.md  ← keep" in out  # newest
    assert "feedback_testing-{postgres ↔ postgres-2}" in out
    assert "feedback_testing-po…" not in out
    assert "memtui judge resolve GROUP keep" in out
    assert "  A " not in out  # its pairs are not listed one by one too


def test_keep_a_member_previews_then_archives_the_rest_and_one_undo_restores_all(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    root, ctx = home
    group = the_group(ctx, capsys)
    before = tree_state(root)
    args = [*cli_args(ctx), "judge", "resolve", group["id"], "keep",
            "feedback_testing-postgres-3.md"]
    code, out, err = run(capsys, *args)
    assert code == 1 and "nothing changed; re-run with --yes" in err
    assert "keep feedback_testing-postgres-3.md, archive " in out
    assert tree_state(root) == before
    code, out, _ = run(capsys, *args, "--yes")
    assert code == 0, out
    assert f"decided for group {group['id']}: keep (6 pairs" in out
    assert out.count("archived as ") == 3
    auto = store_dir(root, "auto")
    assert (auto / "feedback_testing-postgres-3.md").exists()
    assert not (auto / "feedback_testing-postgres.md").exists()
    assert open_count(ctx, capsys) == 0
    code, out, _ = run(capsys, *cli_args(ctx), "undo", "--yes")
    assert code == 0, out
    assert tree_state(root) == before
    assert open_count(ctx, capsys) == 6


def test_not_a_conflict_on_a_group_is_one_undoable_operation(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    root, ctx = home
    group = the_group(ctx, capsys)
    before = tree_state(root)
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "resolve", group["id"], "not_conflict",
                       "--yes")
    assert code == 0, out
    assert "undo with: memtui undo " in out
    assert tree_state(root) == before  # no memory changed
    assert open_count(ctx, capsys) == 0
    code, out, _ = run(capsys, *cli_args(ctx), "undo", "--yes")
    assert code == 0, out
    assert open_count(ctx, capsys) == 6


def test_merge_and_scoped_on_a_group(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    root, ctx = home
    group = the_group(ctx, capsys)
    before = tree_state(root)
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "resolve", group["id"], "merge",
                       "--keep", "2", "--yes")
    assert code == 0, out
    auto = store_dir(root, "auto")
    [kept] = [n for n in AUTO_NAMES if (auto / n).exists()]
    assert FACT in (auto / kept).read_text()
    assert not Path(group["members"][0]).exists()  # the planner's copy: archived
    assert run(capsys, *cli_args(ctx), "undo", "--yes")[0] == 0
    assert tree_state(root) == before

    group = the_group(ctx, capsys)
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "resolve", group["id"], "scoped",
                       "--when", "on the CI runners", "--when", "1=in the planner agent",
                       "--yes")
    assert code == 0, out
    planner = Path(group["members"][0])
    assert "_Applies when: in the planner agent_" in planner.read_text()
    assert all("_Applies when: on the CI runners_" in (auto / n).read_text() for n in AUTO_NAMES)
    assert open_count(ctx, capsys) == 0


def test_a_group_refuses_sides_and_unknown_members(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    _root, ctx = home
    group = the_group(ctx, capsys)
    code, _out, err = run(capsys, *cli_args(ctx), "judge", "resolve", group["id"], "a")
    assert code == 2 and "a group has no sides" in err
    code, _out, err = run(capsys, *cli_args(ctx), "judge", "resolve", group["id"], "keep",
                          "nothing.md")
    assert code == 2 and "names no member" in err
    code, _out, err = run(capsys, *cli_args(ctx), "judge", "resolve", "g000000000", "merge")
    assert code == 2 and "no group g000000000" in err
