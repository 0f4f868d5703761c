"""The fast load report (entries built when looked at, health counted over all entries at once)
against the full one (every entry built, judged one by one): identical reports for any index.

``load_report(fast=False)`` is the reference: a list of entries from ``parse_entries`` and
``index_health`` looking at each entry (the code every index took before a runaway MEMORY.md
of 50,000 lines made it slow, issue 8 item 9).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memtui.core.contents import IndexHealth, LoadReport
from memtui.core.parse import index_entries, main_session_text
from memtui.core.parse import index_health as health_module
from memtui.core.parse.index_entries import IndexEntries, parse_entries
from memtui.core.parse.index_health import index_health
from memtui.core.parse.load_report import load_report
from memtui.core.scan.serialize import load_report_json

TARGETS = [
    "a.md", "b.md", "x.md", "notes", "notes/", "sub", "sub/c.md", "c.md", "../a.md", "./a.md",
    "a%20b.md", "a b.md", ".hidden.md", " a.md", "https://x.org/a.md", "/abs.md", "#h", "~/x.md",
    "노트.md", "a.MD", "c", "a.md#h", "a.md?x=1", "-.md", "_x.md", "é.md", "😀.md",
    "a\u00a0b.md", "a\tb.md", "a\\b.md", "mailto:a.md", "sub/../a.md", "..", ".", "d.md",
]  # fmt: skip
STORE_FILES = ["a.md", "b.md", "sub/c.md", "notes/d.md", "a b.md", "노트.md", ".hidden.md", "x.md"]


@st.composite
def entry_lines(draw: st.DrawFn) -> str:
    bullet = draw(st.sampled_from(["-", "*", "+", "1.", "2)", "  -", "\t*"]))
    em = draw(st.sampled_from(["", "", "**", "_", "***"]))
    title = draw(st.sampled_from(["Note", "노트 하나", "a [b] c", "x\\]y", "", "😀"]))
    target = draw(st.sampled_from(TARGETS))
    dest = f"<{target}>" if draw(st.booleans()) or " " in target else target
    separator = draw(st.sampled_from([" — ", " – ", " - ", ": ", " ", ""]))
    hook = draw(st.sampled_from(["hook", "", "긴 설명 " * 30, "x" * 160, "y" * 210, "a\r"]))
    return f"{bullet} {em}[{title}]({dest}){em}{separator}{hook}"


OTHER_LINES = [
    "", "# Memory index", "<!-- a comment -->", "<!-- open", "close -->", "<!-- a --> tail",
    "---", "title: x", "text", "   ", "> quote", "```", "[r]: http://x.y", "\r", "😀",
    "- not an entry", "    - [code](a.md) — h",
]  # fmt: skip
indexes = st.lists(entry_lines() | st.sampled_from(OTHER_LINES), max_size=40).map("\n".join)


def report_facts(report: LoadReport) -> tuple[object, ...]:
    """Every field of a report, each sequence as a list."""
    return (
        report.path, report.lines, report.units, report.bytes, report.line_truncated,
        report.byte_truncated, report.binds, report.cut_line, list(report.dropped),
        report.warning, report.loaded, report.agent, list(report.entries), report.problems,
        report.cut_partial,
    )  # fmt: skip


def health_facts(health: IndexHealth) -> tuple[object, ...]:
    return (list(health.dangling), health.orphans, health.long_entries, health.broken_wikilinks,
            health.wikilinks_checked)


def reports(
    raw: str, agent: bool, store_files: set[str], index_dir: str
) -> tuple[LoadReport, LoadReport]:
    """The fast and the full report of ``raw``, each with its health."""
    found = []
    for fast in (True, False):
        report = load_report("MEMORY.md", raw, agent=agent, fast=fast)
        report.health = index_health(
            report,
            store_files=store_files,
            memory_names={},
            link_sources={"MEMORY.md": raw},
            index_dir=index_dir,
        )
        found.append(report)
    return found[0], found[1]


@settings(max_examples=400, deadline=None)
@given(
    raw=indexes | st.text(max_size=300),
    agent=st.booleans(),
    store_files=st.sets(st.sampled_from(STORE_FILES)),
    index_dir=st.sampled_from(["", "", "sub"]),
)
@example(raw="- [a](a.md) — h\n<!-- c -->\n- [b](b.md)", agent=False, store_files=set(),
         index_dir="")  # fmt: skip
@example(raw="- [a](< a.md>)\n- [b](.b.md)\n- [c](c)", agent=False, store_files={"b.md"},
         index_dir="")  # fmt: skip
def test_the_fast_report_is_the_full_report(
    raw: str, agent: bool, store_files: set[str], index_dir: str
) -> None:
    fast, full = reports(raw, agent, store_files, index_dir)
    assert isinstance(fast.entries, IndexEntries) and isinstance(full.entries, list)
    assert report_facts(fast) == report_facts(full)
    assert health_facts(fast.health) == health_facts(full.health)
    assert load_report_json(fast) == load_report_json(full)


def test_a_runaway_index_gives_the_full_report() -> None:
    """2,000 entries past both limits, behind a comment, each 100th one long, some pointing to
    store files, folders, URLs and odd names: the same report both ways."""
    lines = ["# Memory index", "<!-- written by a runaway agent -->", ""]
    for i in range(2_000):
        target = TARGETS[i % len(TARGETS)] if i % 7 == 0 else f"note-{i}.md"
        dest = f"<{target}>" if " " in target else target
        lines.append(f"- [Note {i}]({dest}) — note {i}" + " and more" * (25 if i % 100 == 0 else 0))
    fast, full = reports("\n".join(lines), False, {"a.md", "sub/c.md", "notes/d.md"}, "")
    assert report_facts(fast) == report_facts(full)
    assert health_facts(fast.health) == health_facts(full.health)
    assert len(fast.dropped) > 1_500 and len(fast.health.dangling) > 1_500


def test_entries_are_built_once_when_looked_at() -> None:
    entries = IndexEntries("- [a](a.md) — h\ntext\n- [b](b.md)")
    assert entries.lines == [1, 3]
    assert entries[1] is entries[1] and entries[-1] is entries[1]
    assert entries == parse_entries("- [a](a.md) — h\ntext\n- [b](b.md)")
    assert entries.targets() == ["a.md", "b.md"]


@settings(max_examples=200, deadline=None)
@given(
    raw=st.text(alphabet="ab\n", max_size=60),
    offsets=st.lists(st.integers(min_value=0, max_value=70), max_size=20),
)
def test_raw_lines_answer_in_any_order(raw: str, offsets: list[int]) -> None:
    """Counted from the last offset asked, or looked up once one goes back."""
    lines = main_session_text._RawLines(raw)
    for offset in offsets:
        assert lines.line_of(offset) == raw.count("\n", 0, offset) + 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TARGETS) | st.text(max_size=8).filter(lambda t: "\n" not in t)))
def test_odd_targets_are_those_that_are_no_plain_name(targets: list[str]) -> None:
    targets = [t for t in targets if t]
    plain = re.compile(r"[\w\-][\w\- .]*")
    odd = health_module._odd_targets("\n".join(targets))
    assert odd == {t for t in targets if not plain.fullmatch(t)}


BLOCK_STARTS = [
    "~~~", "```", "\tcode", "   \tcode", "    code", "   > quote", "  # head", "#", "***", "___",
    "- - -", "1) x", "10. x", "+ x", "[a]: b", "   [a]: b 't'", "Setext", "===", "---",
    "   <div>", "<!-- c -->", "<!-- open", "close -->", "   <!-- c --> tail", "<?x?>", "text",
    "", "   ", "\t", "- [a](a.md) — h", "    - [a](a.md) — h", "😀", "  ~~~ x", "> - [a](a.md)",
]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(BLOCK_STARTS), max_size=30).map("\n".join))
@example("~~~\n- [a](a.md)\n~~~")
@example("\tcode\n- a")
def test_trying_only_the_rules_a_block_can_start_gives_marked_s_tokens(src: str) -> None:
    """The lexer's first-character check leaves the tokens as they are (and the report)."""
    from memtui.core.parse import marked

    fast = marked.BlockLexer(fast=True).lex(src)
    slow = marked.BlockLexer(fast=False).lex(src)
    assert [(t.type, t.raw, t.parts) for t in fast] == [(t.type, t.raw, t.parts) for t in slow]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=" \t\n\u3000\ufeffab", max_size=150), cut=st.integers(0, 150))
