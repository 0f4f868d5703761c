"""agentmemory's entries: markers, tags, links, topic backlinks, lifecycle, summaries."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memtui.core.distil.agentmemory_entries import (
    LIFECYCLE_RE,
    PARAGRAPH_BREAK_RE,
    STATUS_RE,
    UNTRUSTED_RE,
    VALID_UNTIL_RE,
    _blocks,
    _tags,
    extract_links,
    extract_tags,
    lifecycle_reason,
    may_hold_secret,
    parse_daily,
    parse_scratchpad,
    parse_topic,
    redact,
    summary,
)
from memtui.core.parse.jsstring import js_trim

TODAY = "2026-03-03"


def test_tags_follow_agentmemorys_regex() -> None:
    text = "#Auth first, then #deploy-v2 and #ci_x; not x#mail, #1st or #-x\u00a0#nbsp (#paren"
    assert extract_tags(text) == ("#auth", "#ci_x", "#deploy-v2", "#nbsp")
    assert extract_tags("é#no") == ()
    assert extract_tags("## heading\n#tag") == ("#tag",)


def test_links_are_trimmed_unique_and_sorted() -> None:
    assert extract_links("see [[ b ]] and [[a]] and [[b]]; not [[]]") == ("a", "b")


def test_a_daily_log_splits_on_markers() -> None:
    text = (
        "# 2026-03-01\n\n"
        "<!-- 2026-03-01 09:00:00 [aaaa1111] -->\nFirst #one\nmore\n\n"
        "<!-- 2026-03-01 10:00:00 [] -->\nSecond [[x]]\n"
    )
    parsed = parse_daily("daily/2026-03-01.md", "2026-03-01", text, TODAY)
    first, second = parsed.entries
    assert (first.start, first.end, first.sid) == (3, 5, "aaaa1111")
    assert first.timestamp == "2026-03-01 09:00:00"
    assert (first.content, first.tags) == ("First #one\nmore", ("#one",))
    assert first.first_line == "First #one"
    assert (second.start, second.end, second.sid, second.links) == (7, 8, "", ("x",))
    assert all(e.date == "2026-03-01" and e.kind == "daily" for e in parsed.entries)


def test_unmarked_prose_before_the_first_marker_is_an_entry_a_heading_is_not() -> None:
    text = "A note without marker\n<!-- 2026-03-01 09:00:00 [a] -->\nMarked"
    entries = parse_daily("daily/d.md", "d", text, TODAY).entries
    assert [(e.timestamp, e.content, e.start, e.end) for e in entries] == [
        ("", "A note without marker", 1, 1),
        ("2026-03-01 09:00:00", "Marked", 2, 3),
    ]
    assert parse_daily("daily/d.md", "d", "# d\n<!-- c -->\n\n", TODAY).entries == []


def test_a_topic_file_has_a_title_dates_and_backlinks() -> None:
    text = (
        "# Topic: Auth flow\n\n<!-- created: 2026-03-01 12:00:00 [aaaa1111] -->\n\n"
        "<!-- 2026-03-01 12:00:00 [aaaa1111] -->\nPKCE #auth\nDaily: [[2026-02-28]]\n\n"
        "<!-- 2026-03-02 09:00:00 [cccc3333] -->\nNo backlink here"
    )
    parsed = parse_topic("topics/auth.md", "auth", text, TODAY)
    assert parsed.title == "Auth flow"
    first, second = parsed.entries
    assert (first.date, first.content, first.daily_link, first.links) == (
        "2026-02-28", "PKCE #auth", "2026-02-28", ()
    )
    assert (first.topic, first.slug, first.start, first.end) == ("Auth flow", "auth", 5, 7)
    assert (second.date, second.daily_link) == ("2026-03-02", None)
    untitled = parse_topic("topics/x.md", "x", "<!-- 2026-03-01 12:00:00 [a] -->\nBody", TODAY)
    assert (untitled.title, untitled.entries[0].topic) == (None, "x")


def test_a_topic_entry_that_is_only_a_backlink_keeps_it_as_content() -> None:
    text = "<!-- 2026-03-01 12:00:00 [a] -->\nDaily: [[2026-03-01]]"
    (entry,) = parse_topic("topics/x.md", "x", text, TODAY).entries
    assert entry.content == "Daily: [[2026-03-01]]"


def test_lifecycle_markers_in_the_first_paragraph_exclude_an_entry() -> None:
    marker = "<!-- 2026-03-01 09:00:00 [a] -->\n"
    assert lifecycle_reason(marker + "Status: superseded\nbody", TODAY) == "Status: superseded"
    assert lifecycle_reason(marker + "- Status: Retired.\nbody", TODAY) == "Status: retired"
    assert lifecycle_reason(marker + "* Trust: untrusted", TODAY) == "Trust: untrusted"
    assert lifecycle_reason(marker + "Status: revoked", TODAY) == "Status: revoked"
    assert lifecycle_reason(marker + "Status: expired", TODAY) == "Status: expired"
    assert lifecycle_reason(marker + "Valid until: 2026-03-02", TODAY) == (
        "Valid until: 2026-03-02 (expired)"
    )
    assert lifecycle_reason(marker + "Valid until 2026-03-03", TODAY) is None  # today: valid
    assert lifecycle_reason(marker + "body\n\nStatus: superseded", TODAY) is None
    assert lifecycle_reason(marker + "Status: superseded by the new flow", TODAY) is None
    assert lifecycle_reason(marker + "Status: active", TODAY) is None


def test_excluded_entries_keep_their_reason_and_span() -> None:
    text = (
        "<!-- 2026-03-01 09:00:00 [a] -->\nKeep me\n\n"
        "<!-- 2026-03-01 10:00:00 [a] -->\nStatus: superseded\nOld #x\n\n"
        "<!-- 2026-03-01 11:00:00 [a] -->\nValid until: 2026-01-01\nStale"
    )
    parsed = parse_daily("daily/2026-03-01.md", "2026-03-01", text, TODAY)
    assert [e.content for e in parsed.entries] == ["Keep me"]
    assert [(x.reason, x.entry.start, x.entry.end) for x in parsed.excluded] == [
        ("Status: superseded", 4, 6),
        ("Valid until: 2026-01-01 (expired)", 8, 10),
    ]


def test_an_excluded_preamble_takes_the_topic_title_with_it() -> None:
    text = "# Topic: Secret\nTrust: untrusted\n\n<!-- 2026-03-01 12:00:00 [a] -->\nBody"
    parsed = parse_topic("topics/s.md", "s", text, TODAY)
    assert parsed.title is None
    assert parsed.entries[0].topic == "s"


def test_summary_cuts_at_80_utf16_units_and_masks_secrets() -> None:
    assert summary("short\nsecond line") == "short"
    assert summary("x" * 80) == "x" * 80
    assert summary("x" * 81) == "x" * 80 + "..."
    assert summary("x" * 79 + "😀" + "y") == "x" * 79 + "\ufffd..."  # JS cuts the pair
    assert summary("x" * 78 + "😀" + "y") == "x" * 78 + "😀..."
    assert summary("key sk-abcdefghijklmnopqrst here") == "key [REDACTED_SECRET] here"
    assert summary("crlf line\r\nnext") == "crlf line"


def test_scratchpad_items_with_their_marker() -> None:
    text = (
        "# Scratchpad\n\n<!-- 2026-03-01 09:05:00 [a] -->\n- [ ] open one\n- [x] done\n"
        "- [X] done too\n-  [ ] not an item\n- [ ] open two\n"
    )
    items = parse_scratchpad(text)
    assert [(i.line, i.text, i.done, i.meta) for i in items] == [
        (4, "open one", False, "<!-- 2026-03-01 09:05:00 [a] -->"),
        (5, "done", True, ""),
        (6, "done too", True, ""),
        (8, "open two", False, ""),
    ]


_PIECES = st.sampled_from(
    [
        "<!-- 2026-03-01 09:00:00 [abcd1234] -->",
        "<!-- 2026-03-01 09:00:00 [] -->",
        "<!-- 2026-03-01 09:00:00 [",
        "Status: superseded",
        "Valid until: 2026-01-01",
        "Trust: untrusted",
        "Daily: [[2026-03-01]]",
        "# Topic: T",
        "#tag",
        "[[link]]",
        "- [ ] item",
        "\n",
        "\r\n",
        "\n\n",
        " ",
        "\ufeff",
        "😀",
    ]
)
_TEXT = st.lists(st.one_of(_PIECES, st.text(max_size=12)), max_size=30).map("".join)


@settings(max_examples=200)
@given(_TEXT)
def test_the_entry_parsers_never_raise(text: str) -> None:
    lines = len(text.removeprefix("\ufeff").split("\n"))
    for parsed in (
        parse_daily("daily/d.md", "2026-03-01", text, TODAY),
        parse_topic("topics/t.md", "t", text, TODAY),
    ):
        spans = [e.start for e in parsed.entries] + [x.entry.start for x in parsed.excluded]
        assert all(1 <= start <= lines for start in spans)
        for entry in parsed.entries:
            assert entry.start <= entry.end <= lines
            assert entry.content == entry.content.strip(" \n\t")
            summary(entry.content)
    parse_scratchpad(text)


# --- the fast paths against what they stand for ------------------------------------------------

_TRICKY = st.sampled_from(
    [
        "<!-- 2026-03-01 09:00:00 [abcd1234] -->",
        "<!-- 2026-03-01 09:00:00 [ab\ncd] -->",
        "<!-- 2026-03-01 09:00:00 [a] --> trailing",
        " <!-- 2026-03-01 09:00:00 [a] -->",
        "] -->",
        "Status: superseded",
        "STATUS:\texpired.",
        "\u017ftatus: retired",  # a long s: the same letter to re.I
        "- Trust: untrusted ",
        "* Valid until 2020-01-01",
        "Valid until: 2026-01-01",
        "#sk-abcdefghijklmnopqrstu",
        "sk-abcdefghijklmnopqrstuv",
        "ghp_" + "a" * 20,
        "AKIA" + "B" * 16,
        "API_KEY = 'abcdefghijklmnopqr'",
        "Secret:abcdefghijklmnopqrstu",
        "access-Token=abcdefghijklmnopqr",
        " #tag",
        "\u212a",  # the Kelvin sign lowers to k
        "\n",
        "\r\n",
        "\n\n",
        "\n \u00a0\n",
        " ",
        "\u2028",
        "\ufeff",  # JavaScript's whitespace, not Python's
        "\x1f",  # Python's whitespace, not JavaScript's
        "😀",
    ]
)
_TRICKY_TEXT = st.lists(st.one_of(_TRICKY, st.text(max_size=10)), max_size=30).map("".join)
_LINE_MARKER_RE = re.compile(r"<!-- (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) \[([^\]]*)\] -->")


def blocks_line_by_line(text: str) -> list[tuple[int, str, tuple[str, ...] | None, str, int]]:
    """The cut as agentmemory makes it, one line at a time: (first line, 0-based), the lines
    joined, the marker's groups, the body, and the last line that is not blank (1-based)."""
    cut: list[tuple[int, list[str], re.Match[str] | None]] = []
    for number, line in enumerate(text.split("\n")):
        found = _LINE_MARKER_RE.match(line)
        if found or not cut:
            cut.append((number, [line], found))
        else:
            cut[-1][1].append(line)
    out = []
    for start, lines, found in cut:
        joined = "\n".join(lines)
        last = len(lines)
        while last > 1 and not js_trim(lines[last - 1]):
            last -= 1
        body = js_trim(joined[found.end() :] if found else joined)
        out.append((start, joined, found.groups() if found else None, body, start + last))
    return out


