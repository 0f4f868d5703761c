"""UTF-16 code unit arithmetic: Claude Code measures strings the way JavaScript does."""

from __future__ import annotations

CHUNK = 1 << 15
"""Characters encoded at a time to measure a long text: the encoded copy of a runaway index
(7 MB) would be fresh memory, every page of it a fault; a chunk's copy reuses the last one's."""


def encoded_length(text: str, encoding: str) -> int:
    """``len(text.encode(encoding, "surrogatepass"))``, without encoding the whole text at once."""
    if len(text) <= CHUNK:
        return len(text.encode(encoding, "surrogatepass"))
    return sum(
        len(text[start : start + CHUNK].encode(encoding, "surrogatepass"))
        for start in range(0, len(text), CHUNK)
    )


def units(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (JavaScript's ``string.length``)."""
    if text.isascii():
        return len(text)
    return encoded_length(text, "utf-16-le") // 2


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
