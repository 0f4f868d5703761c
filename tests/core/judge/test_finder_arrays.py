"""The candidate finder's array paths (issue 22 item 2, issue 25's judge rows): the nearest
neighbours equal a brute-force top-k of the whole similarity matrix, the lexical index as
arrays gives the pure-Python index's pairs and scores, and the fused candidates are those the
two signals give, each once, best first. Behaviour only: no timings."""

from __future__ import annotations

import random

import numpy as np
import pytest

from memtui.core.judge import candidates, neighbours
from memtui.core.judge.candidates import (
    build_index,
    find_candidates,
    pair_cosines,
    similar_pairs,
    similar_pairs_sparse,
    sparse_index,
)
from memtui.core.judge.items import digest, same_origin
from memtui.core.judge.neighbours import nearest, semantic_candidates
from memtui.core.judge.verdicts import Candidate, JudgeItem


def unit_vectors(n: int, dims: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dims)).astype(np.float32)
    unit: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit


def brute_force(vectors: np.ndarray, k: int, floor: float) -> dict[tuple[int, int], float]:
    """Every pair's cosine, each row sorted whole, its k best at or above the floor."""
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    found: dict[tuple[int, int], float] = {}
    for i, row in enumerate(sims):
        for j in np.argsort(-row, kind="stable")[: min(k, len(row) - 1)].tolist():
            if row[j] >= floor:
                found[(min(i, j), max(i, j))] = float(row[j])
    return found


@pytest.mark.parametrize("n", [2, 3, 17, 20, 33, 300, 700])
@pytest.mark.parametrize(("k", "floor"), [(1, -1.0), (8, 0.0), (8, 0.3), (40, -1.0)])
def test_nearest_is_the_brute_force_top_k(n: int, k: int, floor: float) -> None:
    vectors = unit_vectors(n, 16, seed=n)
    got = nearest(vectors, k, floor)
    want = brute_force(vectors, k, floor)
    assert set(got) == set(want)
    assert all(abs(got[p] - want[p]) < 1e-5 for p in want)


def test_nearest_is_exact_when_the_rows_are_bounded_from_a_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a sample of every 7th row (not the whole): the bound is then below the k-th best, and
    # the k best are still chosen among everything above it; blocks smaller than the home
    monkeypatch.setattr(neighbours, "SAMPLE", 40)
    monkeypatch.setattr(neighbours, "BLOCK", 32)
    vectors = unit_vectors(290, 8, seed=3)
    for k, floor in ((1, -1.0), (5, 0.2), (12, -1.0)):
        assert set(nearest(vectors, k, floor)) == set(brute_force(vectors, k, floor))


def test_ties_at_the_kth_place_go_to_the_lower_index() -> None:
    # rows 1..4 are the same vector: row 0's one nearest is row 1, the first of the tie
    same = np.array([0.6, 0.8], dtype=np.float32)
    vectors = np.stack([np.array([1.0, 0.0], dtype=np.float32), same, same, same, same])
    got = nearest(vectors, k=1, floor=-1.0)
    assert (0, 1) in got and (0, 2) not in got and (0, 3) not in got


def test_a_cancelled_search_finds_nothing() -> None:
    assert nearest(unit_vectors(50, 4, seed=1), 3, -1.0, cancelled=lambda: True) == {}


WORDS = ["postgres", "pgbouncer", "port", "pool", "timeout", "retry", "deploy", "friday",
         "freeze", "canary",
         *(f"w{n}" for n in range(600))]
WEIGHTS = [1 / (rank + 1) for rank in range(len(WORDS))]  # a few words everywhere, most rare


def text(rng: random.Random, count: int) -> str:
    return " ".join(rng.choices(WORDS, weights=WEIGHTS, k=count))


def memory(n: int, rng: random.Random, kind: str = "auto") -> JudgeItem:
    body = text(rng, rng.randint(4, 30))
    description = text(rng, rng.randint(0, 6))
    name = "-".join(rng.sample(WORDS, 2)) if n % 5 else f"notes-{n // 20}"  # some share one
    key = f"/{kind}{n % 4}/{name}-{n}.md"
    return JudgeItem(key=key, kind=kind, file=key, rel_path=f"{name}.md", name=name,
                     description=description, body=body, mtime=float(n),
                     digest=digest(f"{description}\n{body}"), store_path=f"/{kind}{n % 4}")


def home(count: int, seed: int = 1) -> list[JudgeItem]:
    rng = random.Random(seed)
    items = [memory(n, rng, kind=("auto", "team", "agent", "claude-md")[n % 4])
             for n in range(count)]
    items.append(memory(count, random.Random(seed)))  # the same text as the first one
    return items


