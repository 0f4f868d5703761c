"""The judge's semantic signal (memtui/core/judge/embed.py, neighbours.py): offline, cached by
digest, imported by the judge only, and a modest check that it means something."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memtui.core.judge.embed import (
    Embedder,
    default_cache_path,
    load_model,
    text_of,
    unavailable,
)
from memtui.core.judge.items import digest
from memtui.core.judge.neighbours import nearest, semantic_candidates
from memtui.core.judge.verdicts import JudgeItem

REPO = Path(__file__).resolve().parents[3]

PARAPHRASES = [
    ("Wrap errors with errors.Wrap from github.com/pkg/errors",
     "Add context to returned errors with errors.Wrap so the cause survives"),
    ("Integration tests hit a real database, never mocks",
     "The integration suite runs against the Postgres container; the database is not mocked"),
    ("No production deploys on Fridays",
     "Releases to prod happen Monday to Thursday; Friday is a freeze day"),
    ("Python files are formatted with ruff format",
     "Format the Python code with ruff's formatter, black is no longer used"),
]
UNRELATED = [
    "Invoice numbers are per-tenant gapless sequences",
    "Dana prefers short answers without a recap",
    "The load balancer's idle timeout is 60 seconds",
    "React components are PascalCase files; hooks start with use",
]


def item(key: str, body: str, kind: str = "auto", name: str = "note") -> JudgeItem:
    return JudgeItem(key=key, kind=kind, file=key, rel_path=Path(key).name, name=name,
                     description="", body=body, mtime=0.0, digest=digest(body),
                     store_path=str(Path(key).parent))


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def test_the_model_loads_and_embeds_with_every_socket_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network is off in this test")

    for name in ("connect", "connect_ex", "sendto", "sendall", "send"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    model = load_model()  # not the process's shared model: loaded here, under the block
    embedder = Embedder(model=model)
    vectors = embedder.embed([PARAPHRASES[0][0], PARAPHRASES[0][1], UNRELATED[0]])
    assert vectors.shape == (3, 256)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])
    # and the judge's semantic candidates, then the local verdicts, with the sockets still off
    from memtui.core.judge.local import judge_pair

    items = [item(f"/s{n}/m{n}.md", text, name=f"m{n}")
             for n, text in enumerate([*PARAPHRASES[2], *UNRELATED])]
    found = semantic_candidates(items, k=1, floor=0.3, embedder=embedder)
    assert frozenset(("/s0/m0.md", "/s1/m1.md")) in {frozenset((c.a.key, c.b.key))
                                                      for c in found}
    assert all(judge_pair(c).relation for c in found)


def test_paraphrases_are_nearer_than_unrelated_memories(embedder: Embedder) -> None:
    texts = [t for pair in PARAPHRASES for t in pair] + UNRELATED
    vectors = embedder.embed(texts)
    sims = vectors @ vectors.T
    for n in range(len(PARAPHRASES)):
        a, b = 2 * n, 2 * n + 1
        others = [j for j in range(len(texts)) if j not in (a, b)]
        assert sims[a, b] > max(sims[a, j] for j in others), texts[a]


def test_vectors_are_cached_by_digest_and_read_back_without_the_model(
    embedder: Embedder, tmp_path: Path
) -> None:
    cache = tmp_path / "embeddings.npz"
    texts = [PARAPHRASES[1][0], UNRELATED[1], "", PARAPHRASES[1][0]]
    first = Embedder(cache, model=embedder.model)
    vectors = first.embed(texts)
    assert first.computed == 2  # the empty text is no text, the repeat is embedded once
    assert not vectors[2].any()
    first.save()
    again = Embedder(cache)
    assert np.array_equal(again.embed(texts), vectors)
    assert not again.model_loaded and again.computed == 0
    cache.write_bytes(b"not a cache")  # a corrupt file is no cache, not an error
    fresh = Embedder(cache, model=embedder.model)
    assert np.allclose(fresh.embed(texts), vectors, atol=1e-6)
    assert fresh.computed == 2


def test_the_cache_lives_in_memtuis_cache_dir(embedder: Embedder, tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "c")}
    path = default_cache_path(env, tmp_path)
    assert path is not None and path.parent == tmp_path / "c" / "memtui"
    assert path.name.startswith("embeddings-wordllama-")
    assert default_cache_path({"MEMTUI_NO_CACHE": "1"}, tmp_path) is None
    items = [item(f"/s{n}/m{n}.md", text, name=f"m{n}") for n, text in enumerate(UNRELATED)]
    used = Embedder.for_env(env, tmp_path)
    semantic_candidates(items, embedder=used)
    assert used.computed == len(items) and path.is_file()
    assert unavailable() is None


def test_text_of_reads_the_name_as_words() -> None:
    memory = JudgeItem(key="/m/x", kind="auto", file="/m/x", rel_path="x.md",
                       name="feedback_go-errors", description="How errors get context",
                       body="Wrap them.", mtime=0.0, digest="")
    assert text_of(memory) == "feedback go errors\nHow errors get context\nWrap them."


def test_nearest_gives_each_items_k_best_above_the_floor() -> None:
    vectors = np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    assert set(nearest(vectors, k=1, floor=0.5)) == {(0, 1), (2, 3)}
    assert nearest(vectors, k=1, floor=0.999) == {}
    assert len(nearest(vectors, k=3, floor=-1.0)) == 6


def test_semantic_candidates_find_a_paraphrase_the_lexical_index_misses(
    embedder: Embedder,
) -> None:
    from memtui.core.judge.candidates import find_candidates

    items = [item(f"/s{n % 3}/m{n}.md", text, name=f"m{n}") for n, text in
             enumerate([t for pair in PARAPHRASES for t in pair] + UNRELATED)]
    lexical = {frozenset((c.a.key, c.b.key)) for c in find_candidates(items)}
    found = semantic_candidates(items, k=1, floor=0.3, embedder=embedder)
    pairs = {frozenset((c.a.key, c.b.key)): c for c in found}
    deploys = frozenset(("/s0/m6.md", "/s1/m7.md"))
    assert deploys not in lexical
    assert deploys in pairs
    assert any(r.startswith("near meaning") for r in pairs[deploys].reasons)
    assert lexical <= set(pairs)  # fused: every lexical candidate stays


def test_the_scan_imports_no_numpy_nor_model(tmp_path: Path) -> None:
    from memtui.core.demo.judge_home import build_judge_home

    home = build_judge_home(tmp_path / "home")
    script = ("import sys\nfrom memtui.cli import main\nmain(sys.argv[1:])\n"
              "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n")
    args = ["--claude-home", str(home.ctx.claude_home), "--project", str(home.ctx.project),
            "--agent-memory-home", str(home.ctx.agent_memory_home), "scan", "--json"]
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script, *args], env=env,
                          capture_output=True, text=True, check=True)
    modules = set(done.stderr.split())
    assert "memtui.core.scan.scanner" in modules  # it did scan
    assert not {"numpy", "wordllama", "tokenizers", "safetensors",
                "memtui.core.judge.embed"} & modules


@pytest.fixture(scope="module")
def wordllama_itself() -> object:
    """wordllama's own model, loaded its way (``WordLlama.load`` from its package directory,
    no download): what :class:`~memtui.core.judge.embed.StaticModel` must give the same
    vectors as. Its import's ``logging.basicConfig`` is undone."""
    import logging

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from wordllama import WordLlama

        from memtui.core.judge.embed import DIMENSIONS, MODEL_CONFIG, package_dir

        return WordLlama.load(MODEL_CONFIG, cache_dir=package_dir(), dim=DIMENSIONS,
                              disable_download=True)
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)


