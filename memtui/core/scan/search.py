"""Full-text search over a scan: every memory's name, path, description, index hooks and body.

The index reads each memory once (:func:`build_search_index`, meant for a worker thread) and keeps
lower-cased copies of every field so that a query is pure in-memory substring tests: a keystroke
over 20,000 memories stays well under 50 ms (``bench/bench_search.py`` measures it).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

from memtui.core.contents import Memory, ScanResult, Store
from memtui.core.fileread import HUGE_FILE_BYTES
from memtui.core.parse.link_targets import is_external_target, resolve_target
from memtui.core.scan.scanner import load_full_text
from memtui.core.scan.store_index import INDEX_NAME

SearchField = Literal["name", "path", "description", "hook", "body"]

FIELDS: tuple[SearchField, ...] = ("name", "path", "description", "hook", "body")
"""Every searched field, best rank first."""

WEIGHTS: tuple[int, ...] = (8, 8, 4, 2, 1)
"""What a term found in each field of :data:`FIELDS` adds to a hit's score."""

SNIPPET_CHARS = 100
SNIPPET_LEAD = 30
"""Characters of context kept before the first match in a snippet."""
PROGRESS_EVERY = 64
BINARY_PROBLEM = "binary file"


@dataclass
class SearchDoc:
    """One searchable memory: its fields as one-line text (original case)."""

    store: Store
    memory: Memory | None
    name: str
    path: str
    description: str
    hook: str
    body: str
    mtime: float
    line_starts: array[int] = field(default_factory=lambda: array("I"))
    """Where each non-blank line of the file begins in ``body`` (its words joined by one space,
    lines too)..."""
    line_numbers: array[int] = field(default_factory=lambda: array("I"))
    """... and that line's 1-based number in the file."""

    def body_line(self, position: int) -> tuple[int, str, int] | None:
        """The file line holding ``body[position]``: its number, its text (as one line) and
        where that text starts in ``body``; None when the body has no lines."""
        at = bisect_right(self.line_starts, position) - 1
        if at < 0:
            return None
        start = self.line_starts[at]
        end = self.line_starts[at + 1] - 1 if at + 1 < len(self.line_starts) else len(self.body)
        return self.line_numbers[at], self.body[start:end], start

    def field_text(self, name: SearchField) -> str:
        return {
            "name": self.name,
            "path": self.path,
            "description": self.description,
            "hook": self.hook,
            "body": self.body,
        }[name]


@dataclass(frozen=True)
class SearchHit:
    """A memory that matches every term; ``spans`` are match positions inside ``snippet``.

    ``line`` is the 1-based line of the file holding the first match in its body (None: no
    term is in the body), ``line_snippet`` / ``line_spans`` that line's text around the match
    (a body hit's ``snippet`` is that same text)."""

    store: Store
    memory: Memory | None
    field: SearchField
    snippet: str
    spans: list[tuple[int, int]]
    score: float
    line: int | None = None
    line_snippet: str = ""
    line_spans: tuple[tuple[int, int], ...] = ()


@dataclass
class _LastQuery:
    terms: tuple[str, ...] = ()
    matches: list[int] = field(default_factory=list)


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) turned into one space."""
    return " ".join(text.split())


def fold(text: str) -> str:
    """Lower-case ``text`` without changing its length, so positions carry over."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)


def query_terms(text: str) -> tuple[str, ...]:
    """The distinct lower-cased whitespace-separated terms of a query, longest first."""
    terms = dict.fromkeys(fold(term) for term in text.split())
    return tuple(sorted(terms, key=len, reverse=True))


