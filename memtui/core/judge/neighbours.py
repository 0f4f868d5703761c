"""Semantic candidates (issue 22, item 2), beside today's lexical ones (not yet used by
``memtui judge``: the switch comes after measurement).

Each item's :data:`K` nearest neighbours by the embedding of :mod:`memtui.core.judge.embed`
(cosine of unit vectors) across every store and the CLAUDE.md paragraphs, those at or above
:data:`SIMILARITY_FLOOR`, fused with :func:`memtui.core.judge.candidates.find_candidates`
(same content, same name, similar text): a pair either finds is a candidate, with every reason
that found it (``near meaning 0.81``) and the best of their scores. Pairs never worth raising
(:func:`memtui.core.judge.items.same_origin`) are left out as there.

The neighbours are found exactly, a block of rows at a time (a block's similarities to every
item, then the ``K`` best of each row): at 10,000 items that is 10⁸ multiply-adds per
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
BLOCK = 256
CHUNK = 16
"""Each row's best are sought among its entries at or above the k-th largest of the maxima of
``CHUNK`` slices of it (:func:`_row_thresholds`)."""


def _row_thresholds(sims: Matrix, k: int) -> npt.NDArray[np.float32]:
    """For each row, a value at most its ``k``-th largest entry: the ``k``-th largest of the
    maxima of the row's :data:`CHUNK` interleaved slices of columns, each slice's maximum
    being an entry of its own, so ``k`` distinct entries are at least that. Far cheaper than
    selecting the ``k`` best of the whole row, and the entries at or above it are few."""
    rows, n = sims.shape
    width = n // CHUNK
    if width < k:  # too few columns to bound: every entry is a candidate
        return np.full(rows, -np.inf, dtype=np.float32)
    whole = width * CHUNK
    peaks = sims[:, :whole].reshape(rows, CHUNK, width).max(axis=1)
    for extra in range(whole, n):  # the last few columns (fewer than CHUNK) join slices
        column = extra % width
        np.maximum(peaks[:, column], sims[:, extra], out=peaks[:, column])
    return np.partition(peaks, width - k, axis=1)[:, width - k]


def _top_k(sims: Matrix, k: int, floor: float) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The ``k`` largest entries of each row at or above ``floor``: ``(row, column, value)``.
    Ties at the ``k``-th value go to the lower column (the result is deterministic)."""
    bound = np.maximum(_row_thresholds(sims, k), np.float32(floor))
    row, col = np.nonzero(sims >= bound[:, None])
    value = sims[row, col]
    order = np.lexsort((col, -value, row))  # by row, then best first, then lower column
    row, col, value = row[order], col[order], value[order]
    counts = np.bincount(row, minlength=len(sims))
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
    """:func:`nearest` as arrays ``(low, high, cosine)``, each pair once, ``low < high``."""
    n = len(vectors)
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
    if n < 2 or k < 1:
        return empty
    k = min(k, n - 1)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    lows: list[npt.NDArray[np.int64]] = []
    highs: list[npt.NDArray[np.int64]] = []
    values: list[npt.NDArray[np.float32]] = []
    for start in range(0, n, BLOCK):
        if cancelled is not None and cancelled():
            break
        block = vectors[start : start + BLOCK]
        sims = block @ vectors.T
        rows = np.arange(len(block))
        sims[rows, rows + start] = -np.inf  # not its own neighbour
        row, j, score = _top_k(sims, k, floor)
        i = row + start
        lows.append(np.minimum(i, j))
        highs.append(np.maximum(i, j))
        values.append(score)
    if not lows:
        return empty
    low, high, value = np.concatenate(lows), np.concatenate(highs), np.concatenate(values)
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
) -> list[Candidate]:
    """The lexical candidates of ``items`` fused with their semantic neighbours, best first
    (each pair once, ``a`` sorting first, as :func:`find_candidates` gives them).
    ``embedder``: :meth:`Embedder.for_env` for the cache in memtui's cache dir (the default
    caches nothing); the model missing raises (:func:`memtui.core.judge.embed.unavailable`
    says so beforehand). ``timings``, when given, gets the seconds of each step
    (``lexical``, ``embed``, ``nearest``, ``fuse``: what the benchmark reports)."""
    from time import perf_counter

    clock = [perf_counter()]

    def lap(step: str) -> None:
        now = perf_counter()
        if timings is not None:
            timings[step] = now - clock[0]
        clock[0] = now

    embedder = embedder if embedder is not None else Embedder()
    lexical = find_candidates(items, cancelled=cancelled)
    lap("lexical")
    vectors = embedder.embed_items(items)
    embedder.save()
    lap("embed")
    low, high, value = nearest_arrays(vectors, k, floor, cancelled=cancelled)
    lap("nearest")
    out = _fuse(items, lexical, low.tolist(), high.tolist(), value.tolist())
    lap("fuse")
    return out


_MAY_SHARE_ORIGIN = frozenset({CLAUDE_MD, StoreKind.SNAPSHOT.value, StoreKind.AGENT.value})
"""The kinds :func:`~memtui.core.judge.items.same_origin` can be true of (both sides)."""


def _fuse(items: Sequence[JudgeItem], lexical: Sequence[Candidate], low: list[int],
          high: list[int], value: list[float]) -> list[Candidate]:
    """The lexical candidates and the semantic pairs ``(low[x], high[x])`` (cosine
    ``value[x]``) as one list of candidates, best first."""
    position = {item.key: i for i, item in enumerate(items)}
    found: dict[tuple[int, int], Candidate] = {}
    for c in lexical:
        i, j = position[c.a.key], position[c.b.key]
        found[(i, j) if i < j else (j, i)] = c
    special = [item.kind in _MAY_SHARE_ORIGIN for item in items]
    for i, j, score in zip(low, high, value, strict=True):
        if special[i] and special[j] and same_origin(items[i], items[j]):
            continue
        why = f"near meaning {score:.2f}"
        known = found.get((i, j))
        if known is None:
            a, b = items[i], items[j]
            if b.key < a.key:
                a, b = b, a
            found[(i, j)] = Candidate(a, b, round(score, 4), (why,))
        elif why not in known.reasons:
            found[(i, j)] = Candidate(known.a, known.b, round(max(known.score, score), 4),
                                      (*known.reasons, why))
    out = list(found.values())
    out.sort(key=lambda c: (-c.score, c.a.key, c.b.key))
    return out
