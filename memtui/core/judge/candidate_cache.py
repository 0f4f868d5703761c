"""The last run's candidate pairs, kept in memtui's cache dir (``judge/candidates.json``), so
a second ``memtui judge`` or ``J`` on memories that did not change pairs nothing again.

Finding the candidates (:func:`memtui.core.judge.finder.judge_candidates`: the embeddings'
nearest neighbours fused with the lexical index) takes seconds at a thousand memories (1.6 s of
the 4 s a warm conflicts screen took to show its first row) and depends only on what
:func:`fingerprint` covers of each item. So:

* when every item's fingerprint equals the cached one (no memory added, removed or changed),
  the cached pairs ARE the finder's answer: :meth:`CandidateCache.complete` gives them;
* otherwise :meth:`CandidateCache.known` gives the cached pairs whose two sides did not
  change: what the conflicts screen shows while the finder runs again (the list is replaced
  by the finder's when it is done).

The file is memtui's own: read with a size cap, any problem in it is an empty cache (it is
written again by the next run), written whole and atomically. ``MEMTUI_NO_CACHE=1`` turns it
off. :data:`VERSION` names the finder's rules: change it with them (a test pins the
finder's sources against it)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from memtui.core.cache import cache_dir, cache_enabled
from memtui.core.judge.cache_file import read_json, write_json
from memtui.core.judge.verdicts import Candidate, JudgeItem

VERSION = 5  # 5: wordllama's files read as its embed reads them; copies past 20 in a star,
#               each memory's 64 best similar-text pairs
"""The finder's rules this cache was made by (K, the floors, the fusion, the lexical index);
``tests/core/judge/test_candidate_cache.py`` fails when their sources change without it."""
CACHE_FILE = "judge/candidates.json"
CACHE_CAP = 256 * 1024 * 1024
"""The largest file read (82,000 pairs of a 10,000-memory home take about 15 MB)."""


def fingerprint(item: JudgeItem) -> str:
    """What the finder reads of ``item``: where it is, its kind, names and content (not its
    dates: no candidate depends on them; the verdicts read them from the items given)."""
    parts = (item.key, item.kind, item.file, item.rel_path, item.name, item.digest,
             item.scope or "", item.agent or "", item.type or "", str(item.line or ""),
             item.store_path)
    joined = "\0".join(parts).encode("utf-8", "surrogatepass")
    return hashlib.sha256(joined).hexdigest()[:20]


def finder_id(semantic: bool) -> str:
    """The finder that made the pairs: its rules and, for the semantic one, the model."""
    if not semantic:
        return f"lexical-v{VERSION}"
    try:
        model = version("wordllama")
    except PackageNotFoundError:
        model = "none"
    return f"semantic-v{VERSION}-wordllama-{model}"


def default_path(env: Mapping[str, str], home: Path) -> Path | None:
    """The cache file, or None when caching is off."""
    return cache_dir(env, home) / CACHE_FILE if cache_enabled(env) else None


@dataclass
class CandidateCache:
    path: Path | None
    finder: str = ""
    items: dict[str, str] = field(default_factory=dict)
    """Each item's key → its :func:`fingerprint`, as the pairs were found."""
    pairs: list[tuple[str, str, float, tuple[str, ...]]] = field(default_factory=list)
    """``(a key, b key, score, reasons)``, best first."""
    notes: list[str] = field(default_factory=list)
    """What the finder said (the lexical candidates alone, and why)."""

    @classmethod
    def load(cls, path: Path | None) -> CandidateCache:
        """The cache at ``path``; missing, unreadable or broken: an empty one."""
        cache = cls(path)
        data = read_json(path, CACHE_CAP)
        if data is None:
            return cache
        try:
            finder, items, pairs = data["finder"], data["items"], data["pairs"]
            notes = data.get("notes", [])
            if not (isinstance(finder, str) and isinstance(items, dict)
                    and isinstance(pairs, list) and isinstance(notes, list)):
                raise ValueError("not a candidates cache")
            cache.items = {str(k): str(v) for k, v in items.items()}
            cache.pairs = [(str(a), str(b), float(score), tuple(str(r) for r in reasons))
                           for a, b, score, reasons in pairs]
            cache.notes = [str(n) for n in notes]
            cache.finder = finder
        except (ValueError, TypeError, KeyError, RecursionError):
            return cls(path)
        return cache

    def complete(self, items: Sequence[JudgeItem], finder: str) -> list[Candidate] | None:
        """The finder's pairs of ``items`` when nothing it reads changed since they were
        found (by ``finder``), else None."""
        if finder != self.finder or len(items) != len(self.items):
            return None
        if any(self.items.get(item.key) != fingerprint(item) for item in items):
            return None
        return self._candidates({item.key: item for item in items})

    def known(self, items: Sequence[JudgeItem]) -> list[Candidate]:
        """The cached pairs whose two sides are among ``items`` unchanged, best first."""
        by_key = {item.key: item for item in items
                  if self.items.get(item.key) == fingerprint(item)}
        return self._candidates(by_key)

    def _candidates(self, by_key: Mapping[str, JudgeItem]) -> list[Candidate]:
        out = []
        for a, b, score, reasons in self.pairs:
            side_a, side_b = by_key.get(a), by_key.get(b)
            if side_a is not None and side_b is not None:
                out.append(Candidate(side_a, side_b, score, reasons))
        return out

    def store(self, items: Sequence[JudgeItem], candidates: Sequence[Candidate], finder: str,
              notes: Sequence[str] = ()) -> None:
        """Keep ``candidates``, found by ``finder`` for ``items``, and write the file
        (atomically; a failure leaves the old one: it is only a cache)."""
        self.finder = finder
        self.items = {item.key: fingerprint(item) for item in items}
        self.pairs = [(c.a.key, c.b.key, c.score, c.reasons) for c in candidates]
        self.notes = list(notes)
        if self.path is None:
            return
        data = {"finder": self.finder, "items": self.items, "notes": self.notes,
                "pairs": [[a, b, score, list(reasons)] for a, b, score, reasons in self.pairs]}
        write_json(self.path, data)
