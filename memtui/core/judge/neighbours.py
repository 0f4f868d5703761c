"""Semantic candidates (issue 22, item 2): the pairs ``memtui judge`` judges
(:func:`memtui.core.judge.finder.judge_candidates`).

Each item's :data:`K` nearest neighbours by the embedding of :mod:`memtui.core.judge.embed`
(cosine of unit vectors) across every store and the CLAUDE.md paragraphs, those at or above
:data:`SIMILARITY_FLOOR`, fused with :func:`memtui.core.judge.candidates.find_candidates`
(same content, same name, similar text at :data:`LEXICAL_THRESHOLD`): a pair either finds is
a candidate, with every reason
that found it (``near meaning 0.81``) and the best of their scores. Pairs never worth raising
(:func:`memtui.core.judge.items.same_origin`) are left out as there.

The neighbours are found exactly, a block of rows at a time (a block's similarities to the
items from it on, each cosine computed once; what is kept of them is bounded from below per
row; then the ``K`` best of each row): at 10,000 items that is 5 × 10⁷ multiply-adds per
dimension in :data:`BLOCK`-row slices, never the whole 10,000 × 10,000 matrix in memory.

``K`` and the floor were chosen on the tune half of the labelled home
(``bench/judge_quality.py --candidates semantic --half tune``) and are reported on both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.embed import Embedder, Matrix
from memtui.core.judge.items import CLAUDE_MD, same_origin
from memtui.core.judge.verdicts import Candidate, JudgeItem
from memtui.core.model import StoreKind

K = 8
SIMILARITY_FLOOR = 0.25
LEXICAL_THRESHOLD = 0.15
"""The lexical index's threshold here, lower than its own
(:data:`~memtui.core.judge.candidates.SIMILARITY_THRESHOLD`, for when it works alone): a
pair sharing rare words that the embedding ranks past the ``K`` nearest is still a
candidate. Chosen on the tune half (``bench/judge_quality.py --half tune``): candidate
recall 0.83 → 0.87 there (held 0.80 → 0.82) for 13 % more pairs (2,105 → 2,383)."""
BLOCK = 256
SAMPLE = 1024
"""Each row's ``k``-th best is bounded from below by its ``k``-th best among this many
columns (:func:`_lower_bounds`)."""


BOUND_MARGIN = 1e-4
"""Taken off each lower bound: float32 products of other shapes round differently."""


def _lower_bounds(vectors: Matrix, k: int) -> npt.NDArray[np.float32]:
    """For each row, a value at most its ``k``-th largest cosine to another row: its ``k``-th
    largest to an evenly spread sample of :data:`SAMPLE` rows (a sample's ``k``-th best is
    never above the whole row's). A tenth of the work of the whole rows, at 10,000 items."""
    n = len(vectors)
    step = max(1, n // SAMPLE)
    sample = np.arange(0, n, step)
    if len(sample) - 1 < k:  # too small a sample to bound: every entry is a candidate
        return np.full(n, -np.inf, dtype=np.float32)
    bounds = np.empty(n, dtype=np.float32)
    for start in range(0, n, BLOCK * 4):
        sims = vectors[start : start + BLOCK * 4] @ vectors[sample].T
        rows = np.arange(start, start + len(sims))
        own = (rows % step == 0) & (rows // step < len(sample))
        sims[own.nonzero()[0], rows[own] // step] = -np.inf  # not its own neighbour
        bounds[start : start + len(sims)] = np.partition(
            sims, sims.shape[1] - k, axis=1)[:, sims.shape[1] - k]
    # the same cosine computed in another product can differ in its last bits: a margin
    return bounds - np.float32(BOUND_MARGIN)


def _top_k(row: npt.NDArray[np.int64], col: npt.NDArray[np.int64],
           value: npt.NDArray[np.float32], rows: int, k: int) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Of the entries ``(row, col, value)``, the ``k`` largest of each row. Ties at the
    ``k``-th value go to the lower column (the result is deterministic)."""
    order = np.lexsort((col, -value, row))  # by row, then best first, then lower column
    row, col, value = row[order], col[order], value[order]
    counts = np.bincount(row, minlength=rows)
    starts = np.cumsum(counts) - counts
    keep = np.arange(len(row)) - starts[row] < k
    return row[keep], col[keep], value[keep]


def nearest_arrays(
    vectors: Matrix,
    k: int = K,
    floor: float = SIMILARITY_FLOOR,
    *,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """:func:`nearest` as arrays ``(low, high, cosine)``, each pair once, ``low < high``.

    Each cosine is computed once (a block of rows against the rows from it on: half the
    matrix) and kept, for both of its rows, only when at least that row's lower bound
    (:func:`_lower_bounds`, and ``floor``); the ``k`` best of each row are then chosen among
    those kept, exactly as from the whole row."""
    n = len(vectors)
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
    if n < 2 or k < 1:
        return empty
    k = min(k, n - 1)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    bound = np.maximum(_lower_bounds(vectors, k), np.float32(floor))
    rows: list[npt.NDArray[np.int64]] = []
    cols: list[npt.NDArray[np.int64]] = []
    values: list[npt.NDArray[np.float32]] = []
    for start in range(0, n, BLOCK):
        if cancelled is not None and cancelled():
            return empty
        block = vectors[start : start + BLOCK]
        size = len(block)
        sims = block @ vectors[start:].T  # the block's rows against every row from start on
        local = np.arange(size)
        sims[local, local] = -np.inf  # not its own neighbour
        # kept for the block's row (its cosines to every row from start on) or for the
        # column's row after the block (the transpose): one pass finds both
        ahead = bound[start:]
        keep = sims >= bound[start : start + size, None]
        keep[:, size:] |= sims[:, size:] >= ahead[None, size:]
        r, c = np.nonzero(keep)
        v = sims[r, c]
        mine = v >= ahead[r]
        rows.append(r[mine] + start)
        cols.append(c[mine] + start)
        values.append(v[mine])
        theirs = (c >= size) & (v >= ahead[c])
        rows.append(c[theirs] + start)
        cols.append(r[theirs] + start)
        values.append(v[theirs])
    row, col, value = _top_k(np.concatenate(rows), np.concatenate(cols),
                             np.concatenate(values), n, k)
    low, high = np.minimum(row, col), np.maximum(row, col)
    # a pair found from both of its sides has one score (the same cosine): keep one
    _, first = np.unique(low * n + high, return_index=True)
    return low[first], high[first], value[first]


def nearest(
    vectors: Matrix,
    k: int = K,
    floor: float = SIMILARITY_FLOOR,
    *,
    cancelled: Callable[[], bool] | None = None,
) -> dict[tuple[int, int], float]:
    """Pairs ``(i, j)``, ``i < j``, where ``j`` is among ``i``'s ``k`` nearest (or ``i``
    among ``j``'s) with a cosine of at least ``floor``."""
    low, high, value = nearest_arrays(vectors, k, floor, cancelled=cancelled)
    return dict(zip(zip(low.tolist(), high.tolist(), strict=True), value.tolist(),
                    strict=True))


def semantic_candidates(
    items: Sequence[JudgeItem],
    *,
    k: int = K,
    floor: float = SIMILARITY_FLOOR,
    embedder: Embedder | None = None,
    cancelled: Callable[[], bool] | None = None,
    timings: dict[str, float] | None = None,
    lexical_threshold: float = LEXICAL_THRESHOLD,
    progress: Callable[[str, int, int], None] | None = None,
    lexical: Sequence[Candidate] | None = None,
    notes: list[str] | None = None,
) -> list[Candidate]:
    """The lexical candidates of ``items`` fused with their semantic neighbours, best first
    (each pair once, ``a`` sorting first, as :func:`find_candidates` gives them).
    ``embedder``: :meth:`Embedder.for_env` for the cache in memtui's cache dir (the default
    caches nothing); the model missing raises (:func:`memtui.core.judge.embed.unavailable`
    says so beforehand). ``timings``, when given, gets the seconds of each step
    (``lexical``, ``embed``, ``nearest``, ``fuse``: what the benchmark reports); ``progress``
    (``progress(step, done, total)``) hears of each step; ``notes``, of the pairs the
    lexical candidates' caps left out (:func:`~memtui.core.judge.candidates.find_candidates`).
    ``lexical``: the lexical candidates at ``lexical_threshold``, when the caller found them
    already (shown before the model loads: :func:`~memtui.core.judge.finder.cheap_candidates`;
    what its caps left out is the caller's to say)."""
    from time import perf_counter

    clock = [perf_counter()]

    def lap(step: str) -> None:
        now = perf_counter()
        if timings is not None:
            timings[step] = now - clock[0]
        clock[0] = now

    def say(step: str) -> None:
        if progress is not None:
            progress(step, 0, 1)

    embedder = embedder if embedder is not None else Embedder()
    if lexical is None:
        say("matching words (the lexical index)")
        lexical = find_candidates(items, threshold=lexical_threshold, cancelled=cancelled,
                                  notes=notes)
    lap("lexical")
    vectors = embedder.embed_items(items, progress)
    embedder.save()
    lap("embed")
    say("finding each memory's nearest neighbours")
    low, high, value = nearest_arrays(vectors, k, floor, cancelled=cancelled)
    lap("nearest")
    out = _fuse(items, lexical, low.tolist(), high.tolist(), value.tolist())
    lap("fuse")
    return out


NEAREST = "each other's nearest"
"""The reason a semantic pair carries when each side is the other's nearest memory (by the
cosine of their whole texts, among every item of the run, a copy of the same text aside):
a paraphrase of a memory is the one memory nearest to it, whatever its words. The verdict
engine lists such a pair no rule pins for review (:data:`~memtui.core.judge.engine.
REVIEW_PAIR`). Found here, over every item, so a pair's verdict does not depend on which
other pairs are judged with it."""


def mutual_nearest(items: Sequence[JudgeItem], low: list[int], high: list[int],
                   value: list[float]) -> list[bool]:
    """For each semantic pair ``(low[x], high[x])`` (cosine ``value[x]``), whether its
    sides are each other's nearest: every item's nearest is among its ``K`` pairs. Items of
    the same text count as one (a copy is not the nearest other memory)."""
    from memtui.core.judge.embed import text_of

    texts: dict[str, int] = {}
    of = [texts.setdefault(text_of(item), len(texts)) for item in items]
    best: dict[int, float] = {}
    for i, j, cos in zip(low, high, value, strict=True):
        if of[i] != of[j]:
            for end in (of[i], of[j]):
                if cos > best.get(end, -2.0):
                    best[end] = cos
    return [of[i] != of[j] and cos >= best[of[i]] - 1e-6 and cos >= best[of[j]] - 1e-6
            for i, j, cos in zip(low, high, value, strict=True)]


_MAY_SHARE_ORIGIN = frozenset({CLAUDE_MD, StoreKind.SNAPSHOT.value, StoreKind.AGENT.value})
"""The kinds :func:`~memtui.core.judge.items.same_origin` can be true of (both sides)."""


def _fuse(items: Sequence[JudgeItem], lexical: Sequence[Candidate], low: list[int],
          high: list[int], value: list[float]) -> list[Candidate]:
    """The lexical candidates and the semantic pairs ``(low[x], high[x])`` (cosine
    ``value[x]``) as one list of candidates, best first (by score, then the sides' keys)."""
    position = {item.key: i for i, item in enumerate(items)}
    rank = [0] * len(items)  # each item's place in the order of keys
    for place, i in enumerate(sorted(range(len(items)), key=lambda i: items[i].key)):
        rank[i] = place
    found: dict[tuple[int, int], Candidate] = {}
    for c in lexical:
        i, j = position[c.a.key], position[c.b.key]
        found[(i, j) if i < j else (j, i)] = c
    special = [item.kind in _MAY_SHARE_ORIGIN for item in items]
    nearest = mutual_nearest(items, low, high, value)
    fresh: list[Candidate] = []
    ranks: list[int] = []  # the fresh candidates' sides' ranks, two by two
    for x, (i, j, score) in enumerate(zip(low, high, value, strict=True)):
        if special[i] and special[j] and same_origin(items[i], items[j]):
            continue
        why: tuple[str, ...] = (f"near meaning {score:.2f}",)
        if nearest[x]:
            why += (NEAREST,)
        known = found.get((i, j))
        if known is None:
            if rank[j] < rank[i]:
                i, j = j, i
            fresh.append(Candidate(items[i], items[j], round(score, 4), why))
            ranks += (rank[i], rank[j])
        elif why[0] not in known.reasons:
            found[(i, j)] = Candidate(known.a, known.b, round(max(known.score, score), 4),
                                      (*known.reasons, *why))
    for c in found.values():
        ranks += (rank[position[c.a.key]], rank[position[c.b.key]])
    out = [*fresh, *found.values()]
    sides = np.array(ranks, dtype=np.int64).reshape(-1, 2)
    scores = np.array([c.score for c in out], dtype=np.float64)
    order = np.lexsort((sides[:, 1], sides[:, 0], -scores))
    return [out[x] for x in order.tolist()]
