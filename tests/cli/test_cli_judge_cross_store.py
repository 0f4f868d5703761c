"""``memtui judge resolve PAIR scoped|merge`` on a pair across stores with separate roots (the
demo's planner agent memory against the project's auto memory): one preview naming both
targets, one operation, ``memtui undo`` restores both stores byte for byte; a live lock or a
symlinked root in either store refuses and writes nothing."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from core.judge.homes import cli_args
from helpers import copy_demo, demo_context, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file
from memtui.core.stores.locations import Context
from memtui.core.write.lock import LOCK_NAME

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


@pytest.fixture
def shop(pristine: DemoHome, tmp_path: Path) -> tuple[DemoHome, Context]:
    demo = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    return demo, demo_context(demo)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def flags_pair(ctx: Context, capsys: pytest.CaptureFixture[str]) -> dict:
    _code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    pairs = [p for p in json.loads(out)["pairs"]
             if {(p["a"]["kind"], p["a"]["path"]), (p["b"]["kind"], p["b"]["path"])}
             == {("agent", "feature-flags.md"), ("auto", "feature-flags.md")}]
    assert len(pairs) == 1
    return pairs[0]


def stores(demo: DemoHome) -> dict[str, object]:
    planner = demo.claude_home / "agent-memory" / "planner"
    return {"planner": tree_state(planner), "auto": tree_state(demo.auto_memory)}


DECISIONS = {
    "scoped": ["scoped", "--when-a", "planning a release", "--when-b", "deploying the shop"],
    "merge": ["merge"],
}


@pytest.mark.parametrize("decision", list(DECISIONS))
def test_a_decision_across_two_stores_previews_both_applies_once_and_undo_restores_both(
    shop: tuple[DemoHome, Context], capsys: pytest.CaptureFixture[str], decision: str
) -> None:
    demo, ctx = shop
    planner = demo.claude_home / "agent-memory" / "planner"
    pair = flags_pair(ctx, capsys)
    before = stores(demo)
    args = [*cli_args(ctx), "judge", "resolve", pair["id"], *DECISIONS[decision]]

    code, out, err = run(capsys, *args)
    assert code == 1 and "nothing changed; re-run with --yes" in err
    assert f"writes into {planner} and {demo.auto_memory}" in out \
        or f"writes into {demo.auto_memory} and {planner}" in out
    assert stores(demo) == before
    code, out, _ = run(capsys, *args, "--json")
    roots = {r["root"] for r in json.loads(out)["roots"]}
    assert roots == {str(planner), str(demo.auto_memory)}

    code, out, _ = run(capsys, *args, "--yes")
    assert code == 0, out
    assert "undo with: memtui undo " in out
    after = stores(demo)
    assert after["planner"] != before["planner"] and after["auto"] != before["auto"]
    code, out, _ = run(capsys, *cli_args(ctx), "undo", "--list", "--json")
    [op] = json.loads(out)  # one operation for both stores, each file with its root
    assert {f["root"] for f in op["files"]} == {str(planner), str(demo.auto_memory)}

    code, out, _ = run(capsys, *cli_args(ctx), "undo", "--yes")
    assert code == 0, out
    assert stores(demo) == before
    assert flags_pair(ctx, capsys)["state"] == "judged"  # the decision went with the undo


@pytest.mark.parametrize("side", ["planner", "auto"])
@pytest.mark.parametrize("decision", list(DECISIONS))
def test_a_live_lock_in_either_store_refuses_and_writes_nothing(
    shop: tuple[DemoHome, Context], capsys: pytest.CaptureFixture[str], decision: str, side: str
) -> None:
    demo, ctx = shop
    locked = demo.claude_home / "agent-memory" / "planner" if side == "planner" \
        else demo.auto_memory
    pair = flags_pair(ctx, capsys)
    write_file(locked / LOCK_NAME, str(os.getpid()))
    before = stores(demo)
    code, _out, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"],
                          *DECISIONS[decision], "--yes")
    assert code != 0
    assert f"Claude Code is consolidating memory in {locked}" in err
    assert stores(demo) == before


@pytest.mark.parametrize("side", ["planner", "auto"])
def test_a_symlinked_root_on_either_side_refuses_in_the_preview(
    shop: tuple[DemoHome, Context], capsys: pytest.CaptureFixture[str], tmp_path: Path,
    side: str,
) -> None:
    demo, ctx = shop
    swapped = demo.claude_home / "agent-memory" / "planner" if side == "planner" \
        else demo.auto_memory
    pair = flags_pair(ctx, capsys)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(swapped, elsewhere)
    swapped.symlink_to(elsewhere)
    before = {**stores(demo), "elsewhere": tree_state(elsewhere)}
    code, out, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"],
                         *DECISIONS["scoped"])
    assert code != 0
    assert f"is a symlink to {elsewhere}" in out + err
    assert {**stores(demo), "elsewhere": tree_state(elsewhere)} == before
