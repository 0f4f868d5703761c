"""One pattern that finds any of many words: the keyword prefilter of the secret rules (the
scanner's, and the output masking's, which must not load the rules to say a text holds none)."""

from __future__ import annotations

import re


def trie(words: list[str]) -> str:
    """A pattern matching any of ``words`` (sorted, unique, not empty), as a trie of their
    characters: the regex engine tries one branch per character, not every word at every
    position; an optional tail is greedy, so the longest word at a position matches."""
    branches: dict[str, list[str]] = {}
    for word in words:
        branches.setdefault(word[0], []).append(word[1:])
    alternatives = []
    for first, tails in branches.items():
        rest = [t for t in tails if t]
        tail = trie(rest) if rest else ""
        if rest and len(rest) < len(tails):  # a word ends here and longer ones go on
            tail = f"(?:{tail})?"
        alternatives.append(re.escape(first) + tail)
    return alternatives[0] if len(alternatives) == 1 else f"(?:{'|'.join(alternatives)})"
