"""The judge on the labelled set (``labelled.py``): every pair in its own home, so only the two
sides can pair. Measures candidate recall (pairs that need a decision found as candidates),
distractors kept out, and the local judge's agreement; the figures are in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.homes import write_home
from core.judge.labelled import NEEDS_ACTION, PAIRS, Labelled

from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.items import memory_items
from memtui.core.judge.local import judge_pair
from memtui.core.judge.verdicts import Candidate, Relation
from memtui.core.scan.scanner import scan


def candidate_of(tmp_path: Path, pair: Labelled) -> Candidate | None:
    ctx = write_home(tmp_path / pair.name, [pair.a, pair.b])
    found = find_candidates(memory_items(scan(ctx)))
    assert len(found) <= 1
    return found[0] if found else None


@pytest.fixture(scope="module")
def outcomes(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[Labelled, Candidate | None]]:
    root = tmp_path_factory.mktemp("labelled")
    return {pair.name: (pair, candidate_of(root, pair)) for pair in PAIRS}


def test_the_set_covers_every_relation_with_at_least_30_pairs() -> None:
    assert len(PAIRS) >= 30
    assert {p.relation for p in PAIRS} == {r.value for r in Relation}
    assert len({p.name for p in PAIRS}) == len(PAIRS)


def test_every_pair_that_needs_a_decision_is_a_candidate(outcomes: dict) -> None:
    missed = [name for name, (pair, found) in outcomes.items()
              if pair.relation in NEEDS_ACTION and found is None]
    assert missed == []


def test_distractors_are_not_flagged(outcomes: dict) -> None:
    flagged = []
    for name, (pair, found) in outcomes.items():
        if (pair.relation == "not_conflict" and found is not None
                and judge_pair(found).relation.value in NEEDS_ACTION):
            flagged.append(name)
    assert flagged == []


def keep_side(pair: Labelled, found: Candidate) -> str | None:
    """The labelled side to keep, as ``a``/``b`` of the candidate (its sides are sorted)."""
    if pair.keep is None:
        return None
    kept = pair.a if pair.keep == "a" else pair.b
    kind = "agent" if kept.store.startswith("agent-") else kept.store
    return "a" if (found.a.kind, found.a.rel_path) == (kind, kept.rel) else "b"


def agreement(outcomes: dict) -> tuple[int, int, int, int]:
    """(pairs whose need for a decision the judge gets right, pairs, directed pairs whose side
    to keep it gets right, directed pairs)."""
    action_right = keep_right = directed = 0
    for pair, found in outcomes.values():
        verdict = judge_pair(found) if found is not None else None
        flagged = verdict is not None and verdict.relation.value in NEEDS_ACTION
        action_right += flagged == (pair.relation in NEEDS_ACTION)
        if pair.keep is not None and found is not None and verdict is not None:
            directed += 1
            keep_right += verdict.winner == keep_side(pair, found)
    return action_right, len(outcomes), keep_right, directed


def test_the_local_judge_agrees_on_what_needs_a_decision_and_what_to_keep(outcomes: dict) -> None:
    action_right, total, keep_right, directed = agreement(outcomes)
    assert action_right / total >= 0.9, (action_right, total)
    assert keep_right == directed
