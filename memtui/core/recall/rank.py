"""memtui's offline stand-in for recall's selector: Okapi BM25 of the prompt over what the
selector is shown of each file (its manifest line: path, type, description). Claude Code asks a
Sonnet model instead, so this is an approximation, and says so wherever it is shown."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOPWORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from",
    "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "should", "so", "that", "the", "their", "then", "there", "this", "to", "use", "used", "uses",
    "using", "was", "we", "what", "when", "where", "which", "who", "why", "will", "with", "you",
    "your", "md",
])


def terms(text: str) -> list[str]:
    """Lower-case words of ``text`` without stopwords; a path's ``-`` and ``/`` split words."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return [w for w in _WORD.findall(folded) if w not in STOPWORDS]


def bm25(query: str, documents: Sequence[str]) -> list[float]:
    """The BM25 score of each document for ``query`` (0 when no query term occurs in it)."""
    docs = [Counter(terms(d)) for d in documents]
    wanted = set(terms(query))
    if not docs or not wanted:
        return [0.0] * len(docs)
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(docs) or 1.0
    df = Counter(t for d in docs for t in wanted if t in d)
    n = len(docs)
    scores = []
    for doc, length in zip(docs, lengths, strict=True):
        score = 0.0
        for term in wanted:
            tf = doc.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        scores.append(score)
    return scores
