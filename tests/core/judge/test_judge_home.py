"""The realistic labelled home (memtui/core/demo/judge_home.py): its shape, as issue 22 asks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from memtui.core.demo.judge_home import (
    DISTRACTORS,
    PAIRS,
    RELATIONS,
    SAME_STORE_PAIRS,
    build_judge_home,
)
from memtui.core.judge.run import collect_items
from memtui.core.scan.scanner import scan


def test_the_home_has_150_pairs_over_every_relation_among_100_distractors() -> None:
    assert len(PAIRS) >= 150
    counts = Counter(p.relation for p in PAIRS)
    assert set(counts) == set(RELATIONS)
    assert min(counts.values()) >= 15
    assert len(DISTRACTORS) >= 100
    assert all(p.newer for p in PAIRS if p.relation == "supersedes")


def test_some_pairs_lie_inside_one_store_for_every_relation() -> None:
    assert {p.relation for p in SAME_STORE_PAIRS} == set(RELATIONS)
    assert all(p.a.store == p.b.store for p in SAME_STORE_PAIRS)


def test_the_two_sides_never_share_a_file_name_or_a_body() -> None:
    for pair in PAIRS + SAME_STORE_PAIRS:
        if pair.a.store != "md" and pair.b.store != "md":
            assert pair.a.file != pair.b.file, pair
        assert pair.a.body != pair.b.body, pair


def test_it_is_one_home_of_five_stores_and_claude_md(tmp_path: Path) -> None:
    home = build_judge_home(tmp_path)
    result = scan(home.ctx)
    stores = {(s.kind.value, s.location.agent) for s in result.stores if s.memories}
    assert stores == {("auto", None), ("team", None), ("agent", "reviewer"),
                      ("agent", "oncall"), ("agent", "planner")}
    items, problems = collect_items(home.ctx, result)
    assert problems == []
    assert len(items) == home.memories + home.paragraphs
    files = {i.file for i in items}
    paragraphs = {i.body for i in items if i.kind == "claude-md"}
    for label in home.labels:
        for side in (label.a, label.b):
            assert side.file in files
            assert side.paragraph is None or side.paragraph in paragraphs


def test_the_frozen_halves_are_one_per_pair_and_balanced_per_relation() -> None:
    from memtui.core.demo.judge_home import HALVES_OF_PAIRS, HALVES_OF_SAME_STORE_PAIRS

    for pairs, frozen in ((PAIRS, HALVES_OF_PAIRS), (SAME_STORE_PAIRS, HALVES_OF_SAME_STORE_PAIRS)):
        assert len(frozen) == len(pairs) and set(frozen) <= {"t", "h"}
        for relation in RELATIONS:
            marks = Counter(m for m, p in zip(frozen, pairs, strict=True)
                            if p.relation == relation)
            assert abs(marks["t"] - marks["h"]) <= 1


def test_the_halves_are_deterministic_and_balanced(tmp_path: Path) -> None:
    one = build_judge_home(tmp_path / "one")
    two = build_judge_home(tmp_path / "two")
    assert [label.half for label in one.labels] == [label.half for label in two.labels]
    for relation in RELATIONS:
        halves = Counter(lab.half for lab in one.labels if lab.relation == relation)
        assert abs(halves["tune"] - halves["held"]) <= 1


def test_supersessions_are_dated(tmp_path: Path) -> None:
    home = build_judge_home(tmp_path)
    for label in home.labels:
        if label.relation != "supersedes" or label.newer is None:
            continue
        older = label.a if label.newer == label.b else label.b
        if label.newer.paragraph is None and older.paragraph is None:
            assert Path(label.newer.file).stat().st_mtime > Path(older.file).stat().st_mtime
