"""Frontmatter of memory files, parsed the way Claude Code does
(docs/claude-code-rules.md#memory-files-and-frontmatter).

Parsing uses ruamel.yaml in YAML 1.2 mode with timestamps kept as strings. A fast path reads the
simple ``key: value`` subset real memory files use without ruamel (which is imported only when the
slow path runs, to keep start-up cheap); it gives the same result or declines. Editing goes through
:class:`memtui.core.parse.frontmatter_edit.MemoryDocument` (a module of its own: a scan does not
edit).
"""

from __future__ import annotations

import re
from functools import cache

from memtui.core.model import Frontmatter
from memtui.core.parse.lazyre import lazy_re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import SafeConstructor

    from memtui.core.model import FrontmatterLayout

BOM = "\ufeff"
DELIMITER = "---"
# The line of the opening delimiter is line 1, so the first YAML line is line 2 of the file.
_FIRST_YAML_LINE = 2

# CC's retry rule: a `key: value` line whose value holds one of these gets double-quoted.
_SPECIAL = lazy_re(r"[{}\[\]*&#!|>%@`]|: ")
# JavaScript's \s and `.` (CC's regex is JS): spelled out because Python's differ slightly.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_FLOW_BRACKET = lazy_re(r"[\[\]{}]")

MAX_FLOW_DEPTH = 100
"""Flow collections (``[`` / ``{``) nested deeper than this are not handed to ruamel: its pure
Python parser takes seconds on a 1,500-deep line (and a RecursionError past that)."""
MAX_YAML_CHARS = 256 * 1024
"""Frontmatter longer than this is not parsed (a header read is at most 64 KB anyway)."""

_SIMPLE_LINE = lazy_re(rf"([a-zA-Z_-]+):[{_JS_SPACE}]+([^\n\r\u2028\u2029]+)")


# --------------------------------------------------------------------------- decoding


def decode_text(data: bytes) -> tuple[str, list[str]]:
    """Decode UTF-8 leniently (bad bytes become U+FFFD) and say what was wrong with the bytes."""
    problems: list[str] = []
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(f"invalid UTF-8 at byte {exc.start}")
    if b"\x00" in data:
        problems.append("binary file (NUL byte)")
    return data.decode("utf-8", errors="replace"), problems


# --------------------------------------------------------------------------- splitting


_Span = tuple[int, int, int, int]
"""Offsets of a frontmatter block in a text, ``(start, open_end, close_start, close_end)``:
``[start, open_end)`` is the opening line, ``[open_end, close_start)`` the YAML,
``[close_start, close_end)`` the closing line."""


def _is_delimiter(line: str) -> bool:
    """``line`` (without its ``\\n``) is exactly ``---``, a trailing ``\\r`` allowed."""
    return line in (DELIMITER, DELIMITER + "\r")


def _closing_line(text: str, pos: int) -> tuple[int, int] | None:
    """``(start, end)`` of the first ``---`` line starting at or after ``pos`` (a line start)."""
    hit = text.find("\n" + DELIMITER, pos - 1)
    while hit >= 0:
        start = hit + 1
        after = start + len(DELIMITER)
        nl = text.find("\n", after)
        line_end = len(text) if nl < 0 else nl
        if line_end == after or (line_end == after + 1 and text[after] == "\r"):
            return start, len(text) if nl < 0 else nl + 1
        hit = text.find("\n" + DELIMITER, start)
    return None


def _find_span(text: str) -> _Span | None:
    """Locate the frontmatter: ``---`` at offset 0 (after a BOM) up to the next ``---`` line."""
    start = 1 if text.startswith(BOM) else 0
    first_nl = text.find("\n", start)
    if first_nl < 0 or not _is_delimiter(text[start:first_nl]):
        return None
    closing = _closing_line(text, first_nl + 1)
    if closing is None:
        return None
    return start, first_nl + 1, closing[0], closing[1]


# --------------------------------------------------------------------------- YAML loading