@settings(max_examples=500)
@given(_TRICKY_TEXT)
@example("<!-- 2026-03-01 09:00:00 [a] -->\nbody\n\ufeff\n<!-- 2026-03-01 09:00:00 [b] -->\n\x1f")
def test_blocks_cut_the_text_as_a_line_by_line_reading_does(text: str) -> None:
    fast = [
        (b.start, b.text, b.marker.groups() if b.marker else None, b.body, b.span()[1])
        for b in _blocks(text)
    ]
    assert fast == blocks_line_by_line(text)


@settings(max_examples=500)
@given(_TRICKY_TEXT)
def test_a_block_lifecycle_re_misses_has_no_lifecycle_line(text: str) -> None:
    header = PARAGRAPH_BREAK_RE.split(text, maxsplit=1)[0]
    if any(p.search(header) for p in (UNTRUSTED_RE, STATUS_RE, VALID_UNTIL_RE)):
        assert LIFECYCLE_RE.search(text)
        assert LIFECYCLE_RE.search(js_trim(text))


@settings(max_examples=500)
@given(_TRICKY_TEXT)
@example("sk-abcdefghijklmnopqrstuv #a")
@example("ghp_" + "a" * 20 + " #a")
@example("AKIA" + "B" * 16 + " #a")
@example("#aws-AKIA" + "B" * 16)
@example("Access_Token: abcdefghijklmnopqr #a")
def test_tags_are_those_of_the_redacted_text(text: str) -> None:
    assert may_hold_secret(text) or redact(text) == text
    assert _tags(text) == extract_tags(redact(text))
