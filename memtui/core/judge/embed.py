"""The judge's semantic signal (issue 22, item 1): every memory embedded offline with
wordllama's static embeddings, cached by content digest in memtui's cache dir.

**The model.** ``wordllama`` (MIT) ships its ``l2_supercat`` token embeddings (256
dimensions, 16 MB of safetensors) and their tokenizer inside its wheel, so nothing is
downloaded, ever: :func:`load_model` reads those two files from the package's own directory
(``WordLlama.load(cache_dir=<the package>, disable_download=True)`` finds the same two; its
default lookup looks for the tokenizer in ``wordllama/tokenizer/`` while the wheel ships it in
``wordllama/tokenizers/``, then tries ``~/.cache/wordllama`` and at last *downloads*), and
computes what wordllama's ``embed`` computes (:class:`StaticModel`) without importing
wordllama itself or turning its whole table to float32 (a third of a second of a cold
conflicts screen, with the padding it tokenizes and averages over). A text's vector is the
mean of its tokens' vectors, normalized: paraphrases that share no word but near words
("mock" / "stub", "Postgres" / "database") come out near.

Why wordllama and not model2vec (the other family of static embeddings, also MIT): no
model2vec release ships weights in its wheel (``model2vec-0.10.0-py3-none-any.whl`` is 278 KB
of code; its models, such as ``potion-base-8M``, come from the Hugging Face hub at run time),
and memtui must never download at run time. wordllama's wheel is 19 MB with everything in it.

**Import rule.** wordllama's files are read only here (with ``tokenizers`` and
``safetensors``), numpy only here and in ``neighbours``, both
by the judge alone: ``memtui scan`` loads neither
(``tests/core/judge/test_embed.py::test_the_scan_imports_no_numpy_nor_model``).

**The cache.** One file per model in memtui's cache dir (``$XDG_CACHE_HOME/memtui``, else
``~/.cache/memtui``; none with ``MEMTUI_NO_CACHE``): the sha256 of each embedded text and its
vector, as an ``.npz`` read without pickles. A text's vector depends only on the text, so the
digest is the whole key; a corrupt or foreign file is ignored. At most :data:`MAX_ENTRIES`
vectors are kept (those of the last run first).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from memtui.core.cache import cache_dir, cache_enabled
from memtui.core.judge.verdicts import JudgeItem

if TYPE_CHECKING:
    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

MODEL_CONFIG = "l2_supercat"
DIMENSIONS = 256
MAX_TEXT_CHARS = 4_000
"""Characters of a memory's text that are embedded (a memory is meant to be short; a mean of
more tokens says less)."""
FEW = 8
"""Calls with at most this many new texts tokenize them one by one
(:meth:`StaticModel.means`)."""
MAX_ENTRIES = 50_000
STEP_TEXTS = 256
"""Texts embedded between two reports of progress (each text's vector is its own: the same
in a call of any size)."""

Progress = Callable[[str, int, int], None]
"""``progress(step, done, total)``."""


def model_id() -> str:
    """Names the model (and so the cache file): the package's version and configuration."""
    from importlib.metadata import version

    return f"wordllama-{version('wordllama')}-{MODEL_CONFIG}-{DIMENSIONS}"


WEIGHTS = f"weights/{MODEL_CONFIG}_{DIMENSIONS}.safetensors"
TOKENIZER = f"tokenizers/{MODEL_CONFIG}_tokenizer_config.json"
TENSOR = "embedding.weight"
"""The files of wordllama's wheel that make the model, under its package directory, and the
weights' tensor: where ``WordLlama.load`` finds them given that directory as ``cache_dir``."""


def package_dir() -> Path:
    """wordllama's installed package directory, found without importing it (its import
    takes a fifth of a second and sets up the root logger)."""
    spec = find_spec("wordllama")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ImportError("No module named 'wordllama'")
    return Path(locations[0]).resolve()


