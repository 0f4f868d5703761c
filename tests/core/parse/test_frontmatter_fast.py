"""The frontmatter fast path: it must agree with ruamel on everything it accepts, and accept the
files memory stores really hold (docs/claude-code-rules.md#memory-files-and-frontmatter)."""

from __future__ import annotations

import subprocess
import sys
import timeit
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO
from hypothesis import event, given, settings
from hypothesis import strategies as st

from memtui.core.model import Frontmatter
from memtui.core.parse.frontmatter import (
    _find_span,
    _parse_fast_only,
    _parse_with_ruamel,
    decode_text,
    parse_frontmatter,
)

FLAT = (
    "---\n"
    "name: testing-policy\n"
    "description: one line, specific\n"
    "type: feedback\n"
    "originSessionId: 2afc901a-1111-2222-3333-444455556666\n"
    "---\n"
    "Run the whole suite before pushing.\n"
)

METADATA = (
    "---\n"
    "name: testing-policy\n"
    "description: one line, specific\n"
    "metadata: \n"
    "  node_type: memory\n"
    "  type: feedback\n"
    "  originSessionId: 2afc901a-1111-2222-3333-444455556666\n"
    "  modified: 2026-08-15T18:58:28.638Z\n"
    "---\n"
    "Run the whole suite before pushing.\n"
)

# Memory files as CC writes them (both layouts, CRLF, BOM, unicode, punctuation, odd spacing).
REAL_FILES = {
    "feedback_testing.md": FLAT + "**Why:** CI is slow.\n**How to apply:** run `make test`.\n",
    "project_release.md": METADATA + "See [[testing-policy]].\n",
    "user_role.md": (
        "---\n"
        "name: user-role\n"
        "description: Senior dev, prefers terse answers; works on the payments service (Go + SQL)\n"
        "type: user\n"
        "---\n\nThe user is a backend engineer.\n"
    ),
    "reference_dashboards.md": (
        "---\r\n"
        "name: grafana-dashboards\r\n"
        "description: Where latency dashboards live — https://grafana.example.com/d/abc?x=1#panel\r\n"
        "type: reference\r\n"
        "---\r\n"
        "Body.\r\n"
    ),
    "project_freeze.md": (
        "\ufeff---\n"
        "name: merge-freeze\n"
        "description: No merges after 2026-03-05 until the mobile release is cut\n"
        "metadata:\n"
        "    node_type: memory\n"
        "    type: project\n"
        "\n"
        "    originSessionId: 0b6c3c1e-9f3a-4d2b-8c1d-5e6f7a8b9c0d\n"
        "    modified: 2026-03-04T09:12:00.000Z\n"
        "---\n"
        "Freeze.\n"
    ),
    "feedback_i18n.md": (
        "---\n"
        "name: übersetzung-regeln\n"
        "description: 日本語のUIテキストは翻訳しない — keep it, it's on purpose (yes, really) 😀\n"
        "type: feedback   \n"
        "---\n"
        "Body.\n"
    ),
    "feedback_csharp.md": (
        "---\n"
        "name: csharp-style\n"
        "description: In C# use var; paths like C:\\src\\app and URLs like a:b are fine\n"
        "type: feedback\n"
        "tags_note: no\n"
        "---\n"
    ),
}

