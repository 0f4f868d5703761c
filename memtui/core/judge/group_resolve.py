"""One decision settles a group (issue 22, item 3): keep one member and archive the rest,
merge every member into one, mark every member scoped, or mark the group not a conflict
(related, compatible). Each is ONE operation through the write path: previewed, journaled,
and ONE ``memtui undo`` (``u``) undoes all of it. The ledger gets the decision of every pair
of the group, written by the operation itself (its state files), so the pairs are not raised
again; and, like a pair's decision, it lasts only while the operation stands:

- keep and merge archive the other members (their files and MEMORY.md lines leave their
  stores, their bytes go to memtui's archive, as :mod:`memtui.core.judge.resolve` does for one
  pair); each pair's decision says ``archived <entry>``, which the ledger disregards once the
  pair is found again (an undo put the archived side back);
- scoped writes an "applies when" note into each memory member
  (:mod:`memtui.core.judge.scoped`); the decisions are for the new contents, so an undo, which
  puts the old contents back, brings the old verdicts back;
- not a conflict changes no memory: the operation writes one record of the decision in
  memtui's state dir (``judge/dismissed/<op>.json``, beside the ledger); each pair's decision
  says ``dismissed <file>`` and holds while that file exists: an undo removes it.

A CLAUDE.md rule is never written or archived (memtui does not edit CLAUDE.md files): keeping a
memory over a rule is refused, a merge or a scoped note leaves the rules as they are (their
pairs stay undecided and are judged again against the new text)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from memtui.core.contents import Memory, ScanResult, Store
from memtui.core.judge.archive import Archive, ArchiveEntry, archiving, entry_state_files
from memtui.core.judge.groups import Group
from memtui.core.judge.items import CLAUDE_MD, item_after, newer
from memtui.core.judge.ledger import (
    DISMISSED_DIR,
    USER,
    Ledger,
    LedgerEntry,
    decision_file,
    new_entry,
)
from memtui.core.judge.links import dangling_note
from memtui.core.judge.merge import clash_notes, propose_merge
from memtui.core.judge.resolve import find_memory
from memtui.core.judge.scoped import clean_note, note_line, propose_notes, with_note
from memtui.core.judge.verdicts import Candidate, JudgedPair, JudgeItem, Relation, Verdict
from memtui.core.model import StoreKind
from memtui.core.parse.frontmatter_edit import MemoryDocument
from memtui.core.secrets.redact import masked_text
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import new_op_id
from memtui.core.write.ops.memory import (
    INDEX_NAME,
    index_lines_for,
    plan_delete_memories,
    root_store,
    span_stores,
)
from memtui.core.write.proposal import (
    AppliedOp,
    FileChange,
    Proposal,
    read_regular,
    sha256_hex,
)

GROUP_DECISIONS = ("keep", "merge", "scoped", "related", "compatible", "not_conflict")
RECORD_ONLY: dict[str, Relation] = {
    "related": Relation.RELATED,
    "compatible": Relation.COMPATIBLE,
    "not_conflict": Relation.NOT_CONFLICT,
}


@dataclass
class Archived:
    """A member a keep or a merge takes out of its store."""

    item: JudgeItem
    store: Store
    memory: Memory
    data: bytes
    index_lines: list[str]
    entry: ArchiveEntry | None = None


@dataclass
class GroupPlan:
    """A planned group decision: ``proposal`` does all of it as one operation; ``decisions``
    are the ledger's entries it writes (one per pair of the group it settles), ``archived``
    the members it archives (keep, merge), ``after`` each rewritten member as it will be
    (merge, scoped)."""

    group: Group
    decision: str
    proposal: Proposal
    decisions: list[LedgerEntry] = field(default_factory=list)
    archived: list[Archived] = field(default_factory=list)
    kept: JudgeItem | None = None
    after: dict[str, JudgeItem] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    """scoped: the note written into each member (by key)."""
    skipped: list[str] = field(default_factory=list)
    """Members left as they are, and why (a CLAUDE.md rule)."""

    @property
    def entries(self) -> list[ArchiveEntry]:
        return [a.entry for a in self.archived if a.entry is not None]

    @property
    def gone(self) -> list[str]:
        """The keys of the members the operation takes out of their stores."""
        return [a.item.key for a in self.archived]


def memories_of(group: Group) -> list[JudgeItem]:
    return [m for m in group.members if m.kind != CLAUDE_MD]


def default_keep(group: Group) -> JudgeItem:
    """The member a keep keeps by default: a CLAUDE.md rule, else the newest memory (by
    ``modified``, then file time; the first by key when nothing tells)."""
    best = group.members[0]
    for member in group.members[1:]:
        if newer(best, member) == "b":
            best = member
    return best


def default_kept_memory(group: Group) -> JudgeItem:
    """The memory a merge writes into by default: the newest memory member."""
    found = memories_of(group)
    if len(found) < 2:
        raise EditRefused("a merge needs two memories: the others are CLAUDE.md rules, which "
                          "memtui does not edit; keep the rule and archive the memory instead",
                          Path(group.members[0].file))
    best = found[0]
    for member in found[1:]:
        if newer(best, member) == "b":
            best = member
    return best


def member_of(group: Group, name: str) -> JudgeItem:
    """The member ``name`` names: its key, its file, its path in its store, its file name
    (with or without ``.md``) or its 1-based number in the group; EditRefused when none or
    several do."""
    if name.isdigit() and 1 <= int(name) <= len(group.members):
        return group.members[int(name) - 1]
    found = [m for m in group.members
             if name in (m.key, m.file, m.rel_path, m.rel_path.rsplit("/", 1)[-1],
                         m.rel_path.rsplit("/", 1)[-1].removesuffix(".md"), m.label)]
    if len(found) == 1:
        return found[0]
    what = "several members" if found else "no member"
    raise EditRefused(f"{name!r} names {what} of group {group.id}: give its number (1-"
                      f"{len(group.members)}) or its path", Path(group.members[0].file))


def _archived(result: ScanResult, item: JudgeItem) -> Archived:
    if item.kind == CLAUDE_MD:
        raise EditRefused(
            f"{item.rel_path}:{item.line} is a CLAUDE.md rule: memtui does not edit CLAUDE.md "
            "files; keep the rule (and archive the memories), or edit the file yourself",
            Path(item.file))
    store, memory = find_memory(result, item)
    data, _st = read_regular(memory.path)
    if data is None:
        raise EditRefused(f"{item.rel_path} does not exist any more", memory.path)
    index_raw, _st = read_regular(store.path / INDEX_NAME)
    lines = [] if index_raw is None else [
        e.raw for e in index_lines_for(index_raw.decode("utf-8", "replace"), memory.rel_path)
    ]
    return Archived(item, store, memory, data, lines)


def _stores(found: list[Store]) -> list[Store]:
    return list({id(s): s for s in found}.values())


def _archive_records(plan: GroupPlan, op_id: str, *, merged: bool) -> None:
    """The archive entry of each archived member and the decision of each pair, as the
    operation's state files (written with it, under the operation id they name)."""
    kept = plan.kept
    assert kept is not None
    how = "merged into" if merged else "superseded by"
    for gone in plan.archived:
        pair_id = next((p.candidate.id for p in plan.group.pairs
                        if {p.candidate.a.key, p.candidate.b.key} == {kept.key, gone.item.key}),
                       None)
        gone.entry = archiving(
            gone.store.kind, gone.store.path, gone.memory.rel_path, gone.data,
            reason=f"{how} {kept.label} (group {plan.group.id})", op_id=op_id, pair=pair_id,
            superseded_by=kept.key, index_lines=gone.index_lines)
    entry_of = {a.item.key: a.entry for a in plan.archived if a.entry is not None}
    said = "merge into" if merged else "keep"
    suffix = " (merged)" if merged else ""
    for pair in plan.group.pairs:
        c = pair.candidate
        archived = [entry_of[k] for k in (c.a.key, c.b.key) if k in entry_of]
        if not archived:
            continue  # (two rules: not written)
        if kept.key in (c.a.key, c.b.key):
            winner = "a" if c.a.key == kept.key else "b"
            verdict = Verdict(Relation.SUPERSEDES, 1.0,
                              f"decided for group {plan.group.id}: {said} {kept.label}", USER,
                              winner=winner)
        else:
            verdict = Verdict(Relation.DUPLICATE, 1.0,
                              f"decided for group {plan.group.id}: {said} {kept.label}; both "
                              "archived", USER)
        # "archived …": the decision lasts while the archived side stays out (Ledger.lookup)
        plan.decisions.append(new_entry(c, verdict, f"archived {archived[0].id}{suffix}"))
    plan.proposal.op_id = op_id
    plan.proposal.state_files = [
        *(f for a in plan.archived if a.entry is not None
          for f in entry_state_files(a.entry, a.data)),
        *(decision_file(d) for d in plan.decisions),
    ]


