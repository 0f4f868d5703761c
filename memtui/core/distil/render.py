"""Rendering a distil plan with some changes disabled: the new MEMORY.md, the topic files,
the meter after, and the proposal (docs/claude-code-rules.md#distil).

A disabled change leaves its old lines exactly as they were: with every change disabled the
new index is the old one, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from memtui.core.contents import LoadReport
from memtui.core.distil.layout import TYPE_ORDER, Entry, Layout
from memtui.core.distil.model import DistilOutcome, DistilPlan, Meter
from memtui.core.parse.load_report import MAX_LINES, MAX_UNITS, load_report

Enabled = Callable[[str | None], bool]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.core.distil.model import Limit


def meter_of(report: LoadReport, target: float) -> Meter:
    line_share = report.lines / MAX_LINES
    unit_share = report.units / MAX_UNITS
    limit: Limit = "lines" if line_share >= unit_share else "units"
    return Meter(
        lines=report.lines,
        units=report.units,
        bytes=report.bytes,
        dropped=len(report.dropped),
        truncated=report.binds,
        limit=limit,
        share=max(line_share, unit_share),
        target=target,
        cut_line=report.cut_line,
    )


def measure(text: str, *, agent: bool, target: float) -> tuple[Meter, LoadReport]:
    report = load_report("MEMORY.md", text, agent=agent)
    return meter_of(report, target), report


@dataclass
class _Visible:
    """Which entries end where, for one choice of enabled changes."""

    layout: Layout
    enabled: Enabled

    def moved_out(self, entry: Entry) -> str | None:
        """The entries-move that takes ``entry`` out of the index, if enabled."""
        for move in self.layout.entry_moves:
            if entry.key in move.keys and self.enabled(move.id):
                return move.id
        return None

    def in_group(self, entry: Entry) -> bool:
        """In its type group (kept there, or joining it) and not moved out."""
        joins = entry.move_id is None or self.enabled(entry.move_id)
        return joins and self.moved_out(entry) is None

    def text(self, entry: Entry) -> str:
        if entry.short is not None and entry.shorten_id and self.enabled(entry.shorten_id):
            return entry.short
        return entry.text


def _group_lines(visible: _Visible, kind: str) -> list[str]:
    """The joining entries and the pointers of the group's moved-out entries."""
    layout = visible.layout
    eol = layout.eol
    group = layout.groups[kind]
    out = [visible.text(e) + eol for e in group.joining if visible.in_group(e)]
    return out


def _pointers(visible: _Visible, kind: str) -> list[str]:
    layout = visible.layout
    found: list[str] = []
    for move in layout.entry_moves:
        if move.type != kind or not visible.enabled(move.id):
            continue
        members = _members(visible, move.keys, kind)
        if members:
            found.append(move.pointer + layout.eol)
    return found


def _members(visible: _Visible, keys: list[str], kind: str) -> list[Entry]:
    """The entries of ``keys`` that are in group ``kind`` with these changes."""
    group = visible.layout.groups[kind]
    wanted = set(keys)
    return [
        e for e in group.kept + group.joining
        if e.key in wanted and (e.move_id is None or visible.enabled(e.move_id))
    ]


def render_index(layout: Layout, enabled: Enabled) -> str:
    visible = _Visible(layout, enabled)
    lines = layout.lines
    eol = layout.eol
    inserts: dict[int, list[str]] = {}
    new_groups: list[str] = []
    for kind in TYPE_ORDER:
        group = layout.groups[kind]
        body = _group_lines(visible, kind)
        pointers = _pointers(visible, kind)
        if group.heading_line is not None:
            if body:
                inserts.setdefault(group.insert_at or 0, []).extend(body)
            if pointers:
                end = _group_end(layout, group.heading_line)
                inserts.setdefault(end, []).extend(pointers)
            continue
        if body or pointers:
            new_groups += [group.heading + eol, *body, *pointers, eol]
    if new_groups:
        inserts.setdefault(layout.block_at, [])[:0] = new_groups
    moved_sections = {
        i: move for move in layout.section_moves if enabled(move.id)
        for i in range(move.section.first, move.section.last + 1)
    }
    for move in layout.section_moves:
        if enabled(move.id):
            tail = [eol] if not lines[move.section.last].strip() else []
            inserts.setdefault(move.section.first, []).extend([move.pointer + eol, *tail])
    out: list[str] = []
    after_gap = False  # the old line before was taken out
    for i in range(len(lines) + 1):
        for piece in inserts.get(i, ()):
            if piece.startswith("## ") and out and out[-1].strip():
                out.append(eol)
            out.append(piece)
        if i == len(lines):
            break
        shown = None if i in moved_sections else _line(layout, visible, i)
        if shown is None or (after_gap and not shown.strip() and out and not out[-1].strip()
                             and i < len(lines) - 1):
            after_gap = True  # a blank line left doubled by what was taken out goes too
            continue
        after_gap = False
        out.append(shown)
    return "\n".join(out)


