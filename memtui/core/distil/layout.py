"""The current MEMORY.md taken apart for distil: its lines, which of them are memory entries
(and of which type), dangling pointers, sections, type groups; and the changes that follow
(regroup, drop, add, shorten). No I/O: :mod:`memtui.core.distil.plan` reads the store.

Sections start at ``## `` headings (outside frontmatter, code fences and HTML comments); the
text before the first one is the preamble. A section whose heading is a memory type (``## User``,
``## Feedback``, ``## Project``, ``## Reference``, ``## Other``) is a type group: distil puts
entries there. Entries under the user's own headings stay where they are (only shortened when
too long); entries in the preamble or under the heading of another type move to their type's
group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memtui.core.contents import IndexEntry, TopicDangling
from memtui.core.distil.model import DistilChange
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.index_health import ENTRY_SOFT_LIMIT

TYPE_ORDER: tuple[str, ...] = ("user", "feedback", "project", "reference", "other")
"""The type groups, in the order a new index lists them (and keeps them inside the cut)."""
TYPE_HEADINGS: dict[str, str] = {t: f"## {t.capitalize()}" for t in TYPE_ORDER}

_SECTION = re.compile(r"^##[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SPACES = re.compile(r"\s+")


@dataclass
class Entry:
    """A memory the new index lists: an old entry line or an added one."""

    key: str
    """The memory's path in the store."""
    type: str
    title: str
    text: str
    """The line as written (old) or generated (added), without its line end."""
    mtime: float
    old_line: int | None = None
    """0-based index into :attr:`Layout.lines` (None: added)."""
    short: str | None = None
    shorten_id: str | None = None
    move_id: str | None = None
    """The regroup or add-orphan change that puts it into its type group."""
    hook: str = ""
    append_hook: bool = False
    """Shortening it must append the full hook to the memory file (its header lacks it)."""


@dataclass
class Group:
    """The entries of one type in the new index."""

    type: str
    heading_line: int | None = None
    """0-based line of the existing ``## Type`` heading, if any."""
    insert_at: int | None = None
    """Where entries joining an existing group go (before this old line)."""
    kept: list[Entry] = field(default_factory=list)
    """Entries already under the group's heading, in their order."""
    joining: list[Entry] = field(default_factory=list)
    """Entries moving or added into the group, newest first."""

    @property
    def heading(self) -> str:
        return TYPE_HEADINGS[self.type]


@dataclass
class Section:
    """A ``## `` section of the user's (lines ``first`` to ``last``, 0-based, inclusive)."""

    first: int
    last: int
    title: str


@dataclass
class SectionMove:
    id: str
    section: Section
    file: str
    pointer: str
    description: str


@dataclass
class EntriesMove:
    id: str
    type: str
    keys: list[str]
    file: str
    pointer: str
    description: str


@dataclass
class TopicAppend:
    """Text appended to an existing memory file: a shortened hook's full text."""

    old_text: str
    expected: str
    parts: list[tuple[str, str]] = field(default_factory=list)
    """(change id, text appended when the change is enabled)."""


@dataclass
class TopicDrops:
    """Dangling entries dropped from a topic file distil wrote (one the index points to)."""

    old_text: str
    drops: dict[int, str] = field(default_factory=dict)
    """0-based line of ``old_text`` → the drop-dangling change."""


@dataclass
class Layout:
    lines: list[str]
    eol: str
    """``"\\r"`` when the index has CRLF line ends (added lines get them too), else ``""``."""
    entries: dict[int, Entry] = field(default_factory=dict)
    """0-based old line → the memory entry on it."""
    drops: dict[int, str] = field(default_factory=dict)
    """0-based old line → the drop-dangling change."""
    groups: dict[str, Group] = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)
    block_at: int = 0
    """Where new type groups go (before this old line; ``len(lines)``: at the end)."""
    section_moves: list[SectionMove] = field(default_factory=list)
    entry_moves: list[EntriesMove] = field(default_factory=list)
    appends: dict[str, TopicAppend] = field(default_factory=dict)
    topic_drops: dict[str, TopicDrops] = field(default_factory=dict)
    """Topic files distil wrote that lose dangling entries: path → their drops."""
    new_files: dict[str, str] = field(default_factory=dict)
    """Topic files distil creates: path → the text before its entries (frontmatter, title)."""
    taken: set[str] = field(default_factory=set)
    """Paths in the store that exist (a new topic file gets another name)."""


@dataclass(frozen=True)
class MemoryFacts:
    """What distil knows of a memory from its header."""

    key: str
    title: str
    description: str
    type: str
    mtime: float
    header: str
    """The header text (frontmatter and first lines) as read."""


def collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def opaque_lines(lines: list[str]) -> set[int]:
    """Lines that are frontmatter, inside a code fence or inside an HTML comment: never an
    entry or a heading for distil."""
    hidden: set[int] = set()
    start = 0
    if lines and lines[0].lstrip("\ufeff").rstrip("\r ") == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip("\r ") == "---":
                hidden.update(range(0, i + 1))
                start = i + 1
                break
    fence: str | None = None
    in_comment = False
    for i in range(start, len(lines)):
        line = lines[i]
        if in_comment:
            hidden.add(i)
            in_comment = "-->" not in line
            continue
        if fence is not None:
            hidden.add(i)
            if line.strip().startswith(fence):
                fence = None
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(1)[0] * 3
            hidden.add(i)
            continue
        opened = line.rfind("<!--")
        if opened >= 0:
            hidden.add(i)
            in_comment = "-->" not in line[opened:]
    return hidden


def entry_line(title: str, target: str, hook: str, eol: str = "") -> str:
    """``- [Title](target) — hook`` (no hook: ``- [Title](target)``)."""
    safe_title = title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    safe_target = f"<{target}>" if re.search(r"[\s()<>]", target) else target
    line = f"- [{safe_title}]({safe_target})"
    return (f"{line} — {hook}" if hook else line) + eol


def shortened(prefix: str, hook: str, limit: int = ENTRY_SOFT_LIMIT) -> str | None:
    """``prefix + hook`` cut at a word so it is at most ``limit`` characters, ending in ``…``;
    None when even the prefix does not leave room for a few words."""
    room = limit - len(prefix) - 1
    if room < 20:
        return None
    cut = hook[:room]
    space = cut.rfind(" ")
    if space >= room // 2:
        cut = cut[:space]
    return prefix + cut.rstrip(" ,;:—–-") + "…"


def _split_entry(entry: IndexEntry) -> tuple[str, str]:
    """(everything before the hook, the hook) of an entry line."""
    raw = entry.raw.rstrip()
    hook = entry.hook
    if hook and raw.endswith(hook):
        return raw[: len(raw) - len(hook)], hook
    return raw, ""


def find_sections(lines: list[str], hidden: set[int]) -> list[Section]:
    starts = [
        (i, m.group(1))
        for i, line in enumerate(lines)
        if i not in hidden and (m := _SECTION.match(line.rstrip("\r")))
    ]
    sections: list[Section] = []
    for n, (first, title) in enumerate(starts):
        last = starts[n + 1][0] - 1 if n + 1 < len(starts) else len(lines) - 1
        if last == len(lines) - 1 and lines[last] == "":
            last -= 1  # the empty string after the final newline belongs to no section
        sections.append(Section(first, max(first, last), title.strip()))
    return sections


def type_of_heading(title: str) -> str | None:
    key = title.strip().casefold()
    return key if key in TYPE_ORDER else None


