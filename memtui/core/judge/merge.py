"""The "merge" decision: one memory holding both sides replaces the two. memtui proposes the merged
file (:func:`propose_merge`: the kept side's frontmatter with one description, the newer or the
more complete one (:func:`merged_description`), the kept body then the other side's lines it does
not already have), the user edits it, and ONE operation writes it in place of the kept side and
archives the other (its file and MEMORY.md lines leave the store, its bytes go to memtui's
archive, as for "keep one side": :mod:`memtui.core.judge.resolve`). Previewed, journaled, ``u``
undoes it byte for byte; the decision is recorded in the ledger and goes with the undo.

The kept side is the newer one unless the user says otherwise. Where the two sides state the
same thing with another value (the same line but for a number, a size, a duration, a version,
or a "never" against an "always": :func:`value_clashes`), the proposal keeps the newer side's
line and drops the older one, and the plan says which line it dropped and why, with the dates;
two lines that differ in one other word are both kept, and the plan asks the user to choose.
A CLAUDE.md rule is never merged: memtui does not write CLAUDE.md files."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from difflib import SequenceMatcher
from pathlib import Path

from memtui.core.contents import ScanResult
from memtui.core.judge.archive import Archive, ArchiveEntry
from memtui.core.judge.items import CLAUDE_MD, newer, normalize, words
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.resolve import (
    KEEP_DECISIONS,
    KeepPlan,
    find_memory,
    finish_keep,
    journal_records,
    plan_keep,
)
from memtui.core.judge.verdicts import Candidate, JudgeItem
from memtui.core.parse.frontmatter_edit import MemoryDocument
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.ops.memory import root_store, span_stores
from memtui.core.write.proposal import (
    AppliedOp,
    FileChange,
    Proposal,
    read_regular,
    sha256_hex,
)


def kept_side(candidate: Candidate) -> str:
    """The side a merge keeps by default: the newer one (``a`` when nothing tells)."""
    return newer(candidate.a, candidate.b) or "a"


def merged_description(kept: str | None, other: str | None, *,
                       kept_is_newer: bool = True) -> str | None:
    """The one description the merge proposes (never the two joined): the one that says
    everything the other says and more (its words hold the other's), else the newer side's;
    a side without one gives way to the other. None: leave the kept frontmatter as it is."""
    kept, other = (kept or "").strip(), (other or "").strip()
    if not other:
        return None
    if not kept:
        return other
    kept_words, other_words = set(words(kept)), set(words(other))
    if other_words <= kept_words:
        return None  # the kept one says it all
    if kept_words <= other_words:
        return other  # the other one says it all, and more
    return None if kept_is_newer else other


_VALUE = re.compile(r"\d")
_POLARITY = frozenset({"never", "always", "not", "no", "don't", "dont", "avoid", "must",
                       "only", "disable", "disabled", "enable", "enabled", "off", "on"})
CLASH_RATIO = 0.5
"""How alike two lines' words must be to be one statement with another value (difflib's
ratio); two lines that differ in one word that is no value must be more alike:"""
WORD_CLASH_RATIO = 0.7


@dataclass(frozen=True)
class ValueClash:
    """Two lines, one of each side, that state the same thing with another value."""

    newer: str
    older: str
    certain: bool
    """True: the words that differ are values (a digit in them) or a polarity word, so the
    older line is out of date; False: one other word differs (``jest`` / ``vitest``), which
    may be another value or another subject: the user chooses."""


_QUANTITY = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(%|[^\W\d_]+)")
_CODE = re.compile(r"`([^`\n]{2,80})`")
_UNITS = {"%": "percent", "pct": "percent"}


def _quantities(line: str) -> dict[str, set[str]]:
    """The line's amounts by unit: ``at 25 percent`` → ``{"percent": {"25"}}``."""
    found: dict[str, set[str]] = {}
    for value, unit in _QUANTITY.findall(line.casefold()):
        unit = _UNITS.get(unit, unit)
        if len(unit) > 3 and unit.endswith("s"):
            unit = unit[:-1]
        found.setdefault(unit, set()).add(value.replace(",", "."))
    return found


def _anchors(line: str) -> set[str]:
    """What names one subject for sure: code spans and identifiers (``checkout_v2``)."""
    spans = {span.strip().casefold() for span in _CODE.findall(line)}
    return spans | {w for w in words(line) if "_" in w or ("." in w and not w[0].isdigit())}


def _quantity_clash(newer_line: str, older_line: str) -> bool:
    """Two lines that name one subject (a code span or an identifier both give) and give it
    another amount of the same unit (``checkout_v2`` at 100 percent / at 10 percent), however
    else they are worded."""
    if not _anchors(newer_line) & _anchors(older_line):
        return False
    mine, theirs = _quantities(newer_line), _quantities(older_line)
    return any(unit in theirs and not mine[unit] & theirs[unit] for unit in mine)