def _line(layout: Layout, visible: _Visible, i: int) -> str | None:
    """Old line ``i`` as it stays in place, or None when a change takes it out."""
    enabled = visible.enabled
    drop = layout.drops.get(i)
    if drop is not None and enabled(drop):
        return None
    entry = layout.entries.get(i)
    if entry is None:
        return layout.lines[i]
    if entry.move_id is not None and enabled(entry.move_id):
        return None  # it is in its group now
    if entry.move_id is None and visible.moved_out(entry) is not None:
        return None  # a kept entry of a group, moved out with the oldest
    if entry.short is not None and entry.shorten_id and enabled(entry.shorten_id):
        return entry.short + layout.eol
    return layout.lines[i]


def _group_end(layout: Layout, heading: int) -> int:
    """The old line after the last line of the section starting at ``heading``, before its
    trailing blank lines."""
    for section in layout.sections:
        if section.first == heading:
            end = section.last
            while end > heading and not layout.lines[end].strip():
                end -= 1
            return end + 1
    return heading + 1


def render_files(layout: Layout, enabled: Enabled) -> dict[str, str]:
    """The topic files distil writes with these changes: moved sections, moved entries,
    shortened hooks' full texts appended, dangling entries dropped from its topic files."""
    visible = _Visible(layout, enabled)
    eol = layout.eol
    files: dict[str, str] = {}
    for section_move in layout.section_moves:
        if not enabled(section_move.id):
            continue
        section = section_move.section
        body = [
            layout.lines[i] for i in range(section.first, section.last + 1)
            if not (i in layout.drops and enabled(layout.drops[i]))
        ]
        files[section_move.file] = layout.new_files[section_move.file] + "\n".join(body) + "\n"
    for entries_move in layout.entry_moves:
        if not enabled(entries_move.id):
            continue
        members = _members(visible, entries_move.keys, entries_move.type)
        if members:
            body = [m.text + eol for m in members]
            files[entries_move.file] = (
                layout.new_files[entries_move.file] + "\n".join(body) + "\n"
            )
    for key in layout.appends.keys() | layout.topic_drops.keys():
        text = _changed_file(layout, key, enabled)
        if text is not None:
            files[key] = text
    return dict(sorted(files.items()))


def _changed_file(layout: Layout, key: str, enabled: Enabled) -> str | None:
    """An existing memory file with its enabled dangling entries dropped (a topic file distil
    wrote) and the full texts of its enabled shortened hooks appended; None: unchanged."""
    append = layout.appends.get(key)
    drops = layout.topic_drops.get(key)
    base = append.old_text if append is not None else drops.old_text if drops else ""
    changed = False
    if drops is not None:
        gone = {i for i, change_id in drops.drops.items() if enabled(change_id)}
        if gone:
            base = "\n".join(line for i, line in enumerate(base.split("\n")) if i not in gone)
            changed = True
    parts = [] if append is None else [text for change_id, text in append.parts
                                        if enabled(change_id)]
    if parts:
        if base and not base.endswith("\n"):
            base += "\n"
        base += "".join(f"\n{text}\n" for text in parts)
        changed = True
    return base if changed else None


@dataclass
class IndexPlan(DistilPlan):
    """A :class:`DistilPlan` of a Claude Code store's MEMORY.md, with the old index taken
    apart (its ``layout``), which :meth:`outcome` renders."""

    layout: Layout | None = field(default=None, repr=False, compare=False)
    """The old index taken apart (:mod:`memtui.core.distil.layout`)."""

    def outcome(self, disabled: Collection[str] = ()) -> DistilOutcome:
        return render_outcome(self, frozenset(disabled))


def render_outcome(plan: IndexPlan, disabled: frozenset[str]) -> DistilOutcome:
    from memtui.core.distil.outcome import finish_outcome

    layout = plan.layout
    assert layout is not None

    def enabled(change_id: str | None) -> bool:
        return change_id is not None and change_id not in disabled

    text = render_index(layout, enabled)
    files = render_files(layout, enabled)
    after, report = measure(text, agent=plan.agent, target=plan.headroom)
    outcome = DistilOutcome(index_text=text, files=files, after=after, disabled=disabled)
    if report.dropped or report.cut_line is not None:
        outcome.cut = [f"line {d.line}: {d.title}" for d in report.dropped]
        if report.cut_line is not None:
            outcome.cut.append(f"everything after line {report.cut_line}")
    finish_outcome(plan, outcome)
    return outcome
