"""The judge on a degenerate home stays bounded (issue 25, item 5, and the generated big home
of word soup): hostile ``Fact k. `` × 1000 memories and copies / near-copies of one long
memory. The work is counted (pairs per memory, statements, what a run keeps), never timed;
what the bounds cut is said in the run's notes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from core.judge.homes import Note, write_home

from memtui.core.config import JudgeConfig
from memtui.core.judge import candidates, local
from memtui.core.judge.candidates import MAX_SAME_CONTENT, MAX_SIMILAR, best_per_item
from memtui.core.judge.items import memory_items
from memtui.core.judge.neighbours import K
from memtui.core.judge.session import JudgeSession
from memtui.core.judge.statements import MAX_STATEMENTS, cut_short, statements_of
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context

COPIES = 3 * MAX_SAME_CONTENT
NEAR = 24
FACTS = 4

LONG = "\n".join(f"- step {n}: the deploy runs the migration, then the smoke tests, "
                 f"then flips traffic for service {n % 7}." for n in range(300))
"""A 300-line memory (about 24,000 characters, 300 statements)."""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Context:
    """Written once for the module: judging writes only in the state and cache dirs."""
    notes = [Note("auto", f"facts-{k}.md", "Facts", f"Fact {k}. " * 1000, k) for k in range(FACTS)]
    notes += [Note("auto", f"copy-{n:03}.md", "The deploy runbook", LONG, 1 + n / 100)
              for n in range(COPIES)]
    notes += [Note("auto", f"near-{n:03}.md", "The deploy runbook",
                   f"Owner: team {n}.\n{LONG}", 1 + n / 100) for n in range(NEAR)]
    return write_home(tmp_path_factory.mktemp("degenerate"), notes)


def degenerate_home(home: Context, tmp_path: Path) -> Context:
    """``home`` with this test's own state and cache dirs."""
    return Context.create(project=home.project, claude_home=home.claude_home,
                          agent_memory_home=home.agent_memory_home,
                          env={**home.env, "XDG_STATE_HOME": str(tmp_path / "state"),
                               "XDG_CACHE_HOME": str(tmp_path / "cache")})


def test_a_degenerate_home_is_judged_whole_with_bounded_pairs_and_says_what_was_cut(
        home: Context, tmp_path: Path) -> None:
    ctx = degenerate_home(home, tmp_path)
    session = JudgeSession.start(ctx, JudgeConfig(), claude_md=False)
    items = session.run.items
    assert len(items) == FACTS + COPIES + NEAR
    pairs = [p.candidate for p in session.run.pairs]
    # copies of one content: each paired with the first copy, not each with each (1,770)
    same = [c for c in pairs if "same content" in c.reasons]
    assert len(same) == COPIES - 1
    # every memory in a bounded number of pairs: its K nearest, its best similar-text pairs,
    # the copies' star aside (and the pairs whose other side chose it: K·n pairs in all)
    assert len(pairs) <= len(items) * (K + MAX_SIMILAR) + COPIES
    per_item = Counter(k for c in pairs if "same content" not in c.reasons
                       for k in (c.a.key, c.b.key))
    assert sum(per_item.values()) <= 2 * len(items) * (K + MAX_SIMILAR)

    assert session.send() == len(pairs)  # every pair judged
    assert all(p.verdict is not None for p in session.run.pairs)
    cut = [n for n in session.notes if "too long to judge whole" in n]
    assert cut == [f"{FACTS + COPIES + NEAR} memories too long to judge whole: the first "
                   f"{MAX_STATEMENTS} statements (at most 4,000 characters) of each compared"]
    assert any("paired with the first copy only" in n for n in session.notes)


def test_a_run_keeps_a_bounded_amount_per_memory_not_per_pair(
        home: Context, tmp_path: Path) -> None:
    """The run's embeddings keep each text's vector once and one matrix per memory's
    statements: not one more matrix per pair (41,252 pairs of the big home kept 500 MB)."""
    ctx = degenerate_home(home, tmp_path)
    session = JudgeSession.start(ctx, JudgeConfig(), claude_md=False)
    found = [p.candidate for p in session.run.pairs]
    vectors, nearest = local.run_context(found, session.run.items)
    assert vectors is not None and nearest is not None
    for n, candidate in enumerate(found):
        local.judge_pair(candidate, vectors, nearest=nearest[n])
    assert len(found) > 2 * len(session.run.items)
    assert len(vectors._lists) <= len(session.run.items)
    statements = sum(len(statements_of(item)) for item in session.run.items)
    assert all(len(statements_of(item)) <= MAX_STATEMENTS for item in session.run.items)
    swaps = len(vectors._rows) - statements - len(session.run.items)
    assert swaps <= 2 * MAX_STATEMENTS * len(session.run.items)
    assert not vectors.embedder.remember and not vectors.embedder._used  # one copy


