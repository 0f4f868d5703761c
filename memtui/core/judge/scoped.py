"""The "keep both as scoped" decision: both sides stay, each gets a one-line note saying when
it applies, as the first line of its body (docs/claude-code-rules.md#relations-between-memories):

    ---
    name: test-db
    description: …
    ---
    _Applies when: running the integration suite against the staging database_

    Integration tests run against a real Postgres 16 …

Both notes are written as ONE operation through the write path (previewed, journaled, ``u``
undoes it byte for byte); a note already there (a first body line ``_Applies when: …_``) is
replaced, not repeated. A CLAUDE.md side is never written: only the memory side gets its note.
The decision is recorded in the ledger for the new contents, so the pair is not raised again
until one side changes; an undo puts the old contents back, and with them the old verdict."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from memtui.core.contents import Memory, ScanResult, Store
from memtui.core.judge.candidates import STOPWORDS
from memtui.core.judge.items import CLAUDE_MD, item_after, words
from memtui.core.judge.ledger import USER, Ledger, LedgerEntry, decision_file, new_entry
from memtui.core.judge.resolve import find_memory
from memtui.core.judge.verdicts import Candidate, JudgeItem, Relation, Verdict
from memtui.core.model import StoreKind
from memtui.core.parse.frontmatter_edit import MemoryDocument
from memtui.core.plaintext import escape_controls
from memtui.core.secrets.redact import masked_text
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.ops.memory import root_store, span_stores
from memtui.core.write.proposal import FileChange, Proposal, read_regular, sha256_hex

NOTE_PREFIX = "_Applies when: "
NOTE_SUFFIX = "_"
NOTE_CHARS = 200
"""The longest note kept (one line; a longer one is cut at a word)."""
PROPOSED_WORDS = 8
_NOTE_LINE = re.compile(r"^_Applies when: .*_[ \t]*\r?\n?$")
_LEADING_BLANKS = re.compile(r"^(?:[ \t]*\r?\n)*")


def clean_note(text: str) -> str:
    """One line of plain text: whitespace collapsed, control characters dropped, the note's own
    underscores and prefix taken off, at most :data:`NOTE_CHARS`; ValueError when empty."""
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(text.split()).strip("_ ")
    if text.lower().startswith("applies when:"):
        text = text[len("applies when:") :].strip("_ ")
    if len(text) > NOTE_CHARS:
        text = text[:NOTE_CHARS].rsplit(" ", 1)[0].rstrip() + "…"
    if not text:
        raise ValueError("the note is empty")
    return text


def note_line(text: str) -> str:
    return f"{NOTE_PREFIX}{clean_note(text)}{NOTE_SUFFIX}"


def _split_body(body: str) -> tuple[str, str, str]:
    """``(blank lines before, the first line, the rest)`` of a body."""
    blanks = _LEADING_BLANKS.match(body)
    start = blanks.end() if blanks else 0
    end = body.find("\n", start)
    end = len(body) if end < 0 else end + 1
    return body[:start], body[start:end], body[end:]


def current_note(body: str) -> str | None:
    """The note a memory's body already has (its first line ``_Applies when: …_``), or None."""
    _blanks, first, _rest = _split_body(body)
    if not _NOTE_LINE.match(first):
        return None
    return first.strip()[len(NOTE_PREFIX) : -len(NOTE_SUFFIX)].strip() or None


def with_note(data: bytes, text: str) -> bytes:
    """``data`` with ``text`` as its "applies when" note: the body's first line (after the
    frontmatter and any blank lines), followed by a blank line; an existing note is replaced.
    Every other byte stays as it was (line endings included)."""
    doc = MemoryDocument.from_bytes(data)
    eol = "\r\n" if "\r\n" in (doc.opening or doc.body) else "\n"
    blanks, first, rest = _split_body(doc.body)
    new = note_line(text)
    if _NOTE_LINE.match(first):
        ending = first[len(first.rstrip("\r\n")) :] or eol
        body = blanks + new + ending + rest
    elif first:
        body = blanks + new + eol + eol + first + rest
    else:
        body = blanks + new + eol
    return doc.with_body(body).to_bytes()


def _distinct(item: JudgeItem, other: JudgeItem) -> list[str]:
    """Words of ``item``'s body the other side does not have, in order, stop words left out."""
    mine, theirs = words(item.body), words(other.body)
    matcher = SequenceMatcher(a=theirs, b=mine, autojunk=False)
    found: list[str] = []
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for word in mine[j1:j2]:
            if word not in STOPWORDS and word not in found and word not in theirs:
                found.append(word)
    return found


