"""Groups instead of pair explosions (issue 22, item 3): the pairs that need a decision and
share a memory are one group, one decision: near copies of one fact, a chain of
supersessions, a contradiction with its copies.

A group is a connected component of the graph whose nodes are items and whose edges are the
pairs needing a decision (a current or previous verdict in
:data:`~memtui.core.judge.verdicts.NEEDS_ACTION`, not decided). Its relation is the most
pressing of its pairs' (a contradiction before a supersession before a duplicate); its id is
stable for the same members (``g`` and 9 hex digits, never a pair id)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from memtui.core.judge.verdicts import NEEDS_ACTION, JudgedPair, JudgeItem, Relation

PRESSING: tuple[Relation, ...] = (Relation.CONFLICTS_WITH, Relation.SUPERSEDES,
                                  Relation.DUPLICATE)


@dataclass(frozen=True)
class Group:
    id: str
    relation: Relation
    members: tuple[JudgeItem, ...]
    """Sorted by key."""
    pairs: tuple[JudgedPair, ...]
    """Best first."""


def group_id(keys: Iterable[str]) -> str:
    joined = "\0".join(sorted(keys))
    return "g" + hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:9]


def _needs(pair: JudgedPair) -> Relation | None:
    verdict = pair.verdict or pair.previous
    if pair.state == "decided" or verdict is None or verdict.relation not in NEEDS_ACTION:
        return None
    return verdict.relation


def group_pairs(pairs: Iterable[JudgedPair]) -> list[Group]:
    """The groups of the pairs that need a decision, largest first (then by best score)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        root = key
        while parent[root] != root:
            root = parent[root]
        while parent[key] != root:  # path compression
            parent[key], key = root, parent[key]
        return root

    items: dict[str, JudgeItem] = {}
    needing: list[tuple[JudgedPair, Relation]] = []
    for pair in pairs:
        relation = _needs(pair)
        if relation is None:
            continue
        needing.append((pair, relation))
        for item in (pair.candidate.a, pair.candidate.b):
            items[item.key] = item
            parent.setdefault(item.key, item.key)
        a, b = find(pair.candidate.a.key), find(pair.candidate.b.key)
        if a != b:
            parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = {}
    for key in items:
        members.setdefault(find(key), []).append(key)
    grouped: dict[str, list[tuple[JudgedPair, Relation]]] = {}
    for pair, relation in needing:
        grouped.setdefault(find(pair.candidate.a.key), []).append((pair, relation))
    out: list[Group] = []
    for root, keys in members.items():
        found = sorted(grouped[root], key=lambda p: (-p[0].candidate.score, p[0].candidate.id))
        relations = {relation for _, relation in found}
        relation = next(r for r in PRESSING if r in relations)
        out.append(Group(group_id(keys), relation, tuple(items[k] for k in sorted(keys)),
                         tuple(p for p, _ in found)))
    out.sort(key=lambda g: (-len(g.members), -g.pairs[0].candidate.score, g.id))
    return out


def group_json(group: Group) -> dict[str, Any]:
    """A group as ``judge --json`` gives it: ``id``, ``relation``, ``members`` (item keys)
    and ``pairs`` (pair ids)."""
    return {
        "id": group.id,
        "relation": group.relation.value,
        "members": [item.key for item in group.members],
        "pairs": [pair.candidate.id for pair in group.pairs],
    }