# Values met in the wild or at YAML's edges: strings, numbers, booleans, nulls, dates,
# indicators, comments, quotes, odd characters.
# fmt: off
VALUES = [
    "testing-policy", "one line, specific", "feedback", "memory",
    "2afc901a-1111-2222-3333-444455556666", "0b6c3c1e-9f3a-4d2b-8c1d-5e6f7a8b9c0d",
    "2026-08-15T18:58:28.638Z", "2026-08-15", "2026-08-15 18:58:28", "2026-8-5",
    "2026-08-15t18:58:28+02:00", "18:58", "1:20", "190:20:30.15", "yes", "no", "on", "off", "y",
    "n", "Y", "N", "YES", "On", "true", "True", "TRUE", "tRue", "false", "False", "FALSE",
    "truely", "null", "Null", "NULL", "nULL", "~", "none", "None", "nil", "0", "00", "12",
    "+12", "-12", "012", "0o17", "0O17", "0x1F", "0X1F", "0b101", "1_000", "_", "1e3", "1E3",
    "1e+3", "1.5e-3", ".5", "-.5", "1.", "1.5", "1.2.3", "v1.2.3", "0.0.1", "12abc", ".inf",
    "-.Inf", "+.INF", ".nan", ".NaN", "inf", "nan", "NaN", "e", "E5", "1e", "+", ".", "...",
    "=", "<<", "<b>bold</b>", "a=b", "C#", "a #b", "a#b", "a: b", "a:b", "x:",
    "http://x.y/z?q=1#frag", "ends with colon:", "it's", 'say "hi"', '"quoted"', "'single'",
    "[list]", "[wip] flaky", "{a: 1}", "a{b}c", "*alias", "&anchor x", "!tag x", "!!str 5", "|",
    ">", "|-", "%x", "@x", "`x`", "use `foo`", "- item", "-x", "-", "?x", "? x", "x?", ":x",
    ",x", "a,b", "a ,b", "#", "# c", "日本語テキスト", "emoji 😀", "ü-umlaut", "\u00a0nbsp",
    "nbsp\u00a0", "a\u3000b", "a\tb", "a\u2028b", "a\x85b", "\ufeffbom", "a\x7fb", "a\x01b",
    "x \\", "\\n", "a\\tb", "~x", "~/notes/todo.md", "multiple   spaces", "a - b", "a -- b",
    "a ? b", "a | b", "a > b", "100%", "50% done",
    '"a: b"', '"x # y"', '""', '"a\\"b"', '"a\\nb"', '"true"', '"12"', '" sp "', '"x" y',
    '"x" # c', '"a\tb"', '"é: ü"', '"unclosed', '"a""b"', "\"'x'\"", '"x\u0085y"',
]
# fmt: on

# Strings the fast path must take (it exists to be used).
# fmt: off
STRINGS_TAKEN_FAST = [
    "testing-policy", "one line, specific", "2afc901a-1111-2222-3333-444455556666",
    "2026-08-15T18:58:28.638Z", "2026-08-15", "2026-08-15 18:58:28", "yes", "no", "on", "off",
    "y", "tRue", "none", "C#", "a#b", "a:b", "http://x.y/z?q=1#frag", "it's", 'say "hi"',
    "a{b}c", "use `foo`", "x?", "a,b", "日本語テキスト", "emoji 😀", "\u00a0nbsp", "v1.2.3",
    "12abc", "inf", "nan", "a - b", "100%", "<b>bold</b>", "a=b", "~/notes/todo.md",
    '"quoted"', '"Accounts backlog: known bugs and open decisions"', '"x # y"', '"true"',
    '"12"', '" spaced "', '"it\'s"', '"[wip] {a: 1} *x &y !z |"', '"日本: 語"',
    '"9f3c2a71-4d8e-4b6a-9c1f-2e7d5b8a6c40"',
]
# fmt: on

# Scalars that do not load as strings: the fast path must leave them to ruamel.
# fmt: off
NON_STRINGS = [
    "true", "False", "null", "~", "12", "+12", "0o17", "0x1F", "1_000", "1e3", ".5", ".inf",
    ".nan", "=", "<<",
]
# fmt: on
# Strings in YAML 1.2 that look enough like numbers for the fast path to leave them to ruamel.
NUMBER_LIKE_STRINGS = ["1:20", "_", "1.2.3", "e", "...", "+", "."]


def fm_text(lines: list[str], eol: str = "\n") -> str:
    return "---" + eol + "".join(line + eol for line in lines) + "---" + eol + "body" + eol


def assert_same(fast: Frontmatter, slow: Frontmatter) -> None:
    """Equal in every field, key order included."""
    assert fast == slow
    assert list(fast.data) == list(slow.data)
    for key, value in fast.data.items():
        if isinstance(value, dict):
            assert list(value) == list(slow.data[key])


def fast_or_fail(text: str) -> Frontmatter:
    fast = _parse_fast_only(text)
    assert fast is not None, f"fast path declined {text!r}"
    return fast