class StaticModel:
    """wordllama's model as its ``embed(texts, norm=False)`` computes it: each text's tokens
    (its tokenizer, no special tokens) and the mean of their rows of the token table. The
    table stays as the wheel ships it (float16, 16 MB): the rows a text names are turned to
    float32 (exactly) before their mean, where wordllama turns the whole table first (32 MB,
    a tenth of a second); the tokenizer pads nothing (wordllama pads each batch to its
    longest text and masks the padding out of a mean over the padded rows: the same sums).
    ``tests/core/judge/test_embed.py`` checks the vectors equal wordllama's own."""

    def __init__(self, table: npt.NDArray[Any], tokenizer: Any) -> None:
        self.table = table
        self.tokenizer = tokenizer
        self.ids_in_table = tokenizer.get_vocab_size(with_added_tokens=True) <= len(table)
        """Every id the tokenizer gives names a row of the table (wordllama's: 32,000 each):
        no id to clip."""

    def rows(self, ids: Sequence[int]) -> npt.NDArray[Any]:
        """The table's rows of ``ids`` (an id past the table: its last row)."""
        if self.ids_in_table:
            return self.table[ids]
        return self.table[np.clip(np.asarray(ids, dtype=np.int64), 0, len(self.table) - 1)]

    @property
    def dimensions(self) -> int:
        return int(self.table.shape[1])

    def means(self, texts: Sequence[str], *, batch: bool = True) -> Matrix:
        """The mean token vector of each text (float32; a text of no token: zeros).
        ``batch``: the tokenizer's one batch call (its threads), else a call per text (for a
        few short texts, handing work to the threads costs more than tokenizing)."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if batch and len(texts) > 1:
            encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        else:
            encodings = [self.tokenizer.encode(text, add_special_tokens=False)
                         for text in texts]
        for row, encoding in enumerate(encodings):
            ids = encoding.ids
            if ids:
                out[row] = self.rows(ids).astype(np.float32).mean(axis=0)
        return out


def load_model() -> StaticModel:
    """wordllama's model from the files inside its own package (never a download: a missing
    file raises ``FileNotFoundError``, one that cannot be read ``ValueError``)."""
    package = package_dir()
    weights, tokenizer_file = package / WEIGHTS, package / TOKENIZER
    for path in (weights, tokenizer_file):
        if not path.is_file():
            raise FileNotFoundError(f"wordllama's {path.name} is not in {package}")
    from safetensors import safe_open
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        with safe_open(str(weights), framework="np", device="cpu") as handle:
            table = handle.get_tensor(TENSOR)
    except OSError:
        raise
    except Exception as err:  # the tokenizers and safetensors errors are plain Exceptions
        raise ValueError(f"wordllama's files cannot be read: {err}") from err
    tokenizer.no_padding()
    tokenizer.no_truncation()
    if table.ndim != 2 or table.shape[1] != DIMENSIONS:
        raise ValueError(f"wordllama's {weights.name} is not {DIMENSIONS} wide: {table.shape}")
    return StaticModel(table, tokenizer)


@lru_cache(maxsize=1)
def shared_model() -> StaticModel:
    """One model per process."""
    return load_model()


def text_of(item: JudgeItem) -> str:
    """What is embedded: the item's name, description and body (a CLAUDE.md paragraph: its
    text), names' ``-`` and ``_`` read as spaces, at most :data:`MAX_TEXT_CHARS`."""
    if item.kind == "claude-md":
        return item.body[:MAX_TEXT_CHARS]
    name = item.name.removesuffix(".md").replace("_", " ").replace("-", " ")
    parts = (name, item.description, item.body)
    return "\n".join(part for part in parts if part)[:MAX_TEXT_CHARS]


