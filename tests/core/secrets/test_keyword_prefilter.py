"""The keyword prefilter (each word looked for where its rarest character occurs) finds exactly
the keywords that occur in a text, overlapping and nested ones included, as checking each
keyword with ``in`` would."""

from __future__ import annotations

import random

import pytest

from memtui.core.secrets.keywords import COMMONEST_FIRST, SHORT_TEXT, WordFinder, anchor
from memtui.core.secrets.mask import KEYWORDS
from memtui.core.secrets.rules import load_rules
from memtui.core.secrets.scanner import _default_keywords, _Keywords

WORDS = sorted({k for rule in load_rules() for k in rule.keywords})


def test_a_word_is_anchored_at_its_rarest_character() -> None:
    assert anchor("ghp_") == 3  # "_" is rarer than g, h and p
    assert anchor("acca") == 2  # equally rare: the last
    assert anchor("zq~") == 2
    assert anchor("a\u00e9") == 1  # a character not counted is the rarest
    assert len(set(COMMONEST_FIRST)) == len(COMMONEST_FIRST)


def test_overlapping_and_nested_keywords_are_all_found() -> None:
    present = _default_keywords().present
    assert present("akiasia") == {"akia", "asia"}  # "asia" starts inside "akia"
    assert present("use sk_live keys") == {"sk", "sk_live"}  # "sk" inside "sk_live"
    assert present("gho_ghp_ghr_") == {"gho_", "ghp_", "ghr_"}  # one anchor, three words
    assert present("nothing here") == frozenset()


def test_the_prefilter_agrees_with_checking_every_keyword() -> None:
    rng = random.Random(11)
    pieces = [*WORDS, *(w[: len(w) // 2] for w in WORDS), *(w[1:] for w in WORDS), " ", "x",
              "_", "-", "k", "3", "1"]
    keywords = _Keywords(load_rules())
    for i in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        text += " " * SHORT_TEXT if i % 2 else ""  # every other one past the short texts' path
        assert keywords.present(text) == {w for w in WORDS if w in text}, text


@pytest.mark.parametrize("padding", [0, SHORT_TEXT])  # short texts, and long ones
def test_the_finder_agrees_with_in_on_random_words_and_texts(padding: int) -> None:
    rng = random.Random(5)
    alphabet = "abc_-k~é"
    for _ in range(300):
        words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))
                 for _ in range(rng.randint(1, 8))}
        finder = WordFinder(words)
        for _ in range(20):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
            text = text + "\n" * padding if rng.random() < 0.5 else "\n" * padding + text
            expected = {w for w in words if w in text}
            assert finder.present(text) == expected, (words, text)
            assert finder.any_in(text) == bool(expected), (words, text)


def test_the_masking_keywords_are_found_the_same_way() -> None:
    finder = WordFinder(KEYWORDS)
    long = " " * SHORT_TEXT
    for word in KEYWORDS:
        assert finder.present(f"x {word} y") >= {word}
        assert finder.present(f"x {word} y{long}") >= {word}
        assert finder.any_in(word) and finder.any_in(word + long)
    assert not finder.any_in("a plain line of prose, nothing to see")
    assert not finder.any_in("a plain line of prose, nothing to see" + long)