class SearchIndex:
    """Lower-cased copies of every document's fields, newest document first."""

    def __init__(self, docs: Iterable[SearchDoc], *, complete: bool = True) -> None:
        self.docs = sorted(docs, key=lambda d: d.mtime, reverse=True)
        self.complete = complete
        self._columns = [[fold(doc.field_text(name)) for doc in self.docs] for name in FIELDS]
        self._last = _LastQuery()

    def __len__(self) -> int:
        return len(self.docs)

    def clear_cache(self) -> None:
        """Forget the last query, so the next one searches every document."""
        self._last = _LastQuery()

    def query(self, text: str, limit: int = 200) -> list[SearchHit]:
        """Documents holding every term of ``text``, best field first, then newest first."""
        terms = query_terms(text)
        if not terms or limit <= 0:
            return []
        matches, scores = self._match(terms, self._candidates(terms))
        self._last = _LastQuery(terms, matches)
        order = sorted(range(len(matches)), key=scores.__getitem__, reverse=True)[:limit]
        return [self._hit(matches[n], terms, scores[n]) for n in order]

    def _candidates(self, terms: tuple[str, ...]) -> list[int]:
        """Every document, or only last query's matches when this query can only narrow it."""
        last = self._last
        if last.terms and all(any(old in new for new in terms) for old in last.terms):
            return last.matches
        return list(range(len(self.docs)))

    def _match(self, terms: tuple[str, ...], candidates: list[int]) -> tuple[list[int], list[int]]:
        """The candidates holding every term (order kept) and their scores: per term, the
        weight of the best field it is found in. Each term only looks at the survivors."""
        docs, scores = candidates, [0] * len(candidates)
        name, path, desc, hook, body = self._columns
        for term in terms:
            weights = [
                8 if term in name[i] or term in path[i]
                else 4 if term in desc[i]
                else 2 if term in hook[i]
                else 1 if term in body[i]
                else 0
                for i in docs
            ]  # fmt: skip
            scores = [s + w for s, w in zip(scores, weights, strict=True) if w]
            docs = [i for i, w in zip(docs, weights, strict=True) if w]
        return docs, scores

    def _hit(self, index: int, terms: tuple[str, ...], score: int) -> SearchHit:
        doc = self.docs[index]
        line, line_snippet, line_spans = self._body_line(index, terms)
        for column, name in zip(self._columns, FIELDS, strict=True):
            lowered = column[index]
            if any(term in lowered for term in terms):
                if name == "body" and line is not None:
                    snippet, spans = line_snippet, line_spans
                else:
                    snippet, spans = make_snippet(doc.field_text(name), lowered, terms)
                return SearchHit(doc.store, doc.memory, name, snippet, spans, float(score),
                                 line, line_snippet, tuple(line_spans))
        return SearchHit(doc.store, doc.memory, "path", doc.path, [], float(score))

    def _body_line(
        self, index: int, terms: tuple[str, ...]
    ) -> tuple[int | None, str, list[tuple[int, int]]]:
        """The file line of the first body match (of the most specific term found), with a
        snippet of that line around it."""
        doc = self.docs[index]
        lowered = self._columns[FIELDS.index("body")][index]
        first = next((p for p in (lowered.find(term) for term in terms) if p >= 0), -1)
        found = doc.body_line(first) if first >= 0 else None
        if found is None:
            return None, "", []
        number, text, start = found
        snippet, spans = make_snippet(text, lowered[start : start + len(text)], terms)
        return number, snippet, spans


def make_snippet(
    text: str, lowered: str, terms: tuple[str, ...], width: int = SNIPPET_CHARS
) -> tuple[str, list[tuple[int, int]]]:
    """About ``width`` characters of ``text`` around the first match of the first term found
    (terms come longest first: the most specific one), and every match inside it."""
    first = next((p for p in (lowered.find(term) for term in terms) if p >= 0), 0)
    start = 0 if len(text) <= width else max(0, min(first - SNIPPET_LEAD, len(text) - width))
    if start > 0:
        space = text.find(" ", start, first)
        start = space + 1 if space >= 0 else start
    end = min(len(text), start + width)
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    spans = match_spans(lowered[start:end], terms, offset=len(prefix))
    return prefix + text[start:end] + suffix, spans


def match_spans(lowered: str, terms: Iterable[str], offset: int = 0) -> list[tuple[int, int]]:
    """Every occurrence of every term in ``lowered``, merged where they overlap, sorted."""
    found: list[tuple[int, int]] = []
    for term in terms:
        at = lowered.find(term)
        while at >= 0:
            found.append((at + offset, at + offset + len(term)))
            at = lowered.find(term, at + len(term))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


