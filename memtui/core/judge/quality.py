"""Measuring the judge against labels (issue 22, item 7): the four figures the issue names,
per half of a labelled home.

A label names two sides by where they are (:data:`Side`: the file, and for a CLAUDE.md
paragraph its text) and the relation a careful reader gives them; every pair no label names
is "no relation" (nothing to decide). For a run of the judge (its candidates and a verdict
for each), :func:`measure` counts:

* **candidate recall**: labelled pairs that come out as candidates at all;
* **listed**: of the labelled duplicate / conflicts_with / supersedes pairs, the share whose
  verdict needs a decision (:data:`~memtui.core.judge.verdicts.NEEDS_ACTION`: what
  ``memtui judge`` lists);
* **false alarms**: of the pairs listed (labelled or not), the share NOT labelled as needing a
  decision;
* **agreement**: of all labelled pairs, the share whose verdict's relation is the label's (a
  pair that is no candidate has no verdict: wrong); for supersessions also whether the judge
  names the newer side (``direction``).

Unlabelled pairs are assigned to a half by the caller's ``half_of`` (a stable hash), so each
half's false alarms are its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from memtui.core.judge.items import CLAUDE_MD
from memtui.core.judge.verdicts import NEEDS_ACTION, Candidate, JudgeItem, Verdict

Side = tuple[str, str | None]
"""A side on disk: ``(file, None)`` for a memory, ``(file, paragraph text)`` for CLAUDE.md."""


@dataclass(frozen=True)
class Truth:
    relation: str
    a: Side
    b: Side
    half: str
    newer: Side | None = None

    @property
    def key(self) -> frozenset[Side]:
        return frozenset((self.a, self.b))


def side_of(item: JudgeItem) -> Side:
    return (item.file, item.body if item.kind == CLAUDE_MD else None)


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass
class Figures:
    """The counts of one half and the ratios the issue asks for."""

    labelled: int = 0
    candidates: int = 0
    """Labelled pairs found as candidates."""
    need: int = 0
    """Labelled pairs that need a decision."""
    need_candidates: int = 0
    """Of those, found as candidates."""
    need_listed: int = 0
    listed: int = 0
    """Pairs (labelled or not) whose verdict needs a decision."""
    listed_wrong: int = 0
    """Of those, pairs not labelled as needing one."""
    agree: int = 0
    directed: int = 0
    directed_right: int = 0
    per_relation: dict[str, list[int]] = field(default_factory=dict)
    """relation → [labelled, candidates, relation right]."""
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    """label → verdict (``missed`` for no candidate) → count."""

    @property
    def candidate_recall(self) -> float | None:
        return _ratio(self.candidates, self.labelled)

    @property
    def need_recall(self) -> float | None:
        """Candidate recall of the pairs that need a decision."""
        return _ratio(self.need_candidates, self.need)

    @property
    def listed_share(self) -> float | None:
        return _ratio(self.need_listed, self.need)

    @property
    def false_alarms(self) -> float | None:
        return _ratio(self.listed_wrong, self.listed)

    @property
    def agreement(self) -> float | None:
        return _ratio(self.agree, self.labelled)

    @property
    def direction(self) -> float | None:
        return _ratio(self.directed_right, self.directed)

    def summary(self) -> dict[str, object]:
        return {
            "labelled": self.labelled,
            "candidate_recall": self.candidate_recall,
            "candidate_recall_needing_decision": self.need_recall,
            "listed_of_needing_decision": self.listed_share,
            "listed": self.listed,
            "false_alarm_share": self.false_alarms,
            "relation_agreement": self.agreement,
            "supersedes_direction": self.direction,
            "per_relation": {
                r: {"labelled": n, "candidates": c, "right": ok}
                for r, (n, c, ok) in sorted(self.per_relation.items())
            },
            "confusion": {label: dict(sorted(row.items()))
                          for label, row in sorted(self.confusion.items())},
        }


def measure(
    candidates: Sequence[Candidate],
    verdicts: Mapping[str, Verdict],
    truths: Iterable[Truth],
    half_of: Callable[[Side, Side], str],
) -> dict[str, Figures]:
    """The figures per half (and ``both``) of a run: ``verdicts`` by candidate id."""
    by_key = {truth.key: truth for truth in truths}
    halves: dict[str, Figures] = {"both": Figures()}
    for truth in by_key.values():
        halves.setdefault(truth.half, Figures())

    def targets(half: str) -> tuple[Figures, Figures]:
        return halves.setdefault(half, Figures()), halves["both"]

    found: dict[frozenset[Side], tuple[Candidate, Verdict | None]] = {}
    for pair in candidates:
        a, b = side_of(pair.a), side_of(pair.b)
        given = verdicts.get(pair.id)
        found[frozenset((a, b))] = (pair, given)
        if given is None or given.relation not in NEEDS_ACTION:
            continue
        labelled = by_key.get(frozenset((a, b)))
        wrong = labelled is None or labelled.relation not in NEEDS_ACTION
        for f in targets(labelled.half if labelled is not None else half_of(a, b)):
            f.listed += 1
            f.listed_wrong += wrong

    for key, truth in by_key.items():
        hit = found.get(key)
        candidate: Candidate | None = hit[0] if hit is not None else None
        verdict = hit[1] if hit is not None else None
        said = verdict.relation.value if verdict is not None else "missed"
        needs = truth.relation in NEEDS_ACTION
        listed = verdict is not None and verdict.relation in NEEDS_ACTION
        direction: bool | None = None
        if truth.relation == "supersedes" and truth.newer is not None:
            winner = None
            if candidate is not None and verdict is not None and verdict.winner in ("a", "b"):
                winner = side_of(candidate.a if verdict.winner == "a" else candidate.b)
            direction = winner == truth.newer
        for f in targets(truth.half):
            f.labelled += 1
            f.candidates += candidate is not None
            f.need += needs
            f.need_candidates += needs and candidate is not None
            f.need_listed += needs and listed
            f.agree += said == truth.relation
            if direction is not None:
                f.directed += 1
                f.directed_right += direction
            row = f.per_relation.setdefault(truth.relation, [0, 0, 0])
            row[0] += 1
            row[1] += candidate is not None
            row[2] += said == truth.relation
            confusion = f.confusion.setdefault(truth.relation, {})
            confusion[said] = confusion.get(said, 0) + 1
    return halves
