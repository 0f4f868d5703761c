"""The steps of one judge run: items → candidates → the ledger's state of each pair → verdicts
for the pairs without a current one → recorded. :mod:`memtui.core.judge.session` composes them
into the use case the CLI and the TUI run.

Each step takes ``cancelled`` and ``progress`` (``progress(step, done, total)``) so a worker
can show it and stop it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from memtui.core.contents import ScanResult
from memtui.core.judge.finder import judge_candidates
from memtui.core.judge.items import claude_md_items, memory_items
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.providers import Judge
from memtui.core.judge.verdicts import NEEDS_ACTION, JudgedPair, JudgeItem
from memtui.core.model import StoreKind
from memtui.core.stores.claudemd import MANAGED_CLAUDE_MD, load_chain
from memtui.core.stores.locations import Context

Progress = Callable[[str, int, int], None]


@dataclass
class JudgeRun:
    items: list[JudgeItem]
    pairs: list[JudgedPair]
    judged: int = 0
    """Pairs that got a new verdict in this run."""
    complete: bool = True
    notes: list[str] = field(default_factory=list)

    def open_pairs(self) -> list[JudgedPair]:
        """Pairs a user should look at: a current or previous verdict that needs action and
        no decision."""
        return [
            p
            for p in self.pairs
            if p.state != "decided"
            and (v := p.verdict or p.previous) is not None
            and v.relation in NEEDS_ACTION
        ]


def collect_items(
    ctx: Context,
    result: ScanResult,
    kinds: Iterable[StoreKind] | None = None,
    *,
    claude_md: bool = True,
    managed: object = MANAGED_CLAUDE_MD,
    cancelled: Callable[[], bool] | None = None,
    progress: Progress | None = None,
) -> tuple[list[JudgeItem], list[str]]:
    """The memories of ``result`` (of ``kinds``) and the CLAUDE.md paragraphs, with problems."""

    def step(done: int, total: int) -> None:
        if progress is not None:
            progress("reading memories", done, total)

    items = memory_items(result, kinds, cancelled=cancelled, progress=step)
    problems: list[str] = []
    if claude_md:
        from pathlib import Path

        chain = load_chain(ctx, Path(str(managed)))
        problems += chain.problems
        problems += [f"{f.path}: {f.problem}" for f in chain.files if f.problem]
        items += claude_md_items(chain, ctx.home)
    return items, problems


def pair_up(
    items: Sequence[JudgeItem],
    ledger: Ledger,
    *,
    cancelled: Callable[[], bool] | None = None,
    ctx: Context | None = None,
    notes: list[str] | None = None,
) -> list[JudgedPair]:
    """The candidate pairs of ``items`` (:func:`~memtui.core.judge.finder.judge_candidates`:
    semantic neighbours fused with the lexical and exact signals) with the ledger's state of
    each; ``ctx``: its cache dir keeps the embeddings."""
    found = judge_candidates(items, cancelled=cancelled, ctx=ctx, notes=notes)
    return [ledger.lookup(c) for c in found]


MAX_SENT_PAIRS = 200
"""At most this many pairs (best first) go to a provider that sends text, unless asked."""


def pairs_to_judge(
    pairs: Sequence[JudgedPair], *, rejudge: bool = False, limit: int | None = None
) -> list[JudgedPair]:
    """The pairs a run judges: ``new`` and ``stale`` ones (and ``judged`` ones with
    ``rejudge``; never ``decided`` ones), the first ``limit`` of them (pairs are best first)."""
    todo = [p for p in pairs if p.state in ("new", "stale") or (rejudge and p.state == "judged")]
    return todo if limit is None else todo[:limit]


def judge_pairs(
    pairs: Sequence[JudgedPair],
    judge: Judge,
    ledger: Ledger,
    *,
    rejudge: bool = False,
    cancelled: Callable[[], bool] | None = None,
    progress: Progress | None = None,
) -> int:
    """Give every ``new`` and ``stale`` pair (every undecided pair with ``rejudge``) a verdict
    from ``judge`` and record it; the number judged."""
    todo = pairs_to_judge(pairs, rejudge=rejudge)

    def step(done: int, total: int) -> None:
        if progress is not None:
            progress(f"judging ({judge.name})", done, total)

    verdicts = judge.judge([p.candidate for p in todo], cancelled=cancelled, progress=step)
    count = 0
    for pair, verdict in zip(todo, verdicts, strict=True):
        if verdict is None:
            continue
        ledger.record(pair.candidate, verdict)
        pair.previous = pair.verdict or pair.previous
        pair.verdict = verdict
        pair.state = "judged"
        if verdict.fallback:
            pair.notes.append(f"judged locally: {verdict.fallback}")
        count += 1
    return count
