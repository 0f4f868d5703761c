"""The judge's model: what a memory is to the judge, a candidate pair, a verdict
(docs/claude-code-rules.md#relations-between-memories).

A pair is unordered for finding and ordered for showing: ``a`` is the side whose key sorts
first, so the same two memories always make the same pair and the same pair id."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum


class Relation(StrEnum):
    """The verdicts a judge may give (Engram's six relations, plus exact duplicates)."""

    DUPLICATE = "duplicate"
    CONFLICTS_WITH = "conflicts_with"
    SUPERSEDES = "supersedes"
    SCOPED = "scoped"
    RELATED = "related"
    COMPATIBLE = "compatible"
    NOT_CONFLICT = "not_conflict"


LOCAL_RULES = 5  # 5: a near pair where only one side gives a value is compatible
"""The local judge's rules (:mod:`memtui.core.judge.engine` and what it reads): a verdict it
gave under other rules is judged again, shown meanwhile as stale with that verdict (the
ledger keeps the rules of each local verdict). Change it with them: a test pins the sources."""

DIRECTED: frozenset[Relation] = frozenset({Relation.SUPERSEDES})
"""Relations that need a direction (which side replaces the other)."""

NEEDS_ACTION: frozenset[Relation] = frozenset(
    {Relation.DUPLICATE, Relation.CONFLICTS_WITH, Relation.SUPERSEDES}
)
"""Relations a user should look at: the agent sees both sides and they disagree or repeat."""


@dataclass(frozen=True)
class JudgeItem:
    """One thing that can conflict: a memory file, or one paragraph of a CLAUDE.md file.

    ``key`` is stable across runs: a memory's absolute path, or for a CLAUDE.md paragraph the
    file's path and ``#`` and the start of its digest (so editing above it does not change it).
    ``digest`` is the sha256 of the normalized content (:func:`memtui.core.judge.items.normalize`).
    """

    key: str
    kind: str
    """A store kind (``auto``, ``team``, ``agent``…) or ``claude-md``."""
    file: str
    rel_path: str
    name: str
    description: str
    body: str
    mtime: float
    digest: str
    scope: str | None = None
    agent: str | None = None
    type: str | None = None
    modified: str | None = None
    """The frontmatter's ``modified`` (or ``updated``) value, as written."""
    line: int | None = None
    """For a CLAUDE.md paragraph: its first line (1-based)."""
    store_path: str = ""

    @property
    def label(self) -> str:
        """``auto · feedback_testing.md``, ``agent:reviewer (user) · notes.md``."""
        where = self.kind
        if self.agent:
            where += f":{self.agent}"
        if self.scope:
            where += f" ({self.scope})"
        line = f":{self.line}" if self.line else ""
        return f"{where} · {self.rel_path}{line}"

    @property
    def text(self) -> str:
        """Name, description and body as one text (what the judge compares); a CLAUDE.md
        paragraph is its text alone (its name only says where it is)."""
        if self.kind == "claude-md":
            return self.body
        return "\n".join(part for part in (self.name, self.description, self.body) if part)


def pair_id(key_a: str, key_b: str) -> str:
    """A short, stable id for an unordered pair (what ``memtui judge resolve`` takes)."""
    low, high = sorted((key_a, key_b))
    return hashlib.sha256(f"{low}\0{high}".encode("utf-8", "surrogatepass")).hexdigest()[:10]


@dataclass(frozen=True)
class Candidate:
    """Two items worth judging and why they were paired (``reasons``: ``same content``,
    ``same name``, ``similar text 0.62``…); ``score`` in [0, 1] orders candidates."""

    a: JudgeItem
    b: JudgeItem
    score: float
    reasons: tuple[str, ...]
    id: str = field(init=False, repr=False, compare=False)
    """:func:`pair_id` of the sides' keys, made once (a large run asks for it tens of
    thousands of times; ``functools.cached_property`` takes a lock on each first use)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", pair_id(self.a.key, self.b.key))


@dataclass(frozen=True)
class Verdict:
    """A judge's (or the user's) answer for one pair.

    ``winner`` is ``"a"`` or ``"b"`` for :data:`DIRECTED` relations (the side that supersedes)
    and for conflicts where the judge proposes which side to keep; ``None`` otherwise.
    ``evidence`` holds the phrases of each side that differ (or repeat), as short quotes."""

    relation: Relation
    confidence: float
    reason: str
    judge: str
    """``local``, ``user`` or a model id."""
    winner: str | None = None
    evidence: tuple[str, ...] = ()
    fallback: str | None = None
    """Why a model's verdict was replaced by the local judge's (timeout, 529, bad reply)."""


@dataclass
class JudgedPair:
    """A candidate with its verdict and what the ledger knew of it."""

    candidate: Candidate
    verdict: Verdict | None
    state: str = "new"
    """``new`` (never judged), ``judged`` (a verdict for these exact contents), ``stale``
    (judged, but one side has changed since), ``decided`` (the user decided)."""
    previous: Verdict | None = None
    notes: list[str] = field(default_factory=list)
