"""Which of many short words occur in a text: the keyword prefilter of the secret rules (the
scanner's, and the output masking's, which must not load the rules to say a text holds none).

Each word is looked for only where its rarest character (:data:`COMMONEST_FIRST`) occurs in the
text: ``char in text`` first (a scan in C); the words sharing that character are then looked
for together with one pattern that starts with it, the rest of each word checked around each
occurrence (the regex engine jumps from one occurrence of a leading literal to the next; a
pattern of all words, starting with any of a dozen letters, is tried at nearly every position
of a text and took twice as long on a large home's memories); only when that pattern matches
is each of its words looked for with ``in``. The result is exactly the words that occur, as
checking each with ``in`` would give, which is what the tests compare it with.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

COMMONEST_FIRST = " etsoainrdhlcmup`\nf,ygw-.b\"()kv:0/|j2;x_1'][5*#364879zq~"
"""Characters of lower-cased markdown prose by how often they occur, the commonest first
(counted on this project's docs); any other character is rarer than all of these."""


def _rarity(char: str) -> int:
    position = COMMONEST_FIRST.find(char)
    return len(COMMONEST_FIRST) if position < 0 else position


def anchor(word: str) -> int:
    """The position in ``word`` of its rarest character (the last of equally rare ones)."""
    return max(range(len(word)), key=lambda i: (_rarity(word[i]), i))


SHORT_TEXT = 512
"""A text up to this long is looked for each word with ``in`` (as fast, and nothing to
compile: a warm ``scan --json`` only checks a few short strings per store)."""

Group = tuple[str, str | None, tuple[str, ...]]
"""A character, the pattern of the words anchored at it (None for one word), the words."""


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled once, when first needed (the secret modules' patterns)."""
    return re.compile(pattern)


class WordFinder:
    """The words of ``words`` (not empty) that occur in a text, by their rarest characters
    (each group's pattern compiled when a long text first needs it)."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(sorted({w for w in words if w}))
        by_anchor: dict[str, list[tuple[int, str]]] = {}
        for word in self.words:
            at = anchor(word)
            by_anchor.setdefault(word[at], []).append((at, word))
        groups: list[Group] = []
        for char, placed in sorted(by_anchor.items(), key=lambda item: -_rarity(item[0])):
            group = tuple(word for _at, word in placed)
            pattern = None
            if len(placed) > 1:  # one pattern for all: the char, then each word around it
                around = "|".join(
                    (f"(?<={re.escape(word[: at + 1])})" if at else "") + re.escape(word[at + 1:])
                    for at, word in placed
                )
                pattern = f"{re.escape(char)}(?:{around})"
            groups.append((char, pattern, group))
        self.groups = tuple(groups)

    def present(self, text: str) -> set[str]:
        """Every word that occurs in ``text``."""
        if len(text) <= SHORT_TEXT:
            return {word for word in self.words if word in text}
        found: set[str] = set()
        for char, pattern, group in self.groups:
            if char not in text:
                continue
            if pattern is None:
                if group[0] in text:
                    found.add(group[0])
            elif compiled(pattern).search(text) is not None:
                found.update(word for word in group if word in text)
        return found

    def any_in(self, text: str) -> bool:
        """Whether any word occurs in ``text``."""
        if len(text) <= SHORT_TEXT:
            return any(word in text for word in self.words)
        for char, pattern, group in self.groups:
            if char not in text:
                continue
            if pattern is not None:
                if compiled(pattern).search(text) is not None:  # a match is one of the words
                    return True
            elif group[0] in text:
                return True
        return False