def build_layout(
    text: str,
    memories: dict[str, MemoryFacts],
    dangling_lines: set[int],
    targets: dict[int, str],
    orphans: list[str],
    changes: list[DistilChange],
) -> Layout:
    """Take ``text`` apart and append the base changes to ``changes``.

    ``memories``: every memory of the store by path; ``dangling_lines``: 1-based lines of
    entries whose file is gone (the load report's health); ``targets``: 1-based line → the
    memory path an entry points to; ``orphans``: memory paths no entry points to."""
    lines = text.split("\n")
    eol = "\r" if "\r\n" in text and text.count("\r\n") * 2 >= text.count("\n") else ""
    hidden = opaque_lines(lines)
    layout = Layout(lines=lines, eol=eol)
    layout.sections = find_sections(lines, hidden)
    region: dict[int, Section] = {}
    for section in layout.sections:
        for i in range(section.first, section.last + 1):
            region[i] = section
    for section in layout.sections:
        kind = type_of_heading(section.title)
        if kind is not None and kind not in layout.groups:
            after = section.first + 1
            if after < len(lines) and not lines[after].strip() and after <= section.last:
                after += 1
            layout.groups[kind] = Group(kind, section.first, after)
    for kind in TYPE_ORDER:
        layout.groups.setdefault(kind, Group(kind))
    for entry in parse_entries(text):
        i = entry.line - 1
        if i in hidden:
            continue
        if entry.line in dangling_lines:
            change_id = f"drop-dangling:{entry.line}"
            layout.drops[i] = change_id
            changes.append(DistilChange(
                change_id, "drop-dangling",
                f"line {entry.line}: drop [{entry.title}]({entry.target}): the file is gone",
                (entry.line,), None, "dangling", entry.target))
            continue
        key = targets.get(entry.line)
        facts = memories.get(key) if key is not None else None
        if facts is None or key is None:
            continue  # a link outside the store, to a folder, ...: the user's prose
        prefix, hook = _split_entry(entry)
        item = Entry(key, facts.type, entry.title, lines[i].removesuffix("\r"), facts.mtime,
                     old_line=i, hook=hook)
        layout.entries[i] = item
        if len(entry.raw) > ENTRY_SOFT_LIMIT:
            short = shortened(prefix, hook)
            if short is not None:
                item.short, item.shorten_id = short, f"shorten-hook:{entry.line}"
                item.append_hook = not _contains(facts, hook)
                kept_in = key if item.append_hook else "its description"
                changes.append(DistilChange(
                    item.shorten_id, "shorten-hook",
                    f"line {entry.line}: shorten [{entry.title}] from {len(entry.raw)} to "
                    f"{len(short)} characters (the full text stays in {kept_in})",
                    (entry.line,), None, "hooks", key))
        home = region.get(i)
        in_kind = type_of_heading(home.title) if home is not None else None
        if home is not None and in_kind is None:
            continue  # under the user's own heading: stays
        group = layout.groups[facts.type]
        if home is not None and in_kind == facts.type and group.heading_line == home.first:
            group.kept.append(item)
            continue
        item.move_id = f"regroup:{entry.line}"
        group.joining.append(item)
        changes.append(DistilChange(
            item.move_id, "regroup",
            f"line {entry.line}: move [{entry.title}] under {group.heading}",
            (entry.line,), group.heading, "regroup", key))
    for key in orphans:
        facts = memories[key]
        hook = collapse(facts.description)
        full = entry_line(facts.title, key, hook)
        item = Entry(key, facts.type, facts.title, full, facts.mtime, hook=hook)
        if len(full) > ENTRY_SOFT_LIMIT:
            short = shortened(full[: len(full) - len(hook)], hook)
            if short is not None:
                item.text = short
        group = layout.groups[facts.type]
        item.move_id = f"add-orphan:{key}"
        group.joining.append(item)
        changes.append(DistilChange(
            item.move_id, "add-orphan", f"add [{facts.title}]({key}) under {group.heading}: "
            "no entry pointed to it", (), group.heading, "orphans", key))
    for group in layout.groups.values():
        group.joining.sort(key=lambda e: (-e.mtime, e.key))
    layout.block_at = _block_position(layout)
    return layout


def keep_in_place(layout: Layout, changes: list[DistilChange]) -> list[DistilChange]:
    """Take back every regroup: its entries stay where they are. For an index that fits
    without them: moving entries under their type's heading is needed only when the index must
    shrink (the oldest entries of a type group move out then); otherwise it only rewrites a
    healthy index (issue 25)."""
    moved = {c.id for c in changes if c.kind == "regroup"}
    if not moved:
        return changes
    for group in layout.groups.values():
        group.joining = [e for e in group.joining if e.move_id not in moved]
    for entry in layout.entries.values():
        if entry.move_id in moved:
            entry.move_id = None
    return [c for c in changes if c.id not in moved]


def drop_topic_dangling(
    layout: Layout,
    dangling: list[TopicDangling],
    texts: dict[str, str],
    changes: list[DistilChange],
) -> None:
    """A drop-dangling change (group ``dangling``) for each dangling entry of a topic file
    distil wrote, as the index health finds them (``IndexHealth.topic_dangling``): ``texts``
    holds the whole text of each such file as the plan read it. An entry in the file's
    frontmatter, a code fence or a comment is left alone, as in the index."""
    hidden: dict[str, set[int]] = {}
    for item in dangling:
        text = texts.get(item.file)
        if text is None:
            continue
        if item.file not in hidden:
            hidden[item.file] = opaque_lines(text.split("\n"))
        i = item.line - 1
        if i in hidden[item.file]:
            continue
        change_id = f"drop-dangling:{item.file}:{item.line}"
        drops = layout.topic_drops.setdefault(item.file, TopicDrops(text))
        drops.drops[i] = change_id
        changes.append(DistilChange(
            change_id, "drop-dangling",
            f"{item.file} line {item.line}: drop [{item.title}]({item.target}): the file is "
            "gone", (), None, "dangling", item.target))


def _contains(facts: MemoryFacts, hook: str) -> bool:
    return collapse(hook).casefold() in collapse(facts.header).casefold()


def _block_position(layout: Layout) -> int:
    """Where new type groups go: before the first existing type group, else at the end of
    the preamble (before the first section), else at the end."""
    existing = [g.heading_line for g in layout.groups.values() if g.heading_line is not None]
    if existing:
        return min(existing)
    if layout.sections:
        return layout.sections[0].first
    end = len(layout.lines)
    return end - 1 if end and layout.lines[-1] == "" else end
