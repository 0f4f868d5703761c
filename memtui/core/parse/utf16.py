"""UTF-16 code unit arithmetic: Claude Code measures strings the way JavaScript does."""

from __future__ import annotations


def units(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (JavaScript's ``string.length``)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


_NOT_A_FOUR_BYTE_LEAD = bytes(b for b in range(256) if not 0xF0 <= b <= 0xF4)


def units_and_bytes(text: str) -> tuple[int, int]:
    """``units(text)`` and the length of ``text`` in UTF-8 (lone surrogates: 3 bytes, 1 unit),
    from one encoding: a character takes 2 units exactly when UTF-8 takes 4 bytes for it, and
    only such a sequence starts with a byte from F0 to F4."""
    encoded = text.encode("utf-8", "surrogatepass")
    return len(text) + len(encoded.translate(None, _NOT_A_FOUR_BYTE_LEAD)), len(encoded)


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
