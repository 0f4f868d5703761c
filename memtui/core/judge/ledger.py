"""The judge's ledger: every verdict and decision, keyed by both sides' keys and content
digests, persisted as JSON in memtui's state dir (``judge/ledger.json`` beside the journal).

A pair is ``decided`` when the user decided it for these exact contents, ``judged`` when a judge
did, ``stale`` when either side changed since its last verdict (shown with that verdict, judged
again on the next run), ``new`` otherwise. A user's decision always beats a judge's verdict.
The file is memtui's own (never a user's memory): written whole, atomically, mode 0600."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.judge.verdicts import NEEDS_ACTION, Candidate, JudgedPair, Relation, Verdict
from memtui.core.write.journal import default_journal_dir

VERSION = 1
LEDGER_CAP = 32 * 1024 * 1024
USER = "user"


def default_ledger_path(env: Mapping[str, str] | None = None) -> Path:
    return default_journal_dir(env).parent / "judge" / "ledger.json"


@dataclass
class LedgerEntry:
    pair: str
    a: str
    a_digest: str
    b: str
    b_digest: str
    relation: str
    confidence: float
    reason: str
    judge: str
    winner: str | None = None
    evidence: list[str] = field(default_factory=list)
    fallback: str | None = None
    time: float = 0.0
    note: str | None = None
    """For a user's decision: what was done (``archived b``, ``scoped``)."""

    @property
    def decided(self) -> bool:
        return self.judge == USER

    def verdict(self) -> Verdict:
        return Verdict(
            Relation(self.relation),
            self.confidence,
            self.reason,
            self.judge,
            winner=self.winner,
            evidence=tuple(self.evidence),
            fallback=self.fallback,
        )

    def matches(self, candidate: Candidate) -> bool:
        return (self.a, self.a_digest, self.b, self.b_digest) == (
            candidate.a.key,
            candidate.a.digest,
            candidate.b.key,
            candidate.b.digest,
        )


@dataclass
class Ledger:
    path: Path
    entries: dict[str, list[LedgerEntry]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path | None = None) -> Ledger:
        """The ledger at ``path`` (default: the state dir's); a missing file is an empty
        ledger; an unreadable or broken one too, with its problem (it is not overwritten
        until the next :meth:`save`, which keeps the broken file as ``ledger.json.bad``)."""
        ledger = cls(path or default_ledger_path())
        result = read_file(ledger.path, LEDGER_CAP)
        if result.missing:
            return ledger
        try:
            if not result.readable or not result.complete:
                raise ValueError("; ".join(result.problems) or "cannot read")
            data = json.loads(result.data.decode("utf-8"))
            if not isinstance(data, dict) or data.get("version") != VERSION:
                raise ValueError(f"not a version-{VERSION} ledger")
            for raw in data.get("entries", []):
                entry = LedgerEntry(**raw)
                Relation(entry.relation)
                ledger.entries.setdefault(entry.pair, []).append(entry)
        except (ValueError, TypeError, RecursionError) as err:
            ledger.entries.clear()
            ledger.problems.append(f"judge ledger {ledger.path}: {err}; starting a new one")
        return ledger

    def lookup(self, candidate: Candidate) -> JudgedPair:
        """The pair with what the ledger knows of it (see the module's doc)."""
        history = self.entries.get(candidate.id, [])
        current = [e for e in history if e.matches(candidate)]
        # a "keep one side" decision archived the other side: a pair still found means that
        # operation was undone, and the decision with it
        decided = [e for e in current if e.decided and not (e.note or "").startswith("archived ")]
        if decided:
            return JudgedPair(candidate, decided[-1].verdict(), "decided")
        judged = [e for e in current if not e.decided]
        if judged:
            return JudgedPair(candidate, judged[-1].verdict(), "judged")
        if history:
            return JudgedPair(candidate, None, "stale", previous=history[-1].verdict())
        return JudgedPair(candidate, None, "new")

    def record(
        self, candidate: Candidate, verdict: Verdict, note: str | None = None
    ) -> LedgerEntry:
        entry = LedgerEntry(
            pair=candidate.id,
            a=candidate.a.key,
            a_digest=candidate.a.digest,
            b=candidate.b.key,
            b_digest=candidate.b.digest,
            relation=verdict.relation.value,
            confidence=verdict.confidence,
            reason=verdict.reason,
            judge=verdict.judge,
            winner=verdict.winner,
            evidence=list(verdict.evidence),
            fallback=verdict.fallback,
            time=time.time(),
            note=note,
        )
        self.entries.setdefault(candidate.id, []).append(entry)
        return entry

    def open_keys(self) -> set[str]:
        """The keys of every side of a pair whose latest entry is a judge's verdict that needs a
        decision (what the trees mark; a side changed since is still marked, as stale)."""
        keys: set[str] = set()
        for history in self.entries.values():
            latest = history[-1]
            if not latest.decided and Relation(latest.relation) in NEEDS_ACTION:
                keys.update((latest.a, latest.b))
        return keys

    def forget(self, entry: LedgerEntry) -> None:
        """Remove one entry (an undone decision)."""
        history = self.entries.get(entry.pair, [])
        if entry in history:
            history.remove(entry)
        if not history:
            self.entries.pop(entry.pair, None)

    def save(self) -> None:
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self.problems and self.path.exists():
            os.replace(self.path, self.path.with_name(self.path.name + ".bad"))
        data = {
            "version": VERSION,
            "entries": [asdict(e) for history in self.entries.values() for e in history],
        }
        fd, temp = tempfile.mkstemp(prefix=".ledger-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temp, 0o600)
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        self.problems.clear()
