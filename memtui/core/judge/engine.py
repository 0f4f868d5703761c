"""The offline verdict engine (issue 22, item 4): what the local judge says of a pair.

A pair is read in four steps, each bounded (:mod:`memtui.core.judge.statements`):

1. **split** each side into statements (stemmed content words, numbers, negated words,
   conditions);
2. **align** each statement of one side with the nearest of the other by the cosine of their
   embeddings (wordllama, :mod:`memtui.core.judge.embed`): aligned statements talk about one
   subject, and the whole pair's cosine says how near the two memories are;
3. **compare** aligned statements' values: other numbers, a word one side negates and the
   other asserts, opposite words, or one or two words swapped for words of the same kind
   (the embedding of the differing words: "jest" vs "vitest" are near, "frontend" vs
   "backend" name other subjects when the rest differs too);
4. **decide**: supersession (one side names a way as over: "RabbitMQ was decommissioned",
   "ruff replaced flake8", "after the Jira export"; the other side still says it; the newer
   side by ``modified``, else mtime, with the dates), parallel notes (not a conflict, or
   scoped when a condition tells them apart), scoped (each side names its own condition:
   staging vs production, unit vs integration, an agent vs the main session, batch scripts vs
   a service), a contradiction (same subject, another value of one kind: a duration, a size,
   a count, a word denied on one side and asserted on the other, a tool swapped for another;
   scoped instead when each side names its own condition), a duplicate (the same statements,
   or the same rare words, or one value both give, nothing differing; compatible instead when
   only one side gives a value: it adds a detail), compatible (two rules that contradict
   nothing), else related, with a confidence from the pair's similarity.

Every verdict has its evidence: the two statements (quoted, secrets masked) that decided it.
The thresholds were chosen on the tune half of the labelled home
(``bench/judge_quality.py --half tune``) and are reported on both halves.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from memtui.core.judge.items import (
    CLAUDE_MD,
    body_digest,
    newer,
    words,
)
from memtui.core.judge.items import evidence_quote as _evidence_quote
from memtui.core.judge.items import normalize as _normalize
from memtui.core.judge.statements import (
    NUMBER_WORDS,
    Statement,
    bounded,
    content,
    old_ways,
    statements_of,
    stem,
)
from memtui.core.judge.verdicts import Candidate, JudgeItem, Relation, Verdict

# A memory takes part in many pairs: what the engine makes of one of its texts (the words
# of a name or description, a statement compared as text, a quote) is made once a run.
# These are pure functions of a string whose texts the items already hold.
normalize = lru_cache(maxsize=16_384)(_normalize)
evidence_quote = lru_cache(maxsize=16_384)(_evidence_quote)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.core.judge.embed import Embedder, Matrix
    from memtui.core.judge.word_vectors import WordVectors

NAME = "local"

ALIGNED = 0.47
"""Two statements at least this near (cosine) are about one subject."""
DUPLICATE_PAIR = 0.6
"""A duplicate: the pair's cosine at least this, and its best aligned statements at least
:data:`DUPLICATE_STATEMENT`, with nothing differing."""
DUPLICATE_STATEMENT = 0.6
DUPLICATE_COVERED = 0.5
"""... and at least this share of the shorter side's statements with a match that near."""
CONFLICT_PAIR = 0.45
"""A contradiction needs the pair at least this near."""
SCOPED_PAIR = 0.45
SUPERSEDE_PAIR = 0.62
"""A supersession whose old way is a common word needs the pair this near."""
RARE_SHARE = 0.02
SUPERSEDE_SHARED = 0.33
"""A supersession with a rare word in common needs the pair only this near."""
SUPERSEDE_BARE = 0.62
"""A supersession phrase ("replaced", "since October") without the old way named on the
other side needs the pair this near."""
DUPLICATE_NEAR = 0.5
DUPLICATE_OVERLAP = 0.45
"""A duplicate also: the pair at least :data:`DUPLICATE_NEAR` near and this share of the
sides' words, weighted by rarity (:meth:`Vectors.overlap`), in common."""
DUPLICATE_FAR = 0.4
DUPLICATE_SHARED = 0.55
"""... or a pair this near whose words, weighted by rarity, are mostly the same."""
DUPLICATE_VALUE_PAIR = 0.45
DUPLICATE_VALUE = 0.3
"""... or a pair this near, sharing this much, whose aligned statements give the same value
("within 15 minutes" / "after 15 min")."""
COMPATIBLE_PAIR = 0.33
"""Two rules at least this near, nothing contradicting: compatible."""
COMPATIBLE_SHARED = 0.2
"""... and at least this share of their words, weighted by rarity, in common: two rules on one
practice ("golangci-lint runs with the strict preset" / "run golangci-lint before pushing"),
not two rules of one broad area (related). The middle of the values that did as well on the
tune half (0.15 to 0.3)."""
FLIP_PAIR = 0.25
"""A rare word one side negates and the other asserts is a contradiction from this near."""
NUMBER_STATEMENT = 0.6
SUBJECT_SHARE = 0.015
"""A subject word both sides name is in at most this share of the run's items."""
NUMBER_PAIR = 0.35
NUMBER_ALIGNED = 0.3
"""A pair this near (below :data:`CONFLICT_PAIR`) is a contradiction on another number in
statements this near when both sides name a rare word (their subject)."""
"""Other numbers in statements less near than this need a rare word in common (a subject)."""
KIND_PAIR = 0.45
"""Two memories at least this near that name other values of one kind (another test runner,
log level, message broker: :mod:`memtui.core.judge.kinds`) contradict each other."""
REVIEW_PAIR = 0.5
"""A pair the rules cannot pin, each side the other's nearest memory and at least this near,
is listed for review (as a likely duplicate, with a low confidence) rather than hidden."""
REVIEW_SUBJECT = 0.45
"""... or, each the other's nearest with statements that near, their subject vectors
(:meth:`Vectors.subject`: the content words weighted by rarity) at least this near. Chosen on
the tune half: three in four of its pairs that need a decision are this near. The near
statements are needed as for the whole texts: without them, two memories naming one rare
event ("Black Friday": a deploy freeze, a capacity plan) were listed."""
MAX_SUBJECT_CHARS = 4_000
PARALLEL_VALUES_PAIR = 0.4
"""Two memories at least this near that give other values of one kind (a timeout each, a
version each) where no rule found them contradicting: parallel notes, their values differ by
design (not_conflict), not merely related."""
PARALLEL_NEAR = 0.55
PARALLEL_ALIKE = 0.6
SWAP_NEAR = 0.6
"""Swapped words at least this near (cosine of their embeddings) are values of one kind."""
MAX_SWAP = 3
SWAP_STATEMENT = 0.75
SWAP_WORDS = 2
"""Statements at least this near with at most this many words swapped on each side, none
of them naming the subject or a condition, give another value of one kind (the embedding of
one word alone tells little: "jest" / "vitest" are 0.11 apart)."""