def _clash(newer_line: str, older_line: str) -> ValueClash | None:
    mine, theirs = words(newer_line), words(older_line)
    if len(mine) < 3 or len(theirs) < 3 or normalize(newer_line) == normalize(older_line):
        return None
    matcher = SequenceMatcher(a=mine, b=theirs, autojunk=False)
    if matcher.ratio() < CLASH_RATIO:
        if _quantity_clash(newer_line, older_line):
            return ValueClash(newer_line.strip(), older_line.strip(), True)
        return None
    changed: list[str] = []
    replaced = False
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace":
            replaced = True
            changed += mine[i1:i2] + theirs[j1:j2]
        elif tag == "delete":
            changed += [w for w in mine[i1:i2] if w in _POLARITY or _VALUE.search(w)]
        else:
            changed += [w for w in theirs[j1:j2] if w in _POLARITY or _VALUE.search(w)]
    values = [w for w in changed if w in _POLARITY or _VALUE.search(w)]
    if values:
        return ValueClash(newer_line.strip(), older_line.strip(), True)
    if replaced and len(changed) <= 2 and matcher.ratio() >= WORD_CLASH_RATIO:
        return ValueClash(newer_line.strip(), older_line.strip(), False)
    return None


def _statements(body: str) -> list[str]:
    return [line for line in body.splitlines() if len(words(line)) >= 3]


def value_clashes(newer_body: str, older_body: str) -> list[ValueClash]:
    """Each line of ``older_body`` that says what a line of ``newer_body`` says with another
    value, with that line (the most alike one). Lines are compared by their words."""
    found: list[ValueClash] = []
    newer_lines = _statements(newer_body)
    for older_line in _statements(older_body):
        best: tuple[float, ValueClash] | None = None
        for newer_line in newer_lines:
            clash = _clash(newer_line, older_line)
            if clash is None:
                continue
            ratio = SequenceMatcher(a=words(newer_line), b=words(older_line),
                                    autojunk=False).ratio()
            if best is None or ratio > best[0]:
                best = (ratio, clash)
        if best is not None:
            found.append(best[1])
    return found


def propose_merge(kept: bytes, other: bytes, *, kept_is_newer: bool = True) -> bytes:
    """The merged memory: ``kept``'s bytes (frontmatter, name and body as they are), one
    description (:func:`merged_description`: ``other``'s when it is the newer or says more),
    and ``other``'s body lines that ``kept`` does not already have (compared normalized)
    appended after a blank line. Where a line of ``other`` states a line of ``kept`` with
    another value (:func:`value_clashes`, ``certain``), only the newer side's line stays:
    ``kept``'s when ``kept_is_newer``, else ``other``'s in its place."""
    doc = MemoryDocument.from_bytes(kept)
    theirs = MemoryDocument.from_bytes(other)
    description = merged_description(doc.frontmatter.description,
                                     theirs.frontmatter.description, kept_is_newer=kept_is_newer)
    if description is not None:
        doc = doc.with_frontmatter_value("description", description)
    eol = "\r\n" if "\r\n" in (doc.opening or doc.body) else "\n"
    if kept_is_newer:
        clashes = value_clashes(doc.body, theirs.body)
        dropped = {normalize(c.older) for c in clashes if c.certain}
    else:
        clashes = value_clashes(theirs.body, doc.body)
        replace = {normalize(c.older): c.newer for c in clashes if c.certain}
        lines = doc.body.splitlines(keepends=True)
        for i, line in enumerate(lines):
            newer_line = replace.get(normalize(line))
            if newer_line is not None:
                ending = line[len(line.rstrip("\r\n")):]
                lines[i] = line[: len(line) - len(line.lstrip())] + newer_line + ending
        doc = doc.with_body("".join(lines))
        dropped = {normalize(c.newer) for c in clashes if c.certain}  # now in kept's body
    seen = {normalize(line) for line in doc.body.splitlines() if line.strip()} | dropped
    added: list[str] = []
    for line in theirs.body.splitlines():
        key = normalize(line)
        if not line.strip():
            if added and added[-1]:
                added.append("")
            continue
        if key in seen:
            continue
        seen.add(key)
        added.append(line.rstrip())
    while added and not added[-1]:
        added.pop()
    kept_lines = doc.body.splitlines()
    added = fold_labelled(kept_lines, added)
    if not added and kept_lines == doc.body.splitlines():
        return doc.to_bytes()
    first_label = next((i for i, line in enumerate(kept_lines) if _LABEL.match(line)), None)
    facts = next((i for i, line in enumerate(added) if _LABEL.match(line)), len(added))
    if facts and first_label is not None:
        # the other side's facts go with the kept facts, above its **Why:** / **How to
        # apply:** paragraphs, as Claude Code writes a memory
        while first_label and not kept_lines[first_label - 1].strip():
            first_label -= 1
        block = added[:facts]
        while block and not block[-1].strip():
            block.pop()
        kept_lines[first_label:first_label] = block
        added = added[facts:]
    body = eol.join(kept_lines).rstrip("\r\n")
    if added:
        body = body + eol + eol if body.strip() else ""
        body += eol.join(added)
    return doc.with_body(body + eol if body else "").to_bytes()


