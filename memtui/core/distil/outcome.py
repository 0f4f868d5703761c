"""An outcome's notes and proposal: what cannot fit, what the team push would refuse, and the
one operation (index, topic files, every file read re-checked) the write path applies."""

from __future__ import annotations

from dataclasses import dataclass, field

from memtui.core.distil.model import DistilOutcome, DistilPlan
from memtui.core.model import StoreKind
from memtui.core.secrets.redact import masked_text
from memtui.core.write.proposal import DirListing, FileChange, FileRead, Proposal


@dataclass
class Sources:
    """What the plan read, for the proposal's revision checks."""

    index_sha: str | None
    """The sha256 of the MEMORY.md the plan read (None: there was none)."""
    reads: list[FileRead] = field(default_factory=list)
    listings: list[DirListing] = field(default_factory=list)
    """Directories the plan listed to find the files it read (agentmemory's)."""
    expected: dict[str, str] = field(default_factory=dict)
    """Existing topic files distil appends to: path in the store → sha256 read."""


def _percent(share: float) -> str:
    return f"{round(share * 100)} %"


def cannot_fit_note(plan: DistilPlan, outcome: DistilOutcome) -> str | None:
    after = outcome.after
    if after.fits:
        return None
    limit = "200 lines" if after.limit == "lines" else "25,000 UTF-16 units"
    note = (
        f"cannot fit: the new index is {after.lines:,} lines and {after.units:,} units, "
        f"{_percent(after.share)} of the {limit} limit (target: at most "
        f"{_percent(plan.headroom)})"
    )
    if outcome.disabled:
        note += " with the disabled changes left out"
    if after.dropped:
        note += f"; Claude Code would still cut {after.dropped} entries (listed as cut)"
    return note


def team_refusals(plan: DistilPlan, written: dict[str, str]) -> list[str]:
    """``path: reason`` for each written file Claude Code's team push would refuse or skip."""
    if plan.store_kind != StoreKind.TEAM:
        return []
    from memtui.core.team.push import fate_of_bytes

    found: list[str] = []
    for key, text in written.items():
        fate = fate_of_bytes(plan.store_path, key, text.encode("utf-8"))
        if fate.fate != "push":
            found.append(f"{key}: {fate.fate}: {fate.reason}")
    return found


def finish_outcome(plan: DistilPlan, outcome: DistilOutcome) -> None:
    """Fill in the outcome's notes, team refusals and proposal."""
    note = cannot_fit_note(plan, outcome)
    if note is not None:
        outcome.notes.append(note)
    written: dict[str, str] = {}
    if outcome.index_text != plan.old_text:
        written[plan.index_path.name] = outcome.index_text
    written.update(outcome.files)
    outcome.team_refused = team_refusals(plan, written)
    outcome.notes += [f"team push would refuse {item}" for item in outcome.team_refused]
    if plan.refusals or not written:
        return
    outcome.proposal = build_proposal(plan, outcome, written)


def build_proposal(plan: DistilPlan, outcome: DistilOutcome, written: dict[str, str]) -> Proposal:
    sources = plan.sources
    assert isinstance(sources, Sources)
    changes: list[FileChange] = []
    for key, text in written.items():
        path = plan.store_path / key
        expected = sources.index_sha if path == plan.index_path else sources.expected.get(key)
        changes.append(FileChange(path, "write", text.encode("utf-8"), expected))
    enabled = [c for c in plan.changes if c.id not in outcome.disabled]
    from memtui.core.distil.model import meter_text

    notes = [meter_text(plan.before, outcome.after)]
    notes += [change.summary for change in enabled]
    notes += outcome.notes
    return Proposal(
        kind="distil",
        title=f"distil the MEMORY.md of {plan.store_title}",
        root=plan.store_path,
        lock_dir=plan.lock_dir,
        changes=changes,
        notes=notes,
        reads=list(sources.reads),
        listings=list(sources.listings),
        shown=masked_text,
    )