# --------------------------------------------------------------------------- acceptance


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize("text", [FLAT, METADATA], ids=["flat", "metadata"])
def test_spec_layouts_take_the_fast_path(text: str, eol: str) -> None:
    text = text.replace("\n", eol)
    fast = fast_or_fail(text)
    assert_same(fast, _parse_with_ruamel(text))
    assert fast.error is None and fast.name == "testing-policy" and fast.type == "feedback"
    assert parse_frontmatter(text) == fast


def test_metadata_layout_fast_result() -> None:
    fast = fast_or_fail(METADATA)
    assert fast.layout == "metadata"
    assert fast.data == {
        "name": "testing-policy",
        "description": "one line, specific",
        "metadata": {
            "node_type": "memory",
            "type": "feedback",
            "originSessionId": "2afc901a-1111-2222-3333-444455556666",
            "modified": "2026-08-15T18:58:28.638Z",
        },
    }


@pytest.mark.parametrize("name", sorted(REAL_FILES))
def test_typical_memory_files_take_the_fast_path(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(REAL_FILES[name].encode("utf-8"))
    text, problems = decode_text(path.read_bytes())
    assert problems == []
    fast = fast_or_fail(text)
    assert_same(fast, _parse_with_ruamel(text))
    assert fast.error is None and fast.name and fast.description and fast.type


@pytest.mark.parametrize("value", STRINGS_TAKEN_FAST)
def test_string_values_take_the_fast_path(value: str) -> None:
    for lines in ([f"description: {value}"], ["metadata: ", f"  description: {value}"]):
        text = fm_text(lines)
        fast = fast_or_fail(text)
        assert_same(fast, _parse_with_ruamel(text))


@pytest.mark.parametrize("value", NON_STRINGS)
def test_values_that_are_not_strings_go_to_ruamel(value: str) -> None:
    text = fm_text([f"name: {value}"])
    assert _parse_fast_only(text) is None
    assert not isinstance(parse_frontmatter(text).data.get("name"), str)


@pytest.mark.parametrize("value", NUMBER_LIKE_STRINGS)
def test_number_like_strings_go_to_ruamel_and_stay_strings(value: str) -> None:
    text = fm_text([f"name: {value}"])
    assert _parse_fast_only(text) is None
    assert parse_frontmatter(text).data == {"name": value}


@pytest.mark.parametrize(
    "lines",
    [
        ["# a comment", "name: n"],
        ["name: n # trailing comment"],
        ["name: 'quoted'"],
        ['name: ""'],
        ['name: "a\\"b"'],
        ['name: "a\\nb"'],
        ['name: "x" # c'],
        ['name: "x" y'],
        ['name: "unclosed'],
        ['name: "a\tb"'],
        ["tags: [a, b]"],
        ["tags:", "  - a"],
        ["description: >", "  folded"],
        ["description: two", "  lines"],
        ["metadata:"],
        ["metadata:", "name: n"],
        ["metadata:", "  a: 1x", "    b: 2x"],
        ["metadata:", "    a: 1x", "  b: 2x"],
        ["metadata:", "  deep:", "    a: b"],
        ["name: a", "name: b"],
        ["metadata:", "  a: x", "  a: y"],
        ["name:\tn"],
        ["  name: n"],
        ["name : n"],
        ["name:n"],
        ["true: n"],
        ["_1: n"],
        ["&a name: n"],
        ["name: a\rb"],
        ["k" * 600 + ": long key"],
    ],
)
def test_anything_else_goes_to_ruamel(lines: list[str]) -> None:
    text = fm_text(lines)
    assert _parse_fast_only(text) is None
    assert_same(parse_frontmatter(text), _parse_with_ruamel(text))


def test_empty_frontmatter_is_fast() -> None:
    for text in ("---\n---\nbody\n", "---\n\n  \n---\n"):
        assert_same(fast_or_fail(text), _parse_with_ruamel(text))


def test_no_frontmatter() -> None:
    assert _parse_fast_only("# Title\n") == Frontmatter() == _parse_with_ruamel("# Title\n")


# --------------------------------------------------------------------------- differential


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(
    "shape",
    [
        "{k}: {v}",
        "{k}:  {v}   ",
        "metadata: \n  {k}: {v}",
        "metadata:\n   {k}: {v}\n   x: y",
        "name: n\nmetadata:\n  {k}: {v}\ntype: user",
    ],
)
def test_curated_values_agree(shape: str, value: str) -> None:
    for key in ("description", "node_type"):
        text = fm_text(shape.format(k=key, v=value).split("\n"))
        slow = _parse_with_ruamel(text)
        fast = _parse_fast_only(text)
        if fast is not None:
            assert_same(fast, slow)
        assert_same(parse_frontmatter(text), slow)


SAFE_KEYS = ["name", "description", "type", "node_type", "originSessionId", "modified", "x-a_b"]
# fmt: off
KEYS = [
    "name", "description", "type", "metadata", "node_type", "originSessionId", "modified",
    "x-custom", "_private", "Name", "yes", "on", "no", "true", "True", "null", "Null", "e",
    "E1", "_", "_1", "a_b-c", "tags",
]
# fmt: on
TRICKY_CHARS = [
    *"ab xyz:#-?,[]{}&*!|>'\"%@`~._+=<0123456789eE\\/",
    *["\t", "\u00a0", "é", "日", "😀", "\r", "\x85", "\u2028", "\ufeff", "\x00", "\x7f"],
]

ALL_KEYS = st.sampled_from(KEYS) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True)
tricky_text = st.text(alphabet=st.sampled_from(TRICKY_CHARS), max_size=12)
values = st.sampled_from(VALUES) | tricky_text
separators = st.sampled_from([": ", ": ", ": ", ":  ", ":", ":\t", " : "])
trailing = st.sampled_from(["", "", "", " ", "  ", "\t", " # c"])
# fmt: off
odd_lines = st.sampled_from([
    "# comment", "  # indented comment", "- item", "  - item", "key", "...", "--- x",
    "%YAML 1.2", "? a", "&a key: v", "\tkey: v", "  continuation", "tags: [a, b]", "desc: |",
    "x: >-", "'q': v", '"q": v', "k: 'v'", 'k: "v"', "k: {a: b}", "k: *x", "k: !!str 5",
    "<<: *x",
])
# fmt: on