TEXTS = [PARAPHRASES[0][0], "x", "Émoji 🚀 and ünïcode", "word " * 300, UNRELATED[2], "",
         "a\n\nline two\twith a tab", *[t for pair in PARAPHRASES for t in pair], *UNRELATED]


def test_the_vectors_are_wordllamas_own_to_the_bit(
    embedder: Embedder, wordllama_itself: Any
) -> None:
    """The model read from wordllama's files (its float16 table indexed, no padding) gives
    exactly what wordllama's ``embed`` gives (its table turned to float32 whole, each batch
    padded): the embedding cache's vectors stay valid, and the candidates the same."""
    reference = np.asarray(wordllama_itself.embed(TEXTS, norm=False), dtype=np.float32)
    assert np.array_equal(embedder.model.means(TEXTS), reference)
    assert np.array_equal(embedder.model.means(TEXTS, batch=False), reference)
    assert embedder.model.table.dtype == np.float16  # not turned to float32 whole


def test_a_few_texts_embedded_one_by_one_are_the_batch_vectors(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memtui.core.judge.embed as embed

    texts = TEXTS[:5]
    few = Embedder(model=embedder.model).embed(texts)  # at most FEW new texts: one by one
    monkeypatch.setattr(embed, "FEW", 0)  # every call through the tokenizer's batch
    assert np.array_equal(Embedder(model=embedder.model).embed(texts), few)


def test_a_digest_ending_in_a_zero_byte_is_read_back_from_the_cache(
    embedder: Embedder, tmp_path: Path
) -> None:
    # about one text in 256 has a sha256 ending in 0x00; numpy's S32 strips it on reading
    import hashlib

    text = next(t for t in (f"memory number {n}" for n in range(10_000))
                if hashlib.sha256(t.encode()).digest()[-1] == 0)
    cache = tmp_path / "embeddings.npz"
    first = Embedder(cache, model=embedder.model)
    vectors = first.embed([text, UNRELATED[0]])
    first.save()
    again = Embedder(cache)
    assert np.array_equal(again.embed([text, UNRELATED[0]]), vectors)
    assert again.computed == 0 and not again.model_loaded
