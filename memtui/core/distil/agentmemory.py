"""Distil for an agentmemory home: agentmemory's own tag index, losing no hand-written line.

:func:`parse_home` reads ``daily/*.md``, ``topics/*.md``, ``SCRATCHPAD.md`` and ``MEMORY.md``
through the bounded reader (a file it cannot read is a problem on that file; the rest loads).
:func:`render_index` builds the index agentmemory's ``distil`` writes (``# Memory Index``,
``<!-- last distilled: … -->``, ``## Topics``, one ``## #tag`` per top-15 tag with its 3 newest
entries, ``## Recent`` with up to 5 untagged entries, ``## Tags`` with the top 20 tags and up to
5 dates each) and keeps the rest of the current MEMORY.md:

- a section under any other heading (``## Pinned`` included) is kept verbatim, after the
  generated section that precedes it in the current file (the title when none does);
- a line of a generated section (or of the prose before the first heading) that is not of a
  shape distil generates is kept verbatim after that section's new lines; when distil no longer
  generates that section, its heading stays with those lines;
- the title and the stamp always open the file; sections are separated by one blank line;
  a kept part that leaves a code fence open gets a closing fence line.

Every generated section can be disabled: it then keeps the current file's version of it, or
is left out when the current file has none. Same tree and same ``now``: same bytes.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from memtui.core.distil.agentmemory_entries import (
    Entry,
    Excluded,
    ScratchItem,
    parse_daily,
    parse_scratchpad,
    parse_topic,
    summary,
)
from memtui.core.fileread import read_full
from memtui.core.parse.jsstring import js_trim
from memtui.core.stores.walk import listing_or_error

Progress = Callable[[str, int, int], None]

INDEX = "MEMORY.md"
SCRATCHPAD = "SCRATCHPAD.md"
DAILY_DIR = "daily"
TOPICS_DIR = "topics"
MARKDOWN = ".md"
"""What a file in ``daily/`` or ``topics/`` must end with to be read."""

TITLE = "# Memory Index"
SECTION_TAGS = 15
INDEX_TAGS = 20
TAG_ENTRIES = 3
RECENT_ENTRIES = 5
TAG_DATES = 5

HEADER_ID = "header"
TOPICS_ID = "topics"
RECENT_ID = "recent"
TAGS_ID = "tags"
TAG_PREFIX = "tag:"


@dataclass(frozen=True)
class FileProblem:
    file: str
    """Relative to the home."""
    problem: str

    def __str__(self) -> str:
        return f"{self.file}: {self.problem}"


@dataclass
class AgentmemoryCorpus:
    """What :func:`parse_home` read: the live entries, the ones left out and why, the open
    scratchpad items, the current index, and the sha256 of every file read."""

    home: Path
    entries: list[Entry] = field(default_factory=list)
    excluded: list[Excluded] = field(default_factory=list)
    topics: dict[str, str] = field(default_factory=dict)
    """Slug → title of every topic file read."""
    open_items: list[ScratchItem] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    """Relative path → sha256 of the bytes read: what a plan revision-checks."""
    listed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each directory listed (``daily``, ``topics``) → the ``*.md`` names found (none: it is
    absent): a plan re-lists it, so a file added since the preview refuses the apply."""
    index_text: str | None = None
    """The current MEMORY.md (None: there is none, or it could not be read)."""
    index_broken: bool = False
    """MEMORY.md exists but could not be read as text: a plan must not replace it."""
    daily_files: int = 0
    topic_files: int = 0
    complete: bool = True
    """False when the run was cancelled before every file was read."""


def today_of(now: datetime) -> str:
    return _utc(now).strftime("%Y-%m-%d")


def stamp_of(now: datetime) -> str:
    """agentmemory's ``nowTimestamp``: ``YYYY-MM-DD HH:MM:SS`` in UTC."""
    return _utc(now).strftime("%Y-%m-%d %H:%M:%S")


def _utc(now: datetime) -> datetime:
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)