def context_of(item: JudgeItem) -> str:
    """Where a memory applies by the store it lives in, in words: ``working as the planner
    agent``, ``in this project's main sessions``, ``for the whole team``."""
    if item.kind == "agent" and item.agent:
        return f"working as the {item.agent} agent"
    if item.kind == "team":
        return "for the whole team of this repository"
    if item.kind == "auto":
        return "in this project's main sessions"
    return ""


CONDITION_WORDS = frozenset({
    # where: environments and machines
    "staging", "production", "prod", "dev", "development", "local", "locally", "ci", "qa",
    "preview", "sandbox", "test", "tests", "e2e", "integration", "unit", "laptop", "docker",
    "kubernetes", "k8s", "windows", "macos", "linux", "arm", "x86",
    # what: kinds of code and work
    "scripts", "script", "services", "service", "cli", "server", "client", "frontend",
    "backend", "mobile", "web", "api", "worker", "workers", "batch", "cron", "jobs",
    "migrations", "migration", "hotfix", "hotfixes", "release", "releases", "prototype",
    "prototypes", "spikes", "legacy", "library", "libraries", "apps", "monorepo",
    # when
    "weekend", "weekends", "friday", "fridays", "night", "nights", "freeze", "incident",
    "incidents", "on-call", "oncall", "review", "reviews",
})
"""Words that name a condition a memory applies under (an environment, a kind of code, a
time), as opposed to the value it holds."""
_PREPOSITIONS = frozenset({"in", "on", "for", "during", "against", "when", "while", "under",
                           "inside", "outside", "within", "to", "at", "before", "after"})
_DETERMINERS = frozenset({"the", "a", "an", "our", "this", "that", "every", "all", "any",
                          "each", "its", "their", "your"})
_FOLLOWERS = frozenset({"tests", "suite", "suites", "jobs", "code", "builds", "environment",
                        "env", "branch", "branches", "mode", "servers", "machines", "images"})


def differing_conditions(item: JudgeItem, other: JudgeItem) -> list[str]:
    """The condition phrases (``in staging``, ``for integration tests``) ``item`` names and
    ``other`` does not, in order, one per condition word (a :data:`CONDITION_WORDS` word):
    the preposition right before it (articles between are dropped), else ``for``; with the
    noun after it when that says what kind (``tests``, ``jobs``, ``builds``…)."""
    mine = words(item.name + ". " + item.description + ". " + item.body)
    theirs = set(words(other.name + ". " + other.description + ". " + other.body))
    found: list[str] = []
    seen: set[str] = set()
    for i, word in enumerate(mine):
        if word not in CONDITION_WORDS or word in theirs or word in seen:
            continue
        seen.add(word)
        j = i - 1
        while j >= 0 and mine[j] in _DETERMINERS and i - j <= 2:
            j -= 1
        preposition = mine[j] if j >= 0 and mine[j] in _PREPOSITIONS else "for"
        follower = mine[i + 1] if i + 1 < len(mine) and mine[i + 1] in _FOLLOWERS else ""
        phrase = " ".join(part for part in (preposition, word, follower) if part)
        if phrase not in found:
            found.append(phrase)
    return found


def propose_notes(candidate: Candidate, verdict: Verdict | None = None) -> dict[str, str]:
    """A proposed note for each memory side, for the user to edit, naming the condition under
    which that side applies: the note it already has; else, when the two sides live in
    different stores, where each store applies (a user agent memory against the project's:
    ``working as the planner agent``); else the condition words that side names and the other
    does not (``in staging`` against ``in production``: :func:`differing_conditions`); else
    nothing: no condition differs that memtui can name, and the user says one (a body sentence
    is no condition). ``verdict`` is kept for the callers; the notes do not quote it."""
    del verdict
    proposals: dict[str, str] = {}
    sides = {"a": (candidate.a, candidate.b), "b": (candidate.b, candidate.a)}
    contexts = {tag: context_of(item) for tag, (item, _other) in sides.items()}
    differ = contexts["a"] != contexts["b"] and all(contexts.values())
    for tag, (item, other) in sides.items():
        if item.kind == CLAUDE_MD:
            continue
        context = contexts[tag] if differ else ""
        conditions = next(iter(differing_conditions(item, other)), "")
        text = current_note(item.body) or context or conditions
        proposals[tag] = escape_controls(text)
    return proposals