def test_the_lexical_index_as_arrays_gives_the_pure_python_pairs_and_scores() -> None:
    items = home(300)
    index, sparse = build_index(items), sparse_index(items)
    assert len(similar_pairs(index, 0.2)) > 10
    for threshold in (0.2, 0.35, 0.6):
        want = similar_pairs(index, threshold)
        got = similar_pairs_sparse(sparse, threshold)
        assert set(got) == set(want)
        assert all(abs(got[p] - want[p]) < 1e-12 for p in want)
    rng = random.Random(2)
    pairs = [(rng.randrange(len(items)), rng.randrange(len(items))) for _ in range(500)]
    cosines = pair_cosines(sparse, [i for i, _ in pairs], [j for _, j in pairs])
    for (i, j), cosine in zip(pairs, cosines.tolist(), strict=True):
        assert abs(cosine - index.cosine(i, j)) < 1e-12


def test_the_heaviest_words_tie_as_in_the_pure_python_index() -> None:
    # every word once in every item but one: equal weights, so which words are an item's
    # top terms is decided by the order they are said in, as similar_pairs decides it
    texts = ["alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima",
             "lima kilo juliet india hotel golf foxtrot echo delta charlie bravo alpha",
             "alpha mike november", "lima oscar papa"]
    items = [JudgeItem(key=f"/s{n}/m.md", kind="auto", file=f"/s{n}/m.md", rel_path="m.md",
                       name="m", description="", body=text, mtime=0.0, digest=digest(text),
                       store_path=f"/s{n}") for n, text in enumerate(texts)]
    for threshold in (0.0, 0.1):
        want = similar_pairs(build_index(items), threshold, top_terms=2)
        assert set(similar_pairs_sparse(sparse_index(items), threshold, top_terms=2)) == set(
            want)


def test_find_candidates_is_the_same_without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    items = home(200)
    with_arrays = find_candidates(items, threshold=0.3)
    monkeypatch.setattr(candidates, "_numpy_here", lambda: False)
    without = find_candidates(items, threshold=0.3)
    assert [(c.a.key, c.b.key, c.reasons) for c in with_arrays] == [
        (c.a.key, c.b.key, c.reasons) for c in without]
    assert any("same name" in c.reasons for c in without)
    assert any("same content" in c.reasons for c in without)


class FixedVectors:
    """An embedder with the vectors given (the fuse is what is tested, not the model)."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    def embed_items(self, items: object, progress: object = None) -> np.ndarray:
        return self.vectors

    def save(self) -> None:
        pass


def test_the_fused_candidates_are_each_signals_pairs_once_best_first() -> None:
    items = home(120)
    items[1] = JudgeItem(**{**vars(items[1]), "kind": "snapshot", "agent": "a",
                            "rel_path": "x.md"})
    items[2] = JudgeItem(**{**vars(items[2]), "kind": "agent", "agent": "a",
                            "rel_path": "x.md"})
    vectors = unit_vectors(len(items), 6, seed=5)
    vectors[2] = vectors[1]  # a snapshot and its own agent's memory: never a pair
    got = semantic_candidates(items, k=4, floor=0.1,
                              embedder=FixedVectors(vectors))  # type: ignore[arg-type]
    # the reference: the lexical candidates, then each brute-force neighbour pair added
    want: dict[frozenset[str], Candidate] = {
        frozenset((c.a.key, c.b.key)): c
        for c in find_candidates(items, threshold=neighbours.LEXICAL_THRESHOLD)}
    for (i, j), score in brute_force(vectors, 4, 0.1).items():
        if same_origin(items[i], items[j]):
            continue
        a, b = sorted((items[i], items[j]), key=lambda it: it.key)
        known = want.get(frozenset((a.key, b.key)))
        why = f"near meaning {score:.2f}"
        want[frozenset((a.key, b.key))] = Candidate(
            a, b, round(max(score, known.score if known else 0.0), 4),
            (*(known.reasons if known else ()), why))
    assert len(got) == len(want)
    assert {frozenset((c.a.key, c.b.key)) for c in got} == set(want)
    for c in got:
        other = want[frozenset((c.a.key, c.b.key))]
        assert c.a.key < c.b.key and (c.a.key, c.b.key) == (other.a.key, other.b.key)
        assert abs(c.score - other.score) < 1e-4
        assert [r.split(" 0")[0] for r in c.reasons if r != neighbours.NEAREST] == [
            r.split(" 0")[0] for r in other.reasons]
    # each other's nearest: the best cosine of both sides (among every other item)
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    best = sims.max(axis=1)
    index = {item.key: n for n, item in enumerate(items)}
    for c in got:
        i, j = index[c.a.key], index[c.b.key]
        mutual = sims[i, j] >= best[i] - 1e-6 and sims[i, j] >= best[j] - 1e-6
        assert (neighbours.NEAREST in c.reasons) == bool(mutual), (i, j)
    assert any(neighbours.NEAREST in c.reasons for c in got)
    assert frozenset((items[1].key, items[2].key)) not in {
        frozenset((c.a.key, c.b.key)) for c in got}
    assert [(-c.score, c.a.key, c.b.key) for c in got] == sorted(
        (-c.score, c.a.key, c.b.key) for c in got)