@cache
def _string_timestamp_constructor() -> type[SafeConstructor]:
    """The safe constructor, except that timestamps stay the strings they were written as.

    Built on first use so that importing this module does not import ruamel.
    """
    import warnings

    from ruamel.yaml.constructor import SafeConstructor
    from ruamel.yaml.error import YAMLWarning

    # ruamel warns (on stderr) about things like a reused anchor, quoting the file's text: a
    # memory file must not write to the user's terminal, and its problems are found otherwise.
    warnings.filterwarnings("ignore", category=YAMLWarning)

    class _StringTimestampConstructor(SafeConstructor):
        pass

    _StringTimestampConstructor.add_constructor(
        "tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str
    )
    return _StringTimestampConstructor


def _new_loader() -> YAML:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _string_timestamp_constructor()
    return yaml


def _load_yaml(raw: str) -> Any:
    """Load one YAML document; raises whatever ruamel raises."""
    return _new_loader().load(raw)


def _describe_error(exc: Exception) -> str:
    """A short human message for a YAML failure, with the file line when known."""
    from ruamel.yaml.error import MarkedYAMLError

    if isinstance(exc, MarkedYAMLError):
        problem = exc.problem or exc.context or type(exc).__name__
        mark = exc.problem_mark or exc.context_mark
        where = f" (line {mark.line + _FIRST_YAML_LINE})" if mark is not None else ""
        return f"bad YAML in frontmatter: {problem}{where}"
    if isinstance(exc, RecursionError):
        return "bad YAML in frontmatter: nested too deeply"
    first = str(exc).strip().splitlines()
    return f"bad YAML in frontmatter: {first[0] if first else type(exc).__name__}"


def _to_plain(value: Any) -> Any:
    """Turn a loaded YAML value into plain dict/list/str/int/float/bool/None.

    Shared nodes (YAML aliases) are converted once, so alias bombs stay cheap; a node that
    contains itself becomes None at the point of recursion.
    """
    done: dict[int, Any] = {}
    active: set[int] = set()

    def convert(item: Any) -> Any:
        if item is None or isinstance(item, bool | int | float | str):
            return item
        if isinstance(item, bytes):
            return item.decode("utf-8", errors="replace")
        key = id(item)
        if key in done:
            return done[key]
        if key in active:
            return None
        active.add(key)
        result: Any
        if isinstance(item, dict):
            result = {_plain_key(k): convert(v) for k, v in item.items()}
        elif isinstance(item, list | tuple | set | frozenset):
            result = [convert(v) for v in item]
        else:
            result = str(item)
        active.discard(key)
        done[key] = result
        return result

    return convert(value)


def _plain_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


# --------------------------------------------------------------------------- CC's retry rule


def _cc_quote(value: str) -> str:
    """Double-quote ``value`` the way CC's retry does: escape backslashes and double quotes."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quote_line(line: str) -> str:
    """Quote the value of one ``key: value`` line when CC's rule says so (``\\r`` kept)."""
    ending = "\r" if line.endswith("\r") else ""
    content = line[: len(line) - len(ending)]
    match = _SIMPLE_LINE.fullmatch(content)
    if match is None:
        return line
    key, value = match.group(1), match.group(2)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return line
    if not _SPECIAL.search(value):
        return line
    return f"{key}: {_cc_quote(value)}{ending}"


def quote_problematic_values(raw: str) -> str:
    """CC's fallback: double-quote simple ``key: value`` values holding YAML special chars."""
    return "\n".join(_quote_line(line) for line in raw.split("\n"))


# --------------------------------------------------------------------------- fast path
#
# Real memory frontmatter is a handful of `key: plain string` lines, sometimes with one nested
# `metadata:` block. Loading that with ruamel costs ~300 µs; the scan reads thousands of headers.
# The fast path reads exactly that subset and returns None (decline, use ruamel) for anything
# else, so that whatever it accepts gets the very result ruamel would give.

