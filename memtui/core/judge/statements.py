"""A memory taken apart for the verdict engine (issue 22, item 4): its statements (sentences,
clauses after ``;``, list items), each with its stemmed content words, the numbers it gives,
the words it negates and the conditions it names.

Everything here is bounded, whatever the file holds (issue 25: two memories of ``Fact k. ``
× 1000 took 53 s): at most :data:`MAX_STATEMENTS` statements of at most
:data:`MAX_STATEMENT_WORDS` words each, from the first :data:`MAX_TEXT_CHARS` characters.
Stemming is Snowball's English stemmer (``snowballstemmer``, which runs PyStemmer's C build
of the same algorithm when it is installed), so "mocks", "mocked" and "mock" are one word to
the engine.
"""

from __future__ import annotations

import contextlib
import re
import threading
from dataclasses import dataclass, replace
from functools import lru_cache

from memtui.core.judge.candidates import STOPWORDS
from memtui.core.judge.items import CLAUDE_MD, words
from memtui.core.judge.verdicts import JudgeItem

MAX_TEXT_CHARS = 4_000
MAX_STATEMENTS = 24
MAX_STATEMENT_WORDS = 60
MAX_STATEMENT_CHARS = 400
NEGATION_REACH = 4
"""A negation covers the next few content words: "never SQLite", "don't add new handlers"."""

NEGATIONS = frozenset(
    ("not", "no", "never", "don't", "dont", "doesn't", "isn't", "aren't", "won't",
     "shouldn't", "mustn't", "can't", "cannot", "without", "nothing", "nobody", "none",
     "neither", "nor", "avoid", "avoids")
)
NOBODY = frozenset(("nothing", "nobody", "none", "neither", "nor"))
"""Negations that deny the predicate, not the next word: "Nothing secret is checked in" does
not say "no secrets"."""
HEDGES = frozenset(("even", "ever", "really", "always", "directly", "yet", "also", "just"))
"""Words a negation reaches past ("not even in .env.example"): what it denies is the next."""
LIGHT = frozenset(("call", "add", "run", "reli", "introduc", "commit", "put", "keep",
                   "take", "rais", "throw", "creat", "write", "need", "requir", "depend"))
"""Stems of verbs whose object says what is denied: "never call panic" denies panic as well
as calling, "don't add mocks" mocks (the first content word alone would be "call", "add")."""
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "twelve": "12", "fifteen": "15",
    "twenty": "20", "thirty": "30", "once": "1", "twice": "2", "single": "1", "double": "2",
}
ONE_OF = frozenset(("hour", "daily", "weekly", "monthly"))
"""Words that give a number without one ("after an hour", "monthly")."""
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*$")
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+")
_COMMENT = re.compile(r"<!--[\s\S]*?-->")
_MARKUP = re.compile(r"\*\*[^*]{1,40}:\*\*|[`*_>#]")
"""``**Why:**`` labels and inline markdown."""


_PER_THREAD = threading.local()