def _dangling(archived: list[Archived]) -> list[str]:
    """The preview's warnings for archived members a ``[[wikilink]]`` still names."""
    found = (dangling_note(a.store, a.memory) for a in archived)
    return [note for note in found if note is not None]


def _delete_proposal(group: Group, archived: list[Archived]) -> Proposal:
    return plan_delete_memories(_stores([a.store for a in archived]),
                                [a.memory for a in archived])


def plan_group_keep(result: ScanResult, group: Group, keep: JudgeItem | None = None
                    ) -> GroupPlan:
    """Plan keeping ``keep`` (default: :func:`default_keep`) and archiving every other member,
    as one operation. Refused when another member is a CLAUDE.md rule."""
    kept = keep or default_keep(group)
    if group.member(kept.key) is None:
        raise EditRefused(f"{kept.rel_path} is not a member of group {group.id}", Path(kept.file))
    archived = [_archived(result, m) for m in group.members if m.key != kept.key]
    proposal = _delete_proposal(group, archived)
    proposal.kind = "archive-memories"
    names = ", ".join(a.memory.rel_path for a in archived)
    proposal.title = f"keep {kept.rel_path}, archive {names} (group {group.id})"
    proposal.notes[:0] = [*_dangling(archived), f"keeps {kept.label}"]
    proposal.notes.append(f"settles the {len(group.pairs)} pairs of group {group.id}")
    proposal.notes.append("the archived files stay in memtui's archive (memtui judge restore)")
    plan = GroupPlan(group, "keep", proposal, archived=archived, kept=kept)
    _archive_records(plan, new_op_id(), merged=False)
    return plan


