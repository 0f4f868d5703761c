"""The judge's measurement (memtui/core/judge/quality.py, bench/judge_quality.py): the
metrics on a toy case where every figure is known, and the harness on the labelled home."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from memtui.core.judge.items import digest
from memtui.core.judge.quality import Truth, measure
from memtui.core.judge.verdicts import Candidate, JudgeItem, Relation, Verdict

REPO = Path(__file__).resolve().parents[3]


def item(name: str, kind: str = "auto", body: str = "") -> JudgeItem:
    body = body or f"text of {name}"
    return JudgeItem(key=f"/m/{name}", kind=kind, file=f"/m/{name}", rel_path=name, name=name,
                     description="", body=body, mtime=0.0, digest=digest(body))


def pair(a: JudgeItem, b: JudgeItem) -> Candidate:
    return Candidate(a, b, 0.5, ("test",))


def said(relation: Relation, winner: str | None = None) -> Verdict:
    return Verdict(relation, 0.9, "toy", "local", winner=winner)


def test_the_metrics_count_what_they_say_and_can_fail() -> None:
    a, b, c, d, e, f, g, h = (item(n) for n in "abcdefgh")
    rule = item("CLAUDE.md", kind="claude-md", body="Use tabs.")
    truths = [
        Truth("duplicate", (a.file, None), (b.file, None), "tune"),
        Truth("supersedes", (c.file, None), (d.file, None), "tune", newer=(d.file, None)),
        Truth("conflicts_with", (e.file, None), (rule.file, "Use tabs."), "held"),
        Truth("scoped", (f.file, None), (g.file, None), "held"),
    ]
    candidates = [pair(a, b), pair(c, d), pair(f, g), pair(g, h), pair(e, rule)]
    verdicts = {
        candidates[0].id: said(Relation.DUPLICATE),  # right, listed
        candidates[1].id: said(Relation.SUPERSEDES, winner="a"),  # right relation, wrong side
        candidates[2].id: said(Relation.CONFLICTS_WITH),  # a false alarm (scoped)
        candidates[3].id: said(Relation.DUPLICATE),  # a false alarm (unlabelled)
        candidates[4].id: said(Relation.RELATED),  # the conflict not listed
    }
    halves = measure(candidates, verdicts, truths, lambda x, y: "held")
    tune, held, both = halves["tune"], halves["held"], halves["both"]
    assert (tune.labelled, tune.candidates, tune.need, tune.need_listed) == (2, 2, 2, 2)
    assert (tune.listed, tune.listed_wrong, tune.agree) == (2, 0, 2)
    assert tune.direction == 0.0
    assert (held.labelled, held.candidates, held.need, held.need_listed) == (2, 2, 1, 0)
    assert (held.listed, held.listed_wrong, held.agree) == (2, 2, 0)
    assert held.false_alarms == 1.0 and held.listed_share == 0.0 and held.agreement == 0.0
    assert both.candidate_recall == 1.0 and both.agreement == 0.5 and both.need_recall == 1.0
    assert both.confusion["conflicts_with"] == {"related": 1}
    # a labelled pair that is no candidate is missed, and counts against recall and agreement
    fewer = measure(candidates[1:], verdicts, truths, lambda x, y: "held")
    assert fewer["tune"].candidate_recall == 0.5
    assert fewer["tune"].confusion["duplicate"] == {"missed": 1}
    assert fewer["tune"].listed_share == 0.5
    assert fewer["tune"].need_recall == 0.5


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("judge_quality", REPO / "bench/judge_quality.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["judge_quality"] = module
    spec.loader.exec_module(module)
    return module


def test_the_harness_runs_the_judge_on_the_labelled_home(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from memtui.core.demo.judge_home import build_judge_home

    home = build_judge_home(tmp_path)
    figures, total = bench.evaluate(home, bench.items_of(home))
    assert total > 0
    assert figures["tune"].labelled + figures["held"].labelled == len(home.labels)
    assert figures["both"].labelled == len(home.labels)
    for half in ("tune", "held", "both"):
        f = figures[half]
        assert 0 <= f.candidates <= f.labelled
        assert 0 <= f.need_listed <= f.need
        assert 0 <= f.listed_wrong <= f.listed
    from memtui.core.demo.judge_home_completed import COMPLETED

    completed, _ = bench.evaluate(home, bench.items_of(home), completed=True)
    assert completed["both"].labelled == len(home.labels) + len(COMPLETED)
    assert completed["both"].listed == figures["both"].listed  # the same verdicts, more labels
    assert bench.main(["--half", "held", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"candidate_recall"' in out and "completed labels" in out and "original labels" in out