GONE = re.compile(
    r"\b(?:now|no longer|anymore|any more|replaced|moved|migrated|switched (?:to|off)"
    r"|ported|upgraded|retired|decommissioned|deprecated|(?:was|were|is|are|got) (?:removed|"
    r"deleted|dropped|archived|closed|gone|retired|switched off|shut down|decommissioned"
    r"|replaced|abandoned|discontinued)|is gone|can go"
    r"|(?:after|since) the (?:\w+ )?(?:migration|export|move|switch|cutover|rewrite)"
    r"|since (?:january|february|march|april|may|june|july|august|september|october"
    r"|november|december|\d{4}|last \w+)|since \w+ was"
    r"|used to|previously|formerly|as of|from now on|going forward|nowadays|these days"
    r"|phased out|in favou?r of|superseded|obsolete|stopped using|ditched|sunset)\b",
    re.IGNORECASE,
)
"""Phrases that say one side's way is over ("was removed", "now", "no longer")."""
CONDITIONS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "production prod staging local locally development dev ci",
        "unit integration e2e end-to-end component components",
        "internal external partner partners public private",
        "weekend weekends weekday weekdays week night nights daytime window hours",
        "script scripts service services batch consumer consumers server webhook webhooks cli",
        "agent agents reviewer planner session main",
        "feature release hotfix hotfixes",
        "bug bugs story stories",
        "incident incidents sev1 declared",
        "docs repository sdk tools",
        "migration migrations refactor refactors",
    )
)
"""Kinds of condition, as written (a stem would make "production" "product" and
"developer" "develop"): two sides naming different ones of a kind are scoped."""
CONDITION_WORDS = frozenset((
    "production", "prod", "staging", "local", "locally", "development", "dev", "ci",
    "unit", "integration", "e2e", "end-to-end", "component", "internal", "external", "partner",
    "weekend", "weekends", "weekday", "weekdays", "night", "nightly", "daytime",
    "script", "scripts", "service", "services", "batch", "consumer", "server", "webhook", "cli",
    "agent", "agents", "subagent", "reviewer", "planner", "hotfix", "hotfixes", "legacy",
    "migrations", "refactors", "bugs", "stories", "incident", "incidents",
))
"""Words that name a condition a rule holds under, as written (for
:func:`own_conditions`)."""
ANTONYMS = tuple(
    frozenset((stem(a), stem(b)))
    for a, b in (
        ("always", "never"), ("enable", "disable"), ("enabled", "disabled"), ("on", "off"),
        ("allow", "forbid"), ("allowed", "forbidden"), ("required", "optional"),
        ("true", "false"), ("sync", "async"), ("synchronous", "asynchronous"),
        ("tabs", "spaces"), ("single", "double"), ("mock", "real"), ("squash", "rebase"),
        ("immediately", "afterwards"), ("roll", "fix"), ("include", "exclude"),
        ("public", "private"), ("more", "less"), ("min", "max"),
    )
)


_old_ways = lru_cache(maxsize=32_768)(old_ways)
""":func:`~memtui.core.judge.statements.old_ways`, once per statement (not per pair)."""


@lru_cache(maxsize=32_768)
def _gone_in(text: str) -> re.Match[str] | None:
    """:data:`GONE`'s first match in ``text``, searched once per text (per memory, not per
    pair)."""
    return GONE.search(text)


@dataclass(frozen=True)
class Reading:
    """What the engine found in a pair, before it decides."""

    pair: float
    aligned: list[tuple[int, int, float]]
    """``(statement of a, statement of b, cosine)`` for each statement of ``a``'s nearest."""
    covered: float
    """Share of the shorter side's content words in statements aligned with the other's."""
    sims: tuple[tuple[float, ...], ...] = ()
    """The cosine of every statement of ``a`` with every statement of ``b``."""


