"""MEMORY.md parsing, Claude Code's exact load computation and index health
(docs/claude-code-rules.md#memorymd-load-report, docs/claude-code-rules.md#index-health).

Expected values were checked against Claude Code v2.1.88's own code (``truncateEntrypointContent``,
``formatFileSize``, ``parseFrontmatter`` and ``stripHtmlComments`` over marked 15.0.6) run in Node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memtui.core.contents import DroppedEntry, IndexHealth, LoadReport
from memtui.core.parse import link_targets, main_session_text, marked
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.index_health import index_health
from memtui.core.parse.jsstring import js_trim
from memtui.core.parse.link_targets import is_external_target
from memtui.core.parse.load_report import EMPTY_AGENT_INDEX, format_size, load_report, warning_text
from memtui.core.parse.main_session_text import strip_for_main_session
from memtui.core.parse.utf16 import units

ADVICE = (
    "Only part of it was loaded. Keep index entries to one line under ~200 chars; "
    "move detail into topic files."
)


def entry(i: int, width: int = 0) -> str:
    """An index line for file ``e{i}.md``, padded with ``x`` to ``width`` characters."""
    line = f"- [Entry {i}](e{i}.md) — hook {i}"
    return line + "x" * max(0, width - len(line))


def index_of(count: int, width: int = 0, start: int = 1) -> str:
    return "\n".join(entry(i, width) for i in range(start, start + count))


def loaded_body(report: LoadReport) -> str:
    """``loaded`` without the appended warning."""
    if report.warning is None:
        return report.loaded
    suffix = "\n\n" + report.warning
    assert report.loaded.endswith(suffix)
    return report.loaded[: -len(suffix)]


# --- format_size ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (0, "0 bytes"),
        (1, "1 bytes"),
        (1023, "1023 bytes"),
        (1024, "1KB"),
        (1075, "1KB"),
        (1076, "1.1KB"),
        (1536, "1.5KB"),
        (25000, "24.4KB"),
        (30000, "29.3KB"),
        (37749, "36.9KB"),
        (1048575, "1024KB"),
        (1048576, "1MB"),
        (1572864, "1.5MB"),
        (1073741824, "1GB"),
    ],
)
def test_format_size_vectors(n: int, expected: str) -> None:
    assert format_size(n) == expected


@pytest.mark.parametrize(("n", "expected"), [(1280, "1.3KB"), (2304, "2.3KB"), (3328, "3.3KB")])
def test_format_size_rounds_ties_up_like_js_to_fixed(n: int, expected: str) -> None:
    # n / 1024 is exactly x.x5 here: JS toFixed rounds the tie up, Python's format to even.
    assert f"{n / 1024:.1f}" != expected[:-2]
    assert format_size(n) == expected


# --- warning text -----------------------------------------------------------------------------


def test_warning_for_lines() -> None:
    assert warning_text(201, 5000, True, False) == (
        f"\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). {ADVICE}"
    )


def test_warning_for_size() -> None:
    assert warning_text(150, 30000, False, True) == (
        f"\n\n> WARNING: MEMORY.md is 29.3KB (limit: 24.4KB) — index entries are too long. {ADVICE}"
    )


def test_warning_for_both() -> None:
    assert warning_text(250, 30000, True, True) == (
        f"\n\n> WARNING: MEMORY.md is 250 lines and 29.3KB. {ADVICE}"
    )


def test_no_warning_when_nothing_is_cut() -> None:
    assert warning_text(10, 100, False, False) == ""


# --- the line limit ---------------------------------------------------------------------------


@pytest.mark.parametrize("agent", [False, True])
def test_exactly_200_lines_load_whole(agent: bool) -> None:
    raw = index_of(200) + "\n"
    report = load_report("MEMORY.md", raw, agent=agent)
    assert (report.lines, report.line_truncated, report.byte_truncated) == (200, False, False)
    assert report.binds == "none"
    assert report.loaded == raw.rstrip("\n")
    assert (report.warning, report.cut_line, report.dropped) == (None, None, [])


@pytest.mark.parametrize("agent", [False, True])
def test_201_lines_cut_after_line_200(agent: bool) -> None:
    raw = index_of(201)
    report = load_report("MEMORY.md", raw, agent=agent)
    assert report.lines == 201
    assert (report.line_truncated, report.byte_truncated, report.binds) == (True, False, "lines")
    assert report.cut_line == 200
    assert report.cut_partial is False
    assert report.dropped == [DroppedEntry(line=201, title="Entry 201", target="e201.md")]
    assert report.warning == f"> WARNING: MEMORY.md is 201 lines (limit: 200). {ADVICE}"
    assert report.loaded == index_of(200) + "\n\n" + report.warning


# --- the size limit (UTF-16 units) ------------------------------------------------------------


def test_25000_units_load_whole() -> None:
    raw = index_of(100, width=249) + "x"  # 100 lines of 249 + 99 newlines + 1
    assert units(raw) == 25000
    report = load_report("MEMORY.md", raw, agent=False)
    assert (report.units, report.byte_truncated, report.binds) == (25000, False, "none")
    assert report.loaded == raw


def test_25001_units_cut_at_the_last_newline_before_the_limit() -> None:
    raw = index_of(100, width=249) + "xy"
    report = load_report("MEMORY.md", raw, agent=False)
    assert (report.units, report.lines) == (25001, 100)
    assert (report.line_truncated, report.byte_truncated, report.binds) == (False, True, "bytes")
    assert loaded_body(report) == index_of(99, width=249)
    assert report.cut_line == 99
    assert report.cut_partial is False
    assert [d.line for d in report.dropped] == [100]
    assert report.warning == (
        "> WARNING: MEMORY.md is 24.4KB (limit: 24.4KB) — index entries are too long. " + ADVICE
    )


def test_a_newline_exactly_at_unit_25000_is_a_valid_cut() -> None:
    # lastIndexOf('\n', 25000) includes position 25000 itself.
    raw = "a" * 25000 + "\n" + entry(2)
    report = load_report("MEMORY.md", raw, agent=True)
    assert loaded_body(report) == "a" * 25000
    assert (report.cut_line, report.cut_partial) == (1, False)
    assert [d.line for d in report.dropped] == [2]


def test_a_line_longer_than_the_limit_is_cut_mid_line() -> None:
    raw = entry(1, width=30000)
    report = load_report("MEMORY.md", raw, agent=True)
    assert loaded_body(report) == raw[:25000]
    assert (report.cut_line, report.cut_partial) == (1, True)
    assert report.dropped == [DroppedEntry(line=1, title="Entry 1", target="e1.md")]


def test_korean_index_over_25000_bytes_but_under_25000_units_is_not_cut() -> None:
    raw = "\n".join(f"- [메모 {i}](m{i}.md) — " + "한국어 메모" * 20 for i in range(100))
    report = load_report("MEMORY.md", raw, agent=False)
    assert report.bytes > 25000
    assert report.units < 25000
    assert (report.byte_truncated, report.binds, report.loaded) == (False, "none", raw)


def test_both_limits() -> None:
    raw = index_of(250, width=150)  # 250 lines, 250 * 151 - 1 = 37749 units
    report = load_report("MEMORY.md", raw, agent=True)
    assert (report.lines, report.units, report.binds) == (250, 37749, "both")
    # The first 200 lines are still 30199 units: cut at the last newline before 25000.
    assert loaded_body(report) == index_of(165, width=150)
    assert report.cut_line == 165
    assert [d.line for d in report.dropped] == list(range(166, 251))
    assert report.warning == f"> WARNING: MEMORY.md is 250 lines and 36.9KB. {ADVICE}"


def test_emoji_count_two_units() -> None:
    assert load_report("m", "😀" * 12500, agent=True).units == 25000
    report = load_report("m", "😀" * 12500, agent=True)
    assert report.binds == "none"
    over = load_report("m", "😀" * 12500 + "x", agent=True)
    assert (over.units, over.binds) == (25001, "bytes")
    assert loaded_body(over) == "😀" * 12500
    assert (over.cut_line, over.cut_partial) == (1, True)


def test_a_cut_inside_a_surrogate_pair_leaves_the_whole_emoji_out() -> None:
    # JS slice(0, 25000) would keep a lone high surrogate; memtui keeps valid text.
    report = load_report("m", "x" + "😀" * 12500, agent=True)
    assert loaded_body(report) == "x" + "😀" * 12499
    assert report.cut_partial is True


def test_whitespace_is_trimmed_before_counting() -> None:
    body = index_of(200)
    raw = "\n\n \ufeff\n" + body + "\n\n \u00a0\u3000\t\n"
    report = load_report("MEMORY.md", raw, agent=True)
    assert (report.lines, report.units, report.binds) == (200, units(body), "none")
    assert report.loaded == body


def test_cut_line_counts_leading_blank_lines_of_the_file() -> None:
    report = load_report("MEMORY.md", "\n\n" + index_of(201), agent=True)
    assert report.cut_line == 202
    assert [d.line for d in report.dropped] == [203]


def test_crlf_counts_carriage_returns_unless_comments_are_stripped() -> None:
    raw = entry(1) + "\r\n" + entry(2) + "\r\n"
    assert load_report("m", raw, agent=True).loaded == entry(1) + "\r\n" + entry(2)
    assert load_report("m", raw, agent=False).units == units(entry(1) + entry(2)) + 2
    with_comment = "<!-- c -->\r\n" + raw
    # marked normalizes line ends when CC lexes a file that contains a comment.
    assert load_report("m", with_comment, agent=False).loaded == entry(1) + "\n" + entry(2)


# --- frontmatter and comments: main session vs agent memory -----------------------------------

HEADER = (
    "---\nname: index\ndescription: the index\n---\n"
    "<!-- maintained by hand\nkeep entries short\n-->\n"
    "<!-- one -->\n<!-- two -->\n"
)  # 9 lines


def test_stripped_lines_do_not_count_in_the_main_session() -> None:
    raw = HEADER + "# Index\n" + index_of(195)  # 205 raw lines
    assert raw.count("\n") + 1 == 205
    main = load_report("MEMORY.md", raw, agent=False)
    assert (main.lines, main.binds, main.dropped) == (196, "none", [])
    assert main.loaded == "# Index\n" + index_of(195)
    agent = load_report("MEMORY.md", raw, agent=True)
    assert (agent.lines, agent.binds, agent.cut_line) == (205, "lines", 200)
    assert [d.line for d in agent.dropped] == [201, 202, 203, 204, 205]


def test_cut_line_is_a_raw_line_in_the_main_session() -> None:
    middle = "\n<!-- a comment\nover three lines -->\n"
    raw = HEADER + index_of(100) + middle + index_of(110, start=101)  # 9 + 100 + 2 + 110 lines
    report = load_report("MEMORY.md", raw, agent=False)
    assert (report.lines, report.binds) == (210, "lines")
    # stripped line 200 is entry 200, which sits 9 + 2 lines lower in the file
    assert report.cut_line == 211
    assert report.dropped[0] == DroppedEntry(line=212, title="Entry 201", target="e201.md")
    assert len(report.dropped) == 10
    assert loaded_body(report).endswith(entry(200))


def test_strip_line_map() -> None:
    raw = "---\nname: x\n---\n# Index\n<!-- a\nb -->\n- [A](a.md)\n"
    assert strip_for_main_session(raw) == ("# Index\n- [A](a.md)\n", [4, 7, 8])


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # text after --> on the comment's last line stays
        ("# Index\n<!-- note --> Use bun\n- [A](a.md)", "# Index\n Use bun\n- [A](a.md)"),
        # an inline comment inside a paragraph is not a block
        ("Some prose <!-- x --> here\n- [A](a.md)", "Some prose <!-- x --> here\n- [A](a.md)"),
        # comments in code blocks stay
        ("```\n<!-- in code -->\n```\n- [A](a.md)", "```\n<!-- in code -->\n```\n- [A](a.md)"),
        # an unclosed comment is loaded as text
        ("- [A](a.md)\n<!-- open\n- [B](b.md)", "- [A](a.md)\n<!-- open\n- [B](b.md)"),
        # an indented comment line continues a paragraph
        ("para\n <!-- x -->\n- [A](a.md)", "para\n <!-- x -->\n- [A](a.md)"),
        # a comment indented inside a list item is not top level
        ("- [A](a.md)\n  <!-- x -->\n- [B](b.md)", "- [A](a.md)\n  <!-- x -->\n- [B](b.md)"),
        # marked drops link reference definitions from its tokens
        (
            "- [A](a.md)\n\n[r]: https://e.com\n<!-- c -->\n- [B](b.md)",
            "- [A](a.md)\n\n- [B](b.md)",
        ),
        # no comment: nothing is lexed, CRLF and definitions stay
        ("[r]: https://e.com\r\n- [A](a.md)", "[r]: https://e.com\r\n- [A](a.md)"),
    ],
)
def test_comment_stripping_matches_claude_code(raw: str, expected: str) -> None:
    assert strip_for_main_session(raw)[0] == expected


def test_problems_name_unclosed_comments_and_hidden_entries() -> None:
    raw = "<!--\n- [Hidden](h.md)\n-->\n- [A](a.md)\n<!-- open\n- [B](b.md)"
    report = load_report("MEMORY.md", raw, agent=False)
    assert any(p.startswith("line 5: unclosed <!--") for p in report.problems)
    assert any(p.startswith("line 2: entry [Hidden]") for p in report.problems)
    assert load_report("MEMORY.md", raw, agent=True).problems == []


def test_empty_index() -> None:
    assert load_report("MEMORY.md", " \n\n", agent=True).loaded == EMPTY_AGENT_INDEX
    main = load_report("MEMORY.md", "---\nname: x\n---\n", agent=False)
    assert (main.loaded, main.lines, main.units, main.binds) == ("", 1, 0, "none")


# --- entries ----------------------------------------------------------------------------------


def test_parse_entries() -> None:
    raw = "\n".join(
        [
            "# Index",
            "- [Em dash](em.md) — the hook",
            "* [En dash](en.md) – en hook",
            "+ [Hyphen](hy.md) - hy hook",
            "1. [Colon](co.md): co hook",
            "  - [No hook](nested/no.md)",
            "- [Web](https://example.com/x) — external",
            "- [Angle](<my file.md>) — spaces",
            "- [Title [with] brackets](b.md) — ok",
            "See [prose](p.md) for details.",
            "- plain item",
        ]
    )
    got = [(e.line, e.title, e.target, e.hook) for e in parse_entries(raw)]
    assert got == [
        (2, "Em dash", "em.md", "the hook"),
        (3, "En dash", "en.md", "en hook"),
        (4, "Hyphen", "hy.md", "hy hook"),
        (5, "Colon", "co.md", "co hook"),
        (6, "No hook", "nested/no.md", ""),
        (7, "Web", "https://example.com/x", "external"),
        (8, "Angle", "my file.md", "spaces"),
        (9, "Title [with] brackets", "b.md", "ok"),
    ]
    assert parse_entries(raw)[0].raw == "- [Em dash](em.md) — the hook"


def test_parse_entries_with_emphasised_links() -> None:
    """Real indexes bold the link (``- **[Title](file.md)** — hook``): the title is the text
    in the brackets, the hook what follows the closing run."""
    raw = "\n".join(
        [
            "- **[Bold](bold.md)** — bold hook",
            "- __[Under](under.md)__: under hook",
            "* *[Italic](it.md)* - italic hook",
            "1) ***[Both](both.md)***",
            "- **[Unclosed](open.md) — still an entry",
            "- **[Odd](odd.md)* — the closing run differs",
            "- **Bold** then [a link](x.md): not an entry",
            "- [**Inner**](inner.md) — emphasis inside the title stays",
        ]
    )
    got = [(e.line, e.title, e.target, e.hook) for e in parse_entries(raw)]
    assert got == [
        (1, "Bold", "bold.md", "bold hook"),
        (2, "Under", "under.md", "under hook"),
        (3, "Italic", "it.md", "italic hook"),
        (4, "Both", "both.md", ""),
        (5, "Unclosed", "open.md", "still an entry"),
        (6, "Odd", "odd.md", "* — the closing run differs"),
        (8, "**Inner**", "inner.md", "emphasis inside the title stays"),
    ]
    assert parse_entries(raw)[0].raw == "- **[Bold](bold.md)** — bold hook"


_REF_ITEM = re.compile(
    r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(\*{1,3}|_{1,3})?"
    r"\[((?:[^\[\]\\\n]|\\.|\[[^\[\]\n]*\])*)\]"
    r"\((<[^<>\n]*>|(?:[^\s()\\]|\\.|\([^\s()]*\))*)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"""
)
_REF_SEPARATOR = re.compile(r"^\s*(?:[—–:]|-(?=\s|$))\s*")


