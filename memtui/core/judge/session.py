"""The judge's one use case, as ``memtui judge`` and the TUI's conflicts screen run it: collect
the items → candidate pairs → the ledger's state of each → the pairs to judge (one pair limit)
→ the estimate of what a provider that sends text would send → the spend cap (one check) →
judge and record the verdicts in the ledger → after a decision wrote files, the state read
again.

The shells only render and ask::

    session = JudgeSession.start(context, settings, provider=..., progress=..., cancelled=...)
    if session.asks_first:          # a provider that sends text has pairs to send
        refusal = session.spend_check()     # over judge.spend_cap_usd: said in words
        ...show session.estimate, ask...
    session.send(progress, cancelled)       # judge session.todo, record, save the ledger

Progress is ``progress(step, done, total)``, cancellation ``cancelled() -> bool``: a run
cancelled between its steps stops there with ``run.complete`` False and nothing to send; one
cancelled while judging keeps (and records) the verdicts it got."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from memtui.core.cache import ScanCache
from memtui.core.config import Config, JudgeConfig
from memtui.core.contents import ScanResult
from memtui.core.judge.body_cache import BodyCache
from memtui.core.judge.body_cache import default_path as body_cache_path
from memtui.core.judge.finder import (
    cached_answer,
    cheap_candidates,
    load_cache,
    semantic_importable,
)
from memtui.core.judge.ledger import USER, Ledger, default_ledger_path
from memtui.core.judge.providers import Estimate, Judge, load_judge
from memtui.core.judge.refresh import Reread, refresh_run
from memtui.core.judge.refresh import reread as reread_files
from memtui.core.judge.run import (
    BATCH,
    MAX_SENT_PAIRS,
    JudgeRun,
    Progress,
    apply_verdicts,
    collect_items,
    cut_note,
    pair_up,
    pairs_to_judge,
    verdict_batches,
)
from memtui.core.judge.scoped import ScopedPlan, scoped_verdict
from memtui.core.judge.verdicts import JudgedPair, JudgeItem, Relation, Verdict
from memtui.core.model import StoreKind
from memtui.core.stores.claudemd import MANAGED_CLAUDE_MD
from memtui.core.stores.locations import Context

if TYPE_CHECKING:
    from memtui.core.judge.anthropic_judge import Usage
    from memtui.core.judge.engine import Vectors

Cancelled = Callable[[], bool]

RECORD_ONLY: dict[str, Relation] = {
    "related": Relation.RELATED,
    "compatible": Relation.COMPATIBLE,
    "not_conflict": Relation.NOT_CONFLICT,
}
"""Decisions that change no file: recorded, the pair is not raised again until a side changes."""


T = TypeVar("T")


class Ahead(Generic[T]):
    """A value made on a thread of its own (a daemon: a run dropped meanwhile does not wait
    for it); :meth:`get` waits for it, None when making it failed (the caller makes it
    then)."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._value: T | None = None
        self._thread = threading.Thread(target=self._run, args=(make,), daemon=True,
                                        name="memtui-judge-ahead")
        self._thread.start()

    def _run(self, make: Callable[[], T]) -> None:
        with contextlib.suppress(Exception):
            self._value = make()

    def get(self) -> T | None:
        self._thread.join()
        return self._value


def _judges_locally(judge: Judge) -> bool:
    """``judge`` is the local judge as :func:`~memtui.core.judge.run.verdict_batches` runs
    it (its verdicts need the words' rarity among the items)."""
    from memtui.core.judge.local import LocalJudge

    return isinstance(judge, LocalJudge) and type(judge).judge is LocalJudge.judge


class SpendRefused(Exception):
    """:meth:`JudgeSession.send` over the spend cap: nothing was sent (``reason`` in words)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def judge_settings(settings: Config | JudgeConfig) -> JudgeConfig:
    """The judge's section of ``settings`` (the whole config, or that section itself)."""
    return settings.judge if isinstance(settings, Config) else settings


def load_provider(
    context: Context,
    settings: Config | JudgeConfig,
    name: str | None = None,
    *,
    batch: bool | None = None,
) -> Judge:
    """The judge ``name`` (None: the config's ``judge.provider``), built from the config with
    ``batch`` over its ``judge.batch`` when given; raises
    :class:`~memtui.core.judge.providers.ProviderError` (in words) when it cannot run."""
    config = judge_settings(settings)
    if batch is not None:
        config = replace(config, batch=batch)
    return load_judge(name or config.provider, config, env=context.env)


