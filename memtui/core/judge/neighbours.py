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
from memtui.core.judge.items import same_origin
from memtui.core.judge.verdicts import Candidate, JudgeItem

K = 8
SIMILARITY_FLOOR = 0.25
BLOCK = 256


def nearest(
    vectors: Matrix,
    k: int = K,
    floor: float = SIMILARITY_FLOOR,
    *,
    cancelled: Callable[[], bool] | None = None,
) -> dict[tuple[int, int], float]:
    """Pairs ``(i, j)``, ``i < j``, where ``j`` is among ``i``'s ``k`` nearest (or ``i``
    among ``j``'s) with a cosine of at least ``floor``."""
    n = len(vectors)
    if n < 2 or k < 1:
        return {}
    k = min(k, n - 1)
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
        best = np.argpartition(sims, -k, axis=1)[:, -k:]
        scores = np.take_along_axis(sims, best, axis=1)
        keep = scores >= floor
        i = np.broadcast_to((rows + start)[:, None], best.shape)[keep]
        j = best[keep]
        lows.append(np.minimum(i, j))
        highs.append(np.maximum(i, j))
        values.append(scores[keep])
    if not lows:
        return {}
    low, high, value = np.concatenate(lows), np.concatenate(highs), np.concatenate(values)
    # a pair found from both of its sides has one score (the same cosine): keep one
    keys = low * n + high
    _, first = np.unique(keys, return_index=True)
    return {
        (a, b): v
        for a, b, v in zip(
            low[first].tolist(), high[first].tolist(), value[first].tolist(), strict=True
        )
    }


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
    position = {item.key: i for i, item in enumerate(items)}
    reasons: dict[tuple[int, int], list[str]] = {}
    scores: dict[tuple[int, int], float] = {}
    for c in lexical:
        i, j = position[c.a.key], position[c.b.key]
        pair = (i, j) if i < j else (j, i)
        reasons[pair] = list(c.reasons)
        scores[pair] = c.score
    vectors = embedder.embed_items(items)
    embedder.save()
    lap("embed")
    near = nearest(vectors, k, floor, cancelled=cancelled)
    lap("nearest")
    for (i, j), score in near.items():
        if same_origin(items[i], items[j]):
            continue
        reasons.setdefault((i, j), []).append(f"near meaning {score:.2f}")
        scores[(i, j)] = max(scores.get((i, j), 0.0), score)
    out: list[Candidate] = []
    for (i, j), why in reasons.items():
        a, b = items[i], items[j]
        if b.key < a.key:
            a, b = b, a
        out.append(Candidate(a, b, round(scores[(i, j)], 4), tuple(dict.fromkeys(why))))
    out.sort(key=lambda c: (-c.score, c.a.key, c.b.key))
    lap("fuse")
    return out