def reference_entries(raw: str) -> list[tuple[int, str, str | None, str, str]]:
    """``parse_entries`` the slow way: line by line, the emphasis and the hook separator
    handled apart (the one-pass regex folds them in)."""
    found = []
    for number, line in enumerate(raw.split("\n"), start=1):
        match = _REF_ITEM.match(line)
        if match is None:
            continue
        em, title, dest = match.groups()
        rest = line[match.end() :]
        if em and rest.startswith(em):
            rest = rest[len(em) :]
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        separator = _REF_SEPARATOR.match(rest)
        hook = (rest[separator.end() :] if separator else rest).strip()
        found.append((number, title, dest or None, hook, line.removesuffix("\r")))
    return found


ENTRY_LINES = [
    "- [a](a.md) — h", "- **[a](a.md)** — h", "- __[a](a.md)__: h", "* *[a](a.md)* - h",
    "- _[a](a.md)_", "1. ***[a](a.md)***  -x", "- **[a](a.md) — h", "- **[a](a.md)*:",
    "  + [a [b]](<a b.md> \"t\") –\th ", "- [a](a\\)b.md) -", "- [](a.md)", "- [a]()",
    "- [a](a.md)\r", "- [a](a.md) \u2028— h\x85", "10) [a](x(y).md)—h", "- ****[a](a.md)",
]  # fmt: skip
entry_lines = st.lists(
    st.sampled_from(ENTRY_LINES)
    | st.text(alphabet="-*_+1.) \t[]()<>\\\"'a.md—–:\r\u2028\x85#", max_size=24),
    max_size=30,
).map("\n".join)


