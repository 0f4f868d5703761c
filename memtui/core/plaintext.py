"""Text from disk made safe to show: control characters escaped, never interpreted.

Memory files, their names and their frontmatter come from cloned repositories: an ESC or OSC
sequence in a description would retitle or clear the user's terminal, a newline in a file name
would split a preview line, a bidi override would make a line read differently than it is.
Every view (TUI and CLI) passes such text through :func:`escape_controls` before showing it, and
renders it as plain text (never as Rich markup).
"""

from __future__ import annotations

from functools import cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    import re

# C0 controls, DEL, C1 controls, and the Unicode bidi embedding/override/isolate controls and
# line/paragraph separators (they reorder or break what a terminal shows).
_OTHER = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
# Lone surrogates: a file name's undecodable bytes (``\udcff`` is the byte 0xff, Python's
# surrogateescape). Printed raw they are invalid UTF-8 (or an encoding error); shown as
# ``\xff``, and in JSON as the ``\udcff`` escape (the same string again for a reader).
_SURROGATES = "\ud800-\udfff"
# Every character of these classes is one ``str.isprintable`` rejects (Cc, Cf, Zl, Zp, Cs): a
# printable text holds none, and is returned without a pattern being compiled or run (the
# patterns are compiled on first use: most runs print only plain text).


@cache
def _single_line() -> re.Pattern[str]:
    import re

    return re.compile(f"[\x00-\x1f{_OTHER}{_SURROGATES}]")


@cache
def _multi_line() -> re.Pattern[str]:
    import re

    return re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER}{_SURROGATES}]")  # keeps \t (09) and \n (0a)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_controls(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\n``, ``\\u202e``).

    With ``keep_newlines`` (file bodies), ``\\n`` and ``\\t`` stay as they are; everything else,
    ``\\r`` included, is escaped. Without it (names, descriptions, one-line fields) newlines are
    escaped too, so one value always stays on one line.
    """
    if text.isprintable():
        return text
    pattern = _multi_line() if keep_newlines else _single_line()
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


def has_controls(text: str) -> bool:
    """Whether :func:`escape_controls` would change ``text`` (newlines included)."""
    return not text.isprintable() and _single_line().search(text) is not None


def escape_diff(unified: str, rel: str) -> str:
    """A unified diff of the file ``rel`` made safe to show: contents escaped as a body, and the
    file name in the ``---`` / ``+++`` header lines escaped whole, so a newline in the name
    cannot split a header into a line that reads as content."""
    shown = escape_controls(unified, keep_newlines=True)
    if not has_controls(rel):
        return shown
    kept, escaped = escape_controls(rel, keep_newlines=True), escape_controls(rel)
    for header in ("--- a/", "+++ b/"):
        shown = shown.replace(header + kept, header + escaped, 1)
    return shown


# What json.dumps(..., ensure_ascii=False) leaves raw: DEL, C1 controls, bidi controls, the
# line/paragraph separators and lone surrogates (it escapes only C0, quote and backslash).
@cache
def _json_raw() -> re.Pattern[str]:
    import re

    return re.compile(f"[{_OTHER}{_SURROGATES}]")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_safe(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with the control characters
    JSON leaves raw written as ``\\uXXXX`` escapes: the same JSON value, and no raw control
    character for a terminal to act on. Such characters only occur inside strings, where the
    escape means the same character."""
    if (text.isascii() and "\x7f" not in text) or text.isprintable():
        return text
    if _json_raw().search(text) is None:
        return text
    return _json_raw().sub(_json_escape, text)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 file``, ``2 files``, ``1,200 files`` (``plural`` for a noun that is not +s)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
