"""The swap test's vectors from each word's tokens (memtui/core/judge/word_vectors.py) are the
embedder's, bit for bit, and each word is tokenized once a run."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest
from core.judge.labelled import PAIRS

from memtui.core.judge import engine
from memtui.core.judge.embed import TOKENIZER, Embedder, package_dir, shared_model
from memtui.core.judge.statements import Statement, stem
from memtui.core.judge.word_vectors import WordVectors


def labelled_words() -> list[str]:
    """Every stem of the labelled home's texts, as the swap test joins them."""
    from memtui.core.judge.items import words

    found: set[str] = set()
    for pair in PAIRS:
        for note in (pair.a, pair.b):
            found.update(stem(w) for w in words(f"{note.description} {note.body}"))
    return sorted(found)


def test_no_token_of_the_vocabulary_spans_two_words() -> None:
    """What makes a text's tokens its words' tokens one after the other: no token holds a
    ``▁`` (the tokenizer's space) after its first character, except runs of ``▁`` alone."""
    config = json.loads((package_dir() / TOKENIZER).read_text(encoding="utf-8"))
    spanning = [t for t in config["model"]["vocab"] if "▁" in t[1:] and set(t) != {"▁"}]
    assert spanning == []
    normalizers = [n["type"] for n in config["normalizer"]["normalizers"]]
    assert normalizers == ["Prepend", "Replace"] and config["pre_tokenizer"] is None


def test_the_vectors_are_the_embedders_bit_for_bit() -> None:
    stems = labelled_words()
    assert len(stems) > 200
    rng = random.Random(7)
    texts = list(dict.fromkeys(
        [*stems, *(" ".join(sorted(rng.sample(stems, k))) for k in (2, 3, 3, 6)
                   for _ in range(300))]))
    fast = WordVectors(shared_model())
    one_by_one = Embedder(model=shared_model(), remember=False)
    for text in texts[:400]:  # the embedder's path for a few texts a call
        vector = fast.vector(text)
        assert vector is not None
        assert np.array_equal(vector, one_by_one.embed([text])[0]), text
    batched = Embedder(model=shared_model(), remember=False).embed(texts)  # its batch path
    for text, row in zip(texts, batched, strict=True):
        vector = fast.vector(text)
        assert vector is not None and np.array_equal(vector, row), text
    # each word tokenized once, however many texts it is in
    assert fast.tokenized == len({w for t in texts for w in t.split(" ")})


def test_the_swap_cosine_is_the_one_through_the_embedder() -> None:
    stems = labelled_words()
    rng = random.Random(11)
    pairs = [(" ".join(sorted(rng.sample(stems, rng.randint(1, 3)))),
              " ".join(sorted(rng.sample(stems, rng.randint(1, 3))))) for _ in range(500)]
    vectors = engine.Vectors(Embedder(model=shared_model(), remember=False))
    plain = engine.Vectors(Embedder(model=shared_model(), remember=False))
    plain._no_words = True  # every text through the embedder, as before
    for left, right in pairs:
        assert vectors.cosine(left, right) == plain.cosine(left, right)
    assert vectors.embedder.computed == 0  # none of them went to the embedder
    assert plain.embedder.computed > 0


@pytest.mark.parametrize("text", ["", "a  b", " a", "a ", "<s> x", "x</s>", "tab\tx", "▁x",
                                  "lone \udcff", "new\nline"])
def test_a_text_it_cannot_vouch_for_goes_to_the_embedder(text: str) -> None:
    fast = WordVectors(shared_model())
    assert fast.vector(text) is None
    vectors = engine.Vectors(Embedder(model=shared_model(), remember=False))
    other = "vitest"
    m = vectors.of([text, other])
    assert vectors.cosine(text, other) == float(m[0] @ m[1])


def test_a_judged_home_tokenizes_each_swapped_word_once() -> None:
    """Many pairs swapping the same few words: the words are tokenized once each, and no swap
    text reaches the embedder."""
    tools = ["jest", "vitest", "mocha", "pytest", "ava", "tap"]
    vectors = engine.Vectors(Embedder(model=shared_model(), remember=False))
    calls = 0
    for x, y in itertools.permutations(tools, 2):
        sx, sy = (Statement(f"tests run on {w} in ci", ("tests", "run", "on", w, "in", "ci"),
                            frozenset({"test", "run", w, "ci"}), numbers=frozenset(),
                            negated=frozenset(), asserted=frozenset({"test", "run", w, "ci"}))
                  for w in (x, y))
        engine.difference(sx, sy, sx.stems, sy.stems, vectors, sim=0.9)
        calls += 1
    words_ = vectors._word_vectors()
    assert words_ is not None
    assert calls == 30 and words_.computed == len(tools)
    assert words_.tokenized == len(tools)
    assert vectors.embedder.computed == 0


def test_an_id_past_a_smaller_table_is_still_clipped_to_its_last_row() -> None:
    from memtui.core.judge.embed import StaticModel

    shared = shared_model()
    assert shared.ids_in_table  # wordllama's tokenizer and table: 32,000 each
    small = StaticModel(shared.table[:100], shared.tokenizer)
    assert not small.ids_in_table
    assert np.array_equal(small.rows([5, 31_999]), shared.table[[5, 99]])
    assert np.array_equal(shared.rows([5, 31_999]), shared.table[[5, 31_999]])