@settings(max_examples=400, deadline=None)
@given(raw=entry_lines | st.text(max_size=200))
def test_parse_entries_agrees_with_a_line_by_line_reference(raw: str) -> None:
    got = [(e.line, e.title, e.target, e.hook, e.raw) for e in parse_entries(raw)]
    assert got == reference_entries(raw)


@pytest.mark.parametrize(
    ("target", "external"),
    [
        ("https://x.org", True),
        ("mailto:a@b.c", True),
        ("/abs/x.md", True),
        ("#anchor", True),
        ("x.md", False),
        ("team/x.md", False),
        ("../x.md", False),
    ],
)
def test_external_targets(target: str, external: bool) -> None:
    assert is_external_target(target) is external


# --- properties -------------------------------------------------------------------------------

FRAGMENTS = [
    entry(1),
    "* item",
    "1. one",
    "    code",
    "<!-- c -->",
    "<!-- open",
    "close -->",
    "<!-- a --> tail",
    "> quote",
    "```",
    "# Head",
    "---",
    "text",
    "",
    "   ",
    "[r]: http://x.y",
    "<div>",
    "😀",
    "\u00a0",
    "\r",
]
markdownish = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=30), max_size=40).map(
    "\n".join
)


@settings(max_examples=300, deadline=None)
@given(raw=markdownish | st.text(), agent=st.booleans())
def test_loaded_is_a_prefix_of_the_trimmed_text_plus_a_warning(raw: str, agent: bool) -> None:
    report = load_report("MEMORY.md", raw, agent=agent)
    measured = js_trim(raw if agent else strip_for_main_session(raw)[0])
    body = loaded_body(report)
    if agent and not measured:
        assert report.loaded == EMPTY_AGENT_INDEX
        return
    assert measured.startswith(body)
    assert (report.warning is None) == (report.binds == "none") == (body == measured)
    assert len(body.split("\n")) <= 200
    assert units(body) <= 25000
    if report.cut_line is not None:
        assert 1 <= report.cut_line <= raw.count("\n") + 1


