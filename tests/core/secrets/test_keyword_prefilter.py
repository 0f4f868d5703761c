"""The keyword prefilter (one trie pattern) finds exactly the keywords that occur in a text,
overlapping and nested ones included, as checking each keyword with ``in`` would."""

from __future__ import annotations

import random
import re

from memtui.core.secrets.rules import load_rules
from memtui.core.secrets.scanner import _default_keywords, _Keywords, _trie

WORDS = sorted({k for rule in load_rules() for k in rule.keywords})


def test_the_trie_matches_the_longest_word_at_a_position() -> None:
    pattern = re.compile(_trie(["a", "ab", "abc", "b"]))
    assert pattern.findall("abcab b a") == ["abc", "ab", "b", "a"]


def test_overlapping_and_nested_keywords_are_all_found() -> None:
    present = _default_keywords().present
    assert present("akiasia") == {"akia", "asia"}  # "asia" starts inside "akia"
    assert present("use sk_live keys") == {"sk", "sk_live"}  # "sk" inside "sk_live"
    assert present("nothing here") == frozenset()


def test_the_prefilter_agrees_with_checking_every_keyword() -> None:
    rng = random.Random(11)
    pieces = [*WORDS, *(w[: len(w) // 2] for w in WORDS), *(w[1:] for w in WORDS), " ", "x"]
    keywords = _Keywords(load_rules())
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert keywords.present(text) == {w for w in WORDS if w in text}, text
