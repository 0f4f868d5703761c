"""JavaScript string semantics Claude Code's code relies on: what ``String.prototype.trim`` and
the RegExp class ``\\s`` count as whitespace (ECMAScript WhiteSpace + LineTerminator)."""

from __future__ import annotations

# ECMAScript WhiteSpace + LineTerminator: what String.prototype.trim and RegExp \s match.
JS_WS_CLASS = (
    "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)


JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    """``String.prototype.trimStart``."""
    return text.lstrip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """``String.prototype.trimEnd``."""
    return text.rstrip(JS_WHITESPACE)


def js_trim_end_at(text: str, start: int, end: int) -> int:
    """Where ``js_trim_end(text[start:end])`` ends in ``text``, copying only a short tail."""
    tail = text[max(start, end - 64) : end]
    kept = tail.rstrip(JS_WHITESPACE)
    if not kept:  # the tail is all whitespace (or short): trim the whole slice
        return start + len(js_trim_end(text[start:end]))
    return end - (len(tail) - len(kept))


def js_trim_start_at(text: str) -> int:
    """How many characters ``js_trim_start`` removes from ``text``, without copying it."""
    head = text[:64]
    kept = head.lstrip(JS_WHITESPACE)
    if not kept:
        return len(text) - len(js_trim_start(text))
    return len(head) - len(kept)