def merge_many(kept: bytes, others: list[bytes]) -> bytes:
    """The N-way merge: :func:`~memtui.core.judge.merge.propose_merge` folded over
    ``others`` (the kept memory's frontmatter and body, then what each other one adds)."""
    merged = kept
    for other in others:
        merged = propose_merge(merged, other)
    return merged


def merge_in_time(kept: JudgeItem, kept_data: bytes,
                  others: list[tuple[JudgeItem, bytes]]) -> bytes:
    """The group's merge, where the sides disagree keeping the newest member's line.

    ``others`` come newest first (:func:`merge_sources`). When the kept memory is the newest,
    this is :func:`merge_many` (each other one's new lines appended, newest first). Otherwise
    the others are folded oldest first, each against what is merged so far, whose date is the
    newest member folded into it: a line a newer member states with another value replaces the
    older line in place, and a line an older member states so is dropped."""
    if all(newer(kept, item) != "b" for item, _data in others):
        return merge_many(kept_data, [data for _item, data in others])
    merged, latest = kept_data, kept
    for item, data in reversed(others):
        other_is_newer = newer(item, latest) == "a"
        merged = propose_merge(merged, data, kept_is_newer=not other_is_newer)
        if other_is_newer:
            latest = item
    return merged


GROUP_CLASH_NOTES = 12  # the preview says how many more there are


