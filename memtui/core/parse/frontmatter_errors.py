"""What ruamel makes of one common hand-broken header, without importing ruamel (issue 25: a cold
scan paid ~40 ms to import it for one file's message).

The shape: clean ``key: value`` lines, then a value opening a flow sequence that is never closed
(``name: [unclosed``), whose words run on to a later ``key:`` line. ruamel reads the words as one
plain scalar across the lines, meets the ``:`` of that line where a sequence needs ``,`` or
``]``, and fails with "expected ',' or ']', but got ':'" on that line. Claude Code then retries
with its quoting (``name: "[unclosed"``): when the fast path reads the quoted text, that is the
result (the fast path gives what ruamel gives); when the quoted text has a ``key:`` line indented
under a finished ``key: value`` line, ruamel fails on it too and the first message stands.
Anything else returns None and ruamel decides. ``tests/core/parse/test_frontmatter_errors.py``
compares every answer with ruamel's on generated variants.
"""

from __future__ import annotations

from memtui.core.parse.lazyre import lazy_re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    FastLoad = Callable[[str], "dict[str, Any] | None"]

_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
_WORDS = r"[A-Za-z0-9]+(?: [A-Za-z0-9]+)*"
_OPENING = lazy_re(rf"{_KEY}: +\[{_WORDS}")
"""``key: [words``: a flow sequence whose first entry is a plain scalar of words."""
_RUN_ON = lazy_re(rf" *{_WORDS}")
"""A line of words only: the scalar goes on."""
_KEY_LINE = lazy_re(rf" *{_KEY}:(?: .*)?")
"""A line whose ``:`` ends the scalar: the error."""
_INDENTED_KEY = lazy_re(rf" +{_KEY}:(?: .*)?")

Explained = tuple["dict[str, Any] | None", "str | None", bool]
"""``(data, error, retried)``: data None when the header does not load."""


def _clean_prefix(lines: list[str], fast_load: FastLoad) -> bool:
    """The lines are top-level ``key: value`` lines the fast path reads, each with its value
    (no block opened), or blank: ruamel parses them without complaint."""
    keys = sum(1 for line in lines if line.strip(" "))
    if not keys:
        return True
    if any(line.startswith(" ") for line in lines):
        return False
    data = fast_load("\n".join(lines) + "\n")
    return data is not None and len(data) == keys and all(isinstance(v, str) for v in data.values())


def _unclosed_sequence_error(raw: str, fast_load: FastLoad) -> str | None:
    """ruamel's message for ``raw`` in the shape above, or None when ``raw`` is not in it."""
    lines = raw.split("\n")
    i = next((n for n, line in enumerate(lines) if "[" in line or "{" in line), None)
    if i is None or _OPENING.fullmatch(lines[i]) is None:
        return None
    if not _clean_prefix(lines[:i], fast_load):
        return None
    for j in range(i + 1, len(lines)):
        line = lines[j]
        if _KEY_LINE.fullmatch(line) is not None:
            return f"bad YAML in frontmatter: expected ',' or ']', but got ':' (line {j + 2})"
        if line.strip(" ") and _RUN_ON.fullmatch(line) is None:
            return None
    return None


def _retry_fails(quoted: str, fast_load: FastLoad) -> bool:
    """ruamel fails on ``quoted`` for sure: clean lines, then a ``key:`` line indented under
    the last of them (a finished value: a mapping cannot start there)."""
    lines = quoted.split("\n")
    for i, line in enumerate(lines):
        if _INDENTED_KEY.fullmatch(line) is not None:
            return (i > 0 and bool(lines[i - 1].strip(" "))
                    and _clean_prefix(lines[:i], fast_load))
        if line.startswith(" "):
            return False
    return False


def explain(
    raw: str, fast_load: FastLoad, quote: Callable[[str], str]
) -> Explained | None:
    """What loading ``raw`` with ruamel and Claude Code's retry gives, when known without
    ruamel; None otherwise. ``fast_load`` and ``quote`` are the frontmatter module's fast path
    and Claude Code's quoting (passed in: that module imports this one)."""
    if not raw.isascii() or not raw.replace("\t", "").replace("\n", "").isprintable():
        return None  # ruamel's reader checks every character first: tabs, newlines and
        # printable ASCII only (no CR, a line break to YAML; no control it rejects)
    error = _unclosed_sequence_error(raw, fast_load)
    if error is None:
        return None
    quoted = quote(raw)
    if quoted == raw:
        return None, error, False
    retried = fast_load(quoted)
    if retried is not None:
        return retried, None, True
    if _retry_fails(quoted, fast_load):
        return None, error, False
    return None