def _read_text(home: Path, rel: str, corpus: AgentmemoryCorpus) -> str | None:
    """The text of ``home/rel``, or None with its problem (missing: None, no problem)."""
    path = os.path.join(home, rel)  # a str: pathlib's joins cost more than the read
    result = read_full(path, home)
    problem: str | None = None
    if not result.readable:
        if not os.path.lexists(path):
            return None
        problem = "; ".join(result.problems) or "cannot read"
    elif not result.complete:
        problem = "too large: not read"
    elif b"\x00" in result.data:
        problem = "binary file (contains NUL bytes): not read"
    if problem is None:
        try:
            text = result.data.decode("utf-8")
        except UnicodeDecodeError as err:
            problem = f"invalid UTF-8 at byte {err.start}: not read"
    if problem is not None:
        corpus.problems.append(FileProblem(rel, problem))
        return None
    corpus.sources[rel] = hashlib.sha256(result.data).hexdigest()
    return text


def _markdown_names(home: Path, sub: str, corpus: AgentmemoryCorpus) -> list[str]:
    entries, error = listing_or_error(str(home / sub))
    if entries is None:
        if error is not None and error.errno == errno.ENOENT:
            corpus.listed[sub] = ()
        elif error is not None and error.errno != errno.ENOTDIR:
            corpus.problems.append(FileProblem(f"{sub}/", f"cannot list: {error.strerror}"))
        return []
    names = [e.name for e in entries if e.name.endswith(MARKDOWN)]
    corpus.listed[sub] = tuple(names)
    return names


def parse_home(
    home: Path,
    *,
    now: datetime,
    cancelled: Callable[[], bool] | None = None,
    progress: Progress | None = None,
) -> AgentmemoryCorpus:
    """Every entry of an agentmemory home (``daily/`` files in name order, then ``topics/``),
    entries inactive at ``now`` set apart with their reason."""
    corpus = AgentmemoryCorpus(home=home)
    today = today_of(now)
    corpus.index_text = _read_text(home, INDEX, corpus)
    corpus.index_broken = corpus.index_text is None and any(
        p.file == INDEX for p in corpus.problems
    )
    scratch = _read_text(home, SCRATCHPAD, corpus)
    if scratch is not None:
        corpus.open_items = [item for item in parse_scratchpad(scratch) if not item.done]
    daily = _markdown_names(home, DAILY_DIR, corpus)
    topics = _markdown_names(home, TOPICS_DIR, corpus)
    corpus.daily_files, corpus.topic_files = len(daily), len(topics)
    files = [(DAILY_DIR, n) for n in daily] + [(TOPICS_DIR, n) for n in topics]
    for done, (sub, name) in enumerate(files):
        if cancelled is not None and cancelled():
            corpus.complete = False
            break
        if progress is not None:
            progress("reading agentmemory", done, len(files))
        rel = f"{sub}/{name}"
        text = _read_text(home, rel, corpus)
        if text is None:
            continue
        stem = name.removesuffix(".md")
        if sub == DAILY_DIR:
            parsed = parse_daily(rel, stem, text, today)
        else:
            parsed = parse_topic(rel, stem, text, today)
            corpus.topics[stem] = parsed.title or stem
        corpus.entries += parsed.entries
        corpus.excluded += parsed.excluded
    if progress is not None and corpus.complete:
        progress("reading agentmemory", len(files), len(files))
    return corpus


# --- the generated sections -------------------------------------------------------------


def recent_first(entries: list[Entry]) -> list[Entry]:
    """Newest first by date then timestamp; equal ones in reading order (a stable sort)."""
    return sorted(entries, key=Entry.sort_key, reverse=True)


def _entry_line(entry: Entry) -> str:
    return f"- {summary(entry.content)} → [[{entry.date}]]"


def tag_counts(entries: list[Entry]) -> list[tuple[str, list[Entry]]]:
    """Each tag with its entries, most used first, ties by name."""
    by_tag: dict[str, list[Entry]] = {}
    for entry in entries:
        for tag in entry.tags:
            by_tag.setdefault(tag, []).append(entry)
    return sorted(by_tag.items(), key=lambda item: (-len(item[1]), item[0]))


