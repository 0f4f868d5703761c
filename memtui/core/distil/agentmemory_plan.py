"""The distil plan of an agentmemory home (docs/claude-code-rules.md#agentmemory-distil).

Each section agentmemory's distil generates that would change is a :class:`DistilChange` the
user may disable (``header``, ``topics``, ``tag:#payments``, ``recent``, ``tags``: the ids of
:func:`~memtui.core.distil.agentmemory.render_index`); a disabled section keeps its current
version. The outcome writes ``MEMORY.md`` only (``SCRATCHPAD.md`` is never rewritten: its open
items are notes), revision-checking every file :func:`parse_home` read.

The ``<!-- last distilled: … -->`` stamp is not a change of its own: it is renewed whenever
anything else is written, and an index that would differ only by its stamp has nothing to
change (a second distil is a no-op).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from datetime import datetime

from memtui.core.contents import Store
from memtui.core.distil.agentmemory import (
    HEADER_ID,
    INDEX,
    MARKDOWN,
    SCRATCHPAD,
    TAG_PREFIX,
    TAGS_ID,
    TOPICS_ID,
    AgentmemoryCorpus,
    GeneratedSection,
    line_shape,
    parse_home,
    render_index,
    split_sections,
)
from memtui.core.distil.model import (
    DistilCancelled,
    DistilChange,
    DistilOutcome,
    DistilPlan,
    Meter,
)
from memtui.core.distil.outcome import Sources, build_proposal
from memtui.core.distil.render import measure
from memtui.core.model import StoreKind
from memtui.core.write.ops.memory import lock_dir_of
from memtui.core.write.proposal import DirListing, FileRead

Progress = Callable[[str, int, int], None]

STAMP_RE = re.compile(r"^<!-- last distilled: .* -->$")
NOT_LOADED = (
    "Claude Code does not load an agentmemory home's MEMORY.md: the meter measures it with "
    "the raw rules (lines, UTF-16 units) for comparison only"
)
WORDS = {TOPICS_ID: ("topic", "topics"), TAGS_ID: ("tag", "tags")}
"""What a section's generated lines are (entries for the others)."""
ENTRIES = ("entry", "entries")


@dataclass
class AgentmemoryPlan(DistilPlan):
    """A :class:`DistilPlan` of an agentmemory home: the corpus read and the ``now`` it was
    planned at (the stamp, the lifecycle's today)."""

    corpus: AgentmemoryCorpus | None = field(default=None, repr=False, compare=False)
    now: datetime | None = None

    def outcome(self, disabled: Collection[str] = ()) -> DistilOutcome:
        """The new MEMORY.md with the sections of ``disabled`` (ids) keeping their current
        version; the old text, and no proposal, when no change is enabled or only the stamp
        would change."""
        return agentmemory_outcome(self, frozenset(disabled))


def _unstamped(lines: Collection[str]) -> list[str]:
    return [line for line in lines if not STAMP_RE.match(line.removesuffix("\r"))]


def _text_unstamped(text: str) -> list[str]:
    return _unstamped(text.split("\n"))


def meter_of(text: str, headroom: float) -> Meter:
    """The raw measure of an agentmemory index: not loaded by Claude Code, nothing cut."""
    meter, _report = measure(text, agent=True, target=headroom)
    return replace(meter, loaded=False, dropped=0, truncated="none", cut_line=None)


def section_status(section: GeneratedSection) -> str:
    """``added``, ``removed``, ``changed`` or ``unchanged``, the stamp aside."""
    if section.status in ("added", "removed"):
        return section.status
    new = _unstamped((*section.lines, *section.user_tail()))
    return "unchanged" if new == _unstamped(section.current) else "changed"


def _generated_count(section_id: str, lines: Collection[str]) -> int:
    shape = line_shape(section_id)
    return sum(1 for line in lines if shape.match(line.removesuffix("\r")))


def _yours(section: GeneratedSection) -> int:
    return sum(1 for line in section.kept_lines if line.strip())


def section_summary(section: GeneratedSection, status: str, tag_total: int | None) -> str:
    """One line a user reads: ``## #payments: 3 entries (was 2)``, ``## Recent: added, 5
    entries``, ``## #old: no longer generated``."""
    heading = section.heading
    yours = _yours(section)
    mine = f"{yours} line{'s' if yours != 1 else ''} of yours"
    if section.id == HEADER_ID:
        if status == "added":
            return f"{heading}: the title and the stamp open the new file"
        return f"{heading}: the title and the stamp open the file, then {mine}"
    if status == "removed":
        why = "no live entry has the tag" if section.id.startswith(TAG_PREFIX) else "nothing"
        kept = f"; {mine} stay under it" if yours else ""
        return f"{heading}: no longer generated ({why}){kept}"
    one, many = WORDS.get(section.id, ENTRIES)
    count = len(section.lines) - 1
    shown = f"{count} {one if count == 1 else many}"
    if tag_total is not None and tag_total > count:
        shown = f"the newest {count} of {tag_total} {many}"
    if status == "added":
        return f"{heading}: added, {shown}"
    was = _generated_count(section.id, section.current)
    kept = f", {mine} kept" if yours else ""
    return f"{heading}: {shown} (was {was}){kept}"