def _stemmer() -> object:
    """This thread's stemmer: the word rarity is stemmed on a thread of its own while the pairs
    are found (:mod:`memtui.core.judge.session`); PyStemmer's C stemmer holds the GIL, but the
    pure-Python one snowballstemmer falls back to keeps state in the object between calls."""
    stemmer = getattr(_PER_THREAD, "stemmer", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _PER_THREAD.stemmer = snowballstemmer.stemmer("english")
    return stemmer


ABBREVIATIONS = {
    "db": "database", "dbs": "databases", "prod": "production", "repo": "repository",
    "repos": "repositories", "config": "configuration", "configs": "configurations",
    "auth": "authentication", "docs": "documentation", "infra": "infrastructure",
    "deps": "dependencies", "dep": "dependency", "k8s": "kubernetes",
    "postgresql": "postgres", "pg": "postgres", "perf": "performance", "ts": "typescript",
    "js": "javascript", "py": "python", "msg": "message", "msgs": "messages",
    "env": "environment", "envs": "environments", "creds": "credentials",
}
"""Short names folded into their long one before stemming ("db" is "database", "prod"
"production"): one word to the engine however a memory writes it."""


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    stemmer = _stemmer()
    return str(stemmer.stemWord(ABBREVIATIONS.get(word, word)))  # type: ignore[attr-defined]


def content(word: str) -> bool:
    return len(word) > 1 and word not in STOPWORDS and word not in NEGATIONS


@dataclass(frozen=True)
class Statement:
    text: str
    tokens: tuple[str, ...]
    stems: frozenset[str]
    """Stemmed content words (no stopwords, no negations, no numbers)."""
    numbers: frozenset[str]
    """The numbers it gives (``3.12``, ``15``; number words read as digits)."""
    negated: frozenset[str]
    """Stems a negation covers."""
    asserted: frozenset[str]
    """Stems no negation covers."""
    denied: frozenset[str] = frozenset()
    quantities: frozenset[tuple[str, str]] = frozenset()
    """The values it gives with their kind (:func:`quantities`)."""
    """The first stem after each negation: what it denies ("never SQLite", "don't mock the
    database": ``mock``, not ``database``)."""


def _numbers(tokens: tuple[str, ...]) -> frozenset[str]:
    found: set[str] = set()
    for token in tokens:
        for part in token.split("-"):
            if _NUMBER.match(part):
                found.add(part.replace(",", ""))
            elif part in NUMBER_WORDS:
                found.add(NUMBER_WORDS[part])
    if not found and any(t in ONE_OF for t in tokens):
        found.add("1")
    return frozenset(found)


_PORT = re.compile(r"(?:\bports?\s+|\b[a-z][\w.-]*:)(\d{2,5})\b", re.IGNORECASE)
"""A port: the number after "port", or after ``host:`` ("localhost:6543", "db:5432")."""
_DATE_OR_TIME = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{1,2}:\d{2}(?::\d{2})?\b")
"""Dates and clock times: when something happened, not a value a rule sets."""
TIME_UNITS = {
    "ms": 0.001, "millisecond": 0.001, "s": 1, "sec": 1, "second": 1, "min": 60, "minut": 60,
    "h": 3600, "hr": 3600, "hour": 3600, "day": 86_400, "week": 604_800, "month": 2_592_000,
    "quarter": 7_776_000, "year": 31_536_000, "sprint": 1_209_600,
}
"""Durations, as stems, in seconds: "1 hour" and "60 minutes" are one value."""
SIZE_UNITS = {"b": 1, "byte": 1, "kb": 1e3, "kib": 1024, "mb": 1e6, "mib": 1024**2, "gb": 1e9,
              "gib": 1024**3, "tb": 1e12}
"""Sizes, in bytes."""
ONE_OF_TIME = {"hour": 3600.0, "daily": 86_400.0, "nightly": 86_400.0, "weekly": 604_800.0,
               "monthly": 2_592_000.0}
UNIT_STOP = frozenset(("for", "to", "in", "on", "at", "and", "or", "of", "the", "a", "is"))


MAX_PORT_TEXT = 4_000
"""Characters of a statement searched for ports (bounded, as every step is)."""


def quantities(text: str) -> frozenset[tuple[str, str]]:
    """The values a statement gives, each with its kind: ``("600", "time")`` for "10
    minutes" (durations in seconds, sizes in bytes), ``("120", "")`` for "line length is
    120". Dates and clock times are left out. Two statements disagree on a number only
    when they give other values of one kind (6 minutes is not Postgres 16)."""
    ports = frozenset(m.group(1) for m in _PORT.finditer(text[:MAX_PORT_TEXT]))
    tokens = words(_DATE_OR_TIME.sub(" ", text))[:MAX_STATEMENT_WORDS]
    found: set[tuple[str, str]] = set()
    for i, token in enumerate(tokens):
        parts = token.split("-")
        for k, part in enumerate(parts):
            if _NUMBER.match(part):
                value = part.replace(",", "")
            elif part in NUMBER_WORDS and part not in ("once", "twice", "single", "double"):
                value = NUMBER_WORDS[part]
            else:
                continue
            nxt = parts[k + 1] if k + 1 < len(parts) else (
                tokens[i + 1] if i + 1 < len(tokens) else "")
            unit = stem(nxt) if nxt and nxt not in UNIT_STOP and not _NUMBER.match(nxt) else ""
            if value in ports:
                found.add((value, "port"))
                continue
            for kind, units in (("time", TIME_UNITS), ("size", SIZE_UNITS)):
                if unit in units:
                    with contextlib.suppress(ValueError):
                        found.add((f"{float(value) * units[unit]:g}", kind))
                    break
            else:
                found.add((value, ""))
    if not found:
        for token in tokens:
            if token in ONE_OF_TIME:
                found.add((f"{ONE_OF_TIME[token]:g}", "time"))
    return frozenset(found)


def statement(text: str) -> Statement:
    tokens = tuple(words(text)[:MAX_STATEMENT_WORDS])
    stems: set[str] = set()
    negated: set[str] = set()
    asserted: set[str] = set()
    denied: set[str] = set()
    nobody = False
    reach = 0
    since_negation: list[str] = []
    for k, token in enumerate(tokens):
        nxt = tokens[k + 1] if k + 1 < len(tokens) else ""
        if token in NEGATIONS or (token, nxt) in ALTERNATIVE:
            # "use Y instead of X": X is denied as "not X" denies it
            reach = NEGATION_REACH
            since_negation = []
            nobody = token in NOBODY
            continue
        if token in CONDITIONAL and since_negation:
            # "don't merge until ...": a condition on merging, not "no merging"
            for word in since_negation:
                negated.discard(word)
                denied.discard(word)
                asserted.add(word)
            since_negation = []
            reach = 0
            continue
        if not content(token) or _NUMBER.match(token) or token in NUMBER_WORDS:
            continue
        if reach and token in HEDGES:
            continue
        s = stem(token)
        stems.add(s)
        if "-" in token:  # "asyncio-based", "table-driven": the parts are words too
            for part in token.split("-"):
                if content(part) and not _NUMBER.match(part) and part not in NUMBER_WORDS:
                    stems.add(stem(part))
                    (negated if reach else asserted).add(stem(part))
        if reach:
            if not nobody and s not in LIGHT and (
                    not since_negation
                    or (len(since_negation) == 1 and since_negation[0] in LIGHT)):
                denied.add(s)  # "never call panic" denies panic, not calling
            negated.add(s)
            since_negation.append(s)
        else:
            asserted.add(s)
        reach = max(0, reach - 1)
    numbers = _numbers(tuple(words(_DATE_OR_TIME.sub(" ", text))[:MAX_STATEMENT_WORDS]))
    return Statement(text, tokens, frozenset(stems), numbers, frozenset(negated),
                     frozenset(asserted), frozenset(denied), quantities(text))


ALTERNATIVE = frozenset((("instead", "of"), ("rather", "than")))
"""``use Y instead of X``, ``Y rather than X``: X is denied as a negation denies it."""


def split(text: str) -> list[str]:
    """The statements of a text: sentences, clauses and lines of two words or more."""
    return _split(text)[0]


def _split(text: str) -> tuple[list[str], bool]:
    """:func:`split`, and whether it left some of the text out (past :data:`MAX_TEXT_CHARS`,
    or statements past :data:`MAX_STATEMENTS`)."""
    cut = len(text) > MAX_TEXT_CHARS
    text = _MARKUP.sub(" ", _COMMENT.sub(" ", text[:MAX_TEXT_CHARS]))
    out: list[str] = []
    parts = _SENTENCE.split(text)
    for at, part in enumerate(parts):
        part = part.strip(" -+\t")
        if len(words(part)) >= 2:
            out.append(part[:MAX_STATEMENT_CHARS])
            if len(out) >= MAX_STATEMENTS:
                cut = cut or any(len(words(rest)) >= 2 for rest in parts[at + 1:])
                break
    return out, cut


def judged_text(item: JudgeItem) -> str:
    """What :func:`statements_of` splits: the body (a CLAUDE.md paragraph's text; a memory
    without a body: its description)."""
    return item.body if item.body or item.kind == CLAUDE_MD else item.description


def cut_short(item: JudgeItem) -> bool:
    """The verdict engine reads only part of ``item``: its text is longer than
    :data:`MAX_TEXT_CHARS`, or has more than :data:`MAX_STATEMENTS` statements (the first
    ones are compared)."""
    return (len(item.body) > MAX_TEXT_CHARS or len(item.description) > MAX_TEXT_CHARS
            or _cut_text(judged_text(item)))


@lru_cache(maxsize=32_768)
def _cut_text(text: str) -> bool:
    return _split(text)[1]


@lru_cache(maxsize=16_384)
def bounded(item: JudgeItem) -> JudgeItem:
    """``item`` as the verdict engine reads it: its body and description cut to their first
    :data:`MAX_TEXT_CHARS` characters (issue 25: every step of a pair is bounded, whatever the
    files hold). The statements, the embedding and the kinds read no further anyway; the
    steps that read a whole text (conditions, folders, the words of a name's subject) read
    that much. ``digest`` stays the whole content's."""
    if len(item.body) <= MAX_TEXT_CHARS and len(item.description) <= MAX_TEXT_CHARS:
        return item
    return replace(item, body=item.body[:MAX_TEXT_CHARS],
                   description=item.description[:MAX_TEXT_CHARS])


def statements_of(item: JudgeItem) -> list[Statement]:
    """The body's statements (a CLAUDE.md paragraph's text; a memory without a body: its
    description)."""
    return list(_statements_of_text(judged_text(item)))


@lru_cache(maxsize=32_768)
def _statements_of_text(text: str) -> tuple[Statement, ...]:
    """A text's statements, worked out once per text: a memory takes part in many pairs (at
    10,000 memories, 80,000 pairs spent most of their time splitting the same bodies again)."""
    return tuple(statement(part) for part in split(text))


CONDITIONAL = frozenset(("until", "unless", "before", "except", "till"))
"""After a negation these make it a condition, not a contradiction: "don't merge until the
checks pass" says when to merge, as "merge only when the checks pass" does."""

BE = frozenset(("was", "were", "is", "are", "got", "been", "be", "has", "have", "gets"))
PASSIVE_GONE = frozenset((
    "removed", "deleted", "dropped", "archived", "closed", "gone", "retired", "decommissioned",
    "deprecated", "replaced", "shut", "sunset", "abandoned", "discontinued", "unused", "phased",
))
"""``X was removed``, ``X is gone``: X is the way that is over."""
ACTIVE_GONE = frozenset(("replaced", "replaces", "dropped", "removed", "retired", "ditched",
                         "supersedes", "superseded"))
"""``Y replaced X``, ``we dropped X for Y``: X (after the verb) is the way that is over."""
MOVED = frozenset(("moved", "migrated", "switched", "ported", "upgraded", "changed", "went"))
"""``moved from X to Y``: X is over."""
EVENT = frozenset(("migration", "export", "move", "switch", "cutover", "rewrite", "port"))
"""``after the X migration``: X is over."""
_STOP_OLD = frozenset(("with", "by", "for", "to", "in", "into", "on", "and", "since"))
_TURN = frozenset(("now", "but", "then", "until", "today", "currently", "since"))
OLD_REACH = 4


def _content_stems(tokens: list[str]) -> list[str]:
    return [stem(t) for t in tokens if content(t) and not _NUMBER.match(t)
            and t not in NUMBER_WORDS and t not in BE]


def old_ways(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """What a statement says is over: ``(stems, numbers)`` of the way it names as gone
    ("RabbitMQ was decommissioned", "ruff replaced flake8", "moved from Jira to Linear",
    "after the Jira export", "13-only workarounds can go", "instead of mocks", "we used to
    deploy with Capistrano", "previously on CircleCI")."""
    tokens = words(text)[:MAX_STATEMENT_WORDS]
    old: list[str] = []
    for i, token in enumerate(tokens):
        before: list[str] | None = None
        after: list[str] | None = None
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        passive = token in PASSIVE_GONE and tokens[i - 1] in BE | {"now"}
        can_go = token == "go" and tokens[i - 1] in ("can", "should", "must")
        if i > 0 and (passive or can_go):
            before = tokens[:i - 1]
        elif token == "no" and nxt == "longer":
            rest = tokens[i + 2:]
            if rest and rest[0] in ("exists", "exist", "used", "works", "needed", "applies"):
                before = tokens[:i]
            else:
                after = rest
        elif token in ACTIVE_GONE and not (i > 0 and tokens[i - 1] in BE):
            after = tokens[i + 1:]
        elif token in MOVED and "from" in tokens[i + 1:i + 3]:
            after = tokens[tokens.index("from", i) + 1:]
        elif token == "instead" and nxt == "of":
            after = tokens[i + 2:]
        elif (token == "used" and nxt == "to") or token in ("previously", "formerly"):
            # "we used to deploy with Capistrano", "previously on CircleCI": what follows,
            # past its prepositions, until the sentence turns to the new way
            rest = tokens[i + (2 if token == "used" else 1):]
            stop = next((j for j, t in enumerate(rest) if t in _TURN), len(rest))
            old += _content_stems(rest[:stop])[:OLD_REACH]
        elif token in EVENT and i > 1 and "after" in tokens[max(0, i - 3):i]:
            start = max(0, i - 3) + tokens[max(0, i - 3):i].index("after") + 1
            old += _content_stems(tokens[start:i])
        if before is not None:
            cut = [j for j, t in enumerate(before) if t in _STOP_OLD or t in ("now",)]
            old += _content_stems(before[(cut[-1] + 1) if cut else 0:])[-OLD_REACH:]
        if after is not None:
            stop = next((j for j, t in enumerate(after) if t in _STOP_OLD - {"and"}), len(after))
            old += _content_stems(after[:stop])[:OLD_REACH]
    found = set(old)
    numbers = frozenset(n for n in _numbers(tuple(
        t for t in tokens if any(stem(p) in found for p in t.split("-")[1:]) or
        stem(t) in found)))
    return frozenset(found), numbers
