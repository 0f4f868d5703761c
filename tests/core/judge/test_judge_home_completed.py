"""The judge home's completed labels (memtui/core/demo/judge_home_completed.py): labels for pairs
across two of the home's labelled pairs, written blind after the fact; each names memories of
the home, never a pair the home labels already, and the module is what the labels in
bench/judge_labels make of it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from memtui.core.demo import judge_home_completed
from memtui.core.demo.judge_home import RELATIONS, build_judge_home
from memtui.core.demo.judge_home_completed import COMPLETED, completed_labels

LABELS = Path(__file__).resolve().parents[3] / "bench" / "judge_labels"


def test_every_completed_label_names_two_memories_of_the_home(tmp_path: Path) -> None:
    home = build_judge_home(tmp_path)
    labels = completed_labels(home)
    assert len(labels) == len(COMPLETED) > 0
    original = {label.key for label in home.labels}
    seen = set()
    for (relation, a, b, newer), label in zip(COMPLETED, labels, strict=True):
        assert relation in RELATIONS
        assert a != b
        assert label.key not in original, (a, b)  # only pairs the home leaves unlabelled
        assert label.key not in seen, (a, b)
        seen.add(label.key)
        assert (newer is not None) == (relation == "supersedes")
        assert label.half in ("tune", "held")
        for where in (label.a, label.b):
            assert Path(where.file).is_file()


def test_the_module_is_what_the_readers_labels_make(tmp_path: Path, monkeypatch) -> None:
    """``merge.py`` writes the module from the JSON; written again into a temp copy it is the
    same byte for byte (no label edited by hand)."""
    spec = importlib.util.spec_from_file_location("judge_labels_merge", LABELS / "merge.py")
    assert spec is not None and spec.loader is not None
    merge = importlib.util.module_from_spec(spec)
    sys.modules["judge_labels_merge"] = merge
    spec.loader.exec_module(merge)
    out = tmp_path / "completed.py"
    monkeypatch.setattr(merge, "OUT", out)
    assert merge.main() == 0
    assert out.read_bytes() == Path(judge_home_completed.__file__).read_bytes()


def test_the_readers_saw_no_verdict() -> None:
    """What the readers were given holds the memories and nothing the judge said."""
    for name in ("pairs.json", "chunk-a.json", "chunk-b.json"):
        for pair in json.loads((LABELS / name).read_text(encoding="utf-8")):
            assert set(pair) == {"id", "a", "b"}
            for side in (pair["a"], pair["b"]):
                assert set(side) == {"store", "file", "description", "body", "days_ago"}
