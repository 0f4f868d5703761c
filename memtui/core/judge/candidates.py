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


def find_candidates(
    items: Sequence[JudgeItem],
    *,
    threshold: float = SIMILARITY_THRESHOLD,
    cancelled: Callable[[], bool] | None = None,
) -> list[Candidate]:
    """The candidate pairs of ``items``, best first (each pair once, ``a`` sorting first)."""
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
    for group in by_digest.values():
        for x, i in enumerate(group):
            for j in group[x + 1 :]:
                add(i, j, "same content", 1.0)
    index = build_index(items)
    for group in by_name.values():
        if len(group) > 20:  # a name every store uses ("notes"): similarity decides
            continue
        for x, i in enumerate(group):
            for j in group[x + 1 :]:
                if items[i].store_path != items[j].store_path:
                    add(i, j, "same name", max(0.5, index.cosine(i, j)))
    for (i, j), score in similar_pairs(index, threshold, cancelled=cancelled).items():
        add(i, j, f"similar text {score:.2f}", score)
    out: list[Candidate] = []
    for (i, j), why in reasons.items():
        a, b = items[i], items[j]
        if b.key < a.key:
            a, b = b, a
        out.append(Candidate(a, b, round(scores[(i, j)], 4), tuple(dict.fromkeys(why))))
    out.sort(key=lambda c: (-c.score, c.a.key, c.b.key))
    return out