def _topic_lines(entries: list[Entry]) -> list[str]:
    by_slug: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.kind == "topic" and entry.slug is not None:
            by_slug.setdefault(entry.slug, []).append(entry)
    lines = []
    for slug, group in sorted(by_slug.items(), key=lambda item: -len(item[1])):
        recent = recent_first(group)[0]
        link = f" → [[{recent.date}]]" if recent.date else ""
        lines.append(
            f"- {recent.topic} — {summary(recent.content)}{link} "
            f"({len(group)} entries) (topics/{slug}.md)"
        )
    return lines


@dataclass(frozen=True)
class _New:
    id: str
    heading: str
    body: list[str]


def generate(
    corpus: AgentmemoryCorpus, now: datetime, ranked: list[tuple[str, list[Entry]]]
) -> list[_New]:
    """The sections agentmemory's distil generates, in its order (``## Pinned`` is not one:
    it is kept like any hand-written section); ``ranked``: the ``tag_counts`` of the
    corpus's entries newest first, so each tag's entries are too (one sort for every tag)."""
    sections = [_New(HEADER_ID, TITLE, [f"<!-- last distilled: {stamp_of(now)} -->"])]
    entries = corpus.entries
    topics = _topic_lines(entries)
    if topics:
        sections.append(_New(TOPICS_ID, "## Topics", topics))
    for tag, group in ranked[:SECTION_TAGS]:
        body = [_entry_line(e) for e in group[:TAG_ENTRIES]]
        sections.append(_New(TAG_PREFIX + tag, f"## {tag}", body))
    untagged = [e for e in entries if not e.tags]
    if untagged:
        body = [_entry_line(e) for e in recent_first(untagged)[:RECENT_ENTRIES]]
        sections.append(_New(RECENT_ID, "## Recent", body))
    if ranked:
        body = []
        for tag, group in ranked[:INDEX_TAGS]:
            dates = sorted({e.date for e in group}, reverse=True)[:TAG_DATES]
            body.append(f"{tag} → {', '.join(dates)}")
        sections.append(_New(TAGS_ID, "## Tags", body))
    return sections


# --- the current index ------------------------------------------------------------------

HEADING_RE = re.compile(r"^#{1,2} ")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
TAG_HEADING_RE = re.compile(r"^## (#[a-z][a-z0-9_-]*)$")
FIXED_HEADINGS = {
    TITLE: HEADER_ID,
    "## Topics": TOPICS_ID,
    "## Recent": RECENT_ID,
    "## Tags": TAGS_ID,
}
PINNED = "## Pinned"

_ENTRY_SHAPE = re.compile(r"^- .* → \[\[[^\]]*\]\]$")
SHAPES: dict[str, re.Pattern[str]] = {
    HEADER_ID: re.compile(
        r"^(?:<!-- last distilled: .* -->"
        r"|No (?:daily logs or topics to distil|entries found in daily logs or topics)\.)$"
    ),
    TOPICS_ID: re.compile(r"^- .+ \(\d+ entries\) \(topics/[^()]*\.md\)$"),
    RECENT_ID: _ENTRY_SHAPE,
    TAGS_ID: re.compile(r"^#[a-zA-Z][A-Za-z0-9_-]* → .*$"),
}
"""The lines distil generates in each section: any other line there is the user's, kept."""


def line_shape(section_id: str) -> re.Pattern[str]:
    """The shape of the lines distil generates in the section ``section_id``."""
    return _ENTRY_SHAPE if section_id.startswith(TAG_PREFIX) else SHAPES[section_id]


@dataclass
class _Block:
    start: int  # 1-based line of the heading (or of the prose's first line)
    heading: str | None
    lines: list[str]  # heading included, trailing blank lines removed
    id: str | None  # the generated section it is a version of; None: kept as it is


def _blank(line: str) -> bool:
    return not js_trim(line)