def test_a_memory_is_said_cut_only_when_its_text_is(home: Context, tmp_path: Path) -> None:
    items = {i.rel_path: i for i in memory_items(scan(home))}
    assert cut_short(items["facts-1.md"]) and cut_short(items["copy-000.md"])
    short = write_home(tmp_path / "short", [
        Note("auto", "a.md", "A", "\n".join(f"Rule {n} holds." for n in range(MAX_STATEMENTS))),
        Note("auto", "b.md", "B", "One rule. Another rule.")])
    fine = memory_items(scan(short))
    assert not any(cut_short(item) for item in fine)
    assert len(statements_of(next(i for i in fine if i.rel_path == "a.md"))) == MAX_STATEMENTS


def test_each_item_keeps_its_best_similar_pairs() -> None:
    pairs = {(0, j): 1 - j / 100 for j in range(1, 40)} | {(1, 2): 0.2}
    kept = best_per_item(pairs, 4)
    # item 0's best four, and every pair that is among the other side's best (each of the
    # others has one or two pairs only): all of them, as 0 is among their best
    assert kept == pairs
    hub = {(i, j): 0.5 + (i + j) / 1000 for i in range(12) for j in range(i + 1, 12)}
    kept = best_per_item(hub, 3)
    assert len(kept) <= 12 * 3 < len(hub)  # at most each item's best three: the hubs'
    for i, j in kept:
        best_i = sorted((-s, b if a == i else a) for (a, b), s in hub.items() if i in (a, b))
        best_j = sorted((-s, b if a == j else a) for (a, b), s in hub.items() if j in (a, b))
        assert j in {o for _, o in best_i[:3]} or i in {o for _, o in best_j[:3]}
    assert best_per_item({}, 3) == {}


def test_the_similar_text_cap_is_said(home: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    items = memory_items(scan(home))
    monkeypatch.setattr(candidates, "MAX_SIMILAR", 1)
    notes: list[str] = []
    found = candidates.find_candidates(items, threshold=0.05, notes=notes)
    assert found
    assert any("similar-text pairs left out: each memory keeps its 1 most similar" in n
               for n in notes), notes


def test_the_screens_cold_start_says_what_the_caps_cut_too(home: Context, tmp_path: Path) -> None:
    """The conflicts screen starts with a preview: cold, the pairs found without the model
    (:func:`~memtui.core.judge.finder.cheap_candidates`) are listed first and the finder goes
    on from them. What their caps left out (copies past 20) is said as when the finder runs
    alone, and kept with the cached pairs for the next run."""
    from memtui.core.judge.run import JudgeRun

    ctx = degenerate_home(home, tmp_path)
    previews: list[JudgeRun] = []
    cold = JudgeSession.start(ctx, JudgeConfig(), claude_md=False, preview=previews.append)
    assert [run.early for run in previews] == ["cheap"]
    assert any("paired with the first copy only" in n for n in cold.notes)
    warm = JudgeSession.start(ctx, JudgeConfig(), claude_md=False, preview=previews.append)
    assert any("paired with the first copy only" in n for n in warm.notes)


def test_a_run_embeds_each_chunks_new_texts_in_one_call(
        home: Context, tmp_path: Path) -> None:
    """The session's judging (:func:`~memtui.core.judge.run.verdict_batches`) hands the
    embedder each chunk's new texts at once (one call per chunk, not per pair); the verdicts
    are those of judging each pair on its own, every text through the embedder. (The swap
    test's words: ``test_word_vectors.py``.)"""
    from memtui.core.judge import engine
    from memtui.core.judge.embed import Embedder, StaticModel, shared_model
    from memtui.core.judge.run import BATCH, judge_order, pairs_to_judge, verdict_batches

    class Counting(StaticModel):
        calls = 0
        texts = 0

        def means(self, texts: Any, *, batch: bool = True) -> Any:
            Counting.calls += 1
            Counting.texts += len(texts)
            return super().means(texts, batch=batch)

    shared = shared_model()
    ctx = degenerate_home(home, tmp_path)
    session = JudgeSession.start(ctx, JudgeConfig(), claude_md=False)
    todo = pairs_to_judge(session.run.pairs)
    vectors = engine.Vectors(Embedder(model=Counting(shared.table, shared.tokenizer),
                                      remember=False), items=session.run.items)
    batches = list(verdict_batches(todo, session.judge, rarity=vectors,
                                   items=session.run.items))
    chunks = -(-len(todo) // BATCH)
    assert len(batches) == chunks
    assert Counting.calls <= chunks  # the chunk's new texts, once each; nothing per pair

    plain = engine.Vectors(Embedder(model=shared, remember=False), items=session.run.items)
    plain._no_words = True  # every swap text through the embedder, no chunk embedded ahead
    order = judge_order(todo)
    got = {p.candidate.id: v for batch in batches for p, v in batch}
    for pair in order:
        alone = local.judge_pair(pair.candidate, plain,
                                 nearest="each other's nearest" in pair.candidate.reasons)
        assert got[pair.candidate.id] == alone