def section_changes(corpus: AgentmemoryCorpus, now: datetime) -> list[DistilChange]:
    """Every generated section that would change, in the order of the new file (the sections
    distil no longer generates last)."""
    old_text = corpus.index_text or ""
    index = render_index(corpus, corpus.index_text, now)
    lines: dict[str, list[int]] = {}
    for block in split_sections(old_text):
        if block.id is not None:
            lines.setdefault(block.id, []).extend(
                range(block.start, block.start + len(block.lines)))
    changes: list[DistilChange] = []
    for section in index.generated:
        status = section_status(section)
        if status == "unchanged":
            continue
        total = index.tag_counts.get(section.id.removeprefix(TAG_PREFIX))
        changes.append(DistilChange(
            id=section.id,
            kind="remove-section" if status == "removed" else "generate-section",
            summary=section_summary(section, status,
                                    total if section.id.startswith(TAG_PREFIX) else None),
            lines=tuple(lines.get(section.id, ())),
            group=status,
        ))
    return changes


def home_notes(corpus: AgentmemoryCorpus) -> list[str]:
    """What a user should know of the home: the meter, unreadable files, entries left out,
    the scratchpad's open items."""
    notes = [NOT_LOADED]
    if corpus.index_text is None and not corpus.index_broken:
        notes.append(f"there is no {INDEX}: distil writes one")
    notes += [f"{p.file}: {p.problem} (left out)" for p in corpus.problems if p.file != INDEX]
    notes += [
        f"{x.entry.file} line {x.entry.start}: entry left out ({x.reason})"
        for x in corpus.excluded
    ]
    notes += [
        f"{SCRATCHPAD} line {item.line}: open: {item.text} (the scratchpad is not rewritten)"
        for item in corpus.open_items
    ]
    return notes


def plan_agentmemory(
    store: Store,
    *,
    now: datetime,
    headroom: float = 0.7,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> AgentmemoryPlan:
    """The distil plan of an agentmemory home at ``now`` (the stamp; entries whose
    ``Valid until`` is before its UTC day are left out). Same tree and same ``now``: the same
    plan. Cancelled between files: :class:`DistilCancelled`."""
    if store.kind != StoreKind.AGENTMEMORY:
        raise ValueError(f"not an agentmemory home: {store.kind}")
    home = store.path
    corpus = parse_home(home, now=now, cancelled=cancelled, progress=progress)
    if not corpus.complete:
        raise DistilCancelled("distil cancelled")
    refusals = [
        f"{p.file} cannot be read as text ({p.problem}): distil leaves it alone"
        for p in corpus.problems if p.file == INDEX and corpus.index_broken
    ]
    old_text = corpus.index_text or ""
    sources = Sources(
        index_sha=corpus.sources.get(INDEX),
        reads=[FileRead(home / rel, digest) for rel, digest in sorted(corpus.sources.items())
               if rel != INDEX],
        listings=[DirListing(home / sub, names, MARKDOWN)
                  for sub, names in sorted(corpus.listed.items())],
    )
    return AgentmemoryPlan(
        store_kind=store.kind,
        store_path=home,
        store_title=store.title,
        index_path=home / INDEX,
        agent=False,
        old_text=old_text,
        changes=[] if refusals else section_changes(corpus, now),
        before=meter_of(old_text, headroom),
        headroom=headroom,
        notes=home_notes(corpus),
        refusals=refusals,
        lock_dir=lock_dir_of(store.kind, home),
        sources=sources,
        corpus=corpus,
        now=now,
    )


def agentmemory_outcome(plan: AgentmemoryPlan, disabled: frozenset[str]) -> DistilOutcome:
    """:meth:`AgentmemoryPlan.outcome`."""
    corpus, now = plan.corpus, plan.now
    assert corpus is not None and now is not None
    listed = {change.id for change in plan.changes}
    text = plan.old_text
    if not plan.refusals and listed - disabled:
        new = render_index(corpus, corpus.index_text, now, disabled & listed).text
        if _text_unstamped(new) != _text_unstamped(plan.old_text):
            text = new
    outcome = DistilOutcome(
        index_text=text, files={}, after=meter_of(text, plan.headroom), disabled=disabled)
    if text != plan.old_text:
        proposal = build_proposal(plan, outcome, {INDEX: text})
        proposal.notes += plan.notes
        outcome.proposal = proposal
    return outcome
