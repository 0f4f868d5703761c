"""A tree's badges after a live refresh, made from the previous ones for the changed memories
only (``badges_updated``): the same as ``badges_for_store`` of the refreshed store."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.contents import Store
from memtui.core.demo.build import build_demo_home
from memtui.core.demo.writers import write_file, write_memory
from memtui.core.model import StoreKind
from memtui.core.scan.refresh import refresh
from memtui.core.scan.scanner import scan
from memtui.tui.nodes import badges_for_store, badges_updated


def auto(result_stores: list[Store]) -> Store:
    return next(s for s in result_stores if s.kind == StoreKind.AUTO)


@pytest.mark.parametrize("seed", range(4))
def test_random_edits_give_the_badges_of_a_full_count(tmp_path: Path, seed: int) -> None:
    """Files added (orphans, ones an entry points to, broken ones), edited and deleted in a
    row: each refresh's badges equal the ones counted anew, and they were updated (not
    None) whenever MEMORY.md was left alone."""
    rng = random.Random(seed)
    home = build_demo_home(tmp_path)
    ctx = demo_context(home)
    root = home.auto_memory
    index = root / "MEMORY.md"
    # 220 more entries: the ones past line 200 are never loaded (their files: past the cut)
    pointed = [f"cut_{i}.md" for i in range(220)]
    write_file(index, index.read_text() + "".join(f"- [c{i}]({t}) — c\n"
                                                  for i, t in enumerate(pointed)))
    result = scan(ctx)
    assert auto(result.stores).index is not None
    assert auto(result.stores).index.dropped  # type: ignore[union-attr]
    pointed = pointed[-30:]
    marks = badges_for_store(auto(result.stores))
    updated = 0
    for step in range(20):
        present = sorted(p.name for p in root.glob("*.md") if p.name != "MEMORY.md")
        action = rng.choice(["orphan", "pointed", "broken", "edit", "delete", "many"])
        if action == "many":  # more than FEW_PATHS at once: past the cut or not
            targets = rng.sample(pointed, 6) + [f"many_{step}_{i}.md" for i in range(6)]
            changed = {write_memory(root, t, description="one of many") for t in targets}
        elif action == "orphan":
            changed = {write_memory(root, f"new_{step}.md", description="nobody points here")}
        elif action == "pointed":
            target = rng.choice(pointed)
            changed = {write_memory(root, target, description="pointed to")}
        elif action == "broken":
            changed = {write_file(root / f"broken_{step}.md", "---\nname: [unclosed\n---\n")}
        elif action == "edit":
            changed = {write_memory(root, rng.choice(present), description=f"edit {step}")}
        else:
            victim = root / rng.choice(present)
            victim.unlink()
            changed = {victim}
        old = auto(result.stores)
        result = refresh(ctx, result, changed)
        new = auto(result.stores)
        made = badges_updated(old, marks, new)
        if old.index is not None and new.index is not None and (
            old.index.entries is new.index.entries
        ):
            assert made is not None
            updated += 1
        marks = made if made is not None else badges_for_store(new)
        assert marks == badges_for_store(new), (action, changed)
    assert updated > 0


def test_other_entries_count_them_all(tmp_path: Path) -> None:
    """MEMORY.md itself changed (other entries): no update, the caller counts them all."""
    home = build_demo_home(tmp_path)
    ctx = demo_context(home)
    before = scan(ctx)
    index = home.auto_memory / "MEMORY.md"
    write_file(index, index.read_text() + "- [extra](extra.md) — one more\n")
    after = refresh(ctx, before, {index})
    old, new = auto(before.stores), auto(after.stores)
    assert badges_updated(old, badges_for_store(old), new) is None
