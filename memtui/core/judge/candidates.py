"""Candidate pairs: which memories are worth judging, without scoring all pairs.

Three signals, each a reason on the pair:

* ``same content``: equal normalized-content digests (exact duplicates);
* ``same name``: the same frontmatter ``name`` or file name in two different stores;
* ``similar text``: the IDF-weighted cosine of name + description + body, at least
  :data:`SIMILARITY_THRESHOLD`. Words are weighted by rarity (``1 + ln tf`` times
  ``ln(1 + N / df)``), so two files sharing common words ("the", "use", a filename prefix) score
  low and two sharing rare ones ("pgbouncer", "port 6432") score high.

Finding similar pairs uses prefix filtering over an inverted index: each item is indexed under
its :data:`TOP_TERMS` heaviest words only, pairs sharing one of those are scored exactly, and
words in more than :data:`MAX_DF_SHARE` of the items are never indexed. ``bench/bench_judge.py``
measures the time against all-pairs scoring and the share of all-pairs' pairs it finds.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memtui.core.judge.items import same_origin, words
from memtui.core.judge.verdicts import Candidate, JudgeItem

SIMILARITY_THRESHOLD = 0.35
TOP_TERMS = 8
MAX_DF_SHARE = 0.05
MIN_DF_CAP = 40
"""Words in at most this many items are always indexed, however small the home."""
NAME_WEIGHT = 2
"""A word of the name counts as this many occurrences."""

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "were",
        "will",
        "with",
        "you",
        "your",
        "our",
        "not",
        "no",
        "do",
        "does",
        "when",
        "which",
        "who",
        "what",
        "how",
        "all",
        "any",
        "can",
        "may",
        "should",
        "must",
        "also",
        "only",
        "than",
        "too",
        "very",
        "just",
        "more",
        "most",
        "use",
        "used",
        "using",
        "uses",
    ]
)
"""Words that carry no subject (negations among them: the local judge reads those from the raw
text; for similarity they are noise)."""


Vector = dict[str, float]


@dataclass
class TextIndex:
    """The weighted word vectors of a list of items (unit length), each one's words as a
    frozenset (two sets meet in C), and document frequencies."""

    vectors: list[Vector]
    df: Counter[str]
    words: list[frozenset[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.words:
            self.words = [frozenset(vector) for vector in self.vectors]

    def cosine(self, i: int, j: int) -> float:
        a, b = self.vectors[i], self.vectors[j]
        return sum([a[word] * b[word] for word in self.words[i] & self.words[j]])


def term_counts(item: JudgeItem) -> Counter[str]:
    counts = Counter(w for w in words(item.body) if w not in STOPWORDS and len(w) > 1)
    counts.update(w for w in words(item.description) if w not in STOPWORDS and len(w) > 1)
    if item.kind == "claude-md":  # its name says where it is, not what it is about
        return counts
    for word in words(item.name.replace("_", " ").replace("-", " ")):
        if word not in STOPWORDS and len(word) > 1:
            counts[word] += NAME_WEIGHT
    return counts


def build_index(items: Sequence[JudgeItem]) -> TextIndex:
    counts = [term_counts(item) for item in items]
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    n = len(items)
    idf = {word: math.log(1 + n / freq) for word, freq in df.items()}
    vectors: list[Vector] = []
    for c in counts:
        vector = {word: (1 + math.log(tf)) * idf[word] for word, tf in c.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        vectors.append({word: v / norm for word, v in vector.items()})
    return TextIndex(vectors, df)


def similar_pairs(
    index: TextIndex,
    threshold: float = SIMILARITY_THRESHOLD,
    *,
    top_terms: int = TOP_TERMS,
    cancelled: Callable[[], bool] | None = None,
) -> dict[tuple[int, int], float]:
    """Pairs ``(i, j)``, ``i < j``, whose cosine is at least ``threshold``, found by prefix
    filtering (see the module's doc)."""
    n = len(index.vectors)
    max_df = max(MIN_DF_CAP, int(n * MAX_DF_SHARE))
    postings: dict[str, list[int]] = defaultdict(list)
    tops: list[list[str]] = []
    for i, vector in enumerate(index.vectors):
        heavy = sorted(
            (w for w in vector if index.df[w] <= max_df), key=vector.__getitem__, reverse=True
        )[:top_terms]
        tops.append(heavy)
        for word in heavy:
            postings[word].append(i)
    found: dict[tuple[int, int], float] = {}
    checked: set[tuple[int, int]] = set()
    for i, heavy in enumerate(tops):
        if cancelled is not None and i % 256 == 0 and cancelled():
            break
        for word in heavy:
            for j in postings[word]:
                if j <= i or (i, j) in checked:
                    continue
                checked.add((i, j))
                score = index.cosine(i, j)
                if score >= threshold:
                    found[(i, j)] = score
    return found


def all_pairs(
    index: TextIndex, threshold: float = SIMILARITY_THRESHOLD
) -> dict[tuple[int, int], float]:
    """Every pair at or above ``threshold``, scored one by one (the benchmark's reference)."""
    n = len(index.vectors)
    return {
        (i, j): score
        for i in range(n)
        for j in range(i + 1, n)
        if (score := index.cosine(i, j)) >= threshold
    }


def _name_key(item: JudgeItem) -> str:
    return item.name.casefold().replace("_", "-").replace(" ", "-").removesuffix(".md")


def _numpy_here() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


MAX_SAME_CONTENT = 20
"""Copies of one content paired each with each up to this many; more (a degenerate home:
hundreds of copies) are each paired with the first copy only: every copy is still found,
and one group, without the square of their number in pairs."""
MAX_SIMILAR = 64
"""A memory's similar-text pairs kept: its best this many (a pair stays when it is among the
best of either side). In a home where every memory shares words with every other, "every
pair over the threshold" is every pair; a memory's nearest few are the ones worth judging.
Far above what a real home has: the demo home's most is 33, the labelled judge home's 16,
generated homes of 4,500 and 9,000 memories 11 (at the semantic finder's 0.15)."""


def find_candidates(
    items: Sequence[JudgeItem],
    *,
    threshold: float = SIMILARITY_THRESHOLD,
    cancelled: Callable[[], bool] | None = None,
    notes: list[str] | None = None,
) -> list[Candidate]:
    """The candidate pairs of ``items``, best first (each pair once, ``a`` sorting first).
    ``notes`` hears of the pairs the caps left out (:data:`MAX_SAME_CONTENT`,
    :data:`MAX_SIMILAR`)."""
    reasons: dict[tuple[int, int], list[str]] = defaultdict(list)
    scores: dict[tuple[int, int], float] = {}

    def add(i: int, j: int, reason: str, score: float) -> None:
        pair = (i, j) if i < j else (j, i)
        if same_origin(items[i], items[j]):
            return
        reasons[pair].append(reason)
        scores[pair] = max(scores.get(pair, 0.0), score)

    by_digest: dict[str, list[int]] = defaultdict(list)
    by_name: dict[str, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        if item.body or item.description:
            by_digest[item.digest].append(i)
        if item.kind != "claude-md":
            by_name[_name_key(item)].append(i)
    copies = 0
    for group in by_digest.values():
        if len(group) > MAX_SAME_CONTENT:
            copies += len(group)
            for j in group[1:]:
                add(group[0], j, "same content", 1.0)
            continue
        for x, i in enumerate(group):
            for j in group[x + 1 :]:
                add(i, j, "same content", 1.0)
    named: list[tuple[int, int]] = []
    for group in by_name.values():
        if len(group) > 20:  # a name every store uses ("notes"): similarity decides
            continue
        for x, i in enumerate(group):
            named += [(i, j) for j in group[x + 1 :]
                      if items[i].store_path != items[j].store_path]
    if _numpy_here():  # the same figures, as array operations (see below)
        sparse = sparse_index(items)
        cosines = pair_cosines(sparse, [i for i, _ in named], [j for _, j in named]).tolist()
        similar = similar_pairs_sparse(sparse, threshold, cancelled=cancelled)
    else:
        index = build_index(items)
        cosines = [index.cosine(i, j) for i, j in named]
        similar = similar_pairs(index, threshold, cancelled=cancelled)
    for (i, j), cosine in zip(named, cosines, strict=True):
        add(i, j, "same name", max(0.5, cosine))
    found = len(similar)
    similar = best_per_item(similar, MAX_SIMILAR)
    if notes is not None and found > len(similar):
        notes.append(f"{found - len(similar):,} similar-text pairs left out: each memory keeps "
                     f"its {MAX_SIMILAR} most similar")
    if notes is not None and copies:
        notes.append(f"{copies:,} copies of one content each paired with the first copy only")
    for (i, j), score in similar.items():
        add(i, j, f"similar text {score:.2f}", score)
    out: list[Candidate] = []
    for (i, j), why in reasons.items():
        a, b = items[i], items[j]
        if b.key < a.key:
            a, b = b, a
        out.append(Candidate(a, b, round(scores[(i, j)], 4), tuple(dict.fromkeys(why))))
    out.sort(key=lambda c: (-c.score, c.a.key, c.b.key))
    return out


def best_per_item(pairs: dict[tuple[int, int], float], keep: int,
                  ) -> dict[tuple[int, int], float]:
    """The pairs of ``pairs`` (``(i, j) -> score``) among the ``keep`` best of ``i`` or of
    ``j`` (best score first, then the other side's index: deterministic), in their order.
    All of them when no item has more than ``keep``."""
    count: Counter[int] = Counter()
    for i, j in pairs:
        count[i] += 1
        count[j] += 1
    if not count or max(count.values()) <= keep:
        return pairs
    ranked: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for (i, j), score in pairs.items():
        ranked[i].append((-score, j))
        ranked[j].append((-score, i))
    best: dict[int, set[int]] = {}
    for i, others in ranked.items():
        best[i] = {j for _, j in (others if len(others) <= keep
                                  else sorted(others)[:keep])}
    return {(i, j): score for (i, j), score in pairs.items()
            if j in best[i] or i in best[j]}


# --------------------------------------------------------------------- the same, with numpy
#
# What :func:`build_index`, :func:`similar_pairs` and :meth:`TextIndex.cosine` compute, as
# arrays: the words counted in one pass over the items, the weights, the heaviest words of
# each item, the pairs sharing one and their exact cosines, each a few array operations over
# every item at once. At 10,000 memories this takes a small share of the pure-Python time
# (``bench/bench_judge.py``); the pure-Python functions stay for when numpy is missing and as
# the reference the tests compare with.

SCORE_ROWS = 64
"""Pairs are scored a block of this many ``left`` items at a time (one bit each in a word's
mask, :func:`pair_cosines`)."""


@dataclass
class SparseIndex:
    """The weighted word vectors of :func:`build_index` as a sparse matrix: item ``i``'s
    entries are ``terms[indptr[i]:indptr[i+1]]`` (word ids, ascending) with ``weights`` (the
    row of unit length) and ``first`` (where the word first occurs in the item: what
    :func:`similar_pairs` breaks ties between equal weights by)."""

    indptr: Any
    terms: Any
    weights: Any
    first: Any
    df: Any
    """Document frequency of each word id."""

    @property
    def size(self) -> int:
        return len(self.indptr) - 1


class _WordIds(dict[str, int]):
    """Word → id, a new id for each new word; -1 for a word never indexed (a stopword, a
    single character): what :func:`term_counts` leaves out."""

    def __missing__(self, word: str) -> int:
        value = -1 if word in STOPWORDS or len(word) < 2 else len(self) - self.skipped
        self.skipped += value < 0
        self[word] = value
        return value

    skipped = 0


def sparse_index(items: Sequence[JudgeItem]) -> SparseIndex:
    """:func:`build_index` of ``items`` as a :class:`SparseIndex` (numpy needed)."""
    import numpy as np

    ids = _WordIds()
    lookup = ids.__getitem__
    text_ids: list[int] = []
    name_ids: list[int] = []
    text_counts: list[int] = []
    name_counts: list[int] = []
    for item in items:
        before = len(text_ids)
        text_ids += map(lookup, words(item.body))
        text_ids += map(lookup, words(item.description))
        text_counts.append(len(text_ids) - before)
        before = len(name_ids)
        if item.kind != "claude-md":  # its name says where it is, not what it is about
            name_ids += map(lookup, words(item.name.replace("_", " ").replace("-", " ")))
        name_counts.append(len(name_ids) - before)
    n = len(items)
    size = max(1, len(ids) - ids.skipped)
    every = np.arange(n, dtype=np.int64)
    # each item's words in the order term_counts counts them: its text's, then its name's
    token_row = np.concatenate((np.repeat(every, text_counts), np.repeat(every, name_counts)))
    token_id = np.asarray(text_ids + name_ids, dtype=np.int64)
    token_weight = np.concatenate((np.ones(len(text_ids)), np.full(len(name_ids), NAME_WEIGHT,
                                                                  dtype=np.float64)))
    position = np.concatenate((np.arange(len(text_ids)),
                               np.arange(len(name_ids)) + len(text_ids)))
    kept = token_id >= 0
    token_row, token_id = token_row[kept], token_id[kept]
    token_weight, position = token_weight[kept], position[kept]
    # each item's words in the order they are said (its text's, then its name's): the first
    # of each (item, word) is where it is first said
    said = np.lexsort((position, token_row))
    keys = (token_row * size + token_id)[said]
    token_weight = token_weight[said]
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    tf = np.bincount(inverse, weights=token_weight, minlength=len(unique))
    rows, terms = unique // size, unique % size
    df = np.bincount(terms, minlength=size)
    idf = np.log(1 + n / np.maximum(df, 1))
    weight = (1 + np.log(tf)) * idf[terms]
    norm = np.sqrt(np.bincount(rows, weights=weight * weight, minlength=n))
    norm[norm == 0] = 1.0
    weight /= norm[rows]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return SparseIndex(indptr, terms, weight, first, df)


def _ranges(starts: Any, lengths: Any) -> Any:
    """``concatenate([arange(s, s + l) for s, l in zip(starts, lengths)])``, vectorized."""
    import numpy as np

    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(lengths) - lengths
    return np.arange(total, dtype=np.int64) + np.repeat(starts - before, lengths)


def pair_cosines(
    index: SparseIndex, left: Any, right: Any, *, cancelled: Callable[[], bool] | None = None
) -> Any:
    """The cosine of each pair ``(left[x], right[x])``: :meth:`TextIndex.cosine`, for many
    pairs at once. A block of :data:`SCORE_ROWS` ``left`` items at a time: each word gets a
    mask of the block's items that have it, each word of a ``right`` item is looked up in
    it, and only the words a pair shares are multiplied and summed."""
    import numpy as np

    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    out = np.zeros(len(left), dtype=np.float64)
    if not len(left):
        return out
    size = max(1, len(index.df))
    order = np.argsort(left, kind="stable")
    sorted_left = left[order]
    masks = np.zeros(size, dtype=np.uint64)
    weight_at = np.zeros((SCORE_ROWS, size), dtype=np.float64)
    lo = 0
    while lo < len(order):
        if cancelled is not None and cancelled():
            break
        first_row = int(sorted_left[lo])
        hi = int(np.searchsorted(sorted_left, first_row + SCORE_ROWS, side="left"))
        pairs = order[lo:hi]
        rows = np.arange(first_row, min(first_row + SCORE_ROWS, index.size))
        counts = index.indptr[rows + 1] - index.indptr[rows]
        spread = _ranges(index.indptr[rows], counts)
        local = np.repeat(rows - first_row, counts)
        block_terms = index.terms[spread]
        np.bitwise_or.at(masks, block_terms, np.left_shift(np.uint64(1), local.astype(np.uint64)))
        weight_at[local, block_terms] = index.weights[spread]
        others = right[pairs]
        lengths = index.indptr[others + 1] - index.indptr[others]
        entries = _ranges(index.indptr[others], lengths)
        terms = index.terms[entries]
        at = np.repeat(left[pairs] - first_row, lengths)
        shared = (np.right_shift(masks[terms], at.astype(np.uint64)) & np.uint64(1)).astype(bool)
        products = weight_at[at[shared], terms[shared]] * index.weights[entries[shared]]
        which = np.repeat(np.arange(len(pairs)), lengths)[shared]
        out[pairs] = np.bincount(which, weights=products, minlength=len(pairs))
        masks[block_terms] = 0
        weight_at[local, block_terms] = 0.0
        lo = hi
    return out


def similar_pairs_sparse(
    index: SparseIndex,
    threshold: float = SIMILARITY_THRESHOLD,
    *,
    top_terms: int = TOP_TERMS,
    cancelled: Callable[[], bool] | None = None,
) -> dict[tuple[int, int], float]:
    """:func:`similar_pairs` on a :class:`SparseIndex`: the same pairs, found the same way
    (every pair sharing one of its items' ``top_terms`` heaviest indexed words, scored
    exactly), as array operations."""
    import numpy as np

    n = index.size
    if n < 2:
        return {}
    max_df = max(MIN_DF_CAP, int(n * MAX_DF_SHARE))
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(index.indptr))
    indexed = np.flatnonzero(index.df[index.terms] <= max_df)
    # each item's heaviest indexed words (ties: the word said first), as similar_pairs takes
    order = indexed[np.lexsort((index.first[indexed], -index.weights[indexed],
                                rows[indexed]))]
    counts = np.bincount(rows[order], minlength=n)
    rank = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    top = order[rank < top_terms]
    # the items under each word, and every two of them
    by_word = top[np.lexsort((rows[top], index.terms[top]))]
    word, item = index.terms[by_word], rows[by_word]
    edges = np.flatnonzero(np.diff(word)) + 1
    group_end = np.repeat(np.append(edges, len(word)),
                          np.diff(np.concatenate(([0], edges, [len(word)]))))
    after = group_end - np.arange(len(word)) - 1
    left = np.repeat(np.arange(len(word)), after)
    right = _ranges(np.arange(len(word)) + 1, after)
    keys = np.sort(item[left] * n + item[right])
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if len(keys) else keys
    low, high = keys // n, keys % n
    scores = pair_cosines(index, low, high, cancelled=cancelled)
    keep = scores >= threshold
    return dict(zip(zip(low[keep].tolist(), high[keep].tolist(), strict=True),
                    scores[keep].tolist(), strict=True))