def test_trim_positions_match_js_trims(text: str, cut: int) -> None:
    from memtui.core.parse.jsstring import (
        js_trim_end,
        js_trim_end_at,
        js_trim_start,
        js_trim_start_at,
    )

    start = min(cut, len(text))
    assert text[start : js_trim_end_at(text, start, len(text))] == js_trim_end(text[start:])
    assert text[js_trim_start_at(text) :] == js_trim_start(text)


@pytest.mark.parametrize("length", [150, 151, 200, 201])
@pytest.mark.parametrize("first", [True, False], ids=["line 1", "line 2"])
@pytest.mark.parametrize("cr", ["", "\r"], ids=["LF", "CRLF"])
def test_long_entries_at_the_limits(length: int, first: bool, cr: str) -> None:
    """An entry exactly at or just past a limit, on the first line (no newline before it) or
    after one, with or without a CR: the same long entries both ways."""
    line = "- [a](a.md) — "
    line += "x" * (length - len(line))
    raw = (line + cr + "\nend" if first else "top\n" + line + cr + "\nend")
    fast, full = reports(raw, False, set(), "")
    assert fast.health.long_entries == full.health.long_entries
    assert [e.length for e in fast.health.long_entries] == ([length] if length > 150 else [])


@pytest.mark.parametrize("lazy", [False, True])
def test_a_scan_builds_every_entry_in_its_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lazy: bool
) -> None:
    """``scan_store`` (the TUI's worker) builds the entries, dropped and dangling entries before
    it returns, so the UI thread that reads them all builds none; ``memtui index``'s lazy scan
    builds them only when they are read."""
    from memtui.core.demo.writers import huge_index_lines, write_index
    from memtui.core.model import StoreKind, StoreLocation
    from memtui.core.scan.scanner import scan_store

    write_index(tmp_path, huge_index_lines(400))
    location = StoreLocation(kind=StoreKind.AUTO, path=tmp_path, rule="test")
    report = scan_store(location, lazy_index=lazy).index
    assert report is not None
    built: list[int] = []
    original = index_entries._entry

    def counting(line: int, match: re.Match[str]) -> object:
        built.append(line)
        return original(line, match)

    monkeypatch.setattr(index_entries, "_entry", counting)
    assert len(list(report.entries)) == 400 and len(list(report.dropped)) == 400 - 199
    assert len(list(report.health.dangling)) == 400
    long = len(report.health.long_entries)  # built by the health check: their lengths
    assert long == 4 and len(built) == (400 - long if lazy else 0)