@settings(max_examples=300, deadline=None)
@given(raw=markdownish)
def test_line_map_covers_every_stripped_line(raw: str) -> None:
    text, line_map = strip_for_main_session(raw)
    assert len(line_map) == text.count("\n") + 1
    assert line_map == sorted(line_map)
    assert all(1 <= line <= raw.count("\n") + 1 for line in line_map)


LIST_LINES = [
    "- [a](b.md) — h", "- x", "-  two", "- - -", "- * *", "- _x", "* [a](b)", "* x", "* * *",
    "+ x", "1. [a](b)", "2. x", "3) x", "-\tx", "  - nested", " - one", "- ", "-", "    - deep",
    "- ~~~", "- `x`", "- <b>", "- #", "- ]", "1.  x", "10. x", "- ä", "text", "",
]  # fmt: skip
listish = st.lists(
    st.sampled_from(LIST_LINES) | st.sampled_from(FRAGMENTS), min_size=2, max_size=60
).map("\n".join)


@settings(max_examples=500, deadline=None)
@given(raw=listish | markdownish)
@example(raw="- x\n- - -\n- y\n")  # a thematic break ends the list
@example(raw="* x\n* * *\n* y")
@example(raw="- a\n- b\n  more\n- c\n\n- d\n1. e\n2. f\n- g")
@example(raw="- a\n- b\n<!-- c -->\n- d\n# h\n- e\n```\n- f\n```")
def test_skipping_one_line_list_items_gives_marked_s_tokens(raw: str) -> None:
    """The regex that skips runs of one-line items agrees with marked's item loop."""
    src = raw.replace("\r\n", "\n").replace("\r", "\n")
    fast = marked.BlockLexer(fast=True).lex(src)
    slow = marked.BlockLexer(fast=False).lex(src)
    assert [(t.type, t.raw, t.parts) for t in fast] == [(t.type, t.raw, t.parts) for t in slow]