_LABEL = re.compile(r"^\s*\*\*([^*\n]{1,40}?)(?::\*\*|\*\*:)\s*(.*)$")
"""A labelled paragraph's first line: ``**Why:** …``, ``**How to apply**: …`` (a colon makes
it a label: ``**Never** push to main.`` is a sentence)."""
REPEATED_SHARE = 0.8
"""The share of a labelled text's content words the kept paragraph must already have (with
every number and no negation of its own) for the text to count as said already."""


def _said_already(kept_text: str, other_text: str) -> bool:
    from memtui.core.judge.statements import statement

    mine, theirs = statement(kept_text), statement(other_text)
    if not theirs.stems or (theirs.negated and not mine.negated):
        return False
    if not theirs.numbers <= mine.numbers:
        return False
    return len(theirs.stems & mine.stems) >= REPEATED_SHARE * len(theirs.stems)


def _paragraph_end(lines: list[str], start: int) -> int:
    """The last line of the paragraph that starts at ``start``."""
    end = start
    while end + 1 < len(lines) and lines[end + 1].strip() and not _LABEL.match(lines[end + 1]):
        end += 1
    return end


def fold_labelled(kept_lines: list[str], added: list[str]) -> list[str]:
    """Fold each labelled paragraph of ``added`` (``**Why:** …``) into the kept paragraph of
    the same label, in place in ``kept_lines``: its text goes after the kept text, unless the
    kept paragraph says it already (:func:`_said_already`: then it is left out). A merge
    thus has one **Why:** and one **How to apply:**, not two of each. Returns what is left
    of ``added``, blank runs collapsed."""
    rest: list[str] = []
    i = 0
    while i < len(added):
        match = _LABEL.match(added[i])
        home = None
        if match:
            label = match.group(1).strip().casefold()
            home = next((k for k, line in enumerate(kept_lines)
                         if (m := _LABEL.match(line)) and m.group(1).strip().casefold() == label),
                        None)
        if match is None or home is None:
            rest.append(added[i])
            i += 1
            continue
        end = _paragraph_end(added, i)
        text_lines = [match.group(2).strip(), *(line.strip() for line in added[i + 1:end + 1])]
        text = " ".join(t for t in text_lines if t)
        kept_end = _paragraph_end(kept_lines, home)
        kept_text = " ".join([_LABEL.match(kept_lines[home]).group(2),  # type: ignore[union-attr]
                              *kept_lines[home + 1:kept_end + 1]])
        if text and not _said_already(kept_text, text):
            last = kept_lines[kept_end].rstrip()
            if last.endswith((".", "!", "?")):
                text = text[:1].upper() + text[1:]
            kept_lines[kept_end] = f"{last} {text}" if last.strip() else text
        i = end + 1
    folded: list[str] = []
    for line in rest:
        if line.strip() or (folded and folded[-1].strip()):
            folded.append(line)
    while folded and not folded[-1].strip():
        folded.pop()
    return folded


def _when(item: JudgeItem) -> str:
    if item.modified:
        return str(item.modified)
    return datetime.fromtimestamp(item.mtime, UTC).strftime("%Y-%m-%d")


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return f"«{text if len(text) <= limit else text[: limit - 1] + '…'}»"


