"""The judge's candidate pairs, for every caller (issue 22, item 2): a run
(:func:`memtui.core.judge.run.pair_up`), ``memtui judge resolve`` and the TUI's conflicts
screen all take their pairs from :func:`judge_candidates`, so a pair id one of them prints is
one the others find.

The candidates are each item's nearest semantic neighbours above a similarity floor, fused
with the lexical index and the exact signals (same content, same name):
:func:`memtui.core.judge.neighbours.semantic_candidates`. When the semantic signal cannot load
(wordllama or numpy missing, the wheel's files gone) the lexical candidates alone are used and
the reason is given to ``notes``. numpy and the model are imported here only when a run asks
for candidates, never by the scan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.util import find_spec

from memtui.core.judge.candidate_cache import CandidateCache, default_path, finder_id
from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.verdicts import Candidate, JudgeItem
from memtui.core.stores.locations import Context


def semantic_unavailable() -> str | None:
    """Why the semantic signal cannot be used here, or None when it can."""
    try:
        from memtui.core.judge.embed import unavailable
    except ImportError as err:
        return f"the semantic signal is unavailable: {err}"
    return unavailable()


def judge_candidates(
    items: Sequence[JudgeItem],
    *,
    cancelled: Callable[[], bool] | None = None,
    ctx: Context | None = None,
    notes: list[str] | None = None,
    cache: CandidateCache | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    lexical: Sequence[Candidate] | None = None,
    lexical_notes: Sequence[str] = (),
) -> list[Candidate]:
    """The candidate pairs of ``items``, best first. ``ctx``: its cache dir keeps the
    embeddings and the pairs found (none without it: :mod:`memtui.core.judge.candidate_cache`;
    the same items again are not paired again; ``cache``: that cache, loaded already);
    ``notes`` gets why the lexical candidates alone were used; ``progress``
    (``progress(step, done, total)``) hears of each step of the finding; ``lexical``: what
    :func:`cheap_candidates` gave for ``items`` (not found again), ``lexical_notes`` what it
    said of the pairs its caps left out (said again in ``notes`` and kept in the cache)."""
    if ctx is None:
        cut: list[str] = list(lexical_notes) if lexical is not None else []
        result = _find(items, cancelled, None, notes, progress, cut, lexical)
        if notes is not None:
            notes.extend(cut)
        return result
    cache = cache if cache is not None else load_cache(ctx)
    found = cached_answer(items, cache, notes)
    if found is not None:
        return found
    expected = finder_id(semantic_importable())
    said: list[str] = []
    capped: list[str] = list(lexical_notes) if lexical is not None else []
    found = _find(items, cancelled, ctx, said, progress, capped, lexical)
    if notes is not None:
        notes.extend([*said, *capped])
    if not (cancelled is not None and cancelled()):
        cache.store(items, found, finder_id(not said and expected.startswith("semantic")),
                    [*said, *capped])
    return found


def load_cache(ctx: Context) -> CandidateCache:
    """The candidates of the last run in ``ctx``'s cache dir (empty when caching is off)."""
    return CandidateCache.load(default_path(ctx.env, ctx.home))


def cached_answer(items: Sequence[JudgeItem], cache: CandidateCache,
                  notes: list[str] | None = None) -> list[Candidate] | None:
    """:func:`judge_candidates`' answer when no item changed since ``cache`` was stored (its
    notes to ``notes``), else None: the finder must run again."""
    found = cache.complete(items, finder_id(semantic_importable()))
    if found is not None and notes is not None:
        notes.extend(cache.notes)
    return found


def cached_candidates(items: Sequence[JudgeItem], cache: CandidateCache) -> list[Candidate] | None:
    """The pairs of an earlier run whose two sides did not change since (best first): what
    the conflicts screen shows while :func:`judge_candidates` runs; None when none of the
    memories changed (:func:`judge_candidates` then takes them from the cache at once)."""
    if cache.complete(items, finder_id(semantic_importable())) is not None:
        return None
    return cache.known(items)


def cheap_candidates(items: Sequence[JudgeItem],
                     cancelled: Callable[[], bool] | None = None,
                     notes: list[str] | None = None) -> list[Candidate]:
    """The candidates found without the model (the same content, the same name, the lexical
    index at the semantic finder's threshold), best first: each of them is among
    :func:`judge_candidates`' answer when the semantic signal is there (they are what it
    starts from, :func:`~memtui.core.judge.neighbours.semantic_candidates`), found in a tenth
    of the time the embeddings take cold. What the conflicts screen shows until the model's
    neighbours join them (give them to :func:`judge_candidates` as ``lexical``, and what
    ``notes`` heard of the pairs the caps left out as ``lexical_notes``)."""
    from memtui.core.judge.neighbours import LEXICAL_THRESHOLD

    return find_candidates(items, threshold=LEXICAL_THRESHOLD, cancelled=cancelled,
                           notes=notes)


def semantic_importable() -> bool:
    """numpy and wordllama are installed (not imported: that takes a third of a second)."""
    return all(find_spec(name) is not None for name in ("numpy", "wordllama"))


def _find(items: Sequence[JudgeItem], cancelled: Callable[[], bool] | None,
          ctx: Context | None, notes: list[str] | None,
          progress: Callable[[str, int, int], None] | None = None,
          capped: list[str] | None = None,
          lexical: Sequence[Candidate] | None = None) -> list[Candidate]:
    """The candidates; ``notes`` gets why the lexical ones alone were used, ``capped`` what
    the finder's caps left out; ``lexical``: :func:`cheap_candidates`' answer, when found."""
    try:
        from memtui.core.judge.embed import Embedder
        from memtui.core.judge.neighbours import semantic_candidates
    except ImportError as err:
        return _lexical(items, f"the semantic signal is unavailable: {err}", cancelled, notes,
                        capped)
    embedder = Embedder.for_env(ctx.env, ctx.home) if ctx is not None else Embedder()
    try:
        # the model loads only when a text is not in the embedding cache: a second run on
        # the same memories reads every vector from the cache and never loads it
        return semantic_candidates(items, embedder=embedder, cancelled=cancelled,
                                   progress=progress, notes=capped, lexical=lexical)
    except (ImportError, OSError, ValueError):
        why = semantic_unavailable()
        if why is None:  # not the model's failure
            raise
        if capped is not None:
            capped.clear()  # the lexical candidates say their own
        return _lexical(items, why, cancelled, notes, capped)


def _lexical(items: Sequence[JudgeItem], why: str, cancelled: Callable[[], bool] | None,
             notes: list[str] | None, capped: list[str] | None = None) -> list[Candidate]:
    if notes is not None:
        notes.append(f"{why}; lexical candidates only")
    return find_candidates(items, cancelled=cancelled, notes=capped)
