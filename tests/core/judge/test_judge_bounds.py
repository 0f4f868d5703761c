"""Every step of the judge is bounded, whatever a memory holds (issue 25: two memories of
``Fact k. `` × 1000, 8 KB each, took 53 s to judge): the work is counted, not timed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from core.judge.homes import Note, write_home

import memtui.core.judge.local as local
from memtui.core.judge import engine
from memtui.core.judge.embed import Embedder, Matrix, Progress
from memtui.core.judge.finder import judge_candidates
from memtui.core.judge.items import memory_items
from memtui.core.judge.statements import MAX_STATEMENT_CHARS, MAX_STATEMENTS, statements_of
from memtui.core.judge.verdicts import Candidate
from memtui.core.scan.scanner import scan


def hostile_pair(tmp_path: Path) -> Candidate:
    ctx = write_home(tmp_path, [Note("auto", "facts.md", "Facts", "Fact 1. " * 1000, 1),
                                Note("team", "facts.md", "Facts", "Fact 2. " * 1000, 2)])
    found = judge_candidates(memory_items(scan(ctx)))
    assert len(found) == 1
    return found[0]


class CountingEmbedder(Embedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        self.texts += texts
        return super().embed(texts, progress)


def test_the_engine_reads_a_bounded_number_of_bounded_statements(tmp_path: Path) -> None:
    pair = hostile_pair(tmp_path)
    assert len(statements_of(pair.a)) <= MAX_STATEMENTS
    counting = CountingEmbedder()
    verdict = engine.judge_pair(pair, engine.Vectors(counting))
    assert verdict.relation.value == "conflicts_with"  # "1" vs "2"
    # the two whole texts, each side's statements, at most one swap per aligned statement
    assert len(counting.texts) <= 2 + 2 * MAX_STATEMENTS + 2 * MAX_STATEMENTS
    assert all(len(text) <= 4_000 for text in counting.texts)
    assert all(len(s.text) <= MAX_STATEMENT_CHARS for s in statements_of(pair.b))


def test_the_lexical_fallback_diffs_bounded_word_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = hostile_pair(tmp_path)
    sizes: list[int] = []
    real = local.SequenceMatcher

    def counting(*args: Any, a: Sequence[str] = (), b: Sequence[str] = (),
                 **kwargs: Any) -> Any:
        sizes.append(len(a) * len(b))
        return real(*args, a=a, b=b, **kwargs)

    monkeypatch.setattr(local, "SequenceMatcher", counting)
    monkeypatch.setattr(local, "semantic_unavailable", lambda: "no model in this test")
    local.judge_pair(pair)
    assert sizes and max(sizes) <= 400 * 400  # 2,000 × 2,000 words before the bound