@settings(max_examples=300, deadline=None)
@given(raw=listish | markdownish, comment=st.booleans())
@example(raw="- [a](b.md) — h\n- ", comment=True)  # marked's "\n" for the trailing " "
def test_line_maps_per_piece_equal_the_per_line_ones(raw: str, comment: bool) -> None:
    """Without CRs (a slice of the raw file), a piece's lines are consecutive raw lines."""
    raw = ("<!-- c -->\n" if comment else "") + raw.replace("\r", "")
    original = main_session_text._line_map
    seen: list[bool] = []

    def both(
        pieces: list[tuple[str, int | None]], line_of: Callable[[int], int], first_line: int,
        *, source: str | None = None,
    ) -> list[int]:
        seen.append(source is not None)
        result = original(pieces, line_of, first_line, source=source)
        assert result == original(pieces, line_of, first_line)
        return result

    with patch.object(main_session_text, "_line_map", both):
        _text, line_map = strip_for_main_session(raw)
    front = main_session_text.FRONTMATTER.match(raw)
    start = front.end() if front else 0
    assert seen == ([True] if "<!--" in raw[start:] else [])
    if "<!--" not in raw[start:]:  # the file as it is: lines from the one the body starts on
        lines = main_session_text._RawLines(raw)
        assert line_map == original([(raw[start:], start)], lines.line_of, lines.line_of(start))