def group_clash_notes(members: list[tuple[JudgeItem, bytes]], merged: bytes) -> list[str]:
    """What the merged text did with every two members' disagreeing lines (which older line it
    dropped for which newer one, with the dates; which it keeps both of), each said once."""
    bodies = [(item, MemoryDocument.from_bytes(data).body) for item, data in members]
    notes: list[str] = []
    for i, (a, body_a) in enumerate(bodies):
        for b, body_b in bodies[i + 1:]:
            if newer(a, b) == "b":
                found = clash_notes(b, a, body_b, body_a, merged)
            else:
                found = clash_notes(a, b, body_a, body_b, merged)
            notes += [n for n in found if n not in notes]
    if len(notes) > GROUP_CLASH_NOTES:
        more = len(notes) - GROUP_CLASH_NOTES
        notes = [*notes[:GROUP_CLASH_NOTES], f"… and {more} more lines the members disagree on"]
    return notes


def _newest_first(items: list[JudgeItem]) -> list[JudgeItem]:
    ordered: list[JudgeItem] = []
    for item in items:
        at = next((n for n, o in enumerate(ordered) if newer(item, o) == "a"), len(ordered))
        ordered.insert(at, item)
    return ordered


def merge_sources(result: ScanResult, group: Group, kept: JudgeItem
                  ) -> tuple[bytes, list[tuple[JudgeItem, bytes]]]:
    """The kept memory's bytes and every other memory member's (newest first)."""
    if kept.kind == CLAUDE_MD:
        raise EditRefused(f"{kept.rel_path} is a CLAUDE.md rule: memtui does not edit "
                          "CLAUDE.md files, so a merge writes into a memory", Path(kept.file))
    found: dict[str, bytes] = {}
    for item in memories_of(group):
        _store, memory = find_memory(result, item)
        data, _st = read_regular(memory.path)
        if data is None:
            raise EditRefused(f"{item.rel_path} does not exist any more", memory.path)
        found[item.key] = data
    others = _newest_first([m for m in memories_of(group) if m.key != kept.key])
    return found[kept.key], [(o, found[o.key]) for o in others]


def propose_group_merge(result: ScanResult, group: Group, kept: JudgeItem | None = None
                        ) -> tuple[JudgeItem, bytes, bytes]:
    """The member a merge writes into (default: the newest memory), its bytes now, and the
    merged memory memtui proposes (:func:`merge_many`), for the user to edit."""
    kept = kept or default_kept_memory(group)
    data, others = merge_sources(result, group, kept)
    return kept, data, merge_in_time(kept, data, others)


def plan_group_merge(result: ScanResult, group: Group, kept: JudgeItem | None = None,
                     merged: bytes | None = None) -> GroupPlan:
    """Plan writing ``merged`` (default: :func:`propose_group_merge`'s proposal) into ``kept``
    (default: the newest memory) and archiving every other memory member, as one operation
    across their stores. CLAUDE.md rules are left as they are; refused when fewer than two
    members are memories, or the merged text is empty."""
    kept = kept or default_kept_memory(group)
    if group.member(kept.key) is None:
        raise EditRefused(f"{kept.rel_path} is not a member of group {group.id}", Path(kept.file))
    kept_data, others = merge_sources(result, group, kept)
    if not others:
        raise EditRefused("a merge needs two memories: the others are CLAUDE.md rules",
                          Path(kept.file))
    if merged is None:
        merged = merge_in_time(kept, kept_data, others)
    if not merged.strip():
        raise EditRefused("the merged memory is empty: nothing would be kept", Path(kept.file))
    archived = [_archived(result, o) for o, _d in others]
    kept_store, kept_memory = find_memory(result, kept)
    stores = _stores([kept_store, *(a.store for a in archived)])
    proposal = span_stores(_delete_proposal(group, archived), stores)
    proposal.kind = "merge-memories"
    top = root_store(stores)
    where = f" of {top.title}" if top is not None else ""
    proposal.title = (f"merge {', '.join(a.memory.rel_path for a in archived)} into "
                      f"{kept_memory.rel_path}{where} (group {group.id})")
    proposal.changes.insert(
        0, FileChange(kept_memory.path, "write", merged, sha256_hex(kept_data)))
    rules = [m for m in group.members if m.kind == CLAUDE_MD]
    skipped = [f"{r.label} is a CLAUDE.md rule: left as it is (memtui does not edit CLAUDE.md); "
               "judged again against the merged memory" for r in rules]
    proposal.notes = [
        *_dangling(archived),
        f"writes the merged memory to {kept_memory.rel_path} (kept: {kept.label})",
        *group_clash_notes([(kept, kept_data), *others], merged),
        *proposal.notes, *skipped,
        f"settles the pairs of group {group.id} between its memories",
        "the archived files stay in memtui's archive (memtui judge restore)",
    ]
    plan = GroupPlan(group, "merge", proposal, archived=archived, kept=kept,
                     after={kept.key: item_after(kept, merged)}, skipped=skipped)
    _archive_records(plan, new_op_id(), merged=True)
    return plan


