"""The local judge: offline, deterministic, explainable.

* equal normalized content → ``duplicate`` (1.0); near-identical text with nothing that
  differs in substance → ``duplicate`` (0.85);
* the same subject with a different value → ``conflicts_with``, with the newer side proposed
  as the one to keep (frontmatter ``modified`` when present, else the file's mtime; a CLAUDE.md
  rule is always proposed to stay: memtui never edits CLAUDE.md). "The same subject" is two
  sentences sharing most of their words; "a different value" is what the word diff of those
  sentences shows: a number or date, a negation on one side only ("always"/"never", "use"/
  "don't use"), an antonym pair, or one or two other words swapped ("pnpm" for "npm");
* anything else → ``related``, with a confidence no higher than the pair's similarity.

Every verdict carries its evidence: the two phrases that differ (or, for duplicates, the text
they share), quoted."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from functools import lru_cache

from memtui.core.config import JudgeConfig
from memtui.core.judge.candidates import STOPWORDS
from memtui.core.judge.finder import semantic_unavailable
from memtui.core.judge.items import CLAUDE_MD, body_digest, evidence_quote, newer, words
from memtui.core.judge.verdicts import Candidate, JudgeItem, Relation, Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.core.judge.engine import Vectors

NAME = "local"

NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "don't",
        "dont",
        "doesn't",
        "isn't",
        "aren't",
        "won't",
        "shouldn't",
        "mustn't",
        "can't",
        "cannot",
        "avoid",
        "without",
        "stop",
        "stopped",
        "disable",
        "disabled",
    ]
)
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("always", "never"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("allow", "forbid"),
    ("allow", "deny"),
    ("allowed", "forbidden"),
    ("include", "exclude"),
    ("required", "optional"),
    ("true", "false"),
    ("yes", "no"),
    ("on", "off"),
    ("sync", "async"),
    ("tabs", "spaces"),
    ("mock", "real"),
    ("mocked", "real"),
    ("before", "after"),
    ("first", "last"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("more", "less"),
    ("increase", "decrease"),
    ("add", "remove"),
    ("public", "private"),
    ("keep", "delete"),
)
_ANTONYM = {frozenset(pair) for pair in ANTONYMS}
_NUMBER = re.compile(r"^\d[\d.,:/-]*[a-z%]*$")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
SAME_SUBJECT = 0.6
"""Share of the shorter sentence's words the other must have to be about the same thing."""
NEAR_IDENTICAL = 0.92
MAX_SWAP_WORDS = 3


def _names_subject(word: str, subjects: frozenset[str]) -> bool:
    """``word`` is, or is made of, a subject word ("payments", "payments-oncall")."""
    return word in subjects or any(part in subjects for part in re.split(r"[-_.']", word))


_COMMENT = re.compile(r"<!--[\s\S]*?-->")


def sentences(text: str, min_words: int = 3) -> list[str]:
    """Sentences, clauses (after ``;``) and lines of ``min_words`` words or more (HTML comments,
    which hold metadata such as agentmemory's timestamps, left out)."""
    text = _COMMENT.sub(" ", text)
    parts = (part.strip(" -*+\t") for part in _SENTENCE.split(text))
    return [part for part in parts if len(words(part)) >= min_words]


