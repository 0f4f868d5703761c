"""Finding secrets in a memory's text, the way gitleaks finds them with its rules
(docs/claude-code-rules.md#secrets-in-memory).

For each rule whose keywords occur in the lower-cased text: every match of its pattern (trimmed
of newlines) gives a secret, the match's first non-empty group (or the match itself); the
finding is dropped when the secret's Shannon entropy is at or below the rule's threshold, when
one of the rule's allowlists allows it, or when its line holds ``gitleaks:allow``. Findings keep
the secret's span so that :mod:`memtui.core.secrets.redact` can replace it; what is ever shown is
:attr:`SecretFinding.masked`.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial

from memtui.core.secrets.keywords import WordFinder
from memtui.core.secrets.rules import RuleAllowlist, SecretRule, load_rules

ALLOW_SIGNATURE = "gitleaks:allow"
PRIVATE_KEY = "private-key"
_PEM_HEADER = re.compile(r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----", re.ASCII)
_PEM_FOOTER = re.compile(r"(?i)KEY(?: BLOCK)?-----", re.ASCII)
_PEM_MIN_BODY = 64


@dataclass(frozen=True)
class SecretFinding:
    """One secret: its rule, the 1-based line (and column) where its match starts, and the
    secret's span in the text. Never print :meth:`secret`; show :attr:`masked`."""

    rule: str
    line: int
    column: int
    start: int
    end: int
    masked: str

    def secret(self, text: str) -> str:
        return text[self.start : self.end]


def shannon_entropy(data: str) -> float:
    """gitleaks' ``shannonEntropy``: counts per character over the UTF-8 length in bytes."""
    if not data:
        return 0.0
    inverse = 1.0 / len(data.encode("utf-8", "surrogatepass"))
    entropy = 0.0
    for count in Counter(data).values():
        frequency = count * inverse
        entropy -= frequency * math.log2(frequency)
    return entropy


def mask(secret: str, rule: str) -> str:
    """A hint of a secret that never shows it: the first four and the last four characters of
    a long one (``ghp_…9abc``), the header of a private key, two characters of a short one."""
    if rule == PRIVATE_KEY:
        header = _PEM_HEADER.match(secret)
        return (header.group(0) if header else "-----BEGIN") + "…"
    if len(secret) >= 20:
        return f"{secret[:4]}…{secret[-4:]}"
    return f"{secret[:2]}…"


def _matches(rule: SecretRule, text: str) -> Iterator[tuple[int, int, int, int]]:
    """(match start, match end, secret start, secret end) of each match, in order."""
    if rule.id == PRIVATE_KEY:
        yield from _private_keys(text)
        return
    for match in rule.pattern.finditer(text):
        start, end = match.span()
        while start < end and text[start] == "\n":  # strings.Trim(match, "\n")
            start += 1
        while end > start and text[end - 1] == "\n":
            end -= 1
        secret = (start, end)
        for group in range(1, (match.re.groups or 0) + 1):
            g_start, g_end = match.span(group)
            if g_start >= 0 and g_end > g_start:
                secret = (max(g_start, start), min(g_end, end))
                break
        yield start, end, secret[0], secret[1]


def _private_keys(text: str) -> Iterator[tuple[int, int, int, int]]:
    """The private-key rule without backtracking: a header, then the first footer that starts at
    least 64 characters after it (the lazy ``[\\s\\S-]{64,}?``), matches never overlapping."""
    footers = [(m.start(), m.end()) for m in _PEM_FOOTER.finditer(text)]
    starts = [f[0] for f in footers]
    position = 0
    while (header := _PEM_HEADER.search(text, position)) is not None:
        index = bisect_left(starts, header.end() + _PEM_MIN_BODY)
        if index == len(footers):
            return
        end = footers[index][1]
        yield header.start(), end, header.start(), end
        position = end


def _allowed(
    allowlist: RuleAllowlist, path: str, secret: str, match: str, line: Callable[[], str]
) -> bool:
    """gitleaks' ``checkFindingAllowed`` for one allowlist (``line`` is sliced only when the
    allowlist looks at the line: a long line is not copied once per finding)."""
    if allowlist.target == "line":
        target = line()
    else:
        target = match if allowlist.target == "match" else secret
    regex = bool(target) and any(p.search(target) for p in allowlist.regexes)
    lowered = secret.lower()
    stopword = bool(secret) and any(w in lowered for w in allowlist.stopwords)
    if allowlist.condition == "AND":
        checks = []
        if allowlist.paths:
            checks.append(bool(path) and any(p.search(path) for p in allowlist.paths))
        if allowlist.regexes:
            checks.append(regex)
        if allowlist.stopwords:
            checks.append(stopword)
        return all(checks)
    return regex or stopword


