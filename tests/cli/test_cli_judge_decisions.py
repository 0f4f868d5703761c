"""``memtui judge resolve PAIR scoped|merge``: each previewed, applied as one journaled
operation, undone byte for byte by ``memtui undo``, and recorded in the ledger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core.judge.homes import Note, cli_args, store_dir, write_home, write_timeout_home
from helpers import tree_state

from memtui.cli import main
from memtui.core.stores.locations import Context

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py

@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Context]:
    return tmp_path / "home", write_timeout_home(tmp_path / "home")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def the_pair(ctx: Context, capsys: pytest.CaptureFixture[str], *more: str) -> dict:
    _code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json", *more)
    pairs = [p for p in json.loads(out)["pairs"]
             if {p["a"]["path"], p["b"]["path"]} == {"api-timeout.md", "gateway-timeout.md"}]
    assert len(pairs) == 1
    return pairs[0]


def test_scoped_previews_the_proposed_notes_applies_them_and_undo_restores_every_byte(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    root, ctx = home
    pair = the_pair(ctx, capsys)
    assert pair["verdict"]["relation"] == "conflicts_with"
    before = tree_state(root)

    # 30 against 90 seconds names no condition: memtui asks for one rather than propose a
    # body sentence as a condition (issue 22, item 5)
    code, out, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "scoped")
    assert code == 2 and "say when each applies with --when-a TEXT and --when-b TEXT" in err
    assert tree_state(root) == before

    a_when, b_when = "the suite runs against staging", "the suite runs in production"
    code, out, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "scoped",
                         "--when-a", a_when, "--when-b", b_when)
    assert code == 1 and "nothing changed; re-run with --yes" in err
    assert "scope api-timeout.md and gateway-timeout.md" in out
    assert f"+_Applies when: {a_when}_" in out  # the notes, in the diffs
    assert tree_state(root) == before

    code, out, _ = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "scoped",
                       "--when-a", a_when, "--when-b", b_when, "--yes")
    assert code == 0, out
    assert "decided: scoped" in out and "undo with: memtui undo " in out
    a_file = Path(pair["a"]["file"])
    assert a_file.read_text().split("---\n", 2)[2].startswith(f"_Applies when: {a_when}_\n\n")
    assert "_Applies when: " in Path(pair["b"]["file"]).read_text()
    assert the_pair(ctx, capsys, "--all")["state"] == "decided"
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    assert pair["id"] not in {p["id"] for p in json.loads(out)["pairs"]}

    assert run(capsys, *cli_args(ctx), "undo", "--yes")[0] == 0
    assert tree_state(root) == before
    assert the_pair(ctx, capsys)["state"] == "judged"  # the decision went with the undo


def test_merge_writes_the_given_text_archives_the_other_and_undo_restores_every_byte(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root, ctx = home
    pair = the_pair(ctx, capsys)
    before = tree_state(root)
    auto = store_dir(root, "auto")

    code, out, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "merge")
    assert code == 1 and "nothing changed; re-run with --yes" in err
    assert "merge api-timeout.md into gateway-timeout.md" in out  # the newer side is kept
    assert "+Ask #infra before changing it." in out  # a line only the other side has
    assert tree_state(root) == before

    merged = tmp_path / "merged.md"
    merged.write_text("---\nname: timeout\ndescription: Gateway timeout\n---\nThe timeout is "
                      "90 seconds (30 before March).\n")
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "merge",
                       "--keep", "a" if pair["a"]["path"] == "api-timeout.md" else "b",
                       "--merged-file", str(merged), "--yes")
    assert code == 0, out
    assert "archived as " in out
    assert (auto / "api-timeout.md").read_bytes() == merged.read_bytes()  # the older kept
    assert not (auto / "gateway-timeout.md").exists()
    index = (auto / "MEMORY.md").read_text()
    assert "gateway-timeout.md" not in index and "api-timeout.md" in index
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "archive", "--json")
    [entry] = json.loads(out)["entries"]
    assert entry["rel_path"] == "gateway-timeout.md"
    assert entry["reason"] == "merged into auto · api-timeout.md"

    assert run(capsys, *cli_args(ctx), "undo", "--yes")[0] == 0
    assert tree_state(root) == before
    assert the_pair(ctx, capsys)["state"] == "judged"


def test_merge_and_scoped_refuse_what_they_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = "Money is always stored as integer cents, never floats."
    ctx = write_home(tmp_path / "home", [Note("auto", "money.md", "How money is stored", rule)],
                     f"# shop\n\n- {rule}\n")
    _code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    [pair] = [p for p in json.loads(out)["pairs"] if "claude-md" in (p["a"]["kind"],
                                                                     p["b"]["kind"])]
    code, _, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "merge", "--yes")
    assert code == 1 and "memtui does not edit CLAUDE.md files" in err
    code, _, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "merge",
                       "--merged-file", str(tmp_path / "missing.md"))
    assert code == 2 and "--merged-file" in err
    claude_md = (ctx.project / "CLAUDE.md").read_bytes()
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], "scoped",
                       "--when-a", "in the shop", "--when-b", "in the shop", "--yes")
    assert code == 0, out
    assert (ctx.project / "CLAUDE.md").read_bytes() == claude_md  # only the memory got a note
    money = store_dir(tmp_path / "home", "auto") / "money.md"
    assert "_Applies when: in the shop_" in money.read_text()