# --------------------------------------------------------------------------- building


def hooks_by_target(store: Store) -> dict[str, list[str]]:
    """``Title — hook`` of each MEMORY.md entry, keyed by the store file it points to.

    Entries whose target is no file of the store are keyed on ``MEMORY.md`` itself.
    """
    report = store.index
    if report is None:
        return {}
    files = {m.rel_path for m in store.memories}
    out: dict[str, list[str]] = {}
    for entry in report.entries:
        text = " — ".join(part for part in (entry.title, entry.hook) if part)
        if not text:
            continue
        target = entry_file(entry.target, files)
        out.setdefault(target or INDEX_NAME, []).append(text)
    return out


def entry_file(target: str | None, files: set[str]) -> str | None:
    """The store file an index link points to, if any."""
    if not target or is_external_target(target):
        return None
    for candidate in (target, unquote(target)):
        resolved = resolve_target(candidate)
        if resolved in files:
            return resolved
    return None


@dataclass
class Body:
    """A memory's body as one line of words, and where each file line begins in it."""

    text: str = ""
    line_starts: array[int] = field(default_factory=lambda: array("I"))
    line_numbers: array[int] = field(default_factory=lambda: array("I"))


def memory_body(memory: Memory, store_root: Path) -> Body:
    """The body of ``memory`` as one line (empty when it is binary, huge or unreadable), with
    the file line each of its parts comes from."""
    if memory.size > HUGE_FILE_BYTES or any(BINARY_PROBLEM in p for p in memory.problems):
        return Body()
    try:
        text, problems = load_full_text(memory, store_root)
    except (OSError, ValueError):
        return Body()
    if any(BINARY_PROBLEM in p or p.startswith("cannot read") for p in problems):
        return Body()
    text = text.lstrip("\ufeff").replace("\r", "")
    fm = memory.frontmatter
    skip = fm.end if fm.present else 0
    body = text[skip:]
    if memory.secrets:  # found by the scan: the results show them masked, never themselves
        from memtui.core.secrets.redact import masked_text

        body = masked_text(body, path=memory.rel_path)
    return body_lines(body, text.count("\n", 0, skip) + 1)


def body_lines(text: str, first_line: int = 1) -> Body:
    """``text`` as one line (``one_line``: every run of whitespace one space), and where each
    of its non-blank lines (numbered from ``first_line``) begins in it."""
    starts: array[int] = array("I")
    numbers: array[int] = array("I")
    parts: list[str] = []
    position = 0
    for number, raw in enumerate(text.split("\n"), start=first_line):
        words = raw.split()
        if not words:
            continue
        if parts:
            position += 1  # the space joining it to the line before
        part = " ".join(words)
        starts.append(position)
        numbers.append(number)
        parts.append(part)
        position += len(part)
    return Body(" ".join(parts), starts, numbers)


def memory_doc(store: Store, memory: Memory, hooks: list[str]) -> SearchDoc:
    body = memory_body(memory, store.path)
    return SearchDoc(
        store=store,
        memory=memory,
        name=one_line(memory.name or ""),
        path=memory.rel_path,
        description=one_line(memory.description or ""),
        hook=" · ".join(one_line(h) for h in hooks),
        body=body.text,
        mtime=memory.mtime,
        line_starts=body.line_starts,
        line_numbers=body.line_numbers,
    )


def build_search_index(
    result: ScanResult,
    *,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SearchIndex:
    """Read every memory of ``result`` in full and index it.

    ``progress(done, total)`` is called every few memories and once at the end. When
    ``cancelled()`` turns true the index built so far is returned with ``complete=False``.
    """
    pairs = [(store, memory) for store in result.stores for memory in store.memories]
    total = len(pairs)
    hooks = {id(store): hooks_by_target(store) for store in result.stores}
    docs: list[SearchDoc] = []
    for done, (store, memory) in enumerate(pairs):
        if cancelled is not None and cancelled():
            return SearchIndex(docs, complete=False)
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, total)
        docs.append(memory_doc(store, memory, hooks[id(store)].get(memory.rel_path, [])))
    if progress is not None:
        progress(total, total)
    return SearchIndex(docs)
