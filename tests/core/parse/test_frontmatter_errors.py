"""The hand-broken headers answered without ruamel (issue 25, cold start): every answer must be
what ruamel, with Claude Code's retry, gives for the same text."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from memtui.core.demo.build import build_demo_home
from memtui.core.parse.frontmatter import (
    _fast_load,
    _parse_explained,
    _parse_with_ruamel,
    parse_frontmatter,
    quote_problematic_values,
)
from memtui.core.parse.frontmatter_errors import explain

DEMO_BAD_YAML = (
    "name: [unclosed\n"
    "description: {\n"
    "  owner: payments\n"
    "\tpriority: high\n"
    "type: feedback\n"
)

LINES = [
    "", "name: x", "type: feedback", "description: two words", "name: [unclosed",
    "name: [unclosed two", "description: {", "  owner: payments", "\tpriority: high",
    "more words", "  more words", "description:", "description:x", "key: [a, b]",
    "key: [a", "a1: [b", "k: \"q\"", "k: 'q'", "  - item", "- item", "key: x # c",
    "key: a: b", "---", "...", "k: [x]y", "  x: [y", "key: *x", "key: \"a\\\"b\"",
    "key: [a]", "  ", "k:  [w  x", "k: [w ", "key: x\r", "k2: caf\u00e9", "k: {a",
]


def header(lines: tuple[str, ...] | list[str]) -> str:
    return "---\n" + "".join(line + "\n" for line in lines) + "---\nbody\n"


def agree(text: str) -> bool:
    """Whether the shortcut answered; when it did, it must match ruamel in every field."""
    got = _parse_explained(text)
    if got is None:
        return False
    assert got == _parse_with_ruamel(text), text
    return True


def test_the_demo_header_is_answered_as_ruamel_answers() -> None:
    text = header(DEMO_BAD_YAML.rstrip("\n").split("\n"))
    assert agree(text)
    fm = parse_frontmatter(text)
    assert fm.error == "bad YAML in frontmatter: expected ',' or ']', but got ':' (line 3)"
    assert (fm.data, fm.retried) == ({}, False)


def test_the_demo_file_itself(tmp_path: pytest.TempPathFactory) -> None:
    home = build_demo_home(tmp_path / "demo")  # type: ignore[operator]
    text = (home.auto_memory / "bad-yaml.md").read_text()
    assert agree(text)


def test_a_retry_the_fast_path_reads_is_answered() -> None:
    text = header(["name: [unclosed", "description: x"])
    assert agree(text)
    fm = parse_frontmatter(text)
    assert (fm.data, fm.error, fm.retried) == ({"name": "[unclosed", "description": "x"}, None,
                                               True)


def test_every_short_combination_agrees_with_ruamel() -> None:
    """Every header of up to three of the lines above (and four of the likeliest): each one the
    shortcut answers is checked against ruamel."""
    answered = 0
    for n in (1, 2, 3):
        for combo in itertools.product(LINES, repeat=n):
            answered += agree(header(combo))
    likely = ["name: x", "name: [unclosed", "description: {", "  owner: payments",
              "more words", "", "description: x", "\tpriority: high", "  x: y"]
    for combo in itertools.product(likely, repeat=4):
        answered += agree(header(combo))
    assert answered > 100  # the shape is common among these: the check checked something


WORD = st.sampled_from(["a", "b1", "name", "x_y", "q-r", "Z9", "more words", "w  x"])
LINE = st.one_of(
    st.sampled_from(LINES),
    st.builds(lambda k, v: f"{k}: {v}", WORD, WORD),
    st.builds(lambda k, v: f"{k}: [{v}", WORD, WORD),
    st.builds(lambda i, k, v: f"{' ' * i}{k}: {v}", st.integers(0, 3), WORD, WORD),
    st.builds(lambda i, w: f"{' ' * i}{w}", st.integers(0, 3), WORD),
    st.text(st.sampled_from("ab :[]{}\"',#-\t\\"), max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=7))
def test_generated_headers_agree_with_ruamel(lines: list[str]) -> None:
    event("answered" if agree(header(lines)) else "left to ruamel")


def test_outside_the_shape_ruamel_decides() -> None:
    for raw in ("name: [a, b\n", "name: x\n", "name: [w\nmore: \u00e9\n", "name: [w\r\nk: v\n",
                "name: {w\nk: v\n", "  name: [w\nk: v\n"):
        assert explain(raw, _fast_load, quote_problematic_values) is None, raw