@st.composite
def pieces(draw: st.DrawFn, weird: bool) -> list[str]:
    """A top-level line, a block, a blank line or (when ``weird``) an odd line."""
    safe = st.sampled_from(STRINGS_TAKEN_FAST)
    key_values = values if weird else st.one_of(safe, safe, safe, safe, values)
    fresh_keys = st.from_regex(r"[a-z][A-Za-z0-9_-]{2,9}", fullmatch=True)  # rarely repeat
    keys = ALL_KEYS if weird else st.one_of(st.sampled_from(SAFE_KEYS), fresh_keys, fresh_keys)
    sep = separators if weird else st.sampled_from([": ", ":  "])
    end = trailing if weird else st.sampled_from(["", " "])
    kind = draw(st.sampled_from(["top", "top", "block", "blank", "odd" if weird else "top"]))
    if kind == "top":
        return [f"{draw(keys)}{draw(sep)}{draw(key_values)}{draw(end)}"]
    if kind == "blank":
        return [draw(st.sampled_from(["", "   "]))]
    if kind == "odd":
        return [draw(odd_lines)]
    indent = " " * draw(st.integers(1, 4))
    head = draw(st.sampled_from(["metadata", "metadata", "extra"])) + ":"
    lines = [head + draw(st.sampled_from(["", " ", "  "]))]
    for _ in range(draw(st.integers(0 if weird else 1, 4))):
        line_indent = indent
        if weird and not draw(st.integers(0, 9)):
            line_indent = " " * draw(st.integers(0, 6))
        if draw(st.integers(0, 5)):
            lines.append(f"{line_indent}{draw(keys)}{draw(sep)}{draw(key_values)}{draw(end)}")
        else:
            lines.append(draw(st.sampled_from(["", indent, "  ", "  # c"] if weird else ["", " "])))
    return lines


@st.composite
def frontmatter_texts(draw: st.DrawFn) -> str:
    weird = draw(st.booleans())
    drawn = draw(st.lists(pieces(weird), max_size=7))
    lines = [line for piece in drawn for line in piece]
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    if weird and lines and not draw(st.integers(0, 9)):
        index = draw(st.integers(0, len(lines) - 1))
        lines[index] += draw(st.sampled_from(["\r", "\r\r", "\x85", "\u2028"]))
    return draw(st.sampled_from(["", "\ufeff"])) + fm_text(lines, eol)


