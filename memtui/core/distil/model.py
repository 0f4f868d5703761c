"""Distil's model: the plan of one store, its changes, the outcome of a choice of changes.

Distil rebuilds a Claude Code ``MEMORY.md`` (auto, team, agent memory) so it fits Claude Code's
load budget with headroom, losing nothing (docs/claude-code-rules.md#distil). Everything here is
plain data; the work is done by :func:`memtui.core.distil.plan.plan_distil` (reading the store)
and :meth:`DistilPlan.outcome` (rendering a choice).

API for the TUI (and the CLI)
-----------------------------

1. In a job (it reads every memory's header; blocking)::

       from memtui.core.distil.plan import plan_distil
       plan = plan_distil(store, headroom=config.distil.headroom,
                          progress=lambda what, done, total: ..., cancelled=control.is_cancelled)

   ``store`` is a :class:`~memtui.core.contents.Store` of a scan (auto, team or agent memory,
   or an agentmemory home: pass ``now=`` the current time, the plan is then an
   :class:`~memtui.core.distil.agentmemory_plan.AgentmemoryPlan` whose changes are the
   generated sections of its index). Cancelled: :class:`DistilCancelled` is raised.
   Deterministic: the same tree (and ``now``) gives the same plan, byte for byte.
2. Show ``plan.refusals`` (nothing may be applied while there is one: a live
   ``.consolidate-lock``, an index that is not UTF-8, ...), ``plan.notes``, ``plan.before`` (the
   meter of the current index) and ``plan.changes`` (each with a stable ``id``, a ``kind``, a
   ``summary`` to show, the old index ``lines`` it concerns, ``moved_to`` and a ``group`` to
   toggle several at once).
3. Whenever the user toggles changes, call ``plan.outcome(disabled_ids)`` (cheap: no I/O but
   the team push check of a team store) and show ``outcome.index_text`` (or its diff against
   ``plan.old_text``), ``outcome.files``, ``meter_text(plan.before, outcome.after)``,
   ``outcome.notes`` (cannot fit, what would be cut, team push refusals) and
   ``outcome.cut``.
4. To apply: ``outcome.proposal`` (None when nothing would change) goes through the usual
   preview (``Proposal.diff``) and ``memtui.core.write.apply.apply``: journaled, ``u`` undoes.
   The proposal carries the sha256 of the index and of every memory header the plan read
   (``Proposal.reads``), so a file changed since the plan refuses the whole operation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.model import StoreKind

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Literal, TypeAlias

    from memtui.core.write.proposal import Proposal

    ChangeKind: TypeAlias = Literal[
        "regroup",  # an entry moves under the heading of its memory's type
        "drop-dangling",  # an entry whose file is gone is dropped (listed, journaled)
        "add-orphan",  # a memory no entry points to gets one
        "shorten-hook",  # an entry over 150 characters is shortened (full text in its file)
        "move-section",  # a section moves to a topic file; one entry points to it
        "move-entries",  # the oldest entries of a type group move to a topic file
        "generate-section",  # agentmemory: a section distil generates is added or rebuilt
        "remove-section",  # agentmemory: a section distil no longer generates goes
    ]
    Limit: TypeAlias = Literal["lines", "units"]


class DistilCancelled(Exception):
    """The plan was cancelled (its ``cancelled`` check said so); nothing was planned."""


@dataclass(frozen=True)
class Meter:
    """How one MEMORY.md text measures against Claude Code's load limits (200 lines, 25,000
    UTF-16 units), computed with :func:`memtui.core.parse.load_report.load_report` (main-session
    rules for auto and team memory, the raw file for agent memory)."""

    lines: int
    units: int
    bytes: int
    dropped: int
    """Entries past the cut: Claude Code never sees them."""
    truncated: str
    """``LoadReport.binds``: which limit Claude Code cuts at (``none``, ``lines``, ``bytes``,
    ``both``)."""
    limit: Limit
    """Which limit binds: the one this text uses the larger share of."""
    share: float
    """The larger of lines / 200 and units / 25,000."""
    target: float
    """The headroom target: at most this share (the config's ``distil.headroom``)."""
    cut_line: int | None = None
    """The last (1-based) line Claude Code loads, when it cuts."""
    loaded: bool = True
    """False: Claude Code does not load this file (an agentmemory home's MEMORY.md); it is
    measured with the raw rules for comparison only, and nothing is past a cut."""

    @property
    def headroom(self) -> float:
        """``1 - share``: what is left of the binding limit (negative: over it)."""
        return 1.0 - self.share

    @property
    def fits(self) -> bool:
        """Nothing is cut and the binding limit is used at most up to the target."""
        return self.dropped == 0 and self.share <= self.target + 1e-9


@dataclass(frozen=True)
class DistilChange:
    """One proposed change of the index, which the user may disable."""

    id: str
    """Stable for the same tree: ``<kind>:<line>`` for a change of an old line,
    ``add-orphan:<path>`` for an added entry, ``move-entries:<type>``."""
    kind: ChangeKind
    summary: str
    """One line a user reads (text from disk in it is not escaped: escape when showing)."""
    lines: tuple[int, ...] = ()
    """The 1-based lines of the current MEMORY.md it concerns (none for an added entry)."""
    moved_to: str | None = None
    """Where the lines go: a heading of the new index (``## Feedback``) or a topic file
    (``section-testing.md``); None when they are dropped or changed in place."""
    group: str = ""
    """Changes shown and toggled together: ``regroup``, ``dangling``, ``orphans``, ``hooks``,
    ``move-out``."""
    target: str | None = None
    """The memory file (path in the store) the change is about, if any."""


@dataclass
class DistilOutcome:
    """What applying the enabled changes gives."""

    index_text: str
    files: dict[str, str]
    """New or changed topic files: path in the store → their whole new text."""
    after: Meter
    disabled: frozenset[str]
    notes: list[str] = field(default_factory=list)
    """Cannot fit (and why), team push refusals, ..."""
    cut: list[str] = field(default_factory=list)
    """The entries (``line: title``) Claude Code would still cut from the new index."""
    team_refused: list[str] = field(default_factory=list)
    """Files (path in the store) Claude Code's team push would refuse, with the reason."""
    proposal: Proposal | None = None
    """The operation to preview and apply; None when nothing would change or the plan is
    refused."""

    @property
    def changed(self) -> bool:
        return self.proposal is not None


@dataclass
class DistilPlan:
    """The plan of one store: its current index, the proposed changes, refusals and notes."""

    store_kind: StoreKind
    store_path: Path
    store_title: str
    index_path: Path
    agent: bool
    """Agent memory: measured raw (no frontmatter or comment stripping)."""
    old_text: str
    """The current MEMORY.md (``""`` when there is none)."""
    changes: list[DistilChange]
    before: Meter
    headroom: float
    """The target share of the binding limit (``distil.headroom``, default 0.7)."""
    notes: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    """Why nothing may be applied (a live ``.consolidate-lock`` held by a PID, ...)."""
    lock_dir: Path | None = None
    sources: object = field(default=None, repr=False, compare=False)
    """What the plan read, for the revision checks (:mod:`memtui.core.distil.outcome`)."""

    def change(self, change_id: str) -> DistilChange:
        for change in self.changes:
            if change.id == change_id:
                return change
        raise KeyError(change_id)

    def groups(self) -> dict[str, list[DistilChange]]:
        """The changes by ``group``, in plan order."""
        found: dict[str, list[DistilChange]] = {}
        for change in self.changes:
            found.setdefault(change.group, []).append(change)
        return found

    def outcome(self, disabled: Collection[str] = ()) -> DistilOutcome:
        """The new index, topic files, meter, notes and proposal with the changes of
        ``disabled`` (ids) left out: their old lines stay exactly as they were. Each kind of
        plan renders its own (:class:`memtui.core.distil.render.IndexPlan`, a CC store's;
        ``memtui.core.distil.agentmemory_plan.AgentmemoryPlan``): the model imports no
        renderer."""
        raise NotImplementedError(f"{type(self).__name__} has no renderer")


GROUP_TITLES: dict[str, str] = {
    "regroup": "moved under their type's heading",
    "dangling": "dropped pointers (their files are gone)",
    "orphans": "orphans added",
    "hooks": "hooks shortened",
    "move-out": "moved out to topic files",
    "added": "sections added",
    "changed": "sections rebuilt",
    "removed": "sections no longer generated",
}
"""What each ``DistilChange.group`` does, in words (the CLI's headings, the confirmation);
``added``, ``changed``, ``removed``: the sections of an agentmemory index."""


def short_notes(plan: DistilPlan, outcome: DistilOutcome) -> list[str]:
    """What a confirmation shows of ``outcome``: the meter, how many changes of each group it
    makes, how many are left out, then its own notes (cannot fit, team push refusals).
    ``Proposal.notes`` keeps every change's summary (the CLI's preview, the journal)."""
    counts: dict[str, int] = {}
    for change in plan.changes:
        if change.id not in outcome.disabled:
            counts[change.group] = counts.get(change.group, 0) + 1
    notes = [meter_text(plan.before, outcome.after)]
    notes += [f"{GROUP_TITLES.get(group, group)} ({n})" for group, n in counts.items()]
    left_out = sum(1 for change in plan.changes if change.id in outcome.disabled)
    if left_out:
        notes.append(f"{left_out} {'change' if left_out == 1 else 'changes'} left out: "
                     "their lines stay as they are")
    return notes + outcome.notes


def _grouped(n: int) -> str:
    return f"{n:,}"


def meter_text(before: Meter, after: Meter) -> str:
    """``215 → 148 lines, 16,202 → 11,030 units, 0 entries past the cut, 30 % headroom``;
    for a file Claude Code does not load (``loaded`` False): ``12 → 30 lines, 800 → 1,900
    units (not loaded by Claude Code)``."""
    sizes = (
        f"{_grouped(before.lines)} → {_grouped(after.lines)} lines, "
        f"{_grouped(before.units)} → {_grouped(after.units)} units"
    )
    if not after.loaded:
        return f"{sizes} (not loaded by Claude Code)"
    past = "entry" if after.dropped == 1 else "entries"
    return f"{sizes}, {after.dropped} {past} past the cut, {round(after.headroom * 100)} % headroom"