def _trimmed(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and _blank(lines[end - 1]):
        end -= 1
    return lines[:end]


def _classify(heading: str | None) -> str | None:
    if heading is None:
        return HEADER_ID
    bare = heading.rstrip()
    if bare in FIXED_HEADINGS:
        return FIXED_HEADINGS[bare]
    tag = TAG_HEADING_RE.match(bare)
    return TAG_PREFIX + tag.group(1) if tag else None


def _fence_step(fence: str | None, line: str) -> tuple[str | None, bool]:
    """The fence open after ``line`` (None: none), and whether ``line`` opened or closed one."""
    found = FENCE_RE.match(line)
    if found is None:
        return fence, False
    mark = found.group(1)
    if fence is None:
        return mark, True
    if mark[0] == fence[0] and len(mark) >= len(fence):
        return None, True
    return fence, False


def closed(lines: list[str]) -> list[str]:
    """``lines`` with a closing fence added when they leave a code fence open (kept lines
    must not swallow the sections after them)."""
    fence: str | None = None
    for line in lines:
        fence, _ = _fence_step(fence, line)
    return lines if fence is None else [*lines, fence]


def split_sections(text: str) -> list[_Block]:
    """The current index cut before every ``#`` / ``##`` heading outside a code fence; the
    prose before the first heading is a block without heading (left out when blank)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    blocks: list[_Block] = []
    current = _Block(1, None, [], HEADER_ID)
    fence: str | None = None
    for number, line in enumerate(lines, 1):
        was_open = fence is not None
        fence, toggled = _fence_step(fence, line)
        if not was_open and not toggled and HEADING_RE.match(line):
            blocks.append(current)
            heading = line.removesuffix("\r")
            current = _Block(number, heading, [], _classify(heading))
        current.lines.append(line)
    blocks.append(current)
    for block in blocks:
        block.lines = _trimmed(block.lines)
    return [b for b in blocks if b.heading is not None or b.lines]


def user_lines(block: _Block) -> list[str]:
    """The lines of a generated section's block that distil did not generate (its heading
    excepted): runs of blank lines between them kept as one."""
    assert block.id is not None
    shape = line_shape(block.id)
    body = block.lines if block.heading is None else block.lines[1:]
    kept: list[str] = []
    gap = False
    for line in body:
        if _blank(line):
            gap = True
        elif not shape.match(line.removesuffix("\r")):
            if kept and gap:
                kept.append("")
            kept.append(line)
            gap = False
    return kept


# --- the result -------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratedSection:
    """One section distil generates, as the TUI toggles it."""

    id: str
    """``header``, ``topics``, ``tag:#payments``, ``recent``, ``tags``: stable across runs."""
    heading: str
    lines: tuple[str, ...]
    """The new section, heading included; empty when distil no longer generates it."""
    current: tuple[str, ...]
    """The current file's version (every block of it, verbatim); empty when it has none."""
    kept_lines: tuple[str, ...]
    """Lines of the current version that distil did not generate: kept after the new lines."""
    enabled: bool = True

    @property
    def status(self) -> str:
        if not self.current:
            return "added"
        if not self.lines:
            return "removed"
        return "unchanged" if self.lines + self.user_tail() == self.current else "changed"

    def user_tail(self) -> tuple[str, ...]:
        return ("", *self.kept_lines) if self.kept_lines else ()


@dataclass(frozen=True)
class KeptSection:
    """A section of the current MEMORY.md distil did not generate, kept verbatim."""

    heading: str | None
    """None: prose before the first heading."""
    lines: tuple[str, ...]
    line: int
    """Where it starts in the current file (1-based)."""
    after: str | None
    """The generated section it follows in the new file; None: it opens the file."""

    @property
    def pinned(self) -> bool:
        return self.heading is not None and self.heading.rstrip() == PINNED


@dataclass
class AgentmemoryIndex:
    """The proposed MEMORY.md and what it is made of."""

    text: str
    generated: list[GeneratedSection]
    kept: list[KeptSection]
    excluded: list[Excluded]
    open_items: list[ScratchItem]
    problems: list[FileProblem]
    tag_counts: dict[str, int]
    """Entries per tag of the ``## #tag`` sections."""
    entries: int