@settings(max_examples=600, deadline=None)
@given(frontmatter_texts())
def test_fast_path_agrees_with_ruamel(text: str) -> None:
    slow = _parse_with_ruamel(text)
    fast = _parse_fast_only(text)
    event("fast" if fast is not None else "ruamel")
    if fast is not None:
        assert_same(fast, slow)
    assert_same(parse_frontmatter(text), slow)


# Pieces the fast path must accept: realistic keys and string values, blocks with even indents.
@st.composite
def safe_texts(draw: st.DrawFn) -> str:
    safe_value = st.sampled_from(STRINGS_TAKEN_FAST)
    used = draw(st.lists(st.sampled_from(SAFE_KEYS), unique=True, max_size=6))
    lines = [f"{key}: {draw(safe_value)}" for key in used]
    if draw(st.booleans()):
        indent = " " * draw(st.integers(1, 4))
        nested = draw(st.lists(st.sampled_from(SAFE_KEYS), unique=True, min_size=1, max_size=5))
        block = ["metadata:" + draw(st.sampled_from(["", " "]))]
        block += [f"{indent}{key}: {draw(safe_value)}" for key in nested]
        at = draw(st.integers(0, len(lines)))
        lines[at:at] = block
    if draw(st.booleans()) and lines:
        lines.insert(draw(st.integers(0, len(lines))), "")
    return fm_text(lines, draw(st.sampled_from(["\n", "\r\n"])))


@settings(max_examples=300, deadline=None)
@given(safe_texts())
def test_fast_path_accepts_realistic_frontmatter(text: str) -> None:
    assert_same(fast_or_fail(text), _parse_with_ruamel(text))


# --------------------------------------------------------------------------- splitting


def reference_span(text: str) -> tuple[int, int, int, int] | None:
    """The line-by-line search the module used before its str.find version."""
    start = 1 if text.startswith("\ufeff") else 0
    lines = text[start:].split("\n")
    if len(lines) < 2 or lines[0] not in ("---", "---\r"):
        return None
    pos = start + len(lines[0]) + 1
    open_end = pos
    for index, line in enumerate(lines[1:], start=1):
        if line in ("---", "---\r"):
            last = index == len(lines) - 1
            return start, open_end, pos, pos + len(line) + (0 if last else 1)
        pos += len(line) + 1
    return None


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["---", "---", "---\r", "----", "--- ", " ---", "-- -", "a", "", "\r"]),
        max_size=8,
    ),
    st.sampled_from(["", "\ufeff"]),
    st.booleans(),
)
def test_find_span_matches_line_by_line_search(parts: list[str], bom: str, end_nl: bool) -> None:
    text = bom + "\n".join(parts) + ("\n" if end_nl else "")
    span = _find_span(text)
    assert span == reference_span(text)


# --------------------------------------------------------------------------- cost


def test_import_does_not_load_ruamel_until_needed() -> None:
    code = (
        "import sys\n"
        "from memtui.core.parse.frontmatter import parse_frontmatter\n"
        "assert 'ruamel.yaml' not in sys.modules, 'imported at start-up'\n"
        f"assert parse_frontmatter({METADATA!r}).layout == 'metadata'\n"
        "assert 'ruamel.yaml' not in sys.modules, 'imported by the fast path'\n"
        "assert parse_frontmatter('---\\ntags: [a]\\n---\\n').data == {'tags': ['a']}\n"
        "assert 'ruamel.yaml' in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def best_time(parse: Any, text: str, number: int) -> float:
    return min(timeit.repeat(lambda: parse(text), number=number, repeat=3)) / number


@pytest.mark.parametrize("text", [FLAT, METADATA], ids=["flat", "metadata"])
def test_fast_path_is_much_cheaper_than_ruamel(text: str) -> None:
    fast = best_time(parse_frontmatter, text, 500)
    slow = best_time(_parse_with_ruamel, text, 20)
    assert fast * 10 < slow, (fast, slow)
