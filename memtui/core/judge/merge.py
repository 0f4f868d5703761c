"""The "merge" decision: one memory holding both sides replaces the two. memtui proposes the
merged file (:func:`propose_merge`: the kept side's frontmatter, the descriptions combined when
they differ, the kept body then the other side's lines it does not already have), the user
edits it, and ONE operation writes it in place of the kept side and archives the other (its
file and MEMORY.md lines leave the store, its bytes go to memtui's archive, as for "keep one
side": :mod:`memtui.core.judge.resolve`). Previewed, journaled, ``u`` undoes it byte for byte;
the decision is recorded in the ledger and goes with the undo.

The kept side is the newer one unless the user says otherwise. A CLAUDE.md rule is never
merged: memtui does not write CLAUDE.md files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memtui.core.contents import ScanResult
from memtui.core.judge.archive import Archive, ArchiveEntry
from memtui.core.judge.items import CLAUDE_MD, newer, normalize
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.resolve import (
    KEEP_DECISIONS,
    KeepPlan,
    find_memory,
    finish_keep,
    journal_records,
    plan_keep,
)
from memtui.core.judge.verdicts import Candidate
from memtui.core.parse.frontmatter import MemoryDocument
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


def _combined_description(kept: str | None, other: str | None) -> str | None:
    """The description of the merge: the kept one, with the other's after it when it says
    something the kept one does not; None: leave the frontmatter as it is."""
    if not other or (kept and normalize(other) in normalize(kept)):
        return None
    return f"{kept}; {other}" if kept else other


def propose_merge(kept: bytes, other: bytes) -> bytes:
    """The merged memory: ``kept``'s bytes (frontmatter, name and body as they are), its
    description combined with ``other``'s when they differ, and ``other``'s body lines that
    ``kept`` does not already have (compared normalized) appended after a blank line."""
    doc = MemoryDocument.from_bytes(kept)
    theirs = MemoryDocument.from_bytes(other)
    description = _combined_description(doc.frontmatter.description,
                                         theirs.frontmatter.description)
    if description is not None:
        doc = doc.with_frontmatter_value("description", description)
    eol = "\r\n" if "\r\n" in (doc.opening or doc.body) else "\n"
    seen = {normalize(line) for line in doc.body.splitlines() if line.strip()}
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
    if not added:
        return doc.to_bytes()
    body = doc.body.rstrip("\r\n") + eol + eol if doc.body.strip() else ""
    body += eol.join(added) + eol
    return doc.with_body(body).to_bytes()


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
    if merged is None:
        merged = propose_merge(kept_data, other_data)
    if not merged.strip():
        raise EditRefused("the merged memory is empty: nothing would be kept",
                          Path(candidate.a.file))
    plan = plan_keep(result, candidate, keep)
    kept_store, kept_memory = find_memory(result, plan.winner)
    top = root_store([kept_store, plan.store])
    where = (f"of {top.title}" if top is not None
             else f"of {plan.store.title} into {kept_store.title}")
    proposal = span_stores(plan.proposal, [kept_store, plan.store])
    proposal.kind = "merge-memories"
    proposal.title = f"merge {plan.memory.rel_path} into {kept_memory.rel_path} {where}"
    proposal.changes.insert(
        0, FileChange(kept_memory.path, "write", merged, sha256_hex(kept_data)))
    proposal.notes = [
        f"writes the merged memory to {kept_memory.rel_path} (kept: {plan.winner.label})",
        *(n for n in proposal.notes if not n.startswith("keeps ")),
    ]
    journal_records(plan, merged=True)
    return MergePlan(plan, kept_memory.path, kept_data, merged)


def finish_merge(
    plan: MergePlan, done: AppliedOp, archive: Archive, ledger: Ledger
) -> ArchiveEntry:
    """After the merge was applied: archive the other side's bytes, record the decision."""
    return finish_keep(plan.keep, done, archive, ledger, merged=True)
