"""What Claude Code loads of a MEMORY.md and what it leaves out: the load report
(docs/claude-code-rules.md#memorymd-load-report). The main session measures the text
``stripped_text`` gives, agent memory the raw file."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence, Set
from dataclasses import dataclass

from memtui.core.contents import DroppedEntry, IndexEntry, LoadReport
from memtui.core.lazylist import LazyList
from memtui.core.parse.index_entries import IndexEntries, parse_entries
from memtui.core.parse.jsstring import js_trim, js_trim_start_at
from memtui.core.parse.main_session_text import stripped_text, unstripped_text
from memtui.core.parse.utf16 import encoded_length, index_of_unit, prefix_by_units, units

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.core.contents import Binds


MAX_LINES = 200


MAX_UNITS = 25_000


EMPTY_AGENT_INDEX = (
    "Your MEMORY.md is currently empty. When you save new memories, they will appear here."
)


_WARNING_ADVICE = (
    "Only part of it was loaded. Keep index entries to one line under ~200 chars; "
    "move detail into topic files."
)


def _to_fixed_1(n: int, scale: int) -> str:
    """``(n / scale).toFixed(1)`` for ``n >= 0`` and ``scale`` a power of two.

    ``n / scale`` is exact in binary, and toFixed picks the nearest tenth, the larger one on a
    tie (round half up), so integer arithmetic reproduces it exactly.
    """
    tenths = (20 * n + scale) // (2 * scale)
    return f"{tenths // 10}.{tenths % 10}"


def format_size(n: int) -> str:
    """CC's ``formatFileSize``: ``N bytes`` under 1024, else KB/MB/GB, one decimal, no ``.0``."""
    if n < 1024:
        return f"{n} bytes"
    for unit, scale in (("KB", 1024), ("MB", 1024**2)):
        if n < scale * 1024:
            return _strip_point_zero(_to_fixed_1(n, scale)) + unit
    return _strip_point_zero(_to_fixed_1(n, 1024**3)) + "GB"


def _strip_point_zero(text: str) -> str:
    return text[:-2] if text.endswith(".0") else text


def warning_text(lines: int, units: int, line_truncated: bool, byte_truncated: bool) -> str:
    """The text CC appends to a truncated MEMORY.md, leading ``\\n\\n`` included.

    ``units`` is the UTF-16 length of the trimmed text (CC calls it bytes). Returns ``""`` when
    neither limit was exceeded (CC appends nothing then).
    """
    if not (line_truncated or byte_truncated):
        return ""
    if byte_truncated and not line_truncated:
        reason = (
            f"{format_size(units)} (limit: {format_size(MAX_UNITS)}) — index entries are too long"
        )
    elif line_truncated and not byte_truncated:
        reason = f"{lines} lines (limit: {MAX_LINES})"
    else:
        reason = f"{lines} lines and {format_size(units)}"
    return f"\n\n> WARNING: MEMORY.md is {reason}. {_WARNING_ADVICE}"


@dataclass
class _Cut:
    """What Claude Code loads of an over-limit text, where it stops, and whether a line is cut."""

    loaded: str
    last_line: int  # 0-based line of the trimmed text where loading stops
    partial: bool


def _cut(text: str, line_truncated: bool, unit_cap: bool = True) -> _Cut:
    """CC's truncation of an over-limit trimmed text (without the warning); ``unit_cap``
    False: the 200-line cap only (Claude Code before 2.1.83).

    Where JS ``slice(0, 25000)`` would split a surrogate pair, the whole character is left out:
    JS keeps a lone high surrogate, which cannot be encoded as UTF-8 or shown. That line counts
    as partially loaded.
    """
    kept = "\n".join(text.split("\n", MAX_LINES)[:MAX_LINES]) if line_truncated else text
    if unit_cap and units(kept) > MAX_UNITS:
        search_end = index_of_unit(kept, MAX_UNITS + 1)
        cut_at = kept.rfind("\n", 0, search_end)
        kept = kept[:cut_at] if cut_at > 0 else prefix_by_units(kept, MAX_UNITS)
    partial = len(kept) < len(text) and text[len(kept)] != "\n"
    return _Cut(kept, kept.count("\n"), partial)