class Vectors:
    """Embeddings of texts through an :class:`~memtui.core.judge.embed.Embedder` (each text
    once per run)."""

    def __init__(self, embedder: Embedder | None = None,
                 items: Sequence[JudgeItem] = ()) -> None:
        from memtui.core.judge.embed import Embedder

        # an embedder of its own keeps no copy of the vectors: :meth:`of` keeps them
        self.embedder = embedder if embedder is not None else Embedder(remember=False)
        self.df: dict[str, int] = {}
        """In how many of the run's items each stem occurs (rare stems name a subject)."""
        self._lists: dict[tuple[str, ...], Matrix] = {}
        self._rows: dict[str, Matrix] = {}
        self.items = 0
        for item in {i.key: i for i in items}.values():
            self.items += 1
            stems_ = {w for s in statements_of(item) for w in s.stems}
            for word in stems_ | _words_of(item.description):
                self.df[word] = self.df.get(word, 0) + 1
        self._n = max(self.items, 2)
        self._subjects: dict[str, Matrix] = {}
        self._weights: dict[str, float] = {}
        """Each word's rarity weight in :meth:`overlap` (log N / (1 + df) + 0.1), made once."""
        self._words: WordVectors | None = None
        self._no_words = False
        """The embedder is a test's own (it overrides ``embed``): no word vectors."""
        self._prepared: set[tuple[str, str, str]] = set()
        """The sides whose texts :meth:`prepare` has embedded (key, digest, name)."""

    def rare(self, words: frozenset[str], share: float = 0.0) -> frozenset[str]:
        """The stems of ``words`` in at most :data:`RARE_SHARE` of the run's items (all of
        them when the run is one pair)."""
        limit = max(2, int(self.items * (share or RARE_SHARE)))
        return frozenset(w for w in words if self.df.get(w, 0) <= limit)

    def overlap(self, a: frozenset[str], b: frozenset[str], mutual: bool = False) -> float:
        """The share of the smaller side's words (weighted by rarity: log N / (1 + df))
        that the other side has too; ``mutual``: of the larger side's (a short rule inside a
        longer memory is not the same memory)."""
        known = self._weights

        def weight(words_: frozenset[str]) -> float:
            total = 0.0
            for w in words_:
                term = known.get(w)
                if term is None:
                    term = known[w] = math.log(self._n / (1 + self.df.get(w, 0))) + 0.1
                total += term
            return total

        whole = max(weight(a), weight(b)) if mutual else min(weight(a), weight(b))
        return weight(a & b) / whole if whole > 0 else 0.0

    def of(self, texts: Sequence[str]) -> Matrix:
        """The texts' unit vectors, in order. A memory takes part in many pairs: its text
        and its statements are asked for again and again, so each text's vector is kept for
        the run (once: the embedder keeps no copy of its own when this made it), and each
        list of more than two texts (a memory's statements) as one matrix whose rows those
        are. A pair of texts (two whole memories, two words swapped) is not kept as a list:
        tens of thousands of pairs would each keep a copy of rows kept already. The texts not
        seen yet go to the embedder together, in order."""
        import numpy as np

        key = tuple(texts)
        known = self._lists.get(key)
        if known is not None:
            return known
        missing = [text for text in dict.fromkeys(key) if text not in self._rows]
        fresh = self.embedder.embed(missing) if missing else None
        if fresh is not None:
            for text, row in zip(missing, fresh, strict=True):
                self._rows[text] = row
        if fresh is not None and len(missing) == len(key):
            matrix = fresh  # every text new and once: its rows are the ones kept
        elif key:
            matrix = np.stack([self._rows[text] for text in key])
        else:
            matrix = self.embedder.embed([])
        if len(key) > 2:
            self._lists[key] = matrix
        return matrix

    def prepare(self, candidates: Sequence[Candidate]) -> None:
        """Embed, in one call to the embedder, every text :func:`judge_pair` will ask of
        ``candidates`` and is not kept yet (each side's whole text and statements): the
        vectors are the same as one call per pair gives (each text's vector is its own), the
        tokenizer's batch and the embedder's path run once for many."""
        texts: dict[str, None] = {}
        for candidate in candidates:
            a, b = candidate.a, candidate.b
            if a.digest == b.digest or (body_digest(a) and body_digest(a) == body_digest(b)):
                continue  # judged by its digests alone
            for side in (a, b):
                if (side.key, side.digest, side.name) in self._prepared:
                    continue  # its texts asked for already
                self._prepared.add((side.key, side.digest, side.name))
                side = bounded(side)
                texts[_text(side)] = None
                texts.update(dict.fromkeys(st.text for st in statements_of(side)))
        missing = [text for text in texts if text not in self._rows]
        if missing:
            for text, row in zip(missing, self.embedder.embed(missing), strict=True):
                self._rows[text] = row

    def subject(self, text: str) -> Matrix:
        """What ``text`` is about, as one unit vector: its content words' vectors (each word
        embedded alone, once a run), weighted by rarity (log N / (1 + df) + 0.1, as
        :meth:`overlap`) and summed. A memory's mean of tokens weighs "the", "use" and
        "tests" as much as "sqlc" or "Capistrano"; this one weighs the subject words most,
        so two paraphrases of one fact in other words come out nearer than two facts of one
        broad area."""
        known = self._subjects.get(text)
        if known is not None:
            return known
        import numpy as np

        said = sorted({w for w in words(text[:MAX_SUBJECT_CHARS]) if content(w)})
        vector = np.zeros(self.embedder_dimensions(), dtype=np.float32)
        if said:
            rows = self.of(said)
            weights = np.array([math.log(self._n / (1 + self.df.get(stem(w), 0))) + 0.1
                                for w in said], dtype=np.float32)
            vector = weights @ rows
            norm = float(np.linalg.norm(vector))
            if norm > 0:
                vector = vector / norm
        self._subjects[text] = vector
        return vector

    def embedder_dimensions(self) -> int:
        from memtui.core.judge.embed import DIMENSIONS

        return DIMENSIONS

    def subject_cosine(self, a: JudgeItem, b: JudgeItem) -> float:
        """The cosine of the two items' :meth:`subject` vectors."""
        return float(self.subject(_text(a)) @ self.subject(_text(b)))

    def cosine(self, a: str, b: str) -> float:
        words_ = self._word_vectors()
        if words_ is not None:  # the swap test's words: each word tokenized once a run
            va = self._rows.get(a)
            va = words_.vector(a) if va is None else va
            vb = self._rows.get(b)
            vb = words_.vector(b) if vb is None else vb
            if va is not None and vb is not None:
                return float(va @ vb)
        m = self.of([a, b])
        return float(m[0] @ m[1])

    def _word_vectors(self) -> WordVectors | None:
        """Vectors of texts of words from each word's tokens (:mod:`memtui.core.judge.
        word_vectors`: the embedder's vectors, bit for bit), when the embedder is the model's
        own (a test's embedder that overrides ``embed`` gets every text)."""
        if self._words is None and not self._no_words:
            from memtui.core.judge.embed import Embedder
            from memtui.core.judge.word_vectors import WordVectors

            if type(self.embedder).embed is Embedder.embed:
                self._words = WordVectors(self.embedder.model)
            else:
                self._no_words = True
        return self._words


def _text(item: JudgeItem) -> str:
    from memtui.core.judge.embed import text_of

    return text_of(item)


def read(a: JudgeItem, b: JudgeItem, sa: list[Statement], sb: list[Statement],
         vectors: Vectors) -> Reading:
    whole = vectors.of([_text(a), _text(b)])
    pair = float(whole[0] @ whole[1])
    if not sa or not sb:
        return Reading(pair, [], 0.0)
    ma = vectors.of([s.text for s in sa])
    mb = vectors.of([s.text for s in sb])
    sims = ma @ mb.T
    best = sims.max(axis=1)
    aligned = list(zip(range(len(sa)), sims.argmax(axis=1).tolist(), best.tolist(),
                       strict=True))
    a_cov = _share([len(s.stems) for s in sa], best)
    b_cov = _share([len(s.stems) for s in sb], sims.max(axis=0))
    shorter = a_cov if len(sa) <= len(sb) else b_cov
    return Reading(pair, aligned, shorter, tuple(tuple(row) for row in sims.tolist()))


def _share(weights: list[int], best: Matrix) -> float:
    """The share of a side's content words in statements with a match at least
    :data:`DUPLICATE_STATEMENT` near (a shared "Keep it that way." covers little)."""
    total = sum(weights) or 1
    return sum(w for w, b in zip(weights, best.tolist(), strict=True)
               if b >= DUPLICATE_STATEMENT) / total


_CONDITION_ALIASES = {
    "prod": "production", "dev": "development", "locally": "local", "e2e": "end-to-end",
    "subagent": "agent", "subagents": "agent", "nightly": "night",
}
"""Short and long names of one condition ("prod" is production, "dev" development)."""


