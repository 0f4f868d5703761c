"""Control characters from disk are shown escaped, never sent to the terminal."""

from __future__ import annotations

import json

from memtui.core.plaintext import escape_controls, escape_diff, has_controls, json_safe


def test_plain_text_is_unchanged() -> None:
    text = "Deploy freeze — 배포 금지 [/nope] [@click=app.quit]x[/]"
    assert escape_controls(text) == text
    assert not has_controls(text)


def test_escape_and_osc_sequences_are_escaped() -> None:
    osc = "\x1b]2;pwned\x07title"
    assert escape_controls(osc) == "\\x1b]2;pwned\\x07title"
    assert escape_controls("\x1b[2J\x1b[H") == "\\x1b[2J\\x1b[H"
    assert escape_controls("a\x9bb\x7f") == "a\\x9bb\\x7f"
    assert has_controls(osc)


def test_newlines_escaped_in_one_line_fields() -> None:
    assert escape_controls("evil\nname.md") == "evil\\nname.md"
    assert escape_controls("a\r\tb") == "a\\r\\tb"


def test_bodies_keep_newlines_and_tabs_but_not_carriage_returns() -> None:
    assert escape_controls("a\n\tb\r\n\x1bc", keep_newlines=True) == "a\n\tb\\r\n\\x1bc"


def test_bidi_overrides_are_escaped() -> None:
    assert escape_controls("safe\u202eexe.md") == "safe\\u202eexe.md"
    assert escape_controls("x\u2066y\u2069\u2028", keep_newlines=True) == "x\\u2066y\\u2069\\u2028"


def test_json_safe_escapes_what_json_dumps_leaves_raw() -> None:
    value = {"d": "a\x9bb\x7fc\u202ed\x1be — 배포", "n": 1}
    text = json.dumps(value, ensure_ascii=False)
    assert "\x9b" in text and "\u202e" in text  # json.dumps leaves these raw
    safe = json_safe(text)
    assert safe == '{"d": "a\\u009bb\\u007fc\\u202ed\\u001be — 배포", "n": 1}'
    assert json.loads(safe) == value
    assert json_safe('{"plain": "— 배포"}') == '{"plain": "— 배포"}'


def test_escape_diff_keeps_a_file_name_with_a_newline_on_its_header_line() -> None:
    rel = "new\nline\x1b.md"
    unified = f"--- a/{rel}\n+++ /dev/null\n@@ -1 +0,0 @@\n-body \x1b[2J\n"
    assert escape_diff(unified, rel).split("\n") == [
        "--- a/new\\nline\\x1b.md", "+++ /dev/null", "@@ -1 +0,0 @@", "-body \\x1b[2J", "",
    ]


def test_no_escaped_character_is_printable() -> None:
    """The prefilter: a text ``str.isprintable`` accepts holds no character any of the patterns
    escapes, so it is returned unchanged without a pattern being compiled (issue 25)."""
    from memtui.core import plaintext

    patterns = (plaintext._single_line(), plaintext._multi_line(), plaintext._json_raw())
    for code in range(0x110000):
        char = chr(code)
        if char.isprintable():
            assert not any(p.match(char) for p in patterns), hex(code)


def test_a_printable_text_compiles_no_pattern() -> None:
    from memtui.core import plaintext

    getters = (plaintext._single_line, plaintext._multi_line, plaintext._json_raw)
    for getter in getters:
        getter.cache_clear()
    assert escape_controls("a — 배포 [x]") == "a — 배포 [x]"
    assert escape_controls("a — 배포", keep_newlines=True) == "a — 배포"
    assert not has_controls("plain")
    assert json_safe('{"a": "— 배포"}') == '{"a": "— 배포"}'
    assert sum(getter.cache_info().currsize for getter in getters) == 0
    assert escape_controls("a\x1b") == "a\\x1b"  # and compiled when needed
