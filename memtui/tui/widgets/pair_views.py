"""What the conflicts screen shows of a pair and of a group, as plain text: its line in the
list, its verdict with the evidence (a group: its members and pairs), each side, the word diff
of the two; and which pairs a filter keeps."""

from __future__ import annotations

import difflib

from rich.text import Text

from memtui.core.age import age_text
from memtui.core.judge.group_names import group_name, pair_name
from memtui.core.judge.groups import Group
from memtui.core.judge.items import CLAUDE_MD
from memtui.core.judge.verdicts import NEEDS_ACTION, JudgedPair, JudgeItem, Relation
from memtui.core.secrets.redact import masked_text
from memtui.tui import clock
from memtui.tui.plain import body, line

DIFF_WORDS = 600
"""Words of each side the word diff compares."""

RELATION_STYLE = {
    Relation.DUPLICATE: "bold yellow",
    Relation.CONFLICTS_WITH: "bold red",
    Relation.SUPERSEDES: "bold magenta",
}

def wanted(pair: JudgedPair, name: str) -> bool:
    verdict = pair.verdict or pair.previous
    if name == "all":
        return True
    if name == "stale":
        return pair.state == "stale"
    if name == "judged":
        return pair.state in ("judged", "decided")
    return (
        pair.state != "decided" and verdict is not None and verdict.relation in NEEDS_ACTION
    )


def store_kinds(pairs: list[JudgedPair]) -> list[str]:
    """The store kinds the sides of ``pairs`` live in (``agent``, ``auto``, ``claude-md``…),
    sorted: what the store filter cycles through."""
    return sorted({item.kind for p in pairs for item in (p.candidate.a, p.candidate.b)})


def in_store(pair: JudgedPair, kind: str | None) -> bool:
    """A side of ``pair`` lives in a store of ``kind`` (None: every store)."""
    return kind is None or kind in (pair.candidate.a.kind, pair.candidate.b.kind)