def _path_allowed(rule: SecretRule, path: str) -> bool:
    """A rule allowlist of paths alone skips the whole file (gitleaks checks it first)."""
    return bool(path) and any(
        a.condition == "OR" and a.paths and any(p.search(path) for p in a.paths)
        for a in rule.allowlists
    )


class _Lines:
    """Line numbers of offsets, and which lines carry ``gitleaks:allow``: each found once, so
    that thousands of findings on one long line cost no more than one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.allowed = {self.index(m.start()) for m in re.finditer(ALLOW_SIGNATURE, text)}

    def index(self, offset: int) -> int:
        return bisect_left(self.starts, offset + 1) - 1

    def column(self, offset: int) -> int:
        return offset - self.starts[self.index(offset)] + 1

    def marked_allowed(self, start: int, end: int) -> bool:
        """A line of ``start:end`` holds the signature (gitleaks checks ``finding.Line``)."""
        if not self.allowed:
            return False
        first, last = self.index(start), self.index(max(start, end - 1))
        return any(i in self.allowed for i in range(first, last + 1))

    def text_of(self, start: int, end: int) -> str:
        first, last = self.index(start), self.index(max(start, end - 1))
        stop = self.starts[last + 1] - 1 if last + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[first] : stop]


DEDUPE_FROM = 32 * 1024
"""A text this long is searched for keywords once per distinct line (a pasted log repeats its
lines by the thousand; no keyword holds a newline, so the same keywords are found)."""


class _Keywords:
    """Which rules' keywords occur in a text (gitleaks' Aho-Corasick prefilter, here
    :class:`~memtui.core.secrets.keywords.WordFinder`). ``candidates`` gives the rules to run
    on a text: those without keywords and those whose keywords it holds, in rule order."""

    def __init__(self, rules: tuple[SecretRule, ...]) -> None:
        words = sorted({k for rule in rules for k in rule.keywords if k})
        self.finder = WordFinder(words)
        self.dedupe = not any("\n" in w for w in words)
        self.rules = rules
        self.always = tuple(i for i, rule in enumerate(rules) if not rule.keywords)
        by_word: dict[str, list[int]] = {}
        for i, rule in enumerate(rules):
            for word in rule.keywords:
                if word:
                    by_word.setdefault(word, []).append(i)
        self.by_word = {word: tuple(indexes) for word, indexes in by_word.items()}

    def keyword_text(self, text: str) -> str:
        """What the keywords are looked for in: ``text`` lowered, a long one once per distinct
        line, lowered after (a 3 MB pasted log of five lines is not lowered whole): no keyword
        holds a newline, and lowering a line does not depend on the lines around it (a newline
        is neither cased nor case-ignorable, so Greek final sigma stops there)."""
        if self.dedupe and len(text) >= DEDUPE_FROM:
            text = "\n".join(dict.fromkeys(text.split("\n")))
        return text.lower()

    def present(self, lowered: str) -> frozenset[str]:
        """The keywords in ``lowered`` (a :meth:`keyword_text`)."""
        return frozenset(self.finder.present(lowered))

    def candidates(self, lowered: str) -> list[SecretRule]:
        present = self.present(lowered)
        if not present:
            return [self.rules[i] for i in self.always]
        indexes = set(self.always)
        for word in present:
            indexes.update(self.by_word[word])
        return [self.rules[i] for i in sorted(indexes)]


@cache
def _default_keywords() -> _Keywords:
    return _Keywords(load_rules())


def find_secrets(
    text: str,
    *,
    path: str = "",
    rules: tuple[SecretRule, ...] | None = None,
    allow_signature: bool = True,
) -> list[SecretFinding]:
    """Every secret of ``text`` (the whole file), in order of position; ``path`` (posix, as
    the store names it) for the rules' path allowlists. ``allow_signature=False``: a line's
    ``gitleaks:allow`` allows nothing (output masking, where one line may join many values)."""
    lines: _Lines | None = None
    found: list[SecretFinding] = []
    keywords = _default_keywords() if rules is None else _Keywords(rules)
    for rule in keywords.candidates(keywords.keyword_text(text)):
        if _path_allowed(rule, path):
            continue
        for start, end, s_start, s_end in _matches(rule, text):
            secret = text[s_start:s_end]
            if rule.entropy is not None and shannon_entropy(secret) <= rule.entropy:
                continue
            lines = lines or _Lines(text)
            if allow_signature and lines.marked_allowed(start, end):
                continue
            if rule.allowlists and any(
                _allowed(a, path, secret, text[start:end], partial(lines.text_of, start, end))
                for a in rule.allowlists
            ):
                continue
            found.append(SecretFinding(rule.id, lines.index(start) + 1, lines.column(start),
                                       s_start, s_end, mask(secret, rule.id)))
    found.sort(key=lambda f: (f.start, f.rule))
    return found
