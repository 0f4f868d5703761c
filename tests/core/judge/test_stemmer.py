"""The verdict engine's stemmer: PyStemmer's C build when installed, the same stems as
snowballstemmer's pure-Python English stemmer (the algorithm the engine was tuned with)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from snowballstemmer.english_stemmer import EnglishStemmer

from memtui.core.demo.judge_home import build_judge_home
from memtui.core.judge.statements import _stemmer


def test_the_engine_uses_the_c_stemmer() -> None:
    # PyStemmer is a dependency: without it every stem costs ten times the CPU
    assert type(_stemmer()).__module__ == "Stemmer"


def test_its_stems_are_the_pure_python_stemmers() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = build_judge_home(Path(tmp))
        text = " ".join(p.read_text(encoding="utf-8") for p in Path(tmp).rglob("*.md"))
    words = sorted(set(re.findall(r"[a-z][a-z0-9'-]*", text.lower())))
    assert len(words) > 1_500 and home.labels
    pure = EnglishStemmer()
    fast = _stemmer()
    differ = [w for w in words if fast.stemWord(w) != pure.stemWord(w)]  # type: ignore[attr-defined]
    assert differ == []


def test_each_thread_stems_with_a_stemmer_of_its_own() -> None:
    """The word rarity is stemmed on a thread of its own while the pairs are found; the
    pure-Python stemmer snowballstemmer falls back to (no PyStemmer wheel for a platform)
    keeps each word's state in the object, so two threads must not share one."""
    import threading

    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(_stemmer()))
    thread.start()
    thread.join()
    assert seen and seen[0] is not _stemmer()
    assert _stemmer() is _stemmer()