def singular(word: str) -> str:
    """A condition word without its plural ending ("webhooks" → "webhook", "hotfixes" →
    "hotfix", "stories" → "story") and by its long name ("prod" → "production"): one
    condition whether a side says one or many, short or long (the stemmer would also make
    "production" "product")."""
    if word in _CONDITION_ALIASES:
        return _CONDITION_ALIASES[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


_SINGULAR_CONDITIONS: tuple[frozenset[str], ...] = tuple(
    frozenset(singular(w) for w in group) for group in CONDITIONS)


@lru_cache(maxsize=16_384)
def _conditions(stems: frozenset[str]) -> tuple[frozenset[str], ...]:
    said = frozenset(singular(w) for w in stems)
    return tuple(said & group for group in _SINGULAR_CONDITIONS)


def scoped_by(sa: frozenset[str], sb: frozenset[str]) -> tuple[str, str] | None:
    """A kind of condition each side names differently: ``(a's words, b's words)``."""
    for ca, cb in zip(_conditions(sa), _conditions(sb), strict=True):
        if ca and cb and not ca & cb:
            return " ".join(sorted(ca)), " ".join(sorted(cb))
    return None


_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}\b")


def is_journal(item: JudgeItem) -> bool:
    """A dated log (``2026-11-26.md``): it records what happened ("Tried SQLite in
    memory"), so only a near pair's contradiction is one, as two sessions disagreeing is
    their history."""
    name = item.rel_path.rsplit("/", 1)[-1]
    return bool(_DATED.match(name) or _DATED.match(item.name))


_CONDITION_STEMS = frozenset(stem(w) for w in frozenset().union(*CONDITIONS))


def own_conditions(sa: frozenset[str], sb: frozenset[str]) -> tuple[str, str] | None:
    """Condition words (:data:`CONDITION_WORDS`, compared as written: "production" is not
    "product") each side names and the other never does (component tests vs the
    server code, batch scripts vs the webhook consumer): ``(a's, b's)``."""
    sa = frozenset(singular(w) for w in sa & CONDITION_WORDS)
    sb = frozenset(singular(w) for w in sb & CONDITION_WORDS)
    only_a, only_b = sa - sb, sb - sa
    if only_a and only_b:
        return " ".join(sorted(only_a)), " ".join(sorted(only_b))
    return None


_FOLDER = re.compile(r"(?<![\w./@:-])([a-z][\w.-]{0,40})/(?=[\s),;:.!?]|$)", re.IGNORECASE)
"""A folder of the repository named as such: ``api/``, ``web/`` (not a URL's or a path's
inner parts: ``github.com/pkg``, ``scripts/test.sh``)."""


@lru_cache(maxsize=16_384)
def _folders(text: str) -> frozenset[str]:
    return frozenset(m.group(1).casefold() for m in _FOLDER.finditer(text[:MAX_FOLDER_TEXT]))


MAX_FOLDER_TEXT = 4_000


def own_folders(a: str, b: str) -> tuple[str, str] | None:
    """Folders of the repository each side names and the other never does ("no Node code in
    api/" / "Node 22 for web/"): each says how things are in its own part of the tree."""
    fa, fb = _folders(a), _folders(b)
    only_a, only_b = fa - fb, fb - fa
    if only_a and only_b:
        return (" ".join(f"{f}/" for f in sorted(only_a)),
                " ".join(f"{f}/" for f in sorted(only_b)))
    return None


def other_value(x: Statement, y: Statement) -> tuple[str, str] | None:
    """Values of one kind that differ ("10 minutes" vs "one hour", "120" vs "100"):
    ``(x's, y's)`` as written; None when no kind has other values on each side."""
    for kind in sorted({k for _, k in x.quantities} & {k for _, k in y.quantities}):
        vx = {v for v, k in x.quantities if k == kind}
        vy = {v for v, k in y.quantities if k == kind}
        if not vx & vy:
            return _written(x, vx, kind), _written(y, vy, kind)
    return None


def _written(st: Statement, values: set[str], kind: str) -> str:
    """The statement's numbers of a kind, as written ("30" for "30 seconds", "one" for
    "one-week")."""
    if kind != "time" and kind != "size":
        return " ".join(sorted(values))
    said = [part for token in st.tokens for part in token.split("-")
            if _is_number(part) or (part in NUMBER_WORDS and part not in _NOT_VALUES)]
    return " ".join(said) or " ".join(sorted(values))


_NOT_VALUES = frozenset(("once", "twice", "single", "double"))


def _other_port(x: Statement, y: Statement) -> bool:
    """Both statements give a port, and not the same one."""
    px = {v for v, k in x.quantities if k == "port"}
    py = {v for v, k in y.quantities if k == "port"}
    return bool(px and py and not px & py)


def _is_number(word: str) -> bool:
    return bool(re.match(r"^\d+(?:[.,]\d+)*$", word))


def difference(
    x: Statement, y: Statement, other_x: frozenset[str], other_y: frozenset[str],
    vectors: Vectors, mentions: Counter[str] | None = None, sim: float = 0.0,
    subjects: frozenset[str] = frozenset(),
) -> tuple[str, str, str] | None:
    """What two aligned statements disagree on: ``(kind, x's part, y's part)`` with kind
    ``number``, ``negation``, ``antonym`` or ``value``; None when they agree.
    ``other_x`` / ``other_y``: every stem of each side (a word swapped in one statement but
    said elsewhere on the other side is no swap); ``mentions``: in how many statements of the
    pair each stem is (of two negated words, the one the pair talks about most is quoted)."""
    other = other_value(x, y)
    if other is not None:
        return "number", other[0], other[1]
    flipped = (x.denied & y.asserted) - y.negated or (y.denied & x.asserted) - x.negated
    if flipped:
        counts = mentions if mentions is not None else Counter[str]()
        word = min(flipped, key=lambda w: (-counts[w], w))
        neg_x = word in x.negated
        return "negation", (f"not {word}" if neg_x else word), (word if neg_x else f"not {word}")
    only_x = x.stems - other_y - _said_when(x)
    only_y = y.stems - other_x - _said_when(y)
    for pair in ANTONYMS:
        if pair & only_x and pair & only_y and (pair & only_x) != (pair & only_y):
            return "antonym", " ".join(sorted(pair & only_x)), " ".join(sorted(pair & only_y))
    if only_x and only_y and len(only_x) <= MAX_SWAP and len(only_y) <= MAX_SWAP:
        left, right = " ".join(sorted(only_x)), " ".join(sorted(only_y))
        if vectors.cosine(left, right) >= SWAP_NEAR:
            return "value", left, right
        swapped = only_x | only_y
        kept = x.stems & y.stems
        if (sim >= SWAP_STATEMENT and len(only_x) <= SWAP_WORDS and len(only_y) <= SWAP_WORDS
                and len(kept) >= 2 * max(len(only_x), len(only_y))
                and vectors.rare(swapped) == swapped
                and not swapped & subjects and not swapped & _CONDITION_STEMS):
            # one statement with one or two words swapped, the rest the same: another value
            # (jest / vitest), unless the words name the subject (the names, descriptions:
            # frontend / backend) or a condition (staging / production: scoped)
            return "value", left, right
    return None


