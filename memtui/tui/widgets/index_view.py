"""The MEMORY.md view: load meter, numbered lines with the cut drawn, dropped entries, health."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from memtui.core.contents import LoadReport
from memtui.core.index import MAX_LINES as LINE_LIMIT
from memtui.core.index import MAX_UNITS as UNIT_LIMIT
from memtui.tui import plain

METER_WIDTH = 24

LINES_PAST_CUT = 60
"""Lines shown after the cut; a huge index is not rendered whole (press r for the raw file)."""

MAX_LINES_SHOWN = 600
MAX_DROPPED_SHOWN = 50


def bar(value: int, limit: int, width: int = METER_WIDTH) -> Text:
    """``▕████░░░░▏`` filled in proportion, red when over the limit."""
    filled = min(width, round(width * value / limit)) if limit else width
    style = "bold red" if value > limit else ("yellow" if value > 0.9 * limit else "green")
    out = Text("▕")
    out.append("█" * filled, style=style)
    out.append("░" * (width - filled), style="dim")
    out.append("▏")
    return out


def meter(report: LoadReport) -> Text:
    """Lines of 200, UTF-16 units of 25,000, which limit binds, and the headroom left."""
    text = Text()
    text.append(f"{report.lines} lines / {LINE_LIMIT} ", style="bold")
    text.append_text(bar(report.lines, LINE_LIMIT))
    text.append(f"   {report.units:,} / {UNIT_LIMIT:,} units ", style="bold")
    text.append_text(bar(report.units, UNIT_LIMIT))
    text.append("   binds: ")
    text.append(report.binds, style="bold red" if report.binds != "none" else "green")
    if report.binds == "none":
        text.append(
            f"   headroom: {LINE_LIMIT - report.lines} lines, "
            f"{UNIT_LIMIT - report.units:,} units",
            style="dim",
        )
    text.append(f"   ({report.bytes:,} UTF-8 bytes)", style="dim")
    if report.agent:
        text.append("   agent memory: measured raw", style="dim italic")
    return text


def cut_banner(report: LoadReport) -> Text:
    count = len(report.dropped)
    return Text(
        f"─── ✂ Claude stops reading here · {count} "
        f"{'entry' if count == 1 else 'entries'} below never loaded ───",
        style="bold red",
    )


def numbered_lines(raw: str, report: LoadReport) -> Text:
    """The file with line numbers; lines past the cut dimmed, the cut drawn after its line."""
    out = Text()
    lines = raw.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    width = len(str(len(lines)))
    dropped_lines = {d.line for d in report.dropped}
    limit = MAX_LINES_SHOWN
    if report.cut_line is not None:
        limit = min(limit, max(report.cut_line + LINES_PAST_CUT, LINES_PAST_CUT))
    for number, line in enumerate(lines[:limit], start=1):
        past = report.cut_line is not None and number > report.cut_line
        out.append(f"{number:>{width}} ", style="dim")
        style = "dim strike" if number in dropped_lines else ("dim" if past else "")
        out.append(plain.line(line), style=style)
        out.append("\n")
        if report.cut_line == number:
            out.append_text(cut_banner(report))
            out.append("\n")
    if len(lines) > limit:
        more = len(lines) - limit
        out.append(f"… {more:,} more lines (r shows the raw file)\n", style="dim italic")
    return out


def dropped_list(report: LoadReport) -> Text:
    out = Text()
    if not report.dropped:
        return out
    out.append(f"Entries past the cut ({len(report.dropped)}), never loaded:\n", style="bold")
    for entry in report.dropped[:MAX_DROPPED_SHOWN]:
        out.append(f"  line {entry.line}: ", style="dim")
        out.append(plain.line(entry.title))
        if entry.target:
            out.append(f" → {plain.line(entry.target)}", style="dim")
        out.append("\n")
    if len(report.dropped) > MAX_DROPPED_SHOWN:
        more = len(report.dropped) - MAX_DROPPED_SHOWN
        out.append(f"  … and {more:,} more\n", style="dim italic")
    return out


def health_text(report: LoadReport) -> Text:
    health = report.health
    out = Text()
    if health.ok:
        out.append("Index health: ok\n", style="green")
        return out
    out.append("Index health\n", style="bold")
    for entry in health.dangling:
        target = plain.line(entry.target)
        out.append(f"  ✕ line {entry.line}: {target} does not exist\n", style="red")
    for orphan in health.orphans:
        out.append(f"  ◌ {plain.line(orphan)}: no index entry points to it\n", style="yellow")
    for long in health.long_entries:
        out.append(
            f"  ↔ line {long.line}: {long.length} chars (keep under {long.limit})\n",
            style="yellow",
        )
    for broken in health.broken_wikilinks:
        link, source = plain.line(broken.link), plain.line(broken.source)
        out.append(f"  ✕ [[{link}]] in {source} matches no memory\n", style="red")
    return out


def index_pinned(report: LoadReport) -> RenderableType:
    """What stays on screen while the file scrolls: the meter and Claude Code's warning."""
    parts: list[RenderableType] = [meter(report)]
    if report.warning:
        warning = plain.body(report.warning)
        parts.append(Text.assemble(("Claude Code shows: ", "bold"), (warning, "yellow")))
    return Group(*parts)


def index_body(report: LoadReport, raw: str) -> RenderableType:
    """Health, the entries past the cut, and the numbered file with the cut drawn."""
    parts: list[RenderableType] = [health_text(report), dropped_list(report)]
    parts.append(numbered_lines(raw, report))
    for problem in report.problems:
        parts.append(Text(f"⚠ {plain.line(problem)}", style="red"))
    return Group(*parts)