@dataclass
class ScopedSide:
    tag: str
    item: JudgeItem
    store: Store
    memory: Memory
    note: str
    old: bytes
    new: bytes


@dataclass
class ScopedPlan:
    """A planned "keep both as scoped": the proposal writing each memory side's note, and the
    pair as it will be afterwards (what the ledger records)."""

    candidate: Candidate
    after: Candidate
    sides: list[ScopedSide]
    proposal: Proposal
    skipped: list[str] = field(default_factory=list)
    """Sides not written, and why (a CLAUDE.md rule)."""
    decision: LedgerEntry | None = None
    """The decision the ledger will hold, written by the operation (a state file)."""

    def note_of(self, tag: str) -> str | None:
        return next((s.note for s in self.sides if s.tag == tag), None)


def plan_scoped(result: ScanResult, candidate: Candidate, notes: dict[str, str]) -> ScopedPlan:
    """Plan writing ``notes[tag]`` ("applies when …") into side ``tag`` (``a``, ``b``) of the
    pair; a CLAUDE.md side is left as it is. Refused (:class:`EditRefused`) when a note is
    empty or a side is a snapshot. Two memories in stores with separate roots (a user agent
    memory and a project's auto memory) are written as one operation across both roots, each
    under its own lock."""
    sides: list[ScopedSide] = []
    skipped: list[str] = []
    after = {"a": candidate.a, "b": candidate.b}
    for tag, item in after.copy().items():
        if item.kind == CLAUDE_MD:
            skipped.append(f"{tag.upper()} is a CLAUDE.md rule: memtui does not edit CLAUDE.md "
                           "files, so only the memory gets a note")
            continue
        store, memory = find_memory(result, item)
        if store.kind == StoreKind.SNAPSHOT:
            raise EditRefused(f"{item.rel_path} is in a snapshot: snapshots ship with the "
                              "project and memtui does not edit them", memory.path)
        try:
            note = clean_note(notes.get(tag, ""))
        except ValueError:
            raise EditRefused(f"the note for {tag.upper()} is empty: say when "
                              f"{item.rel_path} applies", memory.path) from None
        old, _st = read_regular(memory.path)
        if old is None:
            raise EditRefused(f"{item.rel_path} does not exist any more", memory.path)
        new = with_note(old, note)
        sides.append(ScopedSide(tag, item, store, memory, note, old, new))
        after[tag] = item_after(item, new)
    if not sides:
        raise EditRefused("both sides are CLAUDE.md rules: memtui does not edit CLAUDE.md files",
                          Path(candidate.a.file))
    top = root_store([s.store for s in sides])
    what = " and ".join(f"{s.memory.rel_path} of {s.store.title}" for s in sides)
    if top is not None:  # one store (or a store and its Team folder): one root, one lock
        what = " and ".join(s.memory.rel_path for s in sides) + f" of {top.title}"
    proposal = span_stores(Proposal(
        kind="scope-memories",
        title=f"scope {what}",
        root=sides[0].store.path,
        lock_dir=None,
        changes=[FileChange(s.memory.path, "write", s.new, sha256_hex(s.old)) for s in sides],
        notes=[*(f"{s.tag.upper()} {s.memory.rel_path}: {note_line(s.note)}" for s in sides),
               *skipped],
        shown=masked_text,
    ), [s.store for s in sides])
    plan = ScopedPlan(candidate, Candidate(after["a"], after["b"], candidate.score,
                                           candidate.reasons), sides, proposal, skipped)
    plan.decision = _decision(plan)
    proposal.state_files = [decision_file(plan.decision)]
    return plan


def _decision(plan: ScopedPlan) -> LedgerEntry:
    return new_entry(plan.after, scoped_verdict(plan), "scoped")


def scoped_verdict(plan: ScopedPlan) -> Verdict:
    """The user's decision ``plan`` carries out, each side's note in its reason."""
    said = "; ".join(f"{s.tag.upper()} applies when {s.note}" for s in plan.sides)
    return Verdict(Relation.SCOPED, 1.0, f"decided: scoped ({said})", USER)


def finish_scoped(plan: ScopedPlan, ledger: Ledger) -> None:
    """After the notes were written: the decision for the new contents (written by the
    operation) taken into ``ledger`` and saved."""
    ledger.adopt(plan.decision if plan.decision is not None else _decision(plan))
    ledger.save()