WHEN_WORDS = frozenset(("now", "still", "today", "nowadays", "currently", "presently",
                        "already", "anymore", "yet"))
"""Words that say when a statement holds, not what it says ("now", "still", "currently"):
no value of their own, so never a word swapped for another ("still reviews" / "now
reviews" is one fact; whether "now" says it changed is :func:`_changed`'s question)."""


@lru_cache(maxsize=16_384)
def _when_stems(tokens: tuple[str, ...]) -> frozenset[str]:
    said = {stem(t) for t in tokens if t in WHEN_WORDS}
    return frozenset(said - {stem(t) for t in tokens if t not in WHEN_WORDS})


def _said_when(st: Statement) -> frozenset[str]:
    """The stems of :data:`WHEN_WORDS` the statement says (unless another of its words has
    that stem: "the current release" keeps "current")."""
    return _when_stems(st.tokens)


def _flips(sa: list[Statement], sb: list[Statement], mentions: Counter[str],
           sim: float) -> list[tuple[int, float, int, int, tuple[str, str, str]]]:
    """Words a statement of one side negates and one of the other asserts (the other side
    never negating it), anywhere in the pair: what a negation found in aligned statements is
    quoted by when the pair talks about it more."""
    out: list[tuple[int, float, int, int, tuple[str, str, str]]] = []
    neg_a = frozenset().union(*(s.negated for s in sa))
    neg_b = frozenset().union(*(s.negated for s in sb))
    for i, x in enumerate(sa):
        for j, y in enumerate(sb):
            for word in (x.denied & y.asserted) - neg_b:
                out.append((mentions[word], sim, i, j, ("negation", f"not {word}", word)))
            for word in (y.denied & x.asserted) - neg_a:
                out.append((mentions[word], sim, i, j, ("negation", word, f"not {word}")))
    return out


def _when(item: JudgeItem) -> str:
    if item.modified:
        return str(item.modified)
    if item.mtime:
        return datetime.fromtimestamp(item.mtime, UTC).strftime("%Y-%m-%d")
    return "no date"






_KIND_WORDS = {
    "number": "a different number",
    "negation": "a negation on one side",
    "antonym": "opposite words",
    "value": "another value of the same kind",
}


@lru_cache(maxsize=16_384)
def _word_set(text: str) -> frozenset[str]:
    """The words of a text, once per text (each pair of a memory asks again)."""
    return frozenset(words(text))


@lru_cache(maxsize=16_384)
def _words_of(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text) if content(w))


RULE_START = frozenset(stem(w) for w in (
    "use", "run", "add", "write", "keep", "avoid", "check", "ask", "watch", "post", "fill",
    "remove", "delete", "store", "put", "wrap", "prefer", "make", "open", "lint", "call",
    "return", "name", "log", "test", "deploy", "merge", "announce", "include", "document",
    "link", "tag", "label", "review", "restart", "rotate", "pin", "set", "start", "stop",
    "don't", "never", "always", "every", "each", "only",
))
"""Words a rule starts with: an imperative verb or a quantifier ("Watch the dashboard",
"Every alert rule...", "Each engineer...")."""
RULE_WORDS = frozenset(("must", "should", "need", "needs", "every", "each", "always", "never",
                        "only", "at most", "at least", "required", "mandatory", "shall"))


def rule_like(statements: Sequence[Statement]) -> bool:
    """The side states a rule (an imperative, a must / should / every / at most), not a fact
    of the setup: two rules on one subject that do not contradict both hold (compatible)."""
    for st in statements:
        if st.tokens and (stem(st.tokens[0]) in RULE_START or st.tokens[0] in RULE_START):
            return True
        if any(t in RULE_WORDS for t in st.tokens) or " at most " in f" {' '.join(st.tokens)} ":
            return True
    return False


def _supersession(a: JudgeItem, b: JudgeItem, sa: list[Statement], sb: list[Statement],
                  reading: Reading, vectors: Vectors, side: str | None) -> Verdict | None:
    """One side says a way is over ("RabbitMQ was decommissioned", "ruff replaced flake8")
    and the other side still says that way; the newer side (by ``modified``, else mtime) is
    the one that says so, or the dates are unknown."""
    found: list[tuple[float, str, str, str]] = []
    for marked, gone_side, other in (("a", sa, sb), ("b", sb, sa)):
        if side not in (None, marked):
            continue
        item = a if marked == "a" else b
        said = _gone_in(item.body)
        if said is None:
            continue
        asserted = frozenset().union(*(s.asserted for s in other)) if other else frozenset()
        numbers = frozenset().union(*(s.numbers for s in other)) if other else frozenset()
        old: set[str] = set()
        old_numbers: set[str] = set()
        negated: set[str] = set()
        for st in gone_side:
            stems_, nums = _old_ways(st.text)
            old |= stems_
            old_numbers |= nums
            negated |= st.negated
        files = frozenset(w for w in old if "." in w.strip("."))
        """A file the way names ("scripts/test.sh no longer exists"): the other side must
        name that file, not only a folder of its path ("scripts")."""
        match = frozenset(old) & asserted if not files or files & asserted else frozenset()
        rare = (vectors.rare(match) | (frozenset(old_numbers) & numbers)
                | vectors.rare(frozenset(negated) & asserted))
        if rare and reading.pair >= SUPERSEDE_SHARED:
            what = " ".join(sorted(rare))
            found.append((reading.pair + 0.1, marked, said.group(0), what))
        elif match and reading.pair >= SUPERSEDE_PAIR:
            found.append((reading.pair, marked, said.group(0), " ".join(sorted(match))))
        elif (said.group(0).casefold() != "now" and reading.pair >= SUPERSEDE_BARE
              and not _states_the_new_way(gone_side, said.group(0), asserted, vectors)):
            found.append((reading.pair - 0.1, marked, said.group(0), ""))
    if not found:
        return None
    score, marked, phrase, what = max(found)
    kept, old_item = (a, b) if marked == "a" else (b, a)
    gone = f" (“{evidence_quote(what, 40)}”)" if what else ""
    evidence = tuple(evidence_quote(t) for t in (
        next((s.text for s in (sa if marked == "a" else sb) if GONE.search(s.text)), kept.body),
        old_item.body or old_item.description))
    return Verdict(
        Relation.SUPERSEDES, round(max(0.3, min(0.85, score)), 2),
        f"{marked.upper()} says the other way{gone} is over (“{phrase}”); the newer is "
        f"{marked.upper()} ({_when(kept)} vs {_when(old_item)})",
        NAME, winner=marked, evidence=evidence)


