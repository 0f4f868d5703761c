"""The MEMORY.md view: load meter, numbered lines with the cut drawn, dropped entries, health."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

from memtui.core.contents import IndexHealth, LoadReport
from memtui.core.parse.load_report import MAX_LINES as LINE_LIMIT
from memtui.core.parse.load_report import MAX_UNITS as UNIT_LIMIT
from memtui.core.plaintext import counted, escape_controls

METER_WIDTH = 24

LINES_PAST_CUT = 20
"""Lines shown after the cut; a huge index is not rendered whole (press r for the raw file)."""

MAX_LINES_SHOWN = 600
MAX_RAW_LINES = 1_000
MAX_LINE_CHARS = 500
"""Characters of one line shown; the rest is counted ("… (N more chars)")."""
MAX_TITLE_CHARS = 200
MAX_LIST_SHOWN = 25
"""Items shown of each list (entries past the cut, each health list, problems)."""


COMPACT_SHARE = 0.8
"""From 2.1.186 Claude Code tells the agent to compact MEMORY.md at 80 % of the binding limit
(docs/claude-code-rules.md#memorymd-load-report)."""


def bar(value: int, limit: int, width: int = METER_WIDTH) -> Text:
    """``▕████░░░┊░▏`` filled in proportion, red when over the limit; ``┊`` (or a lighter
    filled cell) marks 80 % of the limit, where Claude Code starts asking to compact."""
    filled = min(width, round(width * value / limit)) if limit else width
    style = "bold red" if value > limit else ("yellow" if value > 0.9 * limit else "green")
    tick = round(width * COMPACT_SHARE)
    out = Text("▕")
    out.append("█" * min(filled, tick), style=style)
    if filled > tick:
        out.append("▓", style=style)
        out.append("█" * (filled - tick - 1), style=style)
    else:
        out.append("░" * (tick - filled), style="dim")
        out.append("┊", style="magenta")
    out.append("░" * (width - max(filled, tick + 1)), style="dim")
    out.append("▏")
    return out


def compact_note(report: LoadReport) -> Text | None:
    """Past 80 % of a limit and still within it: Claude Code asks the agent to compact."""
    lines_share, units_share = report.lines / LINE_LIMIT, report.units / UNIT_LIMIT
    share = max(lines_share, units_share)
    if share < COMPACT_SHARE or share > 1:
        return None
    return Text(f"past 80 % ({share:.0%}): Claude Code tells the agent to compact the index",
                style="yellow")


def meter_parts(report: LoadReport) -> list[Text]:
    """The meter's pieces: lines, units, what binds, bytes (and agent memory's note)."""
    lines = Text(f"{report.lines} lines / {LINE_LIMIT} ", style="bold")
    lines.append_text(bar(report.lines, LINE_LIMIT))
    units = Text(f"{report.units:,} / {UNIT_LIMIT:,} units ", style="bold")
    units.append_text(bar(report.units, UNIT_LIMIT))
    binds = Text("binds: ")
    binds.append(report.binds, style="bold red" if report.binds != "none" else "green")
    parts = [lines, units, binds]
    note = compact_note(report)
    if note is not None:
        parts.append(note)
    if report.binds == "none":
        parts.append(Text(f"headroom: {LINE_LIMIT - report.lines} lines, "
                          f"{UNIT_LIMIT - report.units:,} units", style="dim"))
    parts.append(Text(f"({report.bytes:,} UTF-8 bytes)", style="dim"))
    if report.agent:
        parts.append(Text("agent memory: measured raw", style="dim italic"))
    return parts


class Meter:
    """The load meter: its pieces side by side, a piece never broken over two lines (a bar
    that wrapped read as two bars)."""

    GAP = "   "

    def __init__(self, report: LoadReport) -> None:
        self.parts = meter_parts(report)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        rows: list[Text] = []
        for part in self.parts:
            if rows and rows[-1].cell_len + len(self.GAP) + part.cell_len <= width:
                rows[-1].append(self.GAP)
                rows[-1].append_text(part)
            else:
                rows.append(part.copy())
        yield from rows

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max(part.cell_len for part in self.parts)
        whole = sum(p.cell_len for p in self.parts) + len(self.GAP) * (len(self.parts) - 1)
        return Measurement(widest, whole)


def meter(report: LoadReport) -> Meter:
    """Lines of 200, UTF-16 units of 25,000, which limit binds, and the headroom left."""
    return Meter(report)


def cut_banner(report: LoadReport) -> Text:
    count = len(report.dropped)
    return Text(
        f"─── ✂ Claude stops reading here · {count:,} "
        f"{'entry' if count == 1 else 'entries'} below never loaded ───",
        style="bold red",
    )


def plain(text: str, limit: int = MAX_LINE_CHARS) -> Text:
    """Text from disk as one plain line: controls escaped, at most ``limit`` characters."""
    out = Text(escape_controls(text[:limit]))
    if len(text) > limit:
        out.append(f" … ({len(text) - limit:,} more chars)", style="dim italic")
    return out


def line_count(raw: str) -> int:
    """The number of lines ``numbered_lines`` numbers (a final newline ends the last line)."""
    if not raw:
        return 0
    return raw.count("\n") + (0 if raw.endswith("\n") else 1)


def first_lines(raw: str, count: int) -> list[str]:
    """The first ``count`` lines of ``raw``, without splitting the rest of it."""
    lines: list[str] = []
    start = 0
    while len(lines) < count and start < len(raw):
        end = raw.find("\n", start)
        if end < 0:
            end = len(raw)
        lines.append(raw[start:end])
        start = end + 1
    return lines


def numbered_lines(raw: str, report: LoadReport, *, until_cut: bool = False) -> Text:
    """The file with line numbers; lines past the cut dimmed, the cut drawn after its line.

    At most ``MAX_LINES_SHOWN`` lines (``LINES_PAST_CUT`` past the cut), each cut to
    ``MAX_LINE_CHARS`` characters: only those lines are split off the file. ``until_cut``: only
    the lines up to the cut (what comes before the cut banner)."""
    out = Text()
    total = line_count(raw)
    width = len(str(total))
    dropped_lines = {d.line for d in report.dropped}
    limit = MAX_LINES_SHOWN
    if report.cut_line is not None:
        limit = min(limit, max(report.cut_line + LINES_PAST_CUT, LINES_PAST_CUT))
    for number, line in enumerate(first_lines(raw, limit), start=1):
        past = report.cut_line is not None and number > report.cut_line
        out.append(f"{number:>{width}} ", style="dim")
        style = "dim strike" if number in dropped_lines else ("dim" if past else "")
        shown = plain(line.removesuffix("\r"))
        shown.stylize(style)
        out.append_text(shown)
        out.append("\n")
        if report.cut_line == number:
            if until_cut:
                return out
            out.append_text(cut_banner(report))
            out.append("\n")
    if total > limit:
        more = total - limit
        out.append(f"… {more:,} more lines (r shows the raw file)\n", style="dim italic")
    return out


def raw_lines(raw: str) -> Text:
    """The file as it is (``r``), as plain text: its first ``MAX_RAW_LINES`` lines, each cut to
    ``MAX_LINE_CHARS`` characters (a 50,000-line index would freeze the pane)."""
    out = Text()
    for line in first_lines(raw, MAX_RAW_LINES):
        out.append_text(plain(line.removesuffix("\r")))
        out.append("\n")
    total = line_count(raw)
    if total > MAX_RAW_LINES:
        out.append(f"… {total - MAX_RAW_LINES:,} more lines not shown\n", style="dim italic")
    return out


def _more(out: Text, total: int, shown: int) -> None:
    if total > shown:
        out.append(f"  … and {total - shown:,} more\n", style="dim italic")


def dropped_list(report: LoadReport) -> Text:
    out = Text()
    if not report.dropped:
        return out
    out.append(f"Entries past the cut ({len(report.dropped):,}), never loaded:\n", style="bold")
    for entry in report.dropped[:MAX_LIST_SHOWN]:
        out.append(f"  line {entry.line}: ", style="dim")
        out.append_text(plain(entry.title, MAX_TITLE_CHARS))
        if entry.target:
            target = plain(f" → {entry.target}", MAX_TITLE_CHARS)
            target.stylize("dim")
            out.append_text(target)
        out.append("\n")
    _more(out, len(report.dropped), MAX_LIST_SHOWN)
    return out


def health_text(report: LoadReport) -> Text:
    """Index health, each list cut to ``MAX_LIST_SHOWN`` items and an "… and N more" line."""
    health = report.health
    out = Text()
    if health.ok:
        out.append("Index health: ok\n", style="green")
        out.append_text(listed_text(health))
        return out
    out.append("Index health\n", style="bold")
    n = MAX_LIST_SHOWN
    for entry in health.dangling[:n]:
        target = plain(entry.target or "", MAX_TITLE_CHARS)
        out.append_text(Text.assemble(f"  ✕ line {entry.line}: ", target, " does not exist\n",
                                      style="red"))
    _more(out, len(health.dangling), n)
    for item in health.topic_dangling[:n]:
        out.append_text(Text.assemble("  ✕ ", plain(item.file, MAX_TITLE_CHARS),
                                      f" line {item.line}: ",
                                      plain(item.target, MAX_TITLE_CHARS), " does not exist\n",
                                      style="red"))
    _more(out, len(health.topic_dangling), n)
    for orphan in health.orphans[:n]:
        name = plain(orphan, MAX_TITLE_CHARS)
        out.append_text(Text.assemble("  ◌ ", name, ": no index entry points to it\n",
                                      style="yellow"))
    _more(out, len(health.orphans), n)
    out.append_text(listed_text(health))
    for long in health.long_entries[:n]:
        out.append(
            f"  ↔ line {long.line}: {long.length:,} chars (keep under {long.limit})\n",
            style="yellow",
        )
    _more(out, len(health.long_entries), n)
    for broken in health.broken_wikilinks[:n]:
        link = plain(f"[[{broken.link}]]", MAX_TITLE_CHARS)
        source = plain(broken.source, MAX_TITLE_CHARS)
        out.append_text(Text.assemble("  ✕ ", link, " in ", source, " matches no memory\n",
                                      style="red"))
    _more(out, len(health.broken_wikilinks), n)
    return out


def listed_text(health: IndexHealth) -> Text:
    """The memories no entry points to that a topic file distil wrote lists (not orphans),
    counted per file."""
    out = Text(style="dim")
    for topic, count in health.listed_counts()[:MAX_LIST_SHOWN]:
        out.append_text(Text.assemble(f"  ↳ {counted(count, 'memory', 'memories')} listed in ",
                                      plain(topic, MAX_TITLE_CHARS),
                                      " (a topic file MEMORY.md points to)\n"))
    return out


def problems_text(report: LoadReport) -> Text:
    out = Text(style="red")
    for problem in report.problems[:MAX_LIST_SHOWN]:
        out.append_text(Text.assemble("⚠ ", plain(problem), "\n"))
    _more(out, len(report.problems), MAX_LIST_SHOWN)
    out.rstrip()
    return out


def index_pinned(report: LoadReport) -> RenderableType:
    """What stays on screen while the file scrolls: the meter and Claude Code's warning."""
    parts: list[RenderableType] = [meter(report)]
    if report.warning:
        warning = escape_controls(report.warning, keep_newlines=True)
        parts.append(Text.assemble(("Claude Code shows: ", "bold"), (warning, "yellow")))
    return Group(*parts)


class RenderedOnce:
    """A renderable that renders once per console and options: Textual renders a Rich
    renderable to measure its height, then again to paint it, and again on each selection;
    hundreds of numbered lines each time. The segments are the ones it renders to."""

    def __init__(self, renderable: Group) -> None:
        self.renderable = renderable
        self._rendered: tuple[Console, tuple[object, ...], list[Segment]] | None = None

    @staticmethod
    def key(options: ConsoleOptions) -> tuple[object, ...]:
        """What a ``Group`` of ``Text`` renders differently by (not the height: Textual
        measures with none and paints with the pane's)."""
        return (options.max_width, options.min_width, options.justify, options.overflow,
                options.no_wrap, options.highlight, options.markup, options.encoding,
                options.legacy_windows, options.is_terminal)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        done = self._rendered
        key = self.key(options)
        if done is None or done[0] is not console or done[1] != key:
            done = (console, key, list(console.render(self.renderable, options)))
            self._rendered = done
        yield from done[2]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


def index_parts(report: LoadReport) -> list[RenderableType]:
    """What the MEMORY.md view shows above the numbered file."""
    return [health_text(report), dropped_list(report)]


def cut_row(report: LoadReport, raw: str, console: Console, width: int) -> int:
    """The row of :func:`numbered_view` (rendered ``width`` columns wide) the cut banner is
    on: the rows of the numbered lines before it (they end with a newline, which renders as
    one more, empty row: the banner's)."""
    before = numbered_lines(raw, report, until_cut=True)
    options = console.options.update_width(max(1, width))
    return len(console.render_lines(before, options, pad=False)) - 1


def numbered_view(raw: str, report: LoadReport) -> RenderedOnce:
    """The numbered file with the cut drawn, and the load problems after it, rendered once per
    width: what the MEMORY.md view shows below :func:`health_view`. A live refresh that
    changes the health alone (a new orphan) keeps it: the 3,000 numbered lines of a large
    index are neither made nor drawn again."""
    parts: list[RenderableType] = [numbered_lines(raw, report)]
    if report.problems:
        parts.append(problems_text(report))
    return RenderedOnce(Group(*parts))


def same_lines(old: LoadReport, new: LoadReport) -> bool:
    """Whether :func:`numbered_view` of the same text draws the same for both reports: the
    same cut line, the same entries past it, the same problems."""
    return old.cut_line == new.cut_line and old.problems == new.problems and (
        old.dropped is new.dropped or old.dropped == new.dropped)


def health_view(report: LoadReport) -> RenderedOnce:
    """What the MEMORY.md view shows above the numbered file: health and the entries past
    the cut."""
    return RenderedOnce(Group(*index_parts(report)))
