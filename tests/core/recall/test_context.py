"""The context at session start: the CLAUDE.md chain in load order with its import tree, the
loaded part of the auto and team MEMORY.md (or an agent's), each part sized."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file, write_index
from memtui.core.parse.utf16 import units
from memtui.core.recall.context import ContextError, estimate_tokens, session_context
from memtui.core.stores.locations import Context, locate


def small_home(tmp_path: Path, **env: str) -> Context:
    home, project = tmp_path / "home", tmp_path / "home" / "src" / "app"
    claude = home / ".claude"
    write_file(claude / "CLAUDE.md", "# Me\nUse British spelling.\n")
    write_file(claude / "rules" / "tone.md", "Be terse.\n")
    write_file(project / "CLAUDE.md", "# App\nSee @./guide/style.md for style.\n")
    write_file(project / "guide" / "style.md", "Line length 100. Also @deeper.md\n")
    write_file(project / "guide" / "deeper.md", "Tabs, not spaces.\n")
    write_file(project / "CLAUDE.local.md", "My sandbox is sb-3.\n")
    ctx = Context.create(project=project, claude_home=claude,
                         env={"HOME": str(home), **env}, home=home)
    write_index(locate(ctx).auto.path, ["- [Style](style.md) — line length"])
    return ctx


def test_the_chain_in_load_order_with_its_import_tree(tmp_path: Path) -> None:
    found = session_context(small_home(tmp_path), managed=tmp_path / "none.md")
    described = [(p.kind, p.path.name, p.depth) for p in found.parts]
    assert described == [
        ("claude_md", "CLAUDE.md", 0), ("rule", "tone.md", 0), ("claude_md", "CLAUDE.md", 0),
        ("import", "style.md", 1), ("import", "deeper.md", 2), ("claude_md", "CLAUDE.local.md", 0),
        ("memory_index", "MEMORY.md", 0),
    ]
    style = found.parts[3]
    assert style.parent is not None and style.parent.name == "CLAUDE.md"
    assert found.parts[4].parent == style.path


def test_each_part_is_sized_and_the_total_adds_up(tmp_path: Path) -> None:
    found = session_context(small_home(tmp_path), managed=tmp_path / "none.md")
    index = found.parts[-1]
    assert index.text == "- [Style](style.md) — line length"
    assert (index.lines, index.units) == (1, units(index.text))
    assert index.tokens == estimate_tokens(index.text) and not index.exact
    assert found.tokens == sum(p.tokens for p in found.parts) and not found.exact


def test_a_counter_makes_the_tokens_exact(tmp_path: Path) -> None:
    found = session_context(small_home(tmp_path), counter=len, managed=tmp_path / "none.md")
    assert found.exact and all(p.tokens == len(p.text) for p in found.parts)


def test_a_failing_counter_estimates_and_says_so(tmp_path: Path) -> None:
    def broken(_text: str) -> int:
        raise OSError("offline")

    found = session_context(small_home(tmp_path), counter=broken, managed=tmp_path / "none.md")
    assert not found.exact and any(n.startswith("token count failed") for n in found.notes)


def test_auto_memory_off_loads_no_index(tmp_path: Path) -> None:
    ctx = small_home(tmp_path, CLAUDE_CODE_DISABLE_AUTO_MEMORY="1")
    found = session_context(ctx, managed=tmp_path / "none.md")
    assert all(p.kind != "memory_index" for p in found.parts)
    assert any("auto memory is off" in n for n in found.notes)


def test_the_demo_main_session_loads_the_cut_index(pristine: DemoHome) -> None:
    found = session_context(demo_context(pristine), managed=pristine.root / "none.md")
    auto = next(p for p in found.parts if p.origin == "auto memory")
    assert auto.note is not None and "never loaded" in auto.note
    assert auto.text.endswith("move detail into topic files.")
    assert any(p.origin == "team memory" for p in found.parts)


def test_an_agent_gets_its_own_index_not_auto_memory(pristine: DemoHome) -> None:
    found = session_context(demo_context(pristine), agent="planner",
                            managed=pristine.root / "none.md")
    kinds = [p.kind for p in found.parts]
    assert "memory_index" not in kinds and kinds.count("agent_memory_index") == 1


def test_an_unknown_agent_is_refused(pristine: DemoHome) -> None:
    with pytest.raises(ContextError, match="no agent memory named nobody"):
        session_context(demo_context(pristine), agent="nobody", managed=pristine.root / "x")


def test_parts_the_judge_found_repeating_say_so(tmp_path: Path) -> None:
    from memtui.core.judge.ledger import USER, Ledger, LedgerEntry

    ctx = small_home(tmp_path)
    project_md = str(ctx.project / "CLAUDE.md")
    memory = str(locate(ctx).auto.path / "style.md")

    def entry(pair: str, a: str, b: str, relation: str, judge: str = "local") -> LedgerEntry:
        return LedgerEntry(pair, a, "da", b, "db", relation, 0.9, "same rule", judge)

    ledger = Ledger(tmp_path / "ledger.json", entries={
        "p1": [entry("p1", f"{project_md}#abc123", memory, "duplicate")],
        "p2": [entry("p2", f"{project_md}#def456", memory, "related")],
        "p3": [entry("p3", memory, f"{project_md}#0a0a0a", "conflicts_with", judge=USER)],
    })
    found = session_context(ctx, managed=tmp_path / "none.md", ledger=ledger)
    project = next(p for p in found.parts if str(p.path) == project_md)
    assert project.repeats == [f"duplicate of {ctx.show(memory)}"]
    index = next(p for p in found.parts if p.kind == "memory_index")
    assert index.repeats == [f"duplicate of {ctx.show(project_md)}"]
    assert all(not p.repeats for p in found.parts if p.kind == "import")
