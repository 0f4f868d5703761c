"""Frontmatter parsing and round-trip editing
(docs/claude-code-rules.md#memory-files-and-frontmatter)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.parse.frontmatter import (
    body_of,
    decode_text,
    parse_frontmatter,
    quote_problematic_values,
)
from memtui.core.parse.frontmatter_edit import MemoryDocument, format_scalar

FLAT = (
    "---\n"
    "name: testing-policy\n"
    "description: one line, specific\n"
    "type: feedback\n"
    "originSessionId: 2afc901a-1111-2222-3333-444455556666\n"
    "---\n"
    "Run the whole suite before pushing.\n"
    "**Why:** CI is slow.\n"
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


def fm_text(*lines: str, body: str = "body\n") -> str:
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body


# --------------------------------------------------------------------------- layouts


def test_flat_layout() -> None:
    fm = parse_frontmatter(FLAT)
    assert fm.present and fm.error is None and not fm.retried
    assert fm.layout == "flat"
    assert fm.data == {
        "name": "testing-policy",
        "description": "one line, specific",
        "type": "feedback",
        "originSessionId": "2afc901a-1111-2222-3333-444455556666",
    }
    assert fm.type == "feedback"
    assert fm.raw == FLAT[4 : FLAT.index("---\nRun")]
    assert FLAT[fm.end :] == "Run the whole suite before pushing.\n**Why:** CI is slow.\n"
    assert body_of(FLAT, fm) == FLAT[fm.end :]


def test_metadata_layout_with_trailing_space() -> None:
    assert "metadata: \n" in METADATA
    fm = parse_frontmatter(METADATA)
    assert fm.error is None
    assert fm.layout == "metadata"
    assert fm.name == "testing-policy"
    assert fm.description == "one line, specific"
    assert "type" not in fm.data
    assert fm.data["metadata"] == {
        "node_type": "memory",
        "type": "feedback",
        "originSessionId": "2afc901a-1111-2222-3333-444455556666",
        "modified": "2026-08-15T18:58:28.638Z",
    }
    assert fm.type == "feedback"
    assert body_of(METADATA, fm) == "Run the whole suite before pushing.\n"


def test_top_level_type_wins_over_metadata_type() -> None:
    fm = parse_frontmatter(fm_text("type: user", "metadata:", "  type: project"))
    assert fm.type == "user"


@pytest.mark.parametrize(
    "value", ["Feedback", "USER", "habit", '"feedback "', "'123'", "[feedback]"]
)
def test_types_are_exact_and_case_sensitive(value: str) -> None:
    fm = parse_frontmatter(fm_text(f"type: {value}"))
    assert fm.error is None
    assert fm.type is None


@pytest.mark.parametrize("value", ["user", "feedback", "project", "reference"])
def test_the_four_types(value: str) -> None:
    assert parse_frontmatter(fm_text(f"type: {value}")).type == value
    assert parse_frontmatter(fm_text("metadata:", f"  type: {value}")).type == value


def test_metadata_that_is_not_a_mapping_is_flat() -> None:
    fm = parse_frontmatter(fm_text("metadata: just text", "type: project"))
    assert fm.layout == "flat"
    assert fm.type == "project"


def test_unknown_keys_are_kept() -> None:
    fm = parse_frontmatter(
        fm_text("name: n", "x-custom: 3", "tags: [a, b]", "nested:", "  deep: {k: v}", "7: seven")
    )
    assert fm.error is None
    assert fm.data == {
        "name": "n",
        "x-custom": 3,
        "tags": ["a", "b"],
        "nested": {"deep": {"k": "v"}},
        "7": "seven",
    }


# --------------------------------------------------------------------------- YAML 1.2 scalars


def test_yaml_1_1_booleans_stay_strings() -> None:
    fm = parse_frontmatter(fm_text("a: yes", "b: no", "c: on", "d: off", "e: y", "f: true"))
    assert fm.data == {"a": "yes", "b": "no", "c": "on", "d": "off", "e": "y", "f": True}


@pytest.mark.parametrize(
    "stamp",
    ["2026-08-15T18:58:28.638Z", "2026-08-15", "2026-08-15 18:58:28", "2026-08-15t18:58:28+02:00"],
)
def test_timestamps_stay_strings(stamp: str) -> None:
    fm = parse_frontmatter(fm_text(f"modified: {stamp}", "metadata:", f"  modified: {stamp}"))
    assert fm.data["modified"] == stamp
    assert type(fm.data["modified"]) is str
    assert fm.data["metadata"]["modified"] == stamp


def test_explicit_timestamp_tag_stays_string() -> None:
    fm = parse_frontmatter(fm_text("when: !!timestamp 2026-08-15"))
    assert fm.data == {"when": "2026-08-15"}


def test_values_are_plain_python() -> None:
    fm = parse_frontmatter(
        fm_text("i: 3", "f: 1.5", "n: ~", "s: !!set {a, b}", "bin: !!binary aGk=")
    )
    assert fm.data["i"] == 3 and fm.data["f"] == 1.5 and fm.data["n"] is None
    assert sorted(fm.data["s"]) == ["a", "b"]
    assert fm.data["bin"] == "hi"


# --------------------------------------------------------------------------- the retry rule


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("description: `foo` is used for {bar}", "`foo` is used for {bar}"),
        ("description: note: keep it short", "note: keep it short"),
        ("description: @alice owns this", "@alice owns this"),
        ("description: *bold* claim", "*bold* claim"),
        ("description: [wip] flaky test", "[wip] flaky test"),
        ("description: %done", "%done"),
        ('description: @x "quoted" and C:\\path', '@x "quoted" and C:\\path'),
    ],
)
def test_retry_quotes_special_values(line: str, value: str) -> None:
    fm = parse_frontmatter(fm_text("name: n", line, "type: project"))
    assert fm.error is None
    assert fm.retried
    assert fm.data == {"name": "n", "description": value, "type": "project"}
    assert fm.type == "project"


def test_valid_yaml_with_special_chars_needs_no_retry() -> None:
    # A backtick or brace inside a plain scalar is valid YAML 1.2: no retry happens.
    fm = parse_frontmatter(fm_text("description: use `foo` for {bar}"))
    assert fm.error is None and not fm.retried
    assert fm.data == {"description": "use `foo` for {bar}"}


@pytest.mark.parametrize(
    ("lines", "line_no"),
    [
        (("name: n", "key2: @x"), 3),  # CC's key pattern has no digits: never quoted
        (("name: n", "  bad: indent: here", "x: @y"), 3),
        (("a: 1", "a: 2"), 3),  # duplicate key
        (("description: ok", "- item"), 3),
    ],
)
def test_hopeless_yaml_gives_empty_data_and_error(lines: tuple[str, ...], line_no: int) -> None:
    fm = parse_frontmatter(fm_text(*lines))
    assert fm.present
    assert fm.data == {}
    assert not fm.retried
    assert fm.error is not None
    assert fm.error.startswith("bad YAML in frontmatter: ")
    assert f"(line {line_no})" in fm.error
    assert fm.type is None and fm.name is None


def test_quote_problematic_values_follows_cc_rule() -> None:
    raw = "\n".join(
        [
            "a: plain value",
            "b: has @ sign",
            "c: 'already quoted @'",
            'd: "already quoted {}"',
            "e2: digits in key @",
            "  indented: @x",
            'f: back\\slash and "quote" #',
            "g: colon: inside",
            "h: trailing cr @\r",
            "",
        ]
    )
    assert quote_problematic_values(raw).split("\n") == [
        "a: plain value",
        'b: "has @ sign"',
        "c: 'already quoted @'",
        'd: "already quoted {}"',
        "e2: digits in key @",
        "  indented: @x",
        'f: "back\\\\slash and \\"quote\\" #"',
        'g: "colon: inside"',
        'h: "trailing cr @"\r',
        "",
    ]


# --------------------------------------------------------------------------- delimiters


def test_no_closing_delimiter_means_no_frontmatter() -> None:
    text = "---\nname: x\ntype: user\nbody without end\n"
    fm = parse_frontmatter(text)
    assert not fm.present
    assert fm.data == {} and fm.error is None and fm.end == 0 and fm.layout is None
    assert body_of(text, fm) == text


@pytest.mark.parametrize(
    "text",
    [
        "\n---\nname: x\n---\n",
        " ---\nname: x\n---\n",
        "----\nname: x\n---\n",
        "# Title\n---\nname: x\n---\n",
        "---",
        "",
    ],
)
def test_frontmatter_must_start_at_offset_zero(text: str) -> None:
    assert not parse_frontmatter(text).present


def test_closing_line_must_be_exactly_three_dashes() -> None:
    text = "---\nname: a---\n--- \n----\ntype: user\n---\nbody\n"
    fm = parse_frontmatter(text)
    assert fm.present
    assert fm.raw == "name: a---\n--- \n----\ntype: user\n"
    assert body_of(text, fm) == "body\n"


def test_bom_is_tolerated() -> None:
    text = "\ufeff" + FLAT
    fm = parse_frontmatter(text)
    assert fm.present and fm.type == "feedback"
    assert text[fm.end :].startswith("Run the whole suite")
    plain = "\ufeffjust a body\n"
    assert body_of(plain, parse_frontmatter(plain)) == "just a body\n"


def test_crlf() -> None:
    text = FLAT.replace("\n", "\r\n")
    fm = parse_frontmatter(text)
    assert fm.present and fm.error is None
    assert fm.data["name"] == "testing-policy"
    assert fm.type == "feedback"
    assert body_of(text, fm) == "Run the whole suite before pushing.\r\n**Why:** CI is slow.\r\n"


def test_crlf_retry() -> None:
    fm = parse_frontmatter("---\r\ndescription: @me: hi\r\ntype: user\r\n---\r\n")
    assert fm.retried and fm.data == {"description": "@me: hi", "type": "user"}


def test_closing_delimiter_at_end_of_file() -> None:
    text = "---\nname: x\n---"
    fm = parse_frontmatter(text)
    assert fm.present and fm.data == {"name": "x"} and fm.end == len(text)
    assert body_of(text, fm) == ""


def test_empty_frontmatter() -> None:
    fm = parse_frontmatter("---\n---\nbody")
    assert fm.present and fm.data == {} and fm.error is None and fm.raw == ""
    assert fm.end == 8


@pytest.mark.parametrize(
    ("lines", "found"),
    [(("- a", "- b"), "a list"), (("just words",), "a string"), (("42",), "a number")],
)
def test_non_mapping_yaml(lines: tuple[str, ...], found: str) -> None:
    fm = parse_frontmatter(fm_text(*lines))
    assert fm.present and fm.data == {}
    assert fm.error == f"frontmatter is not a mapping (found {found})"


def test_recursive_alias_does_not_hang() -> None:
    fm = parse_frontmatter(fm_text("a: &x [1, *x]"))
    assert fm.error is None
    assert fm.data == {"a": [1, None]}


def test_alias_bomb_is_cheap() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    started = time.monotonic()
    fm = parse_frontmatter(fm_text(*lines))
    assert time.monotonic() - started < 5
    assert fm.error is None
    assert fm.data["a8"][0] is fm.data["a8"][1]


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    # `key1` does not match CC's key pattern, so the retry cannot turn it into a string.
    fm = parse_frontmatter(fm_text("key1: " + "[" * 5000 + "]" * 5000))
    assert fm.present and fm.data == {} and fm.error is not None


# --------------------------------------------------------------------------- decoding


def test_decode_text() -> None:
    assert decode_text("héllo".encode()) == ("héllo", [])
    text, problems = decode_text(b"ab\xffcd")
    assert text == "ab\ufffdcd"
    assert problems == ["invalid UTF-8 at byte 2"]
    assert decode_text(b"a\x00b")[1] == ["binary file (NUL byte)"]
    assert decode_text(b"\xc3\x00")[1] == ["invalid UTF-8 at byte 0", "binary file (NUL byte)"]
    assert decode_text(b"\xef\xbb\xbfx")[0] == "\ufeffx"


# --------------------------------------------------------------------------- properties

FRAGMENTS = st.sampled_from(
    [
        "name: x",
        "type: feedback",
        "metadata: ",
        "  type: user",
        "  modified: 2026-08-15T18:58:28.638Z",
        "description: `a` {b} @c",
        "- item",
        "a: &x [*x]",
        "  - nested",
        "key: 'open",
        'key: "open',
        "? complex",
        "!!binary x",
        "%YAML 1.1",
        "--- ",
        "...",
        "\t",
        "\r",
        "#",
        "\ufeff",
        "k: !!python/object:os.system x",
        "",
    ]
)


@st.composite
def frontmatter_like(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(["---\n", "---\r\n", "\ufeff---\n", "--- \n"]))
    pieces = draw(st.lists(st.one_of(FRAGMENTS, st.text(max_size=20)), max_size=12))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    closing = draw(st.sampled_from(["---\n", "---\r\n", "---", ""]))
    body = draw(st.text(max_size=30))
    return head + "".join(piece + eol for piece in pieces) + closing + body


def check_parse_invariants(text: str) -> None:
    fm = parse_frontmatter(text)
    if not fm.present:
        assert fm.data == {} and fm.end == 0
        return
    assert 0 < fm.end <= len(text)
    assert fm.raw in text
    assert body_of(text, fm) == text[fm.end :]
    if fm.error is not None:
        assert fm.data == {} and not fm.retried
    assert fm.type is None or fm.type in ("user", "feedback", "project", "reference")
    assert fm.layout == ("metadata" if isinstance(fm.data.get("metadata"), dict) else "flat")


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_parse_never_raises_on_any_text(text: str) -> None:
    check_parse_invariants(text)


@settings(max_examples=200, deadline=None)
@given(frontmatter_like())
def test_parse_never_raises_on_frontmatter_like_text(text: str) -> None:
    check_parse_invariants(text)


@settings(max_examples=200, deadline=None)
@given(st.binary())
def test_round_trip_any_bytes(data: bytes) -> None:
    assert MemoryDocument.from_bytes(data).to_bytes() == data


@st.composite
def frontmatter_like_bytes(draw: st.DrawFn) -> bytes:
    data = draw(frontmatter_like()).encode("utf-8", errors="surrogatepass")
    junk = draw(st.sampled_from([b"", b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80", b"\xef\xbb"]))
    at = draw(st.integers(min_value=0, max_value=len(data)))
    return data[:at] + junk + data[at:]


@settings(max_examples=200, deadline=None)
@given(frontmatter_like_bytes())
def test_round_trip_frontmatter_like_bytes(data: bytes) -> None:
    doc = MemoryDocument.from_bytes(data)
    assert doc.to_bytes() == data
    assert doc.with_body(doc.body).to_bytes() == data


VALUES = st.text(max_size=40).filter(lambda v: not any(0xD800 <= ord(c) <= 0xDFFF for c in v))


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_set_value_reads_back_exactly(value: str) -> None:
    for source in (FLAT, METADATA):
        doc = MemoryDocument.from_bytes(source.encode()).with_frontmatter_value(
            "description", value
        )
        fm = doc.frontmatter
        assert fm.error is None and not fm.retried
        assert fm.description == value
        assert fm.name == "testing-policy"
        assert fm.type == "feedback"


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_format_scalar_round_trips(value: str) -> None:
    fm = parse_frontmatter(fm_text(f"k: {format_scalar(value)}"))
    assert fm.data == {"k": value}


# --------------------------------------------------------------------------- editing


def edit(text: str, key: str, value: str) -> str:
    return MemoryDocument.from_bytes(text.encode()).with_frontmatter_value(key, value).to_text()


def test_edit_flat_changes_only_that_line() -> None:
    out = edit(FLAT, "type", "project")
    assert out == FLAT.replace("type: feedback\n", "type: project\n")
    assert parse_frontmatter(out).type == "project"


def test_edit_flat_adds_missing_key_at_end() -> None:
    out = edit(FLAT, "status", "on hold")
    assert out == FLAT.replace("---\nRun", "status: on hold\n---\nRun")
    assert parse_frontmatter(out).data["status"] == "on hold"


def test_edit_metadata_layout_sets_metadata_type() -> None:
    out = edit(METADATA, "type", "project")
    assert out == METADATA.replace("  type: feedback\n", "  type: project\n")
    fm = parse_frontmatter(out)
    assert fm.type == "project" and "type" not in fm.data
    assert "metadata: \n" in out


def test_edit_metadata_layout_adds_key_under_metadata() -> None:
    out = edit(METADATA, "status", "done")
    assert out == METADATA.replace("638Z\n---", "638Z\n  status: done\n---")
    assert parse_frontmatter(out).data["metadata"]["status"] == "done"


def test_edit_metadata_layout_name_and_description_stay_top_level() -> None:
    out = edit(METADATA, "name", "renamed")
    assert out == METADATA.replace("name: testing-policy\n", "name: renamed\n")
    no_description = METADATA.replace("description: one line, specific\n", "")
    out = edit(no_description, "description", "new hook")
    assert out == METADATA.replace("one line, specific", "new hook")


def test_edit_metadata_layout_updates_top_level_duplicate() -> None:
    text = fm_text("name: n", "type: user", "metadata: ", "  type: user")
    out = edit(text, "type", "reference")
    assert out == text.replace("type: user", "type: reference")
    assert parse_frontmatter(out).type == "reference"


def test_edit_replaces_multi_line_value() -> None:
    text = fm_text("name: n", "description: |", "  first", "", "  second", "type: user")
    out = edit(text, "description", "one line")
    assert out == fm_text("name: n", "description: one line", "type: user")


def test_edit_quotes_when_needed() -> None:
    out = edit(FLAT, "description", "a: b #c")
    assert 'description: "a: b #c"\n' in out
    assert parse_frontmatter(out).description == "a: b #c"
    assert "description: 2026-08-15\n" in edit(FLAT, "description", "2026-08-15")
    assert 'description: "123"\n' in edit(FLAT, "description", "123")


def test_edit_keeps_crlf_and_bom() -> None:
    text = "\ufeff" + FLAT.replace("\n", "\r\n")
    out = edit(text, "type", "user")
    assert out == text.replace("type: feedback\r\n", "type: user\r\n")
    out = edit(text, "extra", "x")
    assert out == text.replace("\r\n---\r\nRun", "\r\nextra: x\r\n---\r\nRun")


def test_edit_document_without_frontmatter() -> None:
    doc = MemoryDocument.from_bytes(b"\xef\xbb\xbfjust a body\r\n")
    out = doc.with_frontmatter_value("type", "user")
    assert out.to_bytes() == b"\xef\xbb\xbf---\r\ntype: user\r\n---\r\njust a body\r\n"
    assert out.frontmatter.type == "user"


def test_edit_broken_frontmatter_only_touches_its_line() -> None:
    text = fm_text("name: n", "key2: @x", "type: user")
    out = edit(text, "type", "project")
    assert out == text.replace("type: user", "type: project")


def test_with_body_keeps_frontmatter_bytes(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    head = METADATA[: METADATA.index("Run")].replace("\n", "\r\n").encode()
    original = head + b"old \xff body"
    path.write_bytes(original)
    doc = MemoryDocument.from_bytes(path.read_bytes())
    path.write_bytes(doc.with_body("new body\r\n").to_bytes())
    assert path.read_bytes() == head + b"new body\r\n"


def test_edit_keeps_invalid_bytes_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    original = b"---\nname: n\xff\ntype: user\n---\nbody \xc3 \x00\n"
    path.write_bytes(original)
    doc = MemoryDocument.from_bytes(path.read_bytes())
    assert doc.to_bytes() == original
    path.write_bytes(doc.with_frontmatter_value("type", "project").to_bytes())
    assert path.read_bytes() == original.replace(b"type: user", b"type: project")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["type", "name", "description", "status"]), VALUES)
def test_edit_keeps_other_lines(key: str, value: str) -> None:
    for source in (FLAT, METADATA):
        doc = MemoryDocument.from_bytes(source.encode())
        edited = doc.with_frontmatter_value(key, value)
        assert edited.body == doc.body and edited.opening == doc.opening
        assert edited.closing == doc.closing
        untouched = [line for line in doc.lines if not line.lstrip().startswith(key + ":")]
        assert [line for line in edited.lines if line in untouched] == untouched
        assert len(edited.lines) - len(doc.lines) in (0, 1)