def _binds(line_truncated: bool, byte_truncated: bool) -> Binds:
    if line_truncated and byte_truncated:
        return "both"
    if line_truncated:
        return "lines"
    return "bytes" if byte_truncated else "none"


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else encoded_length(text, "utf-8")


def _hidden_entry_problems(
    entries: Sequence[IndexEntry], lines: list[int], line_map: Sequence[int]
) -> list[str]:
    """``lines``: each entry's line (only the hidden entries are looked at)."""
    if isinstance(line_map, range):  # consecutive lines; ``lines`` ascend: those around it
        below, above = bisect_left(lines, line_map.start), bisect_left(lines, line_map.stop)
        hidden: Set[int] = set(lines[:below] + lines[above:])
    else:
        hidden = set(lines).difference(line_map)  # C: most files hide no entry
    if not hidden:
        return []
    return [
        f"line {line}: entry [{entries[i].title}] is inside frontmatter or an HTML comment; "
        "Claude Code never sees it"
        for i, line in enumerate(lines)
        if line in hidden
    ]


def _dropped(entries: Sequence[IndexEntry], first: int) -> LazyList[DroppedEntry]:
    """The entries from position ``first`` on, as dropped entries (built when looked at)."""

    def build(i: int) -> DroppedEntry:
        entry = entries[first + i]
        return DroppedEntry(entry.line, entry.title, entry.target)

    return LazyList(len(entries) - first, build)


def load_report(path: str, raw: str, *, agent: bool, fast: bool = True,
                unit_cap: bool = True) -> LoadReport:
    """Exactly what CC puts in the prompt for this MEMORY.md, and what it leaves out.

    ``agent=False`` is the main session (auto and team memory: frontmatter and block comments
    stripped first); ``agent=True`` is agent memory (the raw file). ``lines``, ``units`` (UTF-16)
    and ``bytes`` (UTF-8) describe the trimmed text CC measures. ``cut_line`` is the 1-based raw
    line of the file on which loading stops, i.e. the last raw line of which anything is loaded
    (``None`` when everything loads); when ``cut_partial`` is set that line is only partly
    loaded. ``dropped`` lists the entries after the cut, including any on a partly loaded line.

    ``unit_cap``: the 25,000-unit cut applies (Claude Code from 2.1.83); False: only the
    200-line cap (``StoreLocation.unit_cap`` says which).

    ``fast``: the entries are an ``IndexEntries`` (built when looked at) and the health counts
    them without building them; False (only in tests, to check the two agree): a list, and
    ``index_health`` looks at each entry.
    """
    stripped = unstripped_text(raw) if agent else stripped_text(raw)
    entries: Sequence[IndexEntry]
    if fast:
        entries = IndexEntries(raw)
        entry_lines = entries.lines
    else:
        entries = parse_entries(raw)
        entry_lines = [entry.line for entry in entries]
    problems = list(stripped.problems)
    if not agent:
        problems += _hidden_entry_problems(entries, entry_lines, stripped.line_map)
    text = js_trim(stripped.text)
    lead = js_trim_start_at(stripped.text)
    first_line_index = stripped.text.count("\n", 0, lead)
    n_lines = text.count("\n") + 1
    n_units = units(text)
    line_truncated = n_lines > MAX_LINES
    byte_truncated = unit_cap and n_units > MAX_UNITS
    report = LoadReport(
        path=path,
        lines=n_lines,
        units=n_units,
        bytes=_utf8_length(text),
        line_truncated=line_truncated,
        byte_truncated=byte_truncated,
        binds=_binds(line_truncated, byte_truncated),
        cut_line=None,
        dropped=[],
        warning=None,
        loaded=text if text or not agent else EMPTY_AGENT_INDEX,
        agent=agent,
        entries=entries,
        problems=problems,
    )
    if not (line_truncated or byte_truncated):
        return report
    cut = _cut(text, line_truncated, unit_cap)
    warning = warning_text(n_lines, n_units, line_truncated, byte_truncated)
    report.loaded = cut.loaded + warning
    report.warning = warning.removeprefix("\n\n")
    report.cut_line = stripped.line_map[first_line_index + cut.last_line]
    report.cut_partial = cut.partial
    # entries are in line order: the dropped ones are the tail from the first one past the cut
    last_kept = report.cut_line - 1 if cut.partial else report.cut_line
    report.dropped = _dropped(entries, bisect_right(entry_lines, last_kept))
    return report
