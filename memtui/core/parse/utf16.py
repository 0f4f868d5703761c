"""UTF-16 code unit arithmetic: Claude Code measures strings the way JavaScript does."""

from __future__ import annotations


def units(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (JavaScript's ``string.length``)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def prefix_by_units(text: str, limit: int) -> str:
    """The longest prefix of ``text`` that is at most ``limit`` UTF-16 units.

    JavaScript's ``slice(0, n)`` can split a surrogate pair; a Python ``str`` cannot hold half a
    pair, so a character straddling the limit is left out (its high surrogate alone would be
    one unit in JS; the callers only use this for ASCII-dash names and cut positions).
    """
    if limit <= 0:
        return ""
    count = 0
    for i, ch in enumerate(text):
        count += 2 if ord(ch) > 0xFFFF else 1
        if count > limit:
            return text[:i]
    return text


def index_of_unit(text: str, unit: int) -> int:
    """The ``str`` index of the character that starts at or after UTF-16 offset ``unit``."""
    count = 0
    for i, ch in enumerate(text):
        if count >= unit:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(text)