def _stopped(cancelled: Cancelled | None) -> bool:
    return cancelled is not None and cancelled()


def _say(progress: Progress | None, step: str, done: int, total: int) -> None:
    if progress is not None:
        progress(step, done, total)


@dataclass
class JudgeSession:
    """One judge run and what it needs to go on: the scan it read, the judge, the ledger."""

    context: Context
    result: ScanResult
    """The scan the items come from (decisions plan on it; :meth:`refresh` replaces it)."""
    judge: Judge
    ledger: Ledger
    run: JudgeRun
    spend_cap_usd: float | None = None
    rejudge: bool = False
    todo: list[JudgedPair] = field(default_factory=list)
    """The pairs :meth:`send` judges, best first: exactly those :attr:`estimate` counts."""
    estimate: Estimate | None = None
    """What sending :attr:`todo` would cost (a provider that sends text; None: nothing leaves
    the machine). Kept after :meth:`send`, which empties :attr:`todo`."""
    held_back: int = 0
    """Pairs to judge beyond the pair limit: not sent (the best first go)."""
    rarity: tuple[list[JudgeItem], Ahead[Vectors]] | None = field(default=None, repr=False,
                                                                 compare=False)
    """The local judge's embeddings and rarity of the items (what they were made of with
    them), made on a thread of their own while the pairs were found; :meth:`stream` takes them
    (once) when the run's items are still those."""
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    """Held while the ledger or the pairs' verdicts change (:meth:`stream` runs on a worker
    thread, decisions on the UI's)."""

    @classmethod
    def start(
        cls,
        context: Context,
        settings: Config | JudgeConfig,
        *,
        provider: str | Judge | None = None,
        batch: bool | None = None,
        result: ScanResult | None = None,
        kinds: Iterable[StoreKind] | None = None,
        claude_md: bool = True,
        rejudge: bool = False,
        max_pairs: int = MAX_SENT_PAIRS,
        managed: Path | str = MANAGED_CLAUDE_MD,
        ledger: Ledger | None = None,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
        preview: Callable[[JudgeRun], None] | None = None,
    ) -> JudgeSession:
        """Everything up to the sending: the judge (``provider``: a name, None for the
        config's, or a judge already built; a name that cannot run raises ``ProviderError``
        before anything is read), the scan (``result``, or a scan of ``context`` now), the items
        of ``kinds`` (None: every kind but session) and the CLAUDE.md rules (``claude_md``), the
        candidate pairs with the ledger's state (``ledger``, or the default one), the pairs to
        judge (``new`` and ``stale``; ``judged`` too with ``rejudge``); for a provider that
        sends text at most ``max_pairs`` of them, and their estimate. ``preview``, when
        the memories changed since the candidates were last found, gets (before they are found
        again) a run of the earlier candidates whose sides did not change, with the ledger's
        state of each (:func:`~memtui.core.judge.finder.cached_candidates`; none when nothing
        changed: the cache's pairs are the answer, asked for once,
        :func:`~memtui.core.judge.finder.cached_answer`); when there are none such (a cold
        start) and the semantic finder is to run, the pairs found without the model instead
        (:func:`~memtui.core.judge.finder.cheap_candidates`; the finder goes on from them).
        The run's ``early`` says which."""
        if max_pairs < 1:
            raise ValueError(f"max_pairs must be 1 or more, not {max_pairs}")
        judge = (
            provider
            if provider is not None and not isinstance(provider, str)
            else load_provider(context, settings, provider, batch=batch)
        )
        if result is None:
            from memtui.core.scan.scanner import cache_for, scan

            _say(progress, "scanning the stores", 0, 1)
            result = scan(context, cache=cache_for(context))
            _say(progress, "scanning the stores", 1, 1)
        if ledger is None:
            ledger = Ledger.load(default_ledger_path(context.env))
        session = cls(context, result, judge, ledger, JudgeRun([], []),
                      spend_cap_usd=judge_settings(settings).spend_cap_usd, rejudge=rejudge)
        if _stopped(cancelled):
            session.run.complete = False
            return session
        bodies = BodyCache.load(body_cache_path(context.env, context.home))
        items, problems = collect_items(context, result, kinds, claude_md=claude_md,
                                        managed=managed, cancelled=cancelled, progress=progress,
                                        bodies=bodies)
        session.run = JudgeRun(items, [], notes=[*ledger.problems, *problems])
        if _stopped(cancelled):
            session.run.complete = False
            return session
        cache = load_cache(context)
        found = cached_answer(items, cache, session.run.notes)  # asked once: 9,000 candidates
        lexical = None
        capped: list[str] = []
        if found is None and preview is not None:
            early, known = "cached", cache.known(items)
            if not known and semantic_importable():  # cold: the model's pairs take seconds
                _say(progress, "matching names, contents and words", 0, 1)
                early, known = "cheap", cheap_candidates(items, cancelled, capped)
                lexical = known
            if known and not _stopped(cancelled):
                preview(JudgeRun(items, [ledger.lookup(c) for c in known],
                                 notes=list(session.run.notes), early=early))
        if found is None and _judges_locally(judge) and semantic_importable():
            # the words' rarity the local verdicts need, read from every item while the
            # pairs are found (the tokenizer and the matrix products leave the GIL)
            from memtui.core.judge import engine

            session.rarity = (items, Ahead(lambda: engine.Vectors(items=items)))
        _say(progress, "pairing", 0, 1)
        session.run.pairs = pair_up(items, ledger, cancelled=cancelled, ctx=context,
                                    notes=session.run.notes, cache=cache, found=found,
                                    progress=progress, lexical=lexical,
                                    lexical_notes=capped)
        if _stopped(cancelled):
            session.run.complete = False
            return session
        _say(progress, "pairing", 1, 1)
        session.todo = pairs_to_judge(session.run.pairs, rejudge=rejudge)
        if not judge.sends_data and (cut := cut_note(session.todo)) is not None:
            session.run.notes.append(cut)  # a provider that sends text has its own limits
        if judge.sends_data and session.todo:
            session.held_back = max(0, len(session.todo) - max_pairs)
            session.todo = session.todo[:max_pairs]
            _say(progress, "estimating", 0, 1)
            session.estimate = judge.estimate([p.candidate for p in session.todo])
            _say(progress, "estimating", 1, 1)
        return session

    # -------------------------------------------------------------------- what it found

    @property
    def asks_first(self) -> bool:
        """Sending :attr:`todo` sends text to the provider: show :attr:`estimate`, check
        :meth:`spend_check`, ask, then :meth:`send`. False: :meth:`send` without asking."""
        return bool(self.todo) and self.estimate is not None

    def spend_check(self) -> str | None:
        """Why :attr:`todo` must not be sent, in words (its estimate is over
        ``judge.spend_cap_usd``), or None. :meth:`send` refuses the same."""
        cap, estimate = self.spend_cap_usd, self.estimate
        if not self.todo or estimate is None or cap is None or estimate.cost_usd <= cap:
            return None
        return f"over judge.spend_cap_usd (${cap:g}); nothing was sent"

    @property
    def notes(self) -> list[str]:
        """The run's notes (the ledger's and CLAUDE.md's problems) and the judge's."""
        return [*self.run.notes, *getattr(self.judge, "notes", [])]

    @property
    def usage(self) -> Usage | None:
        """What the provider spent so far (requests, tokens, cost), or None (it sends nothing)."""
        usage: Usage | None = getattr(self.judge, "usage", None)
        return usage

    def open_pairs(self) -> list[JudgedPair]:
        return self.run.open_pairs()

    # -------------------------------------------------------------------- judging

    def send(
        self, progress: Progress | None = None, cancelled: Cancelled | None = None
    ) -> int:
        """Judge :attr:`todo`, record each verdict and save the ledger; the number judged
        (also added to ``run.judged``). Raises :class:`SpendRefused` over the spend cap, before
        anything is sent (:meth:`stream` checks). :attr:`todo` is empty afterwards: a second
        call sends nothing."""
        return sum(len(batch) for batch in self.stream(progress, cancelled))

    def stream(
        self,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
        *,
        batch: int = BATCH,
        first: Callable[[], Sequence[str]] | None = None,
    ) -> Iterator[list[JudgedPair]]:
        """:meth:`send`, a batch at a time: judge :attr:`todo` (likeliest first,
        :func:`~memtui.core.judge.run.judge_order`), record each batch's verdicts in the
        ledger, give them to their pairs and yield those pairs (a pair the user decided since
        the stream began keeps the decision, in the ledger and in the run: its verdict is
        dropped and it is not yielded); the ledger is saved once at the end (also when stopped
        early: cancelled, or the caller closed the generator), and
        ``run.judged`` counts what was judged. The local judge yields ``batch`` pairs at a
        time; a provider that sends text, all it sent at once. Raises :class:`SpendRefused`
        over the spend cap before anything is sent. Recording holds :attr:`lock` (a decision
        taken meanwhile on another thread records under it too). ``first``: the ids of the
        pairs to judge before the others, asked before each batch (the rows a screen shows;
        :func:`~memtui.core.judge.run.verdict_batches`)."""
        refusal = self.spend_check()
        if refusal is not None:
            raise SpendRefused(refusal)
        todo, self.todo = self.todo, []
        ahead, self.rarity = self.rarity, None
        if not todo:
            return
        rarity = ahead[1].get() if ahead is not None and ahead[0] is self.run.items else None
        finished = False
        since = time.time()  # a decision from now on is the user's answer: no verdict over it
        try:
            for verdicts in verdict_batches(todo, self.judge, batch=batch, cancelled=cancelled,
                                            progress=progress, items=self.run.items,
                                            first=first, rarity=rarity):
                with self.lock:
                    applied = apply_verdicts(verdicts, self.ledger, since)
                    self.run.judged += len(applied)
                yield applied
            finished = True
        finally:
            if _stopped(cancelled) or not finished:
                self.run.complete = False
            with self.lock:
                problem = self.ledger.save()  # an unwritable state dir: said, the run goes on
            if problem is not None:
                self.run.notes.append(problem)

    # -------------------------------------------------------------------- after a decision

    def decide(self, pair: JudgedPair, decision: str) -> Verdict:
        """Record a decision that changes no file (:data:`RECORD_ONLY`) for ``pair`` and save
        the ledger (an ``OSError`` when it cannot be saved); the pair is ``decided``."""
        verdict = Verdict(RECORD_ONLY[decision], 1.0, f"decided: {decision}", USER)
        with self.lock:
            self.ledger.record(pair.candidate, verdict, note=decision)
            self.ledger.write()
        pair.previous = pair.verdict or pair.previous
        pair.verdict = replace(verdict)
        pair.state = "decided"
        return verdict

    def scoped(self, pair: JudgedPair, plan: ScopedPlan) -> None:
        """After ``plan``'s notes were written (and :func:`~memtui.core.judge.scoped.
        finish_scoped` recorded them): ``pair`` shows the new contents, ``decided``."""
        pair.candidate = plan.after
        pair.previous = pair.verdict or pair.previous
        pair.verdict = scoped_verdict(plan)
        pair.state = "decided"

    def drop(self, key: str) -> None:
        """An item left its store (archived by a decision): its pairs leave the run."""
        self.run.pairs = [p for p in self.run.pairs
                          if key not in (p.candidate.a.key, p.candidate.b.key)]

    def reread(self, changed: Iterable[Path | str], cache: ScanCache | None = None) -> Reread:
        """After a write changed the files ``changed``: the scan brought up to date where they
        live and the items among them read again (:mod:`memtui.core.judge.refresh`). Nothing
        of the session changes (a worker thread may call it); :meth:`refresh` takes it in."""
        return reread_files(self.context, self.result, list(self.run.items), changed, cache)

    def refresh(self, fresh: Reread) -> None:
        """Take in :meth:`reread`'s answer: later decisions plan on its scan; every pair with a
        changed side shows the new content and is ``stale`` (or the state a decision recorded
        for it), pairs with a side gone leave the run."""
        self.result = fresh.result
        refresh_run(self.run, fresh.items, self.ledger)

    def pairs(self, every: bool = False) -> Sequence[JudgedPair]:
        """Every candidate pair (``every``), else those that need a decision."""
        return self.run.pairs if every else self.run.open_pairs()