def propose_group_notes(group: Group) -> dict[str, str]:
    """A proposed "applies when" note for each memory member (by key), for the user to edit:
    what :func:`~memtui.core.judge.scoped.propose_notes` proposes for it in its best pair."""
    notes: dict[str, str] = {}
    for pair in group.pairs:
        c = pair.candidate
        proposed = propose_notes(c, pair.verdict or pair.previous)
        for tag, item in (("a", c.a), ("b", c.b)):
            if item.key not in notes and tag in proposed:
                notes[item.key] = proposed[tag]
    return notes


def plan_group_scoped(result: ScanResult, group: Group, notes: dict[str, str]) -> GroupPlan:
    """Plan writing ``notes[key]`` as the "applies when" note of each memory member, as one
    operation across their stores; every pair of the group is decided scoped for the new
    contents. CLAUDE.md rules get no note. Refused when a note is empty or a member is in a
    snapshot."""
    changes: list[FileChange] = []
    stores: list[Store] = []
    after: dict[str, JudgeItem] = {}
    written: dict[str, str] = {}
    lines: list[str] = []
    skipped = [f"{m.label} is a CLAUDE.md rule: memtui does not edit CLAUDE.md files, so only "
               "the memories get a note" for m in group.members if m.kind == CLAUDE_MD]
    for item in memories_of(group):
        store, memory = find_memory(result, item)
        if store.kind == StoreKind.SNAPSHOT:
            raise EditRefused(f"{item.rel_path} is in a snapshot: snapshots ship with the "
                              "project and memtui does not edit them", memory.path)
        try:
            note = clean_note(notes.get(item.key, ""))
        except ValueError:
            raise EditRefused(f"the note for {item.rel_path} is empty: say when it applies",
                              memory.path) from None
        old, _st = read_regular(memory.path)
        if old is None:
            raise EditRefused(f"{item.rel_path} does not exist any more", memory.path)
        new = with_note(old, note)
        changes.append(FileChange(memory.path, "write", new, sha256_hex(old)))
        stores.append(store)
        after[item.key] = item_after(item, new)
        written[item.key] = note
        lines.append(f"{memory.rel_path}: {note_line(note)}")
    if not changes:
        raise EditRefused("every member is a CLAUDE.md rule: memtui does not edit CLAUDE.md "
                          "files", Path(group.members[0].file))
    used = _stores(stores)
    top = root_store(used)
    where = f" of {top.title}" if top is not None else ""
    proposal = span_stores(Proposal(
        kind="scope-memories",
        title=f"scope {len(changes)} memories{where} (group {group.id})",
        root=used[0].path,
        lock_dir=None,
        changes=changes,
        notes=[*lines, *skipped, f"settles the {len(group.pairs)} pairs of group {group.id}"],
        shown=masked_text,
    ), used)
    plan = GroupPlan(group, "scoped", proposal, after=after, notes=written, skipped=skipped)
    for pair in group.pairs:
        c = pair.candidate
        new_pair = Candidate(after.get(c.a.key, c.a), after.get(c.b.key, c.b), c.score,
                             c.reasons)
        said = "; ".join(f"{side.rel_path} applies when {written[side.key]}"
                         for side in (c.a, c.b) if side.key in written)
        verdict = Verdict(Relation.SCOPED, 1.0,
                          f"decided for group {group.id}: scoped ({said})", USER)
        plan.decisions.append(new_entry(new_pair, verdict, "scoped"))
    proposal.state_files = [decision_file(d) for d in plan.decisions]
    return plan


