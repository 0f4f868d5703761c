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
) -> list[Candidate]:
    """The candidate pairs of ``items``, best first. ``ctx``: its cache dir keeps the
    embeddings (none without it); ``notes`` gets why the lexical candidates alone were used."""
    why = semantic_unavailable()
    if why is not None:
        if notes is not None:
            notes.append(f"{why}; lexical candidates only")
        return find_candidates(items, cancelled=cancelled)
    from memtui.core.judge.embed import Embedder
    from memtui.core.judge.neighbours import semantic_candidates

    embedder = Embedder.for_env(ctx.env, ctx.home) if ctx is not None else Embedder()
    return semantic_candidates(items, embedder=embedder, cancelled=cancelled)
