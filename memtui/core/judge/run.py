"""The steps of one judge run: items → candidates → the ledger's state of each pair → verdicts
for the pairs without a current one → recorded. :mod:`memtui.core.judge.session` composes them
into the use case the CLI and the TUI run.

Each step takes ``cancelled`` and ``progress`` (``progress(step, done, total)``) so a worker
can show it and stop it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memtui.core.contents import ScanResult
from memtui.core.judge.body_cache import BodyCache
from memtui.core.judge.candidate_cache import CandidateCache
from memtui.core.judge.finder import judge_candidates, semantic_unavailable
from memtui.core.judge.items import claude_md_items, memory_items
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.providers import Judge
from memtui.core.judge.verdicts import NEEDS_ACTION, Candidate, JudgedPair, JudgeItem, Verdict
from memtui.core.model import StoreKind
from memtui.core.stores.claudemd import MANAGED_CLAUDE_MD, load_chain
from memtui.core.stores.locations import Context

if TYPE_CHECKING:
    from memtui.core.judge.engine import Vectors

Progress = Callable[[str, int, int], None]


@dataclass
class JudgeRun:
    items: list[JudgeItem]
    pairs: list[JudgedPair]
    judged: int = 0
    """Pairs that got a new verdict in this run."""
    complete: bool = True
    notes: list[str] = field(default_factory=list)
    early: str | None = None
    """A run shown before its pairs are all found (a session's ``preview``): ``"cached"``, the
    pairs found before whose sides did not change; ``"cheap"``, those found without the model
    (:func:`~memtui.core.judge.finder.cheap_candidates`). None: the pairs found."""

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
    bodies: BodyCache | None = None,
) -> tuple[list[JudgeItem], list[str]]:
    """The memories of ``result`` (of ``kinds``) and the CLAUDE.md paragraphs, with problems
    (``bodies``: the memories' bodies kept from an earlier run, :mod:`memtui.core.judge.
    body_cache`; the cache is saved)."""

    def step(done: int, total: int) -> None:
        if progress is not None:
            progress("reading memories", done, total)

    items = memory_items(result, kinds, cancelled=cancelled, progress=step, bodies=bodies)
    if bodies is not None and not (cancelled is not None and cancelled()):
        bodies.save()
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
    cache: CandidateCache | None = None,
    found: Sequence[Candidate] | None = None,
    progress: Progress | None = None,
    lexical: Sequence[Candidate] | None = None,
    lexical_notes: Sequence[str] = (),
) -> list[JudgedPair]:
    """The candidate pairs of ``items`` (:func:`~memtui.core.judge.finder.judge_candidates`:
    semantic neighbours fused with the lexical and exact signals) with the ledger's state of
    each; ``ctx``: its cache dir keeps the embeddings and the pairs found (``cache``: the
    pairs' cache, loaded already; ``found``: the candidates, when the caller has them
    already from that cache: :func:`~memtui.core.judge.finder.cached_answer`; ``progress``:
    each step of finding them; ``lexical``: :func:`~memtui.core.judge.finder.
    cheap_candidates`' answer, when the caller has it, and ``lexical_notes`` what it said of
    the pairs its caps left out)."""
    if found is None:
        found = judge_candidates(items, cancelled=cancelled, ctx=ctx, notes=notes, cache=cache,
                                 progress=progress, lexical=lexical,
                                 lexical_notes=lexical_notes)
    return [ledger.lookup(c) for c in found]


def cut_note(pairs: Sequence[JudgedPair]) -> str | None:
    """What the bounds of the verdict engine leave out of the memories of ``pairs`` (issue
    25: every step of a pair is bounded), in words; None when it reads every one whole."""
    from memtui.core.judge.statements import MAX_STATEMENTS, MAX_TEXT_CHARS, cut_short

    sides = {i.key: i for p in pairs for i in (p.candidate.a, p.candidate.b)}
    cut = sum(1 for item in sides.values() if cut_short(item))
    if not cut:
        return None
    many = "memory" if cut == 1 else "memories"
    return (f"{cut:,} {many} too long to judge whole: the first {MAX_STATEMENTS} statements "
            f"(at most {MAX_TEXT_CHARS:,} characters) of each compared")


MAX_SENT_PAIRS = 200
"""At most this many pairs (best first) go to a provider that sends text, unless asked."""


def pairs_to_judge(
    pairs: Sequence[JudgedPair], *, rejudge: bool = False, limit: int | None = None
) -> list[JudgedPair]:
    """The pairs a run judges: ``new`` and ``stale`` ones (and ``judged`` ones with
    ``rejudge``; never ``decided`` ones), the first ``limit`` of them (pairs are best first)."""
    todo = [p for p in pairs if p.state in ("new", "stale") or (rejudge and p.state == "judged")]
    return todo if limit is None else todo[:limit]


BATCH = 64
"""Pairs per batch of :func:`verdict_batches` (the local judge: a few tens of milliseconds)."""


def judge_order(pairs: Sequence[JudgedPair]) -> list[JudgedPair]:
    """``pairs`` in the order they are judged: the likeliest to need a decision first (the
    same content, then the same name), then as found (best score first). Only the order of
    judging: the list a run shows keeps the candidates' order."""

    def rank(pair: JudgedPair) -> int:
        a, b = pair.candidate.a, pair.candidate.b
        if a.digest == b.digest:
            return 0
        return 1 if a.name == b.name else 2

    return sorted(pairs, key=rank)  # stable: best score first within each rank


def verdict_batches(
    todo: Sequence[JudgedPair],
    judge: Judge,
    *,
    batch: int = BATCH,
    cancelled: Callable[[], bool] | None = None,
    progress: Progress | None = None,
    items: Sequence[JudgeItem] | None = None,
    first: Callable[[], Sequence[str]] | None = None,
    rarity: Vectors | None = None,
) -> Iterator[list[tuple[JudgedPair, Verdict]]]:
    """The verdicts of ``judge`` on ``todo``, a batch at a time, likeliest first
    (:func:`judge_order`); nothing is recorded (:func:`apply_verdicts` does). The local judge
    gives ``batch`` pairs at a time (its verdicts exactly as a whole run's: one
    :class:`~memtui.core.judge.engine.Vectors` over every pair's items, as
    :meth:`~memtui.core.judge.local.LocalJudge.judge` builds it); any other judge (one that
    sends whole groups of pairs) is asked once, its verdicts one batch. Stops, between
    batches, once ``cancelled``. (A local judge whose ``judge`` is its own, overridden,
    is asked once too.) ``items``: every item of the home, what the local judge counts how
    rare a word is among (:func:`~memtui.core.judge.local.run_context`). ``first``, asked
    before each batch of the local judge, gives the ids of the pairs to judge before the
    others (the rows a screen shows): those of them not judged yet go first, in its order
    (a pair's verdict does not depend on the pairs judged with it). ``rarity``: the local
    judge's embeddings with the rarity of the words of ``items``, made ahead (what
    :func:`~memtui.core.judge.local.run_context` makes: ``Vectors(items=items)``)."""
    from memtui.core.judge.local import LocalJudge

    step_name = f"judging ({judge.name})"
    order = judge_order(todo)
    total = len(order)

    def say(done: int) -> None:
        if progress is not None:
            progress(step_name, done, total)

    if not order:
        return
    if not isinstance(judge, LocalJudge) or type(judge).judge is not LocalJudge.judge:
        verdicts = judge.judge([p.candidate for p in order], cancelled=cancelled,
                               progress=lambda done, _total: say(done))
        yield [(p, v) for p, v in zip(order, verdicts, strict=True) if v is not None]
        return
    from memtui.core.judge import local

    say(0)
    candidates = [p.candidate for p in order]
    vectors: Vectors | None
    nearest: list[bool] | None
    if rarity is not None and semantic_unavailable() is None:  # what run_context gives
        from memtui.core.judge.neighbours import NEAREST

        vectors, nearest = rarity, [NEAREST in c.reasons for c in candidates]
    else:
        vectors, nearest = local.run_context(candidates, items)  # as .judge
    near = {id(p): nearest is not None and nearest[n] for n, p in enumerate(order)}
    waiting = {p.candidate.id: p for p in order}
    """The pairs not judged yet, by id (a pair's id is its two sides': one pair each)."""
    at, done = 0, 0
    while waiting:
        if cancelled is not None and cancelled():
            return
        chunk: list[JudgedPair] = []
        for pair_id in first() if first is not None else ():
            if len(chunk) >= batch:
                break
            named = waiting.pop(pair_id, None)  # named twice, or judged already: once
            if named is not None:
                chunk.append(named)
        while len(chunk) < batch and at < total:
            pair = order[at]
            at += 1
            if waiting.pop(pair.candidate.id, None) is not None:
                chunk.append(pair)
        if vectors is not None:
            vectors.prepare([p.candidate for p in chunk])  # the chunk's new texts: one call
        yield [(p, local.judge_pair(p.candidate, vectors, nearest=near[id(p)])) for p in chunk]
        done += len(chunk)
        say(done)


def apply_verdicts(batch: Iterable[tuple[JudgedPair, Verdict]], ledger: Ledger,
                   since: float | None = None) -> list[JudgedPair]:
    """Record each verdict of ``batch`` in ``ledger`` and give it to its pair (``judged``);
    the pairs given one. A pair the user decided (``decided``, or in ``ledger`` since
    ``since``, when the judging began: :meth:`~memtui.core.judge.ledger.Ledger.
    record_verdict`) keeps its decision: its verdict, come too late, is dropped."""
    applied: list[JudgedPair] = []
    for pair, verdict in batch:
        if pair.state == "decided":
            continue
        if since is None:
            ledger.record(pair.candidate, verdict)
        elif ledger.record_verdict(pair.candidate, verdict, since) is None:
            continue
        pair.previous = pair.verdict or pair.previous
        pair.verdict = verdict
        pair.state = "judged"
        if verdict.fallback:
            pair.notes.append(f"judged locally: {verdict.fallback}")
        applied.append(pair)
    return applied


def judge_pairs(
    pairs: Sequence[JudgedPair],
    judge: Judge,
    ledger: Ledger,
    *,
    rejudge: bool = False,
    cancelled: Callable[[], bool] | None = None,
    progress: Progress | None = None,
    items: Sequence[JudgeItem] | None = None,
) -> int:
    """Give every ``new`` and ``stale`` pair (every undecided pair with ``rejudge``) a verdict
    from ``judge`` and record it; the number judged (:func:`verdict_batches` consumed whole;
    ``items``: every item of the home, as there)."""
    todo = pairs_to_judge(pairs, rejudge=rejudge)
    return sum(len(apply_verdicts(batch, ledger)) for batch in verdict_batches(
        todo, judge, cancelled=cancelled, progress=progress, items=items))