def _conflict(a: JudgeItem, b: JudgeItem, sa: list[Statement], sb: list[Statement],
              all_a: frozenset[str], all_b: frozenset[str], reading: Reading,
              vectors: Vectors, side: str | None) -> Verdict | None:
    """The same subject with another value in aligned statements (a number, a negation,
    opposite words, a word of the same kind swapped), or, however far the pair, a rare word
    one side negates and the other asserts ("never SQLite" / "SQLite in memory")."""
    mentions = Counter(w for st in (*sa, *sb) for w in st.stems)
    differing: list[tuple[int, float, int, int, tuple[str, str, str]]] = []
    journal = is_journal(a) or is_journal(b)
    named = (_words_of(a.description) | _words_of(a.name.replace("-", " ").replace("_", " "))
             | _words_of(b.description) | _words_of(b.name.replace("-", " ").replace("_", " ")))
    subject = vectors.rare((all_a | _words_of(a.description) | _words_of(a.name))
                           & (all_b | _words_of(b.description) | _words_of(b.name)),
                           SUBJECT_SHARE)
    """Rare words both sides name: a subject in common ("cadence", "acknowledge")."""
    if reading.pair >= NUMBER_PAIR:
        for i, j, sim in reading.aligned:
            if sim < NUMBER_ALIGNED:
                continue
            found = difference(sa[i], sb[j], all_a, all_b, vectors, mentions, sim, named)
            if found is None:
                continue
            typed = found[0] == "number" and _other_port(sa[i], sb[j])
            """Another port in aligned statements: a value typed enough to need no subject
            word in common ("port 5432" / "localhost:6543")."""
            if (reading.pair < CONFLICT_PAIR or sim < ALIGNED) and (
                    found[0] != "number" or not (subject or typed) or i or j or journal):
                continue  # farther: only another number in what each side says first, on a
                # subject both name, and not from a journal
            if found[0] == "number" and sim < NUMBER_STATEMENT and not (subject or typed):
                continue  # other numbers of other subjects ("10 s" for HTTP, "5 s" for SQL)
            quoted = {stem(w) for w in f"{found[1]} {found[2]}".split()} - {"not"}
            talked = max((mentions[w] for w in quoted), default=0)
            differing.append((talked, sim, i, j, found))
        if differing and any(d[4][0] == "negation" for d in differing):
            differing += _flips(sa, sb, mentions, reading.pair)
    if not differing and reading.pair >= FLIP_PAIR and not journal:
        differing = [d for d in _flips(sa, sb, mentions, reading.pair)
                     if reading.sims[d[2]][d[3]] >= ALIGNED
                     and vectors.rare(frozenset((d[4][1].removeprefix("not "),)))]
    if not differing and reading.pair >= KIND_PAIR and not journal:
        differing = _other_kind(a, b, sa, sb, reading)
    if not differing:
        return None
    # the difference the pair talks about most ("never SQLite" / "SQLite in memory" before
    # "no docker needed"), then the nearest statements
    _, sim, i, j, (kind, left, right) = max(differing, key=lambda d: (d[0], d[1]))
    own = (own_conditions(_word_set(f"{a.description} {a.body}"),
                          _word_set(f"{b.description} {b.body}"))
           or own_folders(f"{a.description} {a.body}", f"{b.description} {b.body}"))
    if own is not None:
        return Verdict(
            Relation.SCOPED, round(min(0.7, reading.pair), 2),
            f"they differ ({_kind_words(kind)}: “{evidence_quote(left, 40)}” vs "
            f"“{evidence_quote(right, 40)}”), each under its own condition: “{own[0]}” vs "
            f"“{own[1]}”", NAME,
            evidence=(evidence_quote(sa[i].text), evidence_quote(sb[j].text)))
    keep = ""
    if side is not None:
        kept = a if side == "a" else b
        keep = ("; the CLAUDE.md rule stays" if kept.kind == CLAUDE_MD
                else f"; the newer is {side.upper()} ({_when(kept)})")
    confidence = 0.8 if kind in ("number", "negation", "antonym") else 0.6
    if kind.startswith(KIND_PREFIX):
        confidence, sim = 0.7, max(sim, reading.pair)
    return Verdict(
        Relation.CONFLICTS_WITH, round(confidence * min(1.0, sim + 0.2), 2),
        f"the same subject with {_kind_words(kind)}: “{evidence_quote(left, 60)}” vs "
        f"“{evidence_quote(right, 60)}”{keep}",
        NAME, winner=side,
        evidence=(evidence_quote(sa[i].text), evidence_quote(sb[j].text)))


KIND_PREFIX = "kind:"
"""A difference found by :func:`_other_kind` is ``("kind:<the kind>", a's, b's)``."""


def _kind_words(kind: str) -> str:
    if kind.startswith(KIND_PREFIX):
        return f"another {kind.removeprefix(KIND_PREFIX)}"
    return _KIND_WORDS[kind]


def _other_kind(a: JudgeItem, b: JudgeItem, sa: list[Statement], sb: list[Statement],
                reading: Reading) -> list[tuple[int, float, int, int, tuple[str, str, str]]]:
    """Other values of one kind on each side, none in common ("tests run on jest" / "use
    vitest"; :func:`memtui.core.judge.kinds.other_kind`), quoted by the first statement of
    each side that names one."""
    from memtui.core.judge.kinds import kinds_of, other_kind

    clash = other_kind(f"{a.description}\n{a.body}", f"{b.description}\n{b.body}")
    if clash is None or not sa or not sb:  # the quote needs a statement on each side
        return []
    kind, va, vb = clash

    def where(statements: list[Statement], values: frozenset[str]) -> int:
        return next((k for k, st in enumerate(statements)
                     if kinds_of(st.text).get(kind, frozenset()) & values), 0)

    i, j = where(sa, va), where(sb, vb)
    sim = reading.sims[i][j] if reading.sims else reading.pair
    return [(1, sim, i, j, (f"{KIND_PREFIX}{kind}", " ".join(sorted(va)),
                            " ".join(sorted(vb))))]


def _names_a_value(subjects: frozenset[str]) -> bool:
    """Words that tell two names apart name a tool or setting of a kind (``vitest-web`` /
    ``test-runner-web``): the names give the value, not another subject, so the two are not
    parallel notes."""
    from memtui.core.judge.kinds import kinds_of

    return bool(kinds_of(" ".join(sorted(subjects))))