def cut_text(text: str, limit: int | None) -> str:
    """``text``, or its first ``limit`` characters (to the last line's end within them, when
    that keeps at least half) and a line ``…``."""
    if limit is None or len(text) <= limit:
        return text
    end = text.rfind("\n", 0, limit)
    return text[: end if end >= limit // 2 else limit] + "\n…"


def side_text(item: JudgeItem, keep: bool, limit: int | None = None) -> Text:
    """One side: where it lives, its age and frontmatter, then its body (plain text; at most
    ``limit`` characters of it, :func:`cut_text`)."""
    out = Text()
    if keep:
        out.append("proposed to keep\n", style="bold green")
    where = item.kind + (f":{item.agent}" if item.agent else "")
    where += f" ({item.scope})" if item.scope else ""
    out.append(line(where), style="bold")
    out.append("\n")
    out.append(line(item.rel_path + (f" line {item.line}" if item.line else "")), style="dim")
    out.append("\n")
    if item.mtime:
        out.append(age_text(item.mtime, clock.now()), style="dim")
        out.append("\n")
    if item.modified:
        out.append(f"modified {line(item.modified)}\n", style="dim")
    if item.kind != CLAUDE_MD:
        out.append(f"name: {line(item.name)}\n")
    if item.description:
        out.append(f"description: {line(item.description)}\n")
    if item.type:
        out.append(f"type: {line(item.type)}\n")
    out.append("\n")
    out.append(body(cut_text(masked_text(item.body, path=item.rel_path), limit)))  # masked
    return out


def word_diff(a: str, b: str) -> Text:
    """A's words against B's: removed (only in A) struck red, added (only in B) green."""
    left, right = a.split()[:DIFF_WORDS], b.split()[:DIFF_WORDS]
    out = Text()
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(line(" ".join(left[i1:i2])) + " ", style="dim")
            continue
        if i2 > i1:
            out.append(line(" ".join(left[i1:i2])), style="red strike")
            out.append(" ")
        if j2 > j1:
            out.append(line(" ".join(right[j1:j2])), style="bold green")
            out.append(" ")
    return out


PENDING = "judging…"
"""A row whose pair the judge has not given its verdict yet (its decisions wait)."""
PENDING_STYLE = "italic yellow"


def verdict_text(pair: JudgedPair, pending: bool = False) -> Text:
    """The verdict pane: ``pending``, the pair is still being judged (decisions wait)."""
    verdict = pair.verdict or pair.previous
    out = Text()
    out.append(f"[{pair.candidate.id}] ", style="dim")
    if pending:
        out.append(f"{PENDING} ", style=f"bold {PENDING_STYLE}")
        out.append("the judge has not given its verdict on this pair yet; its decisions "
                   "wait for it" + (" (below: the verdict before one side changed)"
                                    if verdict is not None else ""), style=PENDING_STYLE)
        if verdict is None:
            return out
        out.append("\n")
    if verdict is None:
        out.append("not judged yet", style="dim")
        return out
    out.append(verdict.relation.value, style=RELATION_STYLE.get(verdict.relation, "bold"))
    out.append(f"  {verdict.confidence:.2f}  by {line(verdict.judge)}", style="bold")
    out.append(f"  ({pair.state}; {line(', '.join(pair.candidate.reasons))})", style="dim")
    out.append(f"\n{line(verdict.reason)}")
    for tag, quote in zip("AB", verdict.evidence, strict=False):
        out.append(f"\n{tag}: “{line(quote)}”", style="italic")
    if verdict.fallback:
        out.append(f"\njudged locally: {line(verdict.fallback)}", style="yellow")
    if pair.state == "stale":
        out.append("\none side changed since this verdict: it is judged again on the next run",
                   style="yellow")
    return out


def pair_label(pair: JudgedPair, pending: bool = False) -> Text:
    """Two lines: the verdict and the state, then the two file names (``pending``: the
    pair is still being judged, :data:`PENDING`)."""
    verdict = pair.verdict or pair.previous
    out = Text(no_wrap=True, overflow="ellipsis")
    if pending and verdict is None:
        out.append(PENDING, style=PENDING_STYLE)
    elif verdict is None:
        out.append("not judged", style="dim")
    else:
        out.append(verdict.relation.value, style=RELATION_STYLE.get(verdict.relation, ""))
        out.append(f" {verdict.confidence:.2f}")
    state = {"decided": ("  ✓ decided", "green"), "stale": ("  ~ stale", "yellow")}
    mark, style = state.get(pair.state, ("", ""))
    if pending and verdict is not None:
        mark, style = f"  ~ {pair.state}, {PENDING}", PENDING_STYLE
    out.append(mark, style=style)
    c = pair.candidate
    out.append("\n  " + line(pair_name(c.a, c.b, NAME_WIDTH)), style="dim")
    return out


NAME_WIDTH = 46
"""Characters of a row's names in the list (its widest width, less the indent)."""


def group_label(group: Group, expanded: bool) -> Text:
    """Two lines: ``▸ group duplicate · 4 memories · 6 pairs``, then its readable name."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append("▾ " if expanded else "▸ ", style="bold")
    out.append("group ", style="bold")
    out.append(group.relation.value, style=RELATION_STYLE.get(group.relation, ""))
    out.append(f" · {len(group.members)} memories · {len(group.pairs)} pairs", style="bold")
    out.append("\n  " + line(group_name(group.members, NAME_WIDTH)), style="dim")
    return out


def group_pair_label(pair: JudgedPair, numbers: dict[str, int]) -> Text:
    """A pair under its expanded group: its verdict and its members' numbers, then its
    names, indented."""
    verdict = pair.verdict or pair.previous
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append("   ")
    if verdict is None:
        out.append("not judged", style="dim")
    else:
        out.append(verdict.relation.value, style=RELATION_STYLE.get(verdict.relation, ""))
        out.append(f" {verdict.confidence:.2f}")
    c = pair.candidate
    out.append(f"  {numbers.get(c.a.key, 0)} ↔ {numbers.get(c.b.key, 0)}", style="dim")
    out.append("\n     " + line(pair_name(c.a, c.b, NAME_WIDTH - 3)), style="dim")
    return out


def group_text(group: Group, kept: str | None) -> Text:
    """A group's detail: its id, relation and name, its members numbered (``kept``: the key
    of the one a keep keeps by default), its pairs, and what one decision does."""
    out = Text()
    out.append(f"[{group.id}] ", style="dim")
    out.append(f"group {group.relation.value}", style=RELATION_STYLE.get(group.relation, "bold"))
    out.append(f"  {len(group.members)} memories · {len(group.pairs)} pairs  ", style="bold")
    out.append(line(group_name(group.members, 80)), style="dim")
    numbers = {m.key: n for n, m in enumerate(group.members, 1)}
    for n, member in enumerate(group.members, 1):
        out.append(f"\n {n} {line(member.label)}")
        if member.key == kept:
            out.append("  ← keep", style="bold green")
    pairs = ", ".join(
        f"{numbers[p.candidate.a.key]}↔{numbers[p.candidate.b.key]} {_relation_of(p)}"
        for p in group.pairs)
    out.append(f"\npairs: {line(pairs)}", style="dim")
    out.append("\none decision settles the group: K keep one · e merge all · s scoped · "
               "n not a conflict · ⏎ shows its pairs", style="italic")
    return out


def _relation_of(pair: JudgedPair) -> str:
    verdict = pair.verdict or pair.previous
    return verdict.relation.value if verdict is not None else "not judged"
