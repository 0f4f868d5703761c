"""Groups instead of pair explosions (issue 22, item 3): the pairs that need a decision about
ONE fact are one group, one decision: near copies of one fact, a chain of supersessions, a
contradiction with its copies.

A group is a set of items that are nearly all linked to each other: clusters are merged,
strongest pair first, only while each merge keeps the cluster dense (at least
:data:`LINK_SHARE` of the possible links between the two halves are pairs that need a
decision). A memory that shares a word with many others (a CLAUDE.md rule, a map of the repo)
so stays out of the groups of facts it merely touches: such a pair is a group of its own (two
members), and every pair needing a decision is in exactly one group (an item may be a member
of several). Connected components would chain unrelated subjects into one group of dozens.

A pair needs a decision when its current or previous verdict is in
:data:`~memtui.core.judge.verdicts.NEEDS_ACTION` and it is not decided. A group's relation is
the most pressing of its pairs' (a contradiction before a supersession before a duplicate);
its id is stable for the same members (``g`` and 9 hex digits, never a pair id)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from memtui.core.judge.verdicts import NEEDS_ACTION, JudgedPair, JudgeItem, Relation

PRESSING: tuple[Relation, ...] = (Relation.CONFLICTS_WITH, Relation.SUPERSEDES,
                                  Relation.DUPLICATE)
LINK_SHARE = 0.5
"""The share of the links between two clusters, pairs needing a decision, that merging them
needs (1.0: only cliques; small: connected components)."""
GROUP_ID = re.compile(r"^g[0-9a-f]{9}$")


@dataclass(frozen=True)
class Group:
    id: str
    relation: Relation
    members: tuple[JudgeItem, ...]
    """Sorted by key."""
    pairs: tuple[JudgedPair, ...]
    """Best first."""

    def member(self, key: str) -> JudgeItem | None:
        return next((m for m in self.members if m.key == key), None)


def group_id(keys: Iterable[str]) -> str:
    joined = "\0".join(sorted(keys))
    return "g" + hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:9]


def is_group_id(text: str) -> bool:
    """``text`` has the shape of a group id (``g`` and 9 hex digits)."""
    return GROUP_ID.match(text) is not None


def needs_decision(pair: JudgedPair) -> Relation | None:
    """The relation that makes ``pair`` need a decision, or None (decided, or no such
    verdict)."""
    verdict = pair.verdict or pair.previous
    if pair.state == "decided" or verdict is None or verdict.relation not in NEEDS_ACTION:
        return None
    return verdict.relation


def _order(pair: JudgedPair) -> tuple[float, str]:
    return -pair.candidate.score, pair.candidate.id


def group_pairs(pairs: Iterable[JudgedPair], link_share: float = LINK_SHARE) -> list[Group]:
    """The groups of the pairs that need a decision, largest first (then by best score)."""
    needing = sorted(((p, r) for p in pairs if (r := needs_decision(p)) is not None),
                     key=lambda pr: _order(pr[0]))
    items: dict[str, JudgeItem] = {}
    linked: dict[str, set[str]] = {}
    for pair, _relation in needing:
        side_a, side_b = pair.candidate.a, pair.candidate.b
        items[side_a.key], items[side_b.key] = side_a, side_b
        linked.setdefault(side_a.key, set()).add(side_b.key)
        linked.setdefault(side_b.key, set()).add(side_a.key)
    cluster: dict[str, int] = {key: n for n, key in enumerate(items)}
    members: dict[int, set[str]] = {n: {key} for key, n in cluster.items()}
    pending = [(pair.candidate.a.key, pair.candidate.b.key) for pair, _relation in needing]
    merged = True
    while merged:  # a merge may make a refused one dense enough: again until none merges
        merged = False
        refused: list[tuple[str, str]] = []
        for key_a, key_b in pending:
            left, right = cluster[key_a], cluster[key_b]
            if left == right:
                continue
            ours, theirs = members[left], members[right]
            small, large = (ours, theirs) if len(ours) <= len(theirs) else (theirs, ours)
            links = sum(len(linked[key] & large) for key in small)
            if links < link_share * len(ours) * len(theirs):
                refused.append((key_a, key_b))
                continue
            keep, gone = min(left, right), max(left, right)
            for key in members[gone]:
                cluster[key] = keep
            members[keep] |= members.pop(gone)
            merged = True
        pending = refused
    grouped: dict[tuple[str, ...], list[tuple[JudgedPair, Relation]]] = {}
    for pair, relation in needing:
        a, b = pair.candidate.a.key, pair.candidate.b.key
        left, right = cluster[a], cluster[b]
        keys = tuple(sorted(members[left])) if left == right else tuple(sorted((a, b)))
        grouped.setdefault(keys, []).append((pair, relation))
    out: list[Group] = []
    for keys, found in grouped.items():
        relations = {relation for _, relation in found}
        relation = next(r for r in PRESSING if r in relations)
        out.append(Group(group_id(keys), relation, tuple(items[k] for k in keys),
                         tuple(p for p, _ in found)))
    out.sort(key=lambda g: (-len(g.members), -g.pairs[0].candidate.score, g.id))
    return out


def group_json(group: Group) -> dict[str, Any]:
    """A group as ``judge --json`` gives it: ``id``, ``relation``, ``members`` (item keys)
    and ``pairs`` (pair ids); ``name``: its readable name."""
    from memtui.core.judge.group_names import group_name

    return {
        "id": group.id,
        "relation": group.relation.value,
        "name": group_name(group.members),
        "members": [item.key for item in group.members],
        "pairs": [pair.candidate.id for pair in group.pairs],
    }