def _overlap(a: set[str], b: set[str]) -> float:
    """Shared words over the shorter side's words (a short sentence inside a longer one about
    the same thing still counts)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _quote(tokens: Sequence[str]) -> str:
    return " ".join(tokens) or "(nothing)"


def _difference(
    left: list[str], right: list[str], subjects: frozenset[str] = frozenset()
) -> tuple[str, str, str] | None:
    """What differs between two sentences about one subject: ``(kind, left, right)`` with
    kind ``number``, ``negation``, ``antonym`` or ``value``; None when they agree.
    A word swap involving one of ``subjects`` (the words of the two memories' names) is a
    different subject, not a different value ("payments" vs "refunds" in two owner notes)."""
    matcher = SequenceMatcher(a=left, b=right, autojunk=False)
    only_left = {w for w in left if w in NEGATIONS} - {w for w in right if w in NEGATIONS}
    only_right = {w for w in right if w in NEGATIONS} - {w for w in left if w in NEGATIONS}
    swaps: list[tuple[list[str], list[str]]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old, new = left[i1:i2], right[j1:j2]
        if all(w in STOPWORDS and w not in NEGATIONS for w in (*old, *new)):
            continue  # "at" for "on": wording, not a value
        swaps.append((old, new))
    if any(_names_subject(w, subjects) for old, new in swaps for w in (*old, *new)):
        return None  # the sentences name different subjects
    for old, new in swaps:
        for x in old:
            for y in new:
                if frozenset((x, y)) in _ANTONYM:
                    return "antonym", x, y
    if only_left or only_right:
        lhs = next(((o, n) for o, n in swaps if set(o) & only_left or set(n) & only_right), None)
        if lhs is not None:
            return "negation", _quote(lhs[0]), _quote(lhs[1])
    for old, new in swaps:
        if any(_NUMBER.match(w) for w in old) and any(_NUMBER.match(w) for w in new):
            return "number", _quote(old), _quote(new)
    replaced = [
        (old, new)
        for old, new in swaps
        if old and new and len(old) <= MAX_SWAP_WORDS and len(new) <= MAX_SWAP_WORDS
    ]
    if replaced and len(replaced) == len(swaps):
        old, new = replaced[0]
        return "value", _quote(old), _quote(new)
    return None


def _name_words(item: JudgeItem) -> set[str]:
    return set(words(item.name.replace("_", " ").replace("-", " ")))


def subjects_of(a: JudgeItem, b: JudgeItem) -> tuple[frozenset[str], bool]:
    """The words that name what each side is about, and whether the two are *parallel notes*:
    names of one pattern with a different subject ("emails-runbook", "refunds-runbook"), each
    side's subject in its own text, and not each naming the other's. Parallel notes differ in
    their values by design. Names that differ otherwise are compared, subject words included:
    synonyms ("db-port", "postgres-port") and alternatives that name each other
    ("test-db-postgres", "test-db-sqlite")."""
    name_a, name_b = _name_words(a), _name_words(b)
    only_a, only_b = name_a - name_b, name_b - name_a
    if not (name_a & name_b) or not only_a or not only_b:
        return frozenset(only_a | only_b), False
    text_a, text_b = _word_set(a.text) - name_a, _word_set(b.text) - name_b
    own = bool(only_a & _text_words(a)) and bool(only_b & _text_words(b))
    crossed = bool(only_a & text_b) and bool(only_b & text_a)  # each names the other
    if own and not crossed:
        return frozenset(only_a | only_b), True
    return frozenset(), False


def _text_words(item: JudgeItem) -> frozenset[str]:
    """The words of the description and body (not the name)."""
    return _word_set(f"{item.description}\n{item.body}")


@lru_cache(maxsize=16_384)
def _word_set(text: str) -> frozenset[str]:
    """The words of a text, once per text (each pair of a memory asks again)."""
    return frozenset(words(text))


def find_contradiction(
    a: JudgeItem, b: JudgeItem, subjects: frozenset[str] | None = None
) -> tuple[str, str, str, str, str] | None:
    """The first pair of sentences about one subject that disagree, else a rare word one side
    asserts and the other negates: ``(kind, phrase of a, phrase of b, sentence of a, sentence
    of b)``. Sentences whose difference is one of ``subjects`` are about different things."""
    if subjects is None:
        subjects = subjects_of(a, b)[0]
    left_sentences = [(s, words(s)) for s in sentences(a.text)]
    right_sentences = [(s, words(s)) for s in sentences(b.text)]
    for sentence, left in left_sentences:
        left_set = set(left)
        for other, right in right_sentences:
            if _overlap(left_set, set(right)) < SAME_SUBJECT:
                continue
            found = _difference(left, right, subjects)
            if found is not None:
                kind, old, new = found
                return kind, old, new, sentence, other
    return _opposite_polarity(
        [(s, words(s)) for s in sentences(a.text, 1)], [(s, words(s)) for s in sentences(b.text, 1)]
    )


NEGATION_REACH = 3
"""A negation covers the next few words: "never SQLite", "don't use real mocks"."""
SUBJECT_WORDS = frozenset(STOPWORDS)


def _polarity(sentence: list[str]) -> tuple[set[str], set[str]]:
    """The content words a sentence negates and the ones it asserts."""
    negated: set[str] = set()
    asserted: set[str] = set()
    reach = 0
    for word in sentence:
        if word in NEGATIONS:
            reach = NEGATION_REACH
            continue
        if word in SUBJECT_WORDS or len(word) < 3 or _NUMBER.match(word):
            reach = max(0, reach - 1)
            continue
        (negated if reach else asserted).add(word)
        reach = max(0, reach - 1)
    return negated, asserted


def _opposite_polarity(
    left: list[tuple[str, list[str]]], right: list[tuple[str, list[str]]]
) -> tuple[str, str, str, str, str] | None:
    """A word that one side negates in a sentence and the other asserts ("never SQLite" vs
    "tests use SQLite"), when the asserting side never negates it."""

    def collect(side: list[tuple[str, list[str]]]) -> tuple[dict[str, str], dict[str, str]]:
        negated: dict[str, str] = {}
        asserted: dict[str, str] = {}
        for sentence, tokens in side:
            neg, pos = _polarity(tokens)
            for word in neg:
                negated.setdefault(word, sentence)
            for word in pos:
                asserted.setdefault(word, sentence)
        return negated, asserted

    left_neg, left_pos = collect(left)
    right_neg, right_pos = collect(right)
    mentions = Counter(w for _, tokens in (*left, *right) for w in tokens)
    found: list[tuple[int, str, tuple[str, str, str, str, str]]] = []
    for word, sentence in left_neg.items():
        if word in right_pos and word not in right_neg:
            found.append(
                (mentions[word], word, ("negation", f"not {word}", word, sentence, right_pos[word]))
            )
    for word, sentence in right_neg.items():
        if word in left_pos and word not in left_neg:
            found.append(
                (mentions[word], word, ("negation", word, f"not {word}", left_pos[word], sentence))
            )
    if not found:
        return None
    found.sort(key=lambda f: (-f[0], f[1]))  # the word both sides talk about most
    return found[0][2]




_KIND_WORDS = {
    "number": "a different number",
    "negation": "a negation on one side",
    "antonym": "opposite words",
    "value": "a different value",
}


def judge_pair(candidate: Candidate, vectors: Vectors | None = None,
               nearest: bool = False) -> Verdict:
    """The verdict on one pair: the verdict engine's (:mod:`memtui.core.judge.engine`), or,
    when the semantic signal cannot load, the lexical rules of :func:`lexical_verdict`.
    ``nearest``: the two sides are each other's nearest memory among the run's candidates
    (:func:`mutual_nearest`)."""
    if vectors is None and semantic_unavailable() is not None:
        return lexical_verdict(candidate)
    from memtui.core.judge import engine

    return engine.judge_pair(candidate, vectors, parallel=_parallel_subjects(candidate),
                             nearest=nearest)


@lru_cache(maxsize=16_384)
def _stems_of(text: str) -> frozenset[str]:
    """The stems of a text's words and of their parts, once per text (each pair of a memory
    asks again)."""
    from memtui.core.judge.statements import stem

    return frozenset(stem(part) for w in words(text) for part in (w, *re.split(r"[-/.@]", w))
                     if part)


def _parallel_subjects(candidate: Candidate) -> frozenset[str]:
    """The words that name each side's own subject when the two are parallel notes
    (:func:`subjects_of`), compared by stem: a side that names the other's subject word in
    its text, stemmed or inside a longer word ("testing" in "@testing-library"), is not
    parallel. Empty when they are not parallel notes."""
    a, b = candidate.a, candidate.b
    if a.digest == b.digest or (body_digest(a) and body_digest(a) == body_digest(b)):
        return frozenset()
    from memtui.core.judge.statements import bounded

    a, b = bounded(a), bounded(b)  # as the engine reads them: bounded, whatever the files hold
    subjects, parallel = subjects_of(a, b)
    if not parallel:
        return frozenset()
    name_a, name_b = _name_words(a), _name_words(b)
    only_a = _stems_of(" ".join(name_a - name_b))
    only_b = _stems_of(" ".join(name_b - name_a))
    text_a = _stems_of(f"{a.description} {a.body}")
    text_b = _stems_of(f"{b.description} {b.body}")
    if only_a & text_b and only_b & text_a:
        return frozenset()
    return subjects


def _parallel(candidate: Candidate) -> Verdict | None:
    """Parallel notes (names of one pattern, each about its own subject: ``emails-runbook``,
    ``refunds-runbook``) differ in their values by design: related, never a conflict."""
    a, b = candidate.a, candidate.b
    if a.digest == b.digest or (body_digest(a) and body_digest(a) == body_digest(b)):
        return None
    subjects, parallel = subjects_of(a, b)
    if not parallel:
        return None
    names = " and ".join(sorted(subjects))
    return Verdict(
        Relation.RELATED,
        round(min(0.4, candidate.score * 0.5), 2),
        f"parallel notes on different subjects ({names}): their values differ by design",
        NAME,
    )


def lexical_verdict(candidate: Candidate) -> Verdict:
    """The rules of the first local judge (word overlap and word diffs), for when the
    embeddings cannot load; every text cut to :data:`LEXICAL_CHARS` first (issue 25)."""
    candidate = _cut(candidate)
    a, b = candidate.a, candidate.b
    if a.digest == b.digest and (a.body or a.description):
        return Verdict(
            Relation.DUPLICATE,
            1.0,
            "the same content, word for word",
            NAME,
            evidence=(evidence_quote(a.body or a.description),),
        )
    if body_digest(a) and body_digest(a) == body_digest(b):
        return Verdict(
            Relation.DUPLICATE,
            0.95,
            "the same text under two names",
            NAME,
            winner=newer(a, b),
            evidence=(evidence_quote(a.body),),
        )
    subjects, parallel = subjects_of(a, b)
    if parallel:
        names = " and ".join(sorted(subjects))
        return Verdict(
            Relation.RELATED,
            round(min(0.4, candidate.score * 0.5), 2),
            f"parallel notes on different subjects ({names}): their values differ by design",
            NAME,
        )
    found = find_contradiction(a, b, subjects)
    if found is not None:
        kind, old, new, left, right = found
        winner = newer(a, b)
        keep = ""
        if winner is not None:
            side = a if winner == "a" else b
            keep = (
                "; the CLAUDE.md rule stays"
                if side.kind == CLAUDE_MD
                else f"; keep the newer one ({_where(side, a if side is b else b)})"
            )
        confidence = 0.8 if kind in ("negation", "antonym", "number") else 0.6
        return Verdict(
            Relation.CONFLICTS_WITH,
            confidence,
            f"the same subject with {_KIND_WORDS[kind]}: “{evidence_quote(old, 60)}” vs "
            f"“{evidence_quote(new, 60)}”{keep}",
            NAME,
            winner=winner,
            evidence=(evidence_quote(left), evidence_quote(right)),
        )
    ratio = SequenceMatcher(a=words(a.text), b=words(b.text), autojunk=False).ratio()
    if ratio >= NEAR_IDENTICAL:
        what = "repeats a CLAUDE.md rule" if CLAUDE_MD in (a.kind, b.kind) else "near-identical"
        return Verdict(
            Relation.DUPLICATE,
            0.85,
            f"{what} ({ratio:.0%} of the words in order)",
            NAME,
            winner=newer(a, b),
            evidence=(evidence_quote(a.body), evidence_quote(b.body)),
        )
    repeated = _repeats(a, b)
    if repeated is not None:
        short, sentence = repeated
        what = "repeats a CLAUDE.md rule" if CLAUDE_MD in (a.kind, b.kind) else "says again"
        return Verdict(
            Relation.DUPLICATE,
            0.8,
            f"{what}: every word of “{evidence_quote(short, 80)}” is in the other side",
            NAME,
            winner=newer(a, b),
            evidence=(evidence_quote(short), evidence_quote(sentence)),
        )
    confidence = round(min(0.5, candidate.score * 0.6), 2)
    return Verdict(
        Relation.RELATED,
        confidence,
        f"similar subject ({', '.join(candidate.reasons)}), no disagreement found",
        NAME,
    )


LEXICAL_CHARS = 1_200
"""Characters of each side the lexical rules read: their word diffs are quadratic."""


def _cut(candidate: Candidate) -> Candidate:
    def cut(item: JudgeItem) -> JudgeItem:
        if len(item.body) <= LEXICAL_CHARS and len(item.description) <= LEXICAL_CHARS:
            return item
        return replace(item, body=item.body[:LEXICAL_CHARS],
                       description=item.description[:LEXICAL_CHARS])

    return replace(candidate, a=cut(candidate.a), b=cut(candidate.b))


CONTAINED = 0.9
"""Share of a short side's content words one sentence of the other side must hold for the
short side to be said again there."""
SHORT_SIDE_WORDS = 25


def _content(tokens: list[str]) -> set[str]:
    return {w for w in tokens if w not in STOPWORDS or w in NEGATIONS}


def _repeats(a: JudgeItem, b: JudgeItem) -> tuple[str, str] | None:
    """A short side's body (a CLAUDE.md rule, a one-line memory) whose content words all appear
    in one sentence of the other side's body, none of them negated on one side only ("never X"
    is not "X"): ``(short side's text, that sentence)``."""
    for short, other in ((a, b), (b, a)):
        found = _repeated_in(short.body, other)
        if found is not None:
            return found
    return None


def _repeated_in(text: str, other: JudgeItem) -> tuple[str, str] | None:
    """``text`` (short) said again in one sentence of ``other``: ``(text, that sentence)``."""
    tokens = words(text)
    if not 3 <= len(tokens) <= SHORT_SIDE_WORDS:
        return None
    wanted = _content(tokens)
    negated_here = _polarity(tokens)[0]
    for sentence in sentences(other.body):
        tokens_there = words(sentence)
        have = _content(tokens_there)
        flipped = (_polarity(tokens_there)[0] ^ negated_here) & wanted
        if wanted and len(wanted & have) / len(wanted) >= CONTAINED and not flipped:
            return text, sentence
    return None


def _where(item: JudgeItem, other: JudgeItem) -> str:
    """The item's file name, with its store when the other side has the same name."""
    name = item.rel_path.rsplit("/", 1)[-1]
    return item.label if name == other.rel_path.rsplit("/", 1)[-1] else name




class LocalJudge:
    """The offline judge (:func:`judge_pair` for every candidate)."""

    name = NAME
    sends_data = False

    @classmethod
    def from_config(cls, config: JudgeConfig, **options: object) -> LocalJudge:
        return cls()

    def estimate(self, candidates: Sequence[Candidate]) -> None:
        return None

    def judge(
        self,
        candidates: Sequence[Candidate],
        *,
        cancelled: Callable[[], bool] | None = None,
        progress: Callable[[int, int], None] | None = None,
        items: Sequence[JudgeItem] | None = None,
    ) -> list[Verdict | None]:
        """The verdict on each candidate; ``items``: every item of the home (how rare a word
        is counts among them: :func:`run_context`), else the candidates' sides."""
        out: list[Verdict | None] = []
        vectors, nearest = run_context(candidates, items)
        for done, candidate in enumerate(candidates):
            if cancelled is not None and cancelled():
                out.extend(None for _ in candidates[done:])
                break
            if progress is not None and done % 32 == 0:
                progress(done, len(candidates))
            out.append(judge_pair(candidate, vectors,
                                  nearest=nearest is not None and nearest[done]))
        if progress is not None:
            progress(len(candidates), len(candidates))
        return out


def run_context(candidates: Sequence[Candidate], items: Sequence[JudgeItem] | None = None,
                ) -> tuple[Vectors | None, list[bool] | None]:
    """What the verdicts of one run share: the embeddings, with how rare each word is among
    ``items`` (every item of the home; None: the sides of ``candidates``), None without the
    semantic signal; and for each candidate whether its sides are each other's nearest
    memory (:data:`~memtui.core.judge.neighbours.NEAREST`, found with the candidates over
    every item). Given the home's items, a pair's verdict is the same whichever other pairs
    are judged with it: a run of the pairs one edit made stale gives what a whole run gives.
    """
    if not candidates or semantic_unavailable() is not None:
        return None, None
    from memtui.core.judge.engine import Vectors
    from memtui.core.judge.neighbours import NEAREST

    sides = items if items is not None else [i for c in candidates for i in (c.a, c.b)]
    return Vectors(items=sides), [NEAREST in c.reasons for c in candidates]


def judge_all(candidates: Iterable[Candidate]) -> list[Verdict]:
    return [v for v in LocalJudge().judge(list(candidates)) if v is not None]