# A superset of the plain scalars YAML 1.2 (and 1.1, for numbers) resolves to something other than
# a string: null, booleans, ints, floats (sexagesimal too), merge and value keys. Timestamps are
# not listed: this module keeps them as their text. The first lookahead is a quick pre-check.
_NON_STRING = (
    r"(?=[-~nNtTfF=<+.0-9_eE])(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|=|<<"
    r"|[-+]?(?:0[xXoObB][0-9a-fA-F_]*|[0-9_.]*(?:[eE][-+]?[0-9_]*)?|[0-9_]*(?::[0-9_.]*)+"
    r"|\.(?:inf|Inf|INF|nan|NaN|NAN)))"
)
# Characters a fast-path value never holds: ":" and "#" (allowed only where YAML keeps them in a
# plain scalar, see below), tab, characters ruamel's reader rejects, and those acting as
# whitespace or line breaks in (some) YAML readers (C1 controls with NEL, U+2028/9, BOM).
_UNSAFE = r":#\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff"
# A plain scalar that does not start with an indicator (or space), holds no ": " and no " #" and
# does not end with ":"; trailing spaces included (the caller strips them).
_PLAIN_VALUE = (
    rf"[^ ?,\[\]{{}}&*!|>'\"%@`{_UNSAFE}-][^{_UNSAFE}]*"
    rf"(?:(?::(?! |$)|(?<! )#)[^{_UNSAFE}]*)*"
)
# A double-quoted scalar on one line without escapes (no backslash): its text is exactly what
# stands between the quotes (":" and "#" included); empty ones are left to ruamel.
_QUOTED_VALUE = r'"[^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]+"'
# One line: groups (indent, key, value, rest). ``key: value`` or ``key:`` fills the first three
# (value "" when absent) and leaves ``rest`` empty; a blank line leaves key and rest empty; any
# other line lands in ``rest``. Keys stay far below ruamel's 1024-character simple-key limit.
_FAST_LINE = lazy_re(
    rf"^( *)(?:(?!{_NON_STRING}:)([A-Za-z_][A-Za-z0-9_-]{{0,499}}):"
    rf"(?: +(?!{_NON_STRING} *$)({_PLAIN_VALUE}|{_QUOTED_VALUE}))? *$|(.*))",
    re.MULTILINE,
)


def _fast_load(raw: str) -> dict[str, Any] | None:
    """Load the simple subset (see above) of frontmatter YAML; None when ``raw`` is outside it."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n")
        if "\r" in raw:  # a lone CR is a line break to YAML
            return None
    data: dict[str, Any] = {}
    block: dict[str, str] | None = None  # the nested mapping being filled, if any
    block_indent = ""  # its indentation, empty until its first line is seen
    for indent, key, value, rest in _FAST_LINE.findall(raw):
        if not key:
            if rest:
                return None
            continue
        value = value.rstrip(" ")
        if value.startswith('"'):
            value = value[1:-1]  # _QUOTED_VALUE: the text between the quotes, as it stands
        if indent:
            if block is None or not value or key in block:
                return None
            if block_indent and indent != block_indent:
                return None
            block_indent = indent
            block[key] = value
        elif block == {} or key in data:  # a `key:` without children is null: decline
            return None
        elif value:
            data[key] = value
            block = None
        else:
            block = data[key] = {}
            block_indent = ""
    return None if block == {} else data


# --------------------------------------------------------------------------- parsing


def _type_name(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return type(value).__name__


def _load_with_retry(raw: str) -> tuple[Any, str | None, bool]:
    """Load ``raw``; on failure retry once with CC's quoting. Returns (value, error, retried)."""
    try:
        return _load_yaml(raw), None, False
    except Exception as first:  # ruamel raises many unrelated types; none may escape
        error = _describe_error(first)
    quoted = quote_problematic_values(raw)
    if quoted == raw:
        return None, error, False
    try:
        return _load_yaml(quoted), None, True
    except Exception:
        return None, error, False


def _layout_of(data: dict[str, Any]) -> FrontmatterLayout:
    return "metadata" if isinstance(data.get("metadata"), dict) else "flat"