def clash_notes(newer_item: JudgeItem, older_item: JudgeItem, newer_body: str,
                older_body: str, merged: bytes) -> list[str]:
    """What the merged text did with the lines the two sides disagree on, for the preview:
    which older line it dropped for which newer one (with the dates), which disagreeing lines
    it keeps both of, and which newer line it dropped (the user's edit)."""
    lines = {normalize(line) for line in
             MemoryDocument.from_bytes(merged).body.splitlines() if line.strip()}
    notes: list[str] = []
    new_side = f"{newer_item.rel_path}, {_when(newer_item)}"
    old_side = f"{older_item.rel_path}, {_when(older_item)}"
    for clash in value_clashes(newer_body, older_body):
        has_newer, has_older = normalize(clash.newer) in lines, normalize(clash.older) in lines
        if has_newer and not has_older:
            notes.append(f"drops the older {_quote(clash.older)} ({old_side}) for the newer "
                         f"{_quote(clash.newer)} ({new_side})")
        elif has_older and not has_newer:
            notes.append(f"keeps the older {_quote(clash.older)} ({old_side}) and drops the "
                         f"newer {_quote(clash.newer)} ({new_side})")
        elif has_newer and has_older:
            notes.append(f"keeps both {_quote(clash.newer)} ({new_side}) and "
                         f"{_quote(clash.older)} ({old_side}), which may disagree: edit the "
                         "merge to keep one")
    return notes


@dataclass
class MergePlan:
    """A planned merge: the kept side gets ``merged``, the other side is archived (``keep``
    holds the removal and what the archive keeps); ``proposal`` does both at once."""

    keep: KeepPlan
    kept_path: Path
    old: bytes
    merged: bytes

    @property
    def proposal(self) -> Proposal:
        return self.keep.proposal


def merge_sources(result: ScanResult, candidate: Candidate, keep: str) -> tuple[bytes, bytes]:
    """The bytes of the side kept and of the side archived (what :func:`propose_merge` takes)."""
    if keep not in KEEP_DECISIONS:
        raise ValueError(keep)
    for item in (candidate.a, candidate.b):
        if item.kind == CLAUDE_MD:
            raise EditRefused(
                f"{item.rel_path} is a CLAUDE.md rule: memtui does not edit CLAUDE.md files, so "
                "it merges only two memories; keep the rule and archive the memory instead",
                Path(item.file))
    found = []
    for item in (candidate.a, candidate.b) if keep == "a" else (candidate.b, candidate.a):
        _store, memory = find_memory(result, item)
        data, _st = read_regular(memory.path)
        if data is None:
            raise EditRefused(f"{item.rel_path} does not exist any more", memory.path)
        found.append(data)
    return found[0], found[1]


def plan_merge(
    result: ScanResult, candidate: Candidate, keep: str, merged: bytes | None = None
) -> MergePlan:
    """Plan replacing side ``keep`` with ``merged`` (default: :func:`propose_merge`) and
    archiving the other side, as one operation. Refused when a side is a CLAUDE.md rule or the
    merged text is empty. Two memories in stores with separate roots are merged by one
    operation across both roots, each under its own lock."""
    kept_data, other_data = merge_sources(result, candidate, keep)
    kept_item, other_item = (candidate.a, candidate.b) if keep == "a" else (candidate.b,
                                                                             candidate.a)
    kept_is_newer = newer(kept_item, other_item) in (None, "a")
    if merged is None:
        merged = propose_merge(kept_data, other_data, kept_is_newer=kept_is_newer)
    if not merged.strip():
        raise EditRefused("the merged memory is empty: nothing would be kept",
                          Path(candidate.a.file))
    plan = plan_keep(result, candidate, keep)
    kept_store, kept_memory = find_memory(result, plan.winner)
    top = root_store([kept_store, plan.store])
    proposal = span_stores(plan.proposal, [kept_store, plan.store])
    proposal.kind = "merge-memories"
    if top is not None:
        proposal.title = f"merge {plan.memory.rel_path} into {kept_memory.rel_path} of {top.title}"
    else:
        proposal.title = (f"merge {plan.memory.rel_path} of {plan.store.title} into "
                          f"{kept_memory.rel_path} of {kept_store.title}")
    kept_body = MemoryDocument.from_bytes(kept_data).body
    other_body = MemoryDocument.from_bytes(other_data).body
    if kept_is_newer:
        clashes = clash_notes(kept_item, other_item, kept_body, other_body, merged)
    else:
        clashes = clash_notes(other_item, kept_item, other_body, kept_body, merged)
    proposal.changes.insert(
        0, FileChange(kept_memory.path, "write", merged, sha256_hex(kept_data)))
    proposal.notes = [
        f"writes the merged memory to {kept_memory.rel_path} (kept: {plan.winner.label})",
        *clashes,
        *(n for n in proposal.notes if not n.startswith("keeps ")),
    ]
    journal_records(plan, merged=True)
    return MergePlan(plan, kept_memory.path, kept_data, merged)


def finish_merge(
    plan: MergePlan, done: AppliedOp, archive: Archive, ledger: Ledger
) -> ArchiveEntry:
    """After the merge was applied: archive the other side's bytes, record the decision."""
    return finish_keep(plan.keep, done, archive, ledger, merged=True)