def dismissal_path(ledger: Ledger, name: str) -> Path:
    return ledger.path.parent / DISMISSED_DIR / name


def plan_group_dismiss(group: Group, decision: str, ledger: Ledger) -> GroupPlan:
    """Plan deciding every pair of the group ``decision`` (not_conflict, related or
    compatible): no memory changes; the operation writes the decision's record beside the
    ledger (what an undo removes, and the decisions with it)."""
    relation = RECORD_ONLY.get(decision)
    if relation is None:
        raise ValueError(decision)
    op_id = new_op_id()
    name = f"{op_id}.json"
    path = dismissal_path(ledger, name)
    record = {
        "group": group.id,
        "decision": decision,
        "time": time.time(),
        "members": [m.key for m in group.members],
        "pairs": [p.candidate.id for p in group.pairs],
    }
    data = json.dumps(record, ensure_ascii=True, indent=1).encode("ascii") + b"\n"
    said = decision.replace("_", " ")
    proposal = Proposal(
        kind="decide-group",
        title=f"mark group {group.id} {said} ({len(group.members)} memories, "
              f"{len(group.pairs)} pairs)",
        root=path.parent,
        lock_dir=None,
        changes=[FileChange(path, "write", data, None)],
        notes=[f"changes no memory: records {said} for the {len(group.pairs)} pairs of group "
               f"{group.id} (not raised again until one side changes; u undoes it)",
               *(f"member {m.label}" for m in group.members)],
        op_id=op_id,
    )
    plan = GroupPlan(group, decision, proposal)
    for pair in group.pairs:
        verdict = Verdict(relation, 1.0, f"decided for group {group.id}: {said}", USER)
        plan.decisions.append(new_entry(pair.candidate, verdict, f"dismissed {name}"))
    proposal.state_files = [decision_file(d) for d in plan.decisions]
    return plan


def finish_group(plan: GroupPlan, done: AppliedOp, archive: Archive, ledger: Ledger
                 ) -> list[ArchiveEntry]:
    """After the operation was applied: the archive entries (written here too for an archive
    elsewhere than the journal's state dir) and the decisions taken into ``ledger`` and
    saved; the archive entries."""
    for gone in plan.archived:
        if gone.entry is None:
            continue
        if gone.entry.op_id != done.op_id:
            gone.entry.op_id = done.op_id
        if not archive.holds(gone.entry, gone.data):
            archive.add(gone.entry, gone.data)
    for decision in plan.decisions:
        ledger.adopt(decision)
    ledger.save()
    return plan.entries


def settle_pairs(plan: GroupPlan, pairs: list[JudgedPair]) -> list[JudgedPair]:
    """``pairs`` (a run's) as they are once ``plan`` was applied: the pairs of an archived
    member leave, the group's pairs are decided (showing a rewritten member's new contents;
    its other pairs are read again with the changed files)."""
    gone = set(plan.gone)
    decided = {d.pair: d for d in plan.decisions}
    out: list[JudgedPair] = []
    for pair in pairs:
        c = pair.candidate
        if c.a.key in gone or c.b.key in gone:
            continue
        entry = decided.get(c.id)
        if entry is not None:
            pair.candidate = replace(c, a=plan.after.get(c.a.key, c.a),
                                     b=plan.after.get(c.b.key, c.b))
            pair.previous = pair.verdict or pair.previous
            pair.verdict = entry.verdict()
            pair.state = "decided"
        out.append(pair)
    return out