def _frontmatter(
    data: dict[str, Any], raw: str, end: int, error: str | None, retried: bool
) -> Frontmatter:
    return Frontmatter(
        data=data,
        raw=raw,
        end=end,
        present=True,
        layout=_layout_of(data),
        error=error,
        retried=retried,
    )


def _flow_too_deep(raw: str, limit: int = MAX_FLOW_DEPTH) -> bool:
    """Whether ``[`` / ``{`` nest deeper than ``limit`` in ``raw``. Quotes are not looked at,
    so brackets inside a quoted string count too: the bound errs on the safe side."""
    if raw.count("[") + raw.count("{") <= limit:
        return False
    depth = 0
    for match in _FLOW_BRACKET.finditer(raw):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        elif depth:
            depth -= 1
    return False


def _too_costly(raw: str) -> str | None:
    """Why ``raw`` is not handed to ruamel at all (too long, nested too deeply), or None."""
    if len(raw) > MAX_YAML_CHARS:
        return (
            f"bad YAML in frontmatter: too long to parse ({len(raw) // 1024} KB, "
            f"limit {MAX_YAML_CHARS // 1024} KB)"
        )
    if _flow_too_deep(raw):
        return f"bad YAML in frontmatter: nested too deeply (over {MAX_FLOW_DEPTH} levels)"
    return None


def _ruamel_frontmatter(raw: str, end: int) -> Frontmatter:
    """The slow path: load ``raw`` with ruamel (and CC's retry), report problems as data."""
    refused = _too_costly(raw)
    if refused is not None:
        return _frontmatter({}, raw, end, refused, False)
    loaded, error, retried = _load_with_retry(raw)
    data: dict[str, Any] = {}
    if error is None:
        plain = _to_plain(loaded)
        if isinstance(plain, dict):
            data = plain
        elif plain is not None:
            error = f"frontmatter is not a mapping (found {_type_name(plain)})"
            retried = False
    return _frontmatter(data, raw, end, error, retried)


def _parse_fast_only(text: str) -> Frontmatter | None:
    """:func:`parse_frontmatter` when the fast path accepts ``text``, else None."""
    span = _find_span(text)
    if span is None:
        return Frontmatter()
    _start, open_end, close_start, close_end = span
    raw = text[open_end:close_start]
    fast = _fast_load(raw)
    return None if fast is None else _frontmatter(fast, raw, close_end, None, False)


def _parse_with_ruamel(text: str) -> Frontmatter:
    """:func:`parse_frontmatter` without the fast path (the reference the fast path must match)."""
    span = _find_span(text)
    if span is None:
        return Frontmatter()
    _start, open_end, close_start, close_end = span
    return _ruamel_frontmatter(text[open_end:close_start], close_end)


def _parse_explained(text: str) -> Frontmatter | None:
    """:func:`parse_frontmatter` when :mod:`memtui.core.parse.frontmatter_errors` knows what
    ruamel gives for ``text``'s header (a common hand-broken one), else None."""
    from memtui.core.parse.frontmatter_errors import explain

    span = _find_span(text)
    if span is None:
        return Frontmatter()
    _start, open_end, close_start, close_end = span
    raw = text[open_end:close_start]
    if _too_costly(raw) is not None:
        return None
    explained = explain(raw, _fast_load, quote_problematic_values)
    if explained is None:
        return None
    data, error, retried = explained
    return _frontmatter(data or {}, raw, close_end, error, retried)


def parse_frontmatter(text: str) -> Frontmatter:
    """Parse the frontmatter of ``text``; never raises, problems go to ``error``."""
    fast = _parse_fast_only(text)
    if fast is not None:
        return fast
    explained = _parse_explained(text)
    return explained if explained is not None else _parse_with_ruamel(text)


def body_of(text: str, fm: Frontmatter) -> str:
    """The text after the frontmatter (the whole text minus a leading BOM when there is none)."""
    if fm.present:
        return text[fm.end :]
    return text[1:] if text.startswith(BOM) else text
