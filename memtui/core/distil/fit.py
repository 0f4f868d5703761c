"""Making a distilled index fit its headroom target: move detail out into topic files.

First the user's sections, largest first (each becomes one entry pointing to a new topic file
that holds it verbatim); then, group by group from ``other`` to ``user``, the oldest entries of
a type group (into one topic file per group, listed by one entry). So the newest entries and
the user and feedback memories stay inside the cut longest."""

from __future__ import annotations

import re

from memtui.core.distil.layout import (
    TYPE_ORDER,
    EntriesMove,
    Entry,
    Layout,
    Section,
    SectionMove,
    collapse,
    entry_line,
    type_of_heading,
)
from memtui.core.distil.model import DistilChange, DistilPlan, Meter
from memtui.core.distil.render import measure, render_index
from memtui.core.parse.frontmatter_edit import format_scalar
from memtui.core.parse.topic_files import DISTILLED_KEY
from memtui.core.parse.utf16 import units

_SLUG = re.compile(r"[^a-z0-9]+")
_MARKUP = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)]|#+|>)\s*")
HOOK_CHARS = 100


def _meter(plan: DistilPlan, layout: Layout) -> Meter:
    text = render_index(layout, lambda change_id: change_id is not None)
    return measure(text, agent=plan.agent, target=plan.headroom)[0]


def free_name(layout: Layout, stem: str) -> str:
    """``stem.md``, or ``stem-2.md``, ... when a file of the store (or a new one) has it."""
    name, n = f"{stem}.md", 1
    while name in layout.taken:
        n += 1
        name = f"{stem}-{n}.md"
    layout.taken.add(name)
    return name


def slug(text: str) -> str:
    return _SLUG.sub("-", text.casefold()).strip("-")[:40].strip("-") or "section"


def header(name: str, description: str, kind: str | None, eol: str) -> str:
    lines = ["---", f"name: {format_scalar(name)}", f"description: {format_scalar(description)}"]
    if kind in ("user", "feedback", "project", "reference"):
        lines.append(f"type: {kind}")
    lines += [f"{DISTILLED_KEY}: MEMORY.md", "---"]
    return "".join(line + eol + "\n" for line in lines)


def _snippet(layout: Layout, section: Section) -> str:
    for i in range(section.first + 1, section.last + 1):
        line = collapse(_MARKUP.sub("", layout.lines[i]))
        if line and not line.startswith("<!--"):
            return line if len(line) <= HOOK_CHARS else line[: HOOK_CHARS - 1].rstrip() + "…"
    return "moved out of MEMORY.md"


def move_section(plan: DistilPlan, layout: Layout, section: Section) -> DistilChange:
    title = section.title or "Section"
    file = free_name(layout, f"memory-section-{slug(title)}")
    description = _snippet(layout, section)
    eol = layout.eol
    layout.new_files[file] = header(file.removesuffix(".md"), description, "reference", eol)
    change_id = f"move-section:{section.first + 1}"
    layout.section_moves.append(
        SectionMove(change_id, section, file, entry_line(title, file, description), description)
    )
    count = section.last - section.first + 1
    return DistilChange(
        change_id, "move-section",
        f"lines {section.first + 1}-{section.last + 1}: move the section \"{title}\" "
        f"({count} lines) to {file}; one entry points to it",
        tuple(range(section.first + 1, section.last + 2)), file, "move-out", file,
    )


def move_entries(layout: Layout, kind: str, members: list[Entry]) -> DistilChange:
    title = f"Older {kind} memories" if kind != "other" else "Older memories"
    file = free_name(layout, f"memory-{kind}-older")
    count = len(members)
    description = f"{count} older {kind if kind != 'other' else ''} memories moved out of " \
                  "MEMORY.md by distil"
    description = collapse(description)
    layout.new_files[file] = (
        header(file.removesuffix(".md"), description, kind, layout.eol) + f"# {title}\n\n"
    )
    change_id = f"move-entries:{kind}"
    keys = [m.key for m in members]
    layout.entry_moves.append(
        EntriesMove(change_id, kind, keys, file, entry_line(title, file, description),
                    description)
    )
    lines = tuple(sorted(m.old_line + 1 for m in members if m.old_line is not None))
    return DistilChange(
        change_id, "move-entries",
        f"move the {count} oldest {kind} entries to {file}; one entry points to it",
        lines, file, "move-out", file,
    )


def _undo_entries_move(layout: Layout) -> None:
    move = layout.entry_moves.pop()
    layout.new_files.pop(move.file, None)
    layout.taken.discard(move.file)


def fit(plan: DistilPlan, layout: Layout) -> None:
    """Add move-section and move-entries changes to ``plan`` until the index fits."""
    if _meter(plan, layout).fits:
        return
    sections = [s for s in layout.sections if type_of_heading(s.title) is None]

    def size(section: Section) -> int:
        return units("\n".join(layout.lines[section.first : section.last + 1]))

    for section in sorted(sections, key=lambda s: (-size(s), -s.first)):
        plan.changes.append(move_section(plan, layout, section))
        if _meter(plan, layout).fits:
            return
    for kind in reversed(TYPE_ORDER):
        group = layout.groups[kind]
        members = sorted(group.kept + group.joining, key=lambda e: (e.mtime, e.key))
        if not members:
            continue
        if _fits_moving(plan, layout, kind, members, len(members)) is False:
            plan.changes.append(move_entries(layout, kind, members))
            continue
        low, high = 1, len(members)  # the fewest oldest entries that make it fit
        while low < high:
            mid = (low + high) // 2
            if _fits_moving(plan, layout, kind, members, mid):
                high = mid
            else:
                low = mid + 1
        plan.changes.append(move_entries(layout, kind, members[:low]))
        return


def _fits_moving(
    plan: DistilPlan, layout: Layout, kind: str, members: list[Entry], count: int
) -> bool:
    move_entries(layout, kind, members[:count])
    try:
        return _meter(plan, layout).fits
    finally:
        _undo_entries_move(layout)