def _changed(conflict: Verdict, a: JudgeItem, b: JudgeItem, side: str | None) -> Verdict | None:
    """A contradiction whose newer side (by ``modified``, else mtime; never a CLAUDE.md
    rule, which has no date of its own) says that something changed ("now", "moved to",
    "since October"): the newer side supersedes the older, whether or not it names the old
    way in words the other side uses."""
    if conflict.relation is not Relation.CONFLICTS_WITH or side is None:
        return None
    kept, old_item = (a, b) if side == "a" else (b, a)
    if CLAUDE_MD in (a.kind, b.kind):
        return None
    said = _gone_in(kept.body)
    if said is None:
        return None
    return Verdict(
        Relation.SUPERSEDES, round(max(0.3, min(0.75, conflict.confidence)), 2),
        f"{conflict.reason.split('; the newer')[0]}; the newer side {side.upper()} says it "
        f"changed (“{said.group(0)}”): {_when(kept)} vs {_when(old_item)}",
        NAME, winner=side, evidence=conflict.evidence)


def _states_the_new_way(gone_side: list[Statement], phrase: str, asserted: frozenset[str],
                        vectors: Vectors) -> bool:
    """The other side already says what the statement with the supersession phrase says
    ("Search moved into Postgres full-text" / "search uses Postgres full-text"): a rare
    word of that statement is one the other side asserts."""
    for st in gone_side:
        if phrase.casefold() in st.text.casefold() and vectors.rare(st.asserted & asserted):
            return True
    return False


def _one_side_gives_a_value(sa: list[Statement], sb: list[Statement],
                            reading: Reading) -> str | None:
    """The first statement giving a value (a number, a version, a duration) of the one side
    that gives any in what both talk about (a statement aligned with one of the other side,
    at least :data:`ALIGNED` near: not a **Why:** line's incident figures), when the other
    side gives none at all ("Use Node 22 for web/" / "web/ needs Node for builds"): that side
    adds a detail the other does not state, so two near memories that otherwise say the same
    both hold (compatible), not one fact twice. Two repeats of one fact give its value on
    both sides or on neither. Chosen on the tune half of the labelled home (its false alarms
    12 → 10, listed 67 → 66 of 73); the held half, read as its figures only: false alarms
    16 → 14, compatible right 5 → 7, listed unchanged."""
    if not reading.sims:
        return None
    near_a = [max(row) >= ALIGNED for row in reading.sims]
    near_b = [max(row[j] for row in reading.sims) >= ALIGNED for j in range(len(sb))]
    va = [s for s, near in zip(sa, near_a, strict=True) if near and s.quantities]
    vb = [s for s, near in zip(sb, near_b, strict=True) if near and s.quantities]
    if bool(va) == bool(vb) or any(s.quantities for s in (sb if va else sa)):
        return None
    return (va or vb)[0].text


def _same_value(sa: list[Statement], sb: list[Statement], reading: Reading) -> bool:
    """Aligned statements giving one value of one kind, not a small count ("15 minutes"
    both; "one" or "two" say little)."""
    for i, j, sim in reading.aligned:
        if sim < NUMBER_ALIGNED:
            continue
        same = sa[i].quantities & sb[j].quantities
        if any(kind or value not in ("0", "1", "2", "3") for value, kind in same):
            return True
    return False


def _other_values(sa: list[Statement], sb: list[Statement],
                  ) -> tuple[str, str, str, str] | None:
    """Each side gives a value of one kind (a duration, a size, a port, a version), none the
    same: ``(a's, b's, a's statement, b's statement)`` of the first such statements."""
    for x in sa:
        if not x.quantities:
            continue
        for y in sb:
            if y.quantities:
                other = other_value(x, y)
                if other is not None:
                    return other[0], other[1], x.text, y.text
    return None


def _parallel(a: JudgeItem, b: JudgeItem, sa: list[Statement], sb: list[Statement],
              subjects: frozenset[str], reading: Reading) -> Verdict:
    """Parallel notes: scoped when what tells them apart is a condition (internal /
    external, staging / production), else not a conflict (``port-api`` / ``port-web``)."""
    names = " and ".join(sorted(subjects))
    stems_ = frozenset(stem(w) for w in subjects)
    scope = scoped_by(frozenset(w for w in words(a.name.replace("-", " ").replace("_", " "))
                                if stem(w) in stems_),
                      frozenset(w for w in words(b.name.replace("-", " ").replace("_", " "))
                                if stem(w) in stems_))
    if scope is not None:
        return Verdict(
            Relation.SCOPED, round(min(0.7, reading.pair), 2),
            f"parallel notes, each under its own condition: “{scope[0]}” vs “{scope[1]}”",
            NAME)
    if (not _alike(sa, sb, reading) and _other_values(sa, sb) is None
            and not _one_side_denies(sa, sb) and _other_kind(a, b, sa, sb, reading) == []):
        return Verdict(
            Relation.RELATED, round(min(0.5, reading.pair * 0.6), 2),
            f"parallel notes on different subjects ({names}), no values to compare", NAME)
    return Verdict(
        Relation.NOT_CONFLICT, round(min(0.6, 0.3 + reading.pair / 2), 2),
        f"parallel notes on different subjects ({names}): their values differ by design",
        NAME)


def _alike(sa: list[Statement], sb: list[Statement], reading: Reading) -> bool:
    """Aligned statements written from one template ("Billing is owned by the payments
    squad" / "Search is owned by the discovery squad"): at least :data:`PARALLEL_ALIKE` of
    their words, in order, the same."""
    from difflib import SequenceMatcher

    return any(sim >= PARALLEL_NEAR
               or SequenceMatcher(a=sa[i].tokens, b=sb[j].tokens, autojunk=False).ratio()
               >= PARALLEL_ALIKE for i, j, sim in reading.aligned)


def _one_side_denies(sa: list[Statement], sb: list[Statement]) -> bool:
    return any(s.denied for s in sa) != any(s.denied for s in sb)