def _anchor(blocks: list[_Block], index: int, emitted: Collection[str]) -> str | None:
    for block in reversed(blocks[:index]):
        if block.id is not None and block.id in emitted:
            return block.id
    return HEADER_ID if HEADER_ID in emitted else None


def _versions(blocks: list[_Block]) -> dict[str, list[_Block]]:
    found: dict[str, list[_Block]] = {}
    for block in blocks:
        if block.id is not None:
            found.setdefault(block.id, []).append(block)
    return found


def _joined(blocks: list[_Block]) -> list[str]:
    out: list[str] = []
    for block in blocks:
        out += [""] * bool(out) + block.lines
    return out


def _user_lines_of(blocks: list[_Block]) -> list[str]:
    out: list[str] = []
    for block in blocks:
        lines = user_lines(block)
        if lines:
            out += [""] * bool(out) + lines
    return out


def render_index(
    corpus: AgentmemoryCorpus,
    current_index_text: str | None,
    now: datetime,
    disabled: Collection[str] = frozenset(),
) -> AgentmemoryIndex:
    """The index agentmemory's distil would write, with every line of the current one that
    it did not generate kept (module docstring: where). ``disabled``: ids of generated
    sections that keep their current version."""
    ranked = tag_counts(recent_first(corpus.entries))
    new = generate(corpus, now, ranked)
    blocks = split_sections(current_index_text or "")
    versions = _versions(blocks)
    new_ids = [s.id for s in new]
    sections: list[GeneratedSection] = []
    for section in new:
        old = versions.get(section.id, [])
        sections.append(
            GeneratedSection(
                id=section.id,
                heading=section.heading,
                lines=(section.heading, *section.body),
                current=tuple(_joined(old)),
                kept_lines=tuple(_user_lines_of(old)),
                enabled=section.id not in disabled,
            )
        )
    for section_id, old in versions.items():
        if section_id not in new_ids:
            heading = old[0].heading or ""
            sections.append(
                GeneratedSection(
                    id=section_id,
                    heading=heading,
                    lines=(),
                    current=tuple(_joined(old)),
                    kept_lines=tuple(_user_lines_of(old)),
                    enabled=section_id not in disabled,
                )
            )
    by_id = {s.id: s for s in sections}
    slotted = [s for s in sections if s.lines and (s.enabled or s.current)]
    emitted = {s.id for s in slotted}

    # What follows each slot: kept sections, and sections distil no longer generates.
    after: dict[str | None, list[list[str]]] = {}
    kept: list[KeptSection] = []
    for index, block in enumerate(blocks):
        anchor = _anchor(blocks, index, emitted)
        if block.id is None:
            kept.append(KeptSection(block.heading, tuple(block.lines), block.start, anchor))
            after.setdefault(anchor, []).append(block.lines)
        elif block.id not in new_ids:
            state = by_id[block.id]
            lines = block.lines if not state.enabled else _dropped(block)
            if lines:
                after.setdefault(anchor, []).append(lines)

    chunks: list[list[str]] = list(after.get(None, []))
    for slot in slotted:
        if slot.enabled:
            chunks.append([*slot.lines, *slot.user_tail()])
        else:
            chunks.append(list(slot.current))
        chunks += after.get(slot.id, [])
    text = "\n\n".join("\n".join(closed(chunk)) for chunk in chunks) + "\n"
    return AgentmemoryIndex(
        text=text,
        generated=sections,
        kept=kept,
        excluded=list(corpus.excluded),
        open_items=list(corpus.open_items),
        problems=list(corpus.problems),
        tag_counts={tag: len(group) for tag, group in ranked[:SECTION_TAGS]},
        entries=len(corpus.entries),
    )


def _dropped(block: _Block) -> list[str]:
    """What stays of a section distil no longer generates: its heading and the user's lines."""
    lines = user_lines(block)
    if not lines:
        return []
    return [block.heading, *lines] if block.heading is not None else lines