@given(name=st.from_regex(r"[\w\-][\w\- .]*", fullmatch=True), present=st.booleans())
def test_a_plain_file_name_is_its_own_store_path(name: str, present: bool) -> None:
    """The health check's shortcut for bare names agrees with the general resolution."""
    files = {name} if present else set()
    assert link_targets._PLAIN_NAME.fullmatch(name)
    assert not is_external_target(name)
    assert link_targets._target_in_store(name, "", files) == (name if present else None)


def test_load_report_survives_deep_nesting() -> None:
    report = load_report("MEMORY.md", "<!-- c -->\n" + ">" * 5000 + " x", agent=False)
    assert report.lines == 2


# --- health -----------------------------------------------------------------------------------


def make_store(root: Path, files: dict[str, str]) -> set[str]:
    """Write ``files`` under ``root``; the posix paths of the non-index ``.md`` files."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return {p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.name != "MEMORY.md"}


def health_of(
    root: Path, files: dict[str, str], index: str, own_index_dirs: frozenset[str] = frozenset()
) -> IndexHealth:
    store_files = make_store(root, {"MEMORY.md": index, **files})
    stems = {Path(rel).stem: rel for rel in store_files}
    report = load_report(str(root / "MEMORY.md"), index, agent=False)
    return index_health(
        report,
        store_files=store_files,
        memory_names=stems,
        link_sources={"MEMORY.md": index, **files},
        own_index_dirs=own_index_dirs,
    )


def test_dangling_entries(tmp_path: Path) -> None:
    index = "\n".join(
        [
            "- [Here](here.md) — exists",
            "- [Gone](gone.md) — missing",
            "- [Dot](./sub/dot.md) — normalised",
            "- [Anchor](here.md#why) — fragment",
            "- [Spaced](my%20note.md) — percent-encoded",
            "- [Web](https://example.com) — external",
            "- [Up](../outside.md) — leaves the store",
        ]
    )
    files = {"here.md": "x", "sub/dot.md": "x", "my note.md": "x"}
    health = health_of(tmp_path, files, index)
    assert [e.title for e in health.dangling] == ["Gone", "Up"]
    assert health.orphans == []


def test_orphans_and_own_index_dirs(tmp_path: Path) -> None:
    index = "- [A](a.md) — a\n"
    files = {
        "a.md": "x",
        "b.md": "x",
        "deep/c.md": "x",
        "team/MEMORY.md": "- [T](t.md)",
        "team/t.md": "x",
        "logs/2026/03/2026-03-05.md": "daily",
    }
    with_team = health_of(tmp_path, files, index, own_index_dirs=frozenset({"", "team"}))
    assert with_team.orphans == ["b.md", "deep/c.md"]
    without = health_of(tmp_path, files, index)
    assert without.orphans == ["b.md", "deep/c.md", "team/t.md"]


def test_a_sub_index_resolves_from_its_folder(tmp_path: Path) -> None:
    files = {"team/t.md": "x", "team/u.md": "x", "a.md": "x"}
    store_files = make_store(tmp_path, files)
    index = "- [T](t.md)\n- [A](../a.md)\n- [Missing](a.md)"
    health = index_health(
        load_report("team/MEMORY.md", index, agent=False),
        store_files=store_files,
        memory_names={},
        link_sources={},
        index_dir="team",
    )
    assert [e.title for e in health.dangling] == ["Missing"]
    assert health.orphans == ["team/u.md"]


def test_long_entries(tmp_path: Path) -> None:
    index = "\n".join([entry(1, 150), entry(2, 151), entry(3, 200), entry(4, 201)])
    files = {f"e{i}.md": "x" for i in range(1, 5)}
    health = health_of(tmp_path, files, index)
    got = [(e.line, e.length, e.limit) for e in health.long_entries]
    assert got == [(2, 151, 150), (3, 200, 150), (4, 201, 200)]


def test_broken_wikilinks(tmp_path: Path) -> None:
    files = {
        "testing-policy.md": "---\nname: testing-policy\n---\nSee [[deploy]] and [[nowhere]].",
        "deploy.md": "Links: [[testing-policy|the policy]], [[Deploy#Steps]], `[[in code]]`.",
    }
    index = "- [Testing](testing-policy.md)\n- [Deploy](deploy.md)\n[[ghost]] [[deploy.md]]"
    health = health_of(tmp_path, files, index)
    broken = [(b.source, b.link) for b in health.broken_wikilinks]
    assert broken == [("MEMORY.md", "ghost"), ("testing-policy.md", "nowhere")]
    assert health.dangling == [] and health.orphans == []
    assert health.ok is False


def test_healthy_index(tmp_path: Path) -> None:
    health = health_of(tmp_path, {"a.md": "x"}, "- [A](a.md) — short\n")
    assert health.ok is True


# --- entries Claude Code never sees -----------------------------------------------------------


HIDDEN = "is inside frontmatter or an HTML comment; Claude Code never sees it"


@pytest.mark.parametrize("fast", [True, False])
def test_entries_in_frontmatter_are_reported_and_the_others_not(fast: bool) -> None:
    raw = "---\nname: x\n- [In front](front.md)\n---\n- [After](after.md)\n" + index_of(3, 0, 5)
    report = load_report("MEMORY.md", raw, agent=False, fast=fast)
    assert [p for p in report.problems if HIDDEN in p] == [f"line 3: entry [In front] {HIDDEN}"]


@pytest.mark.parametrize("fast", [True, False])
def test_entries_in_html_comments_are_reported_in_line_order(fast: bool) -> None:
    raw = (
        "- [First](a.md)\n\n<!--\n- [Hidden one](h1.md)\n-->\n\n"
        + index_of(2000, 0, 10)
        + "\n\n<!-- - [Hidden two](h2.md) -->\n\n- [Last](z.md)\n"
    )
    report = load_report("MEMORY.md", raw, agent=False, fast=fast)
    hidden = [p for p in report.problems if HIDDEN in p]
    assert hidden == [f"line 4: entry [Hidden one] {HIDDEN}"]  # the inline one starts no line
    assert len(report.entries) == 2000 + 3


def test_agent_memory_hides_no_entry() -> None:
    raw = "---\n- [In front](front.md)\n---\n<!--\n- [C](c.md)\n-->\n"
    report = load_report("MEMORY.md", raw, agent=True)
    assert not [p for p in report.problems if HIDDEN in p]