def judge_pair(candidate: Candidate, vectors: Vectors | None = None,
               parallel: frozenset[str] = frozenset(), nearest: bool = False) -> Verdict:
    """The engine's verdict on one candidate pair. ``parallel``: the words that name each
    side's own subject when the two are parallel notes (names of one pattern, another subject
    each: ``port-api`` / ``port-web``; :func:`memtui.core.judge.local.subjects_of`)."""
    a, b = candidate.a, candidate.b
    if a.digest == b.digest and (a.body or a.description):
        return Verdict(Relation.DUPLICATE, 1.0, "the same content, word for word", NAME,
                       evidence=(evidence_quote(a.body or a.description),))
    if body_digest(a) and body_digest(a) == body_digest(b):
        return Verdict(Relation.DUPLICATE, 0.95, "the same text under two names", NAME,
                       winner=newer(a, b), evidence=(evidence_quote(a.body),))
    vectors = vectors if vectors is not None else Vectors()
    a, b = bounded(a), bounded(b)  # every step reads at most the first MAX_TEXT_CHARS
    sa, sb = statements_of(a), statements_of(b)
    reading = read(a, b, sa, sb, vectors)
    all_a = frozenset().union(*(s.stems for s in sa)) if sa else frozenset()
    all_b = frozenset().union(*(s.stems for s in sb)) if sb else frozenset()
    best = max(reading.aligned, key=lambda t: t[2], default=None)
    quote = (evidence_quote(sa[best[0]].text), evidence_quote(sb[best[1]].text)) if best else ()
    side = newer(a, b)

    superseding = _supersession(a, b, sa, sb, reading, vectors, side)
    if superseding is not None:
        return superseding

    if parallel and not _names_a_value(parallel):
        return _parallel(a, b, sa, sb, parallel, reading)

    scope = (scoped_by(frozenset(sa[best[0]].tokens), frozenset(sb[best[1]].tokens))
             if best is not None else None)
    if scope is not None and reading.pair >= SCOPED_PAIR:
        return Verdict(
            Relation.SCOPED, round(min(0.8, reading.pair), 2),
            f"each applies under its own condition: “{scope[0]}” vs “{scope[1]}”",
            NAME, evidence=quote)

    conflict = _conflict(a, b, sa, sb, all_a, all_b, reading, vectors, side)
    if conflict is not None:
        changed = _changed(conflict, a, b, side)
        return changed if changed is not None else conflict

    journal = is_journal(a) or is_journal(b)
    """A dated log repeats what a topic file says only when the two are near and their
    statements cover each other (the first rule), not by shared words alone."""
    same = {normalize(x.text) for x in sa} & {normalize(y.text) for y in sb}
    # a statement both sides hold word for word ("**Why:** agreed with the team.") is no
    # evidence of one fact when the rest differs: measured without them
    own_a = frozenset().union(*(x.stems for x in sa if normalize(x.text) not in same))
    own_b = frozenset().union(*(y.stems for y in sb if normalize(y.text) not in same))
    overlap = vectors.overlap(own_a | _words_of(a.description), own_b | _words_of(b.description))
    mutual = vectors.overlap(own_a | _words_of(a.description),
                             own_b | _words_of(b.description), mutual=True)
    near = max((sim for i, j, sim in reading.aligned
                if normalize(sa[i].text) not in same), default=0.0)
    if best is not None and (
        (reading.pair >= DUPLICATE_PAIR and best[2] >= DUPLICATE_STATEMENT
         and reading.covered >= DUPLICATE_COVERED)
        or (not journal and reading.pair >= DUPLICATE_NEAR and overlap >= DUPLICATE_OVERLAP
            and near >= ALIGNED)
        or (not journal and reading.pair >= DUPLICATE_FAR and mutual >= DUPLICATE_SHARED)
        or (not journal and reading.pair >= DUPLICATE_VALUE_PAIR and overlap >= DUPLICATE_VALUE
            and _same_value(sa, sb, reading))
    ):
        what = "repeats a CLAUDE.md rule" if CLAUDE_MD in (a.kind, b.kind) else "says the same"
        said = (_gone_in((a if side == "a" else b).body)
                if side is not None and CLAUDE_MD not in (a.kind, b.kind) else None)
        kept, old_item = (a, b) if side == "a" else (b, a)
        if said is not None and not _states_the_new_way(
                sa if side == "a" else sb, said.group(0),
                frozenset().union(*(st.asserted for st in (sb if side == "a" else sa))),
                vectors):
            # the newer of two near repeats says it changed ("now", "since", "moved"), and
            # the older does not already say the new way: the newer replaces it
            return Verdict(
                Relation.SUPERSEDES, round(min(0.6, reading.pair), 2),
                f"{what} ({reading.pair:.2f}), and the newer side {str(side).upper()} says it "
                f"changed (“{said.group(0)}”): {_when(kept)} vs {_when(old_item)}",
                NAME, winner=side, evidence=quote)
        detail = _one_side_gives_a_value(sa, sb, reading)
        if detail is not None:
            return Verdict(Relation.COMPATIBLE, round(min(0.6, reading.pair), 2),
                           f"near ({reading.pair:.2f}), and one side adds a value the other "
                           f"does not give (“{evidence_quote(detail, 40)}”): both can hold",
                           NAME, evidence=quote)
        return Verdict(Relation.DUPLICATE, round(min(0.9, reading.pair), 2),
                       f"{what} ({reading.pair:.2f}; its nearest statements "
                       f"{best[2]:.2f}; rare words shared {overlap:.2f}), nothing differs",
                       NAME, winner=newer(a, b), evidence=quote)
    if (best is not None and reading.pair >= COMPATIBLE_PAIR and rule_like(sa)
            and rule_like(sb) and overlap >= COMPATIBLE_SHARED):
        return Verdict(Relation.COMPATIBLE, round(min(0.6, reading.pair), 2),
                       f"two rules on near subjects ({reading.pair:.2f}), both can hold: "
                       "nothing one says contradicts the other", NAME, evidence=quote)
    if (nearest and best is not None and not journal
            and near >= ALIGNED
            and (reading.pair >= REVIEW_PAIR or vectors.subject_cosine(a, b) >= REVIEW_SUBJECT)):
        # the rules pin nothing, but each side is the other's nearest memory, the two are
        # close and so are statements of theirs (not ones both hold word for word, such as
        # "Daily: [[2026-11-25]]"): most likely one fact written twice; listed for review
        return Verdict(Relation.DUPLICATE, round(min(0.45, reading.pair * 0.6), 2),
                       f"for review: each is the other's nearest memory ({reading.pair:.2f}), "
                       "no rule tells whether they repeat or disagree", NAME,
                       winner=newer(a, b), evidence=quote)
    values = _other_values(sa, sb)
    if values is not None and reading.pair >= PARALLEL_VALUES_PAIR:
        return Verdict(
            Relation.NOT_CONFLICT, round(min(0.5, reading.pair * 0.6), 2),
            f"parallel values on other subjects (“{evidence_quote(values[0], 40)}” vs "
            f"“{evidence_quote(values[1], 40)}”): no statement of one contradicts the other",
            NAME, evidence=(evidence_quote(values[2]), evidence_quote(values[3])))
    confidence = round(min(0.5, reading.pair * 0.6), 2)
    return Verdict(Relation.RELATED, confidence,
                   f"near subjects ({reading.pair:.2f}), no disagreement found", NAME,
                   evidence=quote)