def tokenizable(text: str) -> str:
    """``text`` as the tokenizer takes it: a lone surrogate (an undecodable byte of a file
    name, kept as ``surrogateescape`` does) becomes U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def default_cache_path(env: Mapping[str, str], home: Path) -> Path | None:
    """The embedding cache file for this model, or None when caching is off."""
    if not cache_enabled(env):
        return None
    return cache_dir(env, home) / f"embeddings-{model_id()}.npz"


def unavailable() -> str | None:
    """Why the model cannot be loaded here (wordllama missing, its bundled files gone), or
    None when it can: what a caller falls back to lexical candidates on."""
    try:
        shared_model()
    except (ImportError, OSError, ValueError) as err:
        return f"the semantic signal is unavailable: {type(err).__name__}: {err}"
    return None


class Embedder:
    """Embeds texts in batches, each text once: from the cache when its digest is there, else
    with the model (loaded on first need). :meth:`save` writes the cache back."""

    @classmethod
    def for_env(cls, env: Mapping[str, str], home: Path) -> Embedder:
        """An embedder with the cache file of :func:`default_cache_path` (none when caching
        is off)."""
        return cls(default_cache_path(env, home))

    def __init__(self, cache_path: Path | None = None, model: StaticModel | None = None,
                 remember: bool = True) -> None:
        self.cache_path = cache_path
        self.remember = remember
        """Keep each text's vector for later calls (and :meth:`save`); a caller that keeps
        them itself (:class:`~memtui.core.judge.engine.Vectors`) says False: one copy."""
        self._model = model
        self._cache: dict[bytes, Matrix] | None = None
        self._used: dict[bytes, Matrix] = {}
        self.computed = 0
        """Texts embedded with the model (not from the cache) by this embedder."""

    @property
    def model_loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self) -> StaticModel:
        if self._model is None:
            self._model = shared_model()
        return self._model

    def _load_cache(self) -> dict[bytes, Matrix]:
        if self._cache is not None:
            return self._cache
        self._cache = {}
        if self.cache_path is None:
            return self._cache
        try:
            with np.load(self.cache_path, allow_pickle=False) as data:
                digests, vectors = data["digests"], data["vectors"]
        except (OSError, ValueError, KeyError):
            return self._cache
        if (
            digests.dtype != np.dtype("S32")
            or vectors.dtype != np.float32
            or vectors.ndim != 2
            or vectors.shape != (len(digests), DIMENSIONS)
        ):
            return self._cache
        # numpy's S32 drops a digest's trailing zero bytes on the way out: put them back
        self._cache = {d.ljust(32, b"\0"): vectors[i]
                       for i, d in enumerate(digests.tolist())}
        return self._cache

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        """One unit vector (float32, :data:`DIMENSIONS`) per text, in order; an empty text is
        the zero vector (near nothing). ``progress`` hears of the model's loading and of the
        texts embedded with it, :data:`STEP_TEXTS` at a time."""
        texts = [tokenizable(text) for text in texts]
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        cache = self._load_cache()
        todo: dict[bytes, list[int]] = {}
        for i, text in enumerate(texts):
            if not text.strip():
                continue
            key = text_digest(text)
            known = self._used.get(key)
            if known is None:
                known = cache.get(key)
            if known is not None:
                out[i] = known
                if self.remember:
                    self._used[key] = known
            else:
                todo.setdefault(key, []).append(i)
        if todo:
            keys = list(todo)
            keys.sort(key=lambda k: len(texts[todo[k][0]]))
            chosen = [texts[todo[k][0]] for k in keys]
            if progress is not None and self._model is None:
                progress("loading the embedding model", 0, 1)
                _ = self.model
            if len(chosen) <= FEW:
                fresh = self.model.means(chosen, batch=False)
            else:
                fresh = np.empty((len(chosen), DIMENSIONS), dtype=np.float32)
                for start in range(0, len(chosen), STEP_TEXTS):
                    if progress is not None:
                        progress("embedding memories", start, len(chosen))
                    part = chosen[start : start + STEP_TEXTS]
                    fresh[start : start + len(part)] = self.model.means(part)
                if progress is not None:
                    progress("embedding memories", len(chosen), len(chosen))
            norms = np.linalg.norm(fresh, axis=1, keepdims=True)
            fresh = np.divide(fresh, norms, out=np.zeros_like(fresh), where=norms > 0)
            for key, vector in zip(keys, fresh, strict=True):
                if self.remember:
                    self._used[key] = vector
                for i in todo[key]:
                    out[i] = vector
            self.computed += len(keys)
        return out

    def embed_items(self, items: Sequence[JudgeItem], progress: Progress | None = None) -> Matrix:
        return self.embed([text_of(item) for item in items], progress)

    def save(self) -> None:
        """Write the cache: this run's vectors, then older ones up to :data:`MAX_ENTRIES`
        (atomically; a failure leaves the old file)."""
        if self.cache_path is None or not self.computed:
            return
        merged = dict(self._used)
        for key, vector in self._load_cache().items():
            if len(merged) >= MAX_ENTRIES:
                break
            merged.setdefault(key, vector)
        digests = np.array(list(merged), dtype="S32")
        vectors = (np.stack(list(merged.values())) if merged
                   else np.zeros((0, DIMENSIONS), dtype=np.float32))
        path = self.cache_path
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with open(tmp, "wb") as handle:
                np.savez(handle, digests=digests, vectors=vectors.astype(np.float32))
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()


def cosine(a: Matrix, b: Matrix) -> float:
    """The cosine of two unit vectors (0 when either is zero)."""
    return float(np.dot(a, b))
