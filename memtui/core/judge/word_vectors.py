"""The vectors of short texts of words, from each word's tokens worked out once a run.

The verdict engine's swap test (:func:`memtui.core.judge.engine.difference`) embeds the words
two aligned statements swap ("jest" / "vitest", "mock real" / "stub"), a new short text for
nearly every pair: tens of thousands a run on a big home, each through the embedder's whole
path (a digest, the cache, the tokenizer, the mean). A static model's vector of a text is the
mean of its tokens' rows, and wordllama's tokenizer (a ``▁`` put before the text and in place
of each space, then BPE over the whole) never merges across a word's ``▁``: no token of its
vocabulary holds a ``▁`` after its first character but the runs of ``▁`` alone, which only
two spaces in a row make. So a text of words joined by single spaces has the tokens of its
words, each tokenized alone, one after the other, and its vector is the mean of those rows:
computed here as :meth:`~memtui.core.judge.embed.StaticModel.means` and
:meth:`~memtui.core.judge.embed.Embedder.embed` compute it (the same rows in the same order,
the same float32 mean and norm), so the same vector, bit for bit
(``tests/core/judge/test_word_vectors.py`` checks it on every text of the labelled home and
asserts the vocabulary's property). A text this cannot vouch for (an empty word, two spaces,
a character the tokenizer treats on its own: ``<``, ``▁``, whitespace other than one space,
a lone surrogate) goes to the embedder as before.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from memtui.core.judge.embed import Matrix, StaticModel

PLAIN_WORD = re.compile(r"[^\s<>▁\ud800-\udfff]+")
"""A word whose tokens do not depend on its neighbours: no whitespace, no ``<`` or ``>``
(the tokenizer's special tokens ``<s>``, ``</s>``, ``<unk>`` are matched in the raw text),
no ``▁`` (the tokenizer's own space), no lone surrogate (the embedder replaces those)."""
MAX_WORDS = 16
"""Longer texts go to the embedder (the swap test embeds at most a few words a side)."""
MAX_KEPT = 65_536
"""Words (and texts) whose tokens (vectors) are kept; past it, the oldest half is dropped."""


class WordVectors:
    """Unit vectors of texts of a few plain words (:data:`PLAIN_WORD`) joined by single
    spaces, from each word's token ids (tokenized once); :meth:`vector` says None for any
    other text. ``tokenized`` counts the words sent to the tokenizer, ``computed`` the texts
    whose vector was worked out (not taken from what was kept)."""

    def __init__(self, model: StaticModel) -> None:
        self.model = model
        self._ids: dict[str, list[int]] = {}
        self._vectors: dict[str, Matrix] = {}
        self.tokenized = 0
        self.computed = 0

    def _word_ids(self, word: str) -> list[int]:
        ids = self._ids.get(word)
        if ids is None:
            if len(self._ids) >= MAX_KEPT:
                _drop_half(self._ids)
            ids = list(self.model.tokenizer.encode(word, add_special_tokens=False).ids)
            self._ids[word] = ids
            self.tokenized += 1
        return ids

    def vector(self, text: str) -> Matrix | None:
        """``text``'s unit vector as the embedder gives it, or None when this cannot vouch for
        it (the caller embeds it)."""
        known = self._vectors.get(text)
        if known is not None:
            return known
        parts = text.split(" ")
        if len(parts) > MAX_WORDS or not all(PLAIN_WORD.fullmatch(p) for p in parts):
            return None
        ids: list[int] = []
        for part in parts:
            ids += self._word_ids(part)
        if not ids:
            return None
        mean = np.zeros((1, self.model.dimensions), dtype=np.float32)
        mean[0] = self.model.rows(ids).astype(np.float32).mean(axis=0)
        norms = np.linalg.norm(mean, axis=1, keepdims=True)
        unit: Matrix = np.divide(mean, norms, out=np.zeros_like(mean), where=norms > 0)[0]
        if len(self._vectors) >= MAX_KEPT:
            _drop_half(self._vectors)
        self._vectors[text] = unit
        self.computed += 1
        return unit


def _drop_half(kept: dict[str, Any]) -> None:
    for key in list(kept)[: len(kept) // 2]:
        del kept[key]
