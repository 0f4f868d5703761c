"""An index that fits and is healthy gets no change from distil (issue 25): its entries stay
where they are (no "move under heading"), and an index that fits but has a problem gets only
the changes for that problem. An index that must shrink still regroups (the oldest entries of
a type group move out then)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import tree_state

from memtui.cli import main
from memtui.core.contents import Store
from memtui.core.demo.writers import index_entry, write_index, write_memory
from memtui.core.distil.plan import plan_distil
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.stores.locations import Context, locate

pytestmark = pytest.mark.usefixtures("state_home")

TYPES = ("user", "feedback", "project", "reference")


def store_at(root: Path) -> Store:
    return scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"))


def flat_store(root: Path, count: int = 15) -> list[str]:
    """``count`` memories of mixed types, listed by a flat index (no headings): healthy."""
    lines = []
    for i in range(1, count + 1):
        write_memory(root, f"note{i}.md", name=f"Note {i}",
                     description=f"fact number {i} about things", type=TYPES[i % 4],
                     body=f"Fact {i}.", mtime_days_ago=i)
        lines.append(index_entry(f"Note {i}", f"note{i}.md", f"fact number {i} about things"))
    write_index(root, lines)
    return lines


def test_a_healthy_index_that_fits_gets_no_change(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    flat_store(root)
    plan = plan_distil(store_at(root), headroom=0.7)
    assert plan.before.fits and plan.before.lines == 15
    assert plan.changes == []
    outcome = plan.outcome()
    assert outcome.index_text == plan.old_text
    assert outcome.files == {}
    assert outcome.proposal is None


def test_a_fitting_index_with_a_problem_gets_only_that_change(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    lines = flat_store(root)
    lines.insert(3, index_entry("Gone", "gone.md", "a file since deleted"))
    write_index(root, lines)
    write_memory(root, "orphan.md", name="Orphan", description="no entry lists it",
                 type="project")
    plan = plan_distil(store_at(root), headroom=0.7)
    assert sorted(c.kind for c in plan.changes) == ["add-orphan", "drop-dangling"]
    new = plan.outcome().index_text.split("\n")
    # every old entry but the dangling one stays on its line, in its order, at the top
    kept = [line for line in lines if "gone.md" not in line]
    assert new[: len(kept)] == kept
    assert any("](orphan.md)" in line for line in new[len(kept):])


def test_an_index_that_must_shrink_still_regroups(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    flat_store(root, count=150)
    plan = plan_distil(store_at(root), headroom=0.7)
    assert not plan.before.fits
    kinds = {c.kind for c in plan.changes}
    assert {"regroup", "move-entries"} <= kinds
    assert plan.outcome().after.fits


def test_the_cli_reports_no_change_for_a_healthy_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, claude = tmp_path / "project", tmp_path / "claude"
    project.mkdir()
    context = Context.create(project=project, claude_home=claude, env={"HOME": str(tmp_path)})
    auto = locate(context).auto
    assert auto is not None
    flat_store(auto.path)
    before = tree_state(tmp_path)
    args = ["--claude-home", str(claude), "--project", str(project),
            "--agent-memory-home", str(tmp_path / "am")]
    assert main([*args, "distil", "auto", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["changes"] == [] and plan["files"] == []
    assert plan["before"]["lines"] == plan["after"]["lines"] == 15
    assert main([*args, "distil", "auto"]) == 0
    out = capsys.readouterr().out
    assert "nothing would change" in out and "move [" not in out
    assert tree_state(tmp_path) == before
