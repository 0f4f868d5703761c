"""``memtui judge resolve PAIR a|b``: keeping one side archives the other through the write
path (previewed, journaled, undone byte for byte), and ``judge restore`` puts it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core.judge.homes import Note, cli_args, store_dir, write_home
from helpers import tree_state

from memtui.cli import main
from memtui.core.demo.writers import index_entry, write_index
from memtui.core.stores.locations import Context

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py

NOTES = [
    Note("agent-user:reviewer", "test-db.md", "Test database: what tests run against",
         "Integration tests run against a real Postgres 16; never SQLite, never mocks.", 40),
    Note("auto", "test-db.md", "Test database: what tests run against",
         "Integration tests run against SQLite in memory so the suite stays fast.", 2),
    Note("auto", "deploy.md", "How we deploy", "Deploys go through the release train."),
]


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Context]:
    root = tmp_path / "home"
    ctx = write_home(root, NOTES)
    write_index(store_dir(root, "auto"), [
        "# Memory", index_entry("Test DB", "test-db.md", "SQLite in memory"),
        index_entry("Deploy", "deploy.md", "release train"),
    ])
    return root, ctx


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def the_pair(ctx: Context, capsys: pytest.CaptureFixture[str]) -> dict:
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    assert code == 1
    pairs = [p for p in json.loads(out)["pairs"] if {p["a"]["kind"], p["b"]["kind"]} ==
             {"agent", "auto"}]
    assert len(pairs) == 1
    return pairs[0]


def test_keeping_one_side_archives_the_other_and_undo_restores_every_byte(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    root, ctx = home
    pair = the_pair(ctx, capsys)
    keep = "a" if pair["a"]["kind"] == "agent" else "b"  # keep the user agent's rule
    loser = Path(pair["b" if keep == "a" else "a"]["file"])
    before = tree_state(root)

    code, out, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], keep)
    assert code == 1 and "nothing changed; re-run with --yes" in err
    assert "archive test-db.md of auto" in out and "removes MEMORY.md line 2" in out
    assert tree_state(root) == before  # the preview wrote nothing

    code, out, _ = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], keep, "--yes")
    assert code == 0, out
    assert "undo with: memtui undo " in out and "archived as " in out
    assert not loser.exists()
    index = (store_dir(root, "auto") / "MEMORY.md").read_text()
    assert "test-db.md" not in index and "deploy.md" in index
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "archive", "--json")
    [entry] = json.loads(out)["entries"]
    assert entry["rel_path"] == "test-db.md" and entry["store_kind"] == "auto"
    assert entry["index_lines"] == ["- [Test DB](test-db.md) — SQLite in memory"]
    assert "superseded by agent:reviewer (user)" in entry["reason"]
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    assert pair["id"] not in {p["id"] for p in json.loads(out)["pairs"]}

    assert run(capsys, *cli_args(ctx), "undo", "--yes")[0] == 0
    assert tree_state(root) == before
    again = the_pair(ctx, capsys)  # the decision went with the operation it made
    assert again["id"] == pair["id"] and again["state"] == "judged"


def test_an_archived_memory_is_restored_with_its_index_line(
    home: tuple[Path, Context], capsys: pytest.CaptureFixture[str]
) -> None:
    root, ctx = home
    pair = the_pair(ctx, capsys)
    keep = "a" if pair["a"]["kind"] == "agent" else "b"
    loser = Path(pair["b" if keep == "a" else "a"]["file"])
    original = loser.read_bytes()
    assert run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], keep, "--yes")[0] == 0
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "archive", "--json")
    [entry] = json.loads(out)["entries"]

    code, out, _ = run(capsys, *cli_args(ctx), "judge", "restore", entry["id"], "--yes")
    assert code == 0, out
    assert loser.read_bytes() == original
    index = (store_dir(root, "auto") / "MEMORY.md").read_text()
    assert index.endswith("- [Test DB](test-db.md) — SQLite in memory\n")
    code, out, err = run(capsys, *cli_args(ctx), "judge", "restore", entry["id"], "--yes")
    assert code == 1 and "exists again" in err  # never overwrites


def test_a_claude_md_rule_is_never_archived(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = "Money is always stored as integer cents, never floats."
    ctx = write_home(tmp_path / "home", [Note("auto", "money.md", "How money is stored", rule)],
                     f"# shop\n\n- {rule}\n")
    code, out, _ = run(capsys, *cli_args(ctx), "judge", "--json")
    [pair] = [p for p in json.loads(out)["pairs"] if "claude-md" in (p["a"]["kind"],
                                                                     p["b"]["kind"])]
    memory_side = "a" if pair["a"]["kind"] == "auto" else "b"
    code, _, err = run(capsys, *cli_args(ctx), "judge", "resolve", pair["id"], memory_side,
                       "--yes")
    assert code == 1 and "memtui does not edit CLAUDE.md files" in err
    assert "Money is always" in (ctx.project / "CLAUDE.md").read_text()
