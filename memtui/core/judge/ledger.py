"""The judge's ledger: every verdict and decision, keyed by both sides' keys and content
digests, persisted as JSON in memtui's state dir (``judge/ledger.json`` beside the journal).

A pair is ``decided`` when the user decided it for these exact contents, ``judged`` when a judge
did, ``stale`` when either side changed since its last verdict (shown with that verdict, judged
again on the next run), ``new`` otherwise. A user's decision always beats a judge's verdict.
The file is memtui's own (never a user's memory): written whole, atomically, mode 0600."""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from json.encoder import encode_basestring_ascii as _encode_str
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.judge.verdicts import (
    LOCAL_RULES,
    NEEDS_ACTION,
    Candidate,
    JudgedPair,
    Relation,
    Verdict,
)
from memtui.core.write.journal import default_journal_dir
from memtui.core.write.proposal import StateFile

VERSION = 1
LEDGER_CAP = 512 * 1024 * 1024
"""The largest ledger read: a verdict takes about 800 bytes, so the 82,574 pairs of a
10,000-memory home make 67 MB (32 MiB, the cap before, read that ledger as broken and judged
every pair again on each run); 200,000 verdicts fit with room to spare."""
USER = "user"
LOCAL = "local"
"""The local judge's name in its verdicts (:data:`memtui.core.judge.engine.NAME`)."""
RACY_SECONDS = 3
"""A decisions folder changed this recently is read again (its stat may not show a second
change in the same clock tick: git's racily clean rule, as the scan cache has it)."""
LEDGER_FILE = "judge/ledger.json"
"""The ledger, relative to memtui's state dir."""
DECISIONS_DIR = "decisions"
"""Beside the ledger: decisions written by the operations that carried them out
(:func:`decision_file`), taken into the ledger when it is next loaded and saved."""
DECISION_CAP = 1024 * 1024
DISMISSED_DIR = "dismissed"
"""Beside the ledger: the records of group decisions that changed no memory
(:mod:`memtui.core.judge.group_resolve`), each written by its operation; a decision noted
``dismissed <file>`` holds while that file exists (an undo removes it)."""


def default_ledger_path(env: Mapping[str, str] | None = None) -> Path:
    return default_journal_dir(env).parent / LEDGER_FILE


def _decision_name(entry: LedgerEntry) -> str:
    return f"{int(entry.time * 1000)}-{hashlib.sha256(_entry_bytes(entry)).hexdigest()[:16]}.json"


def _entry_bytes(entry: LedgerEntry) -> bytes:
    return json.dumps(asdict(entry), ensure_ascii=True, indent=1).encode("ascii")


def _entry(raw: object) -> LedgerEntry:
    """An entry read from disk; keys this version does not know are left out (a later
    memtui's ledger stays readable)."""
    if not isinstance(raw, dict):
        raise ValueError("an entry is not an object")
    return LedgerEntry(**{k: v for k, v in raw.items() if k in _FIELDS})


def decision_file(entry: LedgerEntry) -> StateFile:
    """A user's decision as a file of the operation that carries it out (written with its
    changes, so a crashed operation finished by recovery still records it): the ledger in the
    same state dir takes it in when it is next loaded."""
    folder = LEDGER_FILE.rsplit("/", 1)[0]
    return StateFile(f"{folder}/{DECISIONS_DIR}/{_decision_name(entry)}", _entry_bytes(entry))


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
    rules: int | None = None
    """For the local judge's verdict: the :data:`~memtui.core.judge.verdicts.LOCAL_RULES` it
    was given under (None: before they were kept, or another judge's)."""

    @property
    def decided(self) -> bool:
        return self.judge == USER

    @property
    def outdated(self) -> bool:
        """A local verdict given under other rules than today's: judged again."""
        return self.judge == LOCAL and self.rules != LOCAL_RULES

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


def new_entry(candidate: Candidate, verdict: Verdict, note: str | None = None) -> LedgerEntry:
    """The ledger's entry of ``verdict`` on ``candidate``, now."""
    return LedgerEntry(
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
        rules=LOCAL_RULES if verdict.judge == LOCAL else None,
    )


_FIELDS = frozenset(LedgerEntry.__dataclass_fields__)
_FIELD_ORDER = tuple(LedgerEntry.__dataclass_fields__)
"""The fields in the order ``asdict`` gives them (their names are plain ASCII words)."""


@dataclass
class Ledger:
    path: Path
    entries: dict[str, list[LedgerEntry]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    taken: list[Path] = field(default_factory=list)
    """Decision files taken into :attr:`entries`, removed once the ledger is saved."""
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    """Held by every method that reads or changes :attr:`entries`: the conflicts screen
    records verdicts on a worker thread while a decision records and saves on another."""
    seen: tuple[object, ...] | None = field(default=None, repr=False, compare=False)
    """What :meth:`on_disk` was when this ledger was read or last written (None: never)."""

    @property
    def decisions_dir(self) -> Path:
        return self.path.parent / DECISIONS_DIR

    def on_disk(self) -> tuple[object, ...] | None:
        """The stat of the file and of the decisions beside it (None: not trusted, a
        decision folder changed in the last :data:`RACY_SECONDS`). The ledger is always
        replaced whole (a new inode); a decision an operation wrote changes its folder."""
        def mark(path: Path) -> tuple[int, int, int] | None:
            try:
                st = os.stat(path)
            except OSError:
                return None
            return (st.st_ino, st.st_size, st.st_mtime_ns)

        folder = mark(self.decisions_dir)
        if folder is not None and time.time_ns() - folder[2] < RACY_SECONDS * 1_000_000_000:
            return None
        return (mark(self.path), folder)

    def unchanged_on_disk(self) -> bool:
        """No other process wrote the ledger or a decision since this one was read or written
        (a run may go on with it instead of reading it again)."""
        return self.seen is not None and self.on_disk() == self.seen

    @classmethod
    def load(cls, path: Path | None = None) -> Ledger:
        """The ledger at ``path`` (default: the state dir's); a missing file is an empty
        ledger; an unreadable or broken one too, with its problem (it is not overwritten
        until the next :meth:`save`, which keeps the broken file as ``ledger.json.bad``)."""
        ledger = cls(path or default_ledger_path())
        ledger.seen = ledger.on_disk()  # before reading: a write meanwhile makes it differ
        result = read_file(ledger.path, LEDGER_CAP)
        if result.missing:
            return ledger._take_decisions()
        try:
            if not result.readable or not result.complete:
                raise ValueError("; ".join(result.problems) or "cannot read")
            data = json.loads(result.data.decode("utf-8"))
            if not isinstance(data, dict) or data.get("version") != VERSION:
                raise ValueError(f"not a version-{VERSION} ledger")
            for raw in data.get("entries", []):
                entry = _entry(raw)
                Relation(entry.relation)
                ledger.entries.setdefault(entry.pair, []).append(entry)
        except (ValueError, TypeError, RecursionError) as err:
            ledger.entries.clear()
            ledger.problems.append(f"judge ledger {ledger.path}: {err}; starting a new one")
        return ledger._take_decisions()

    def _take_decisions(self) -> Ledger:
        """Take in the decisions operations wrote (one finished by recovery included) that
        the ledger does not hold yet; a file that cannot be read is left where it is."""
        try:
            names = sorted(n for n in os.listdir(self.decisions_dir) if n.endswith(".json"))
        except OSError:
            return self
        for name in names:
            path = self.decisions_dir / name
            result = read_file(path, DECISION_CAP, follow_symlinks=False)
            try:
                if not result.complete:
                    continue
                entry = _entry(json.loads(result.data.decode("utf-8")))
                Relation(entry.relation)
            except (ValueError, TypeError, RecursionError):
                continue
            self._take(entry, path)
        return self

    def _take(self, entry: LedgerEntry, path: Path | None) -> None:
        with self.lock:
            history = self.entries.setdefault(entry.pair, [])
            if entry not in history:
                history.append(entry)
                history.sort(key=lambda e: e.time)
            if path is not None and path not in self.taken:
                self.taken.append(path)

    def adopt(self, entry: LedgerEntry) -> None:
        """Hold ``entry``, a decision the applied operation wrote with :func:`decision_file`
        (its file, beside this ledger, goes once the ledger is saved)."""
        path = self.decisions_dir / _decision_name(entry)
        self._take(entry, path if path.exists() else None)

    def lookup(self, candidate: Candidate) -> JudgedPair:
        """The pair with what the ledger knows of it (see the module's doc)."""
        sides = (candidate.a.key, candidate.a.digest, candidate.b.key, candidate.b.digest)
        with self.lock:
            history = self.entries.get(candidate.id)
            if not history:
                return JudgedPair(candidate, None, "new")
            judged: LedgerEntry | None = None
            for entry in reversed(history):  # the latest first
                if (entry.a, entry.a_digest, entry.b, entry.b_digest) != sides:
                    continue
                if not entry.decided:
                    if not entry.outdated:
                        judged = judged or entry
                # a "keep one side" decision archived the other side: a pair still found means
                # that operation was undone, and the decision with it
                elif not (entry.note or "").startswith("archived ") and self._stands(entry):
                    return JudgedPair(candidate, entry.verdict(), "decided")
            if judged is not None:
                return JudgedPair(candidate, judged.verdict(), "judged")
            return JudgedPair(candidate, None, "stale", previous=history[-1].verdict())

    def _stands(self, entry: LedgerEntry) -> bool:
        """A decision noted ``dismissed <file>`` (a group's, written by an operation) holds
        while its record is beside the ledger: the operation's undo removed it."""
        note = entry.note or ""
        if not note.startswith("dismissed "):
            return True
        name = note.removeprefix("dismissed ")
        if not name or "/" in name or name.startswith("."):
            return False
        return (self.path.parent / DISMISSED_DIR / name).is_file()

    def record(
        self, candidate: Candidate, verdict: Verdict, note: str | None = None
    ) -> LedgerEntry:
        with self.lock:
            entry = new_entry(candidate, verdict, note)
            self.entries.setdefault(candidate.id, []).append(entry)
            return entry

    def decided_since(self, pair_id: str, since: float) -> bool:
        """The user decided the pair ``pair_id`` at ``since`` or later (a decision of any
        kind, for any contents of its sides: a scoped note or a merge rewrote them)."""
        with self.lock:
            return any(e.decided and e.time >= since for e in self.entries.get(pair_id, ()))

    def record_verdict(self, candidate: Candidate, verdict: Verdict, since: float
                       ) -> LedgerEntry | None:
        """Record a judge's ``verdict`` on ``candidate``, judged from ``since`` on, unless the
        user decided the pair meanwhile (:meth:`decided_since`): a late verdict never lands
        over a decision (None: not recorded). Checked and recorded under :attr:`lock`."""
        with self.lock:
            if self.decided_since(candidate.id, since):
                return None
            return self.record(candidate, verdict)

    def open_keys(self) -> set[str]:
        """The keys of every side of a pair whose latest entry is a judge's verdict that needs a
        decision (what the trees mark; a side changed since is still marked, as stale)."""
        with self.lock:
            keys: set[str] = set()
            for history in self.entries.values():
                latest = history[-1]
                if not latest.decided and Relation(latest.relation) in NEEDS_ACTION:
                    keys.update((latest.a, latest.b))
            return keys

    def forget(self, entry: LedgerEntry) -> None:
        """Remove one entry (an undone decision)."""
        with self.lock:
            history = self.entries.get(entry.pair, [])
            if entry in history:
                history.remove(entry)
            if not history:
                self.entries.pop(entry.pair, None)

    def save(self) -> str | None:
        """Write the ledger whole; what went wrong in words (nothing saved), or None. A state
        dir that cannot be written loses this run's verdicts, not the run."""
        try:
            self.write()
        except OSError as err:
            return f"judge ledger {self.path} not saved: {err.strerror or err}"
        return None

    def write(self) -> None:
        """:meth:`save`, raising the OSError."""
        with self.lock:
            directory = self.path.parent
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self.problems and self.path.exists():
                os.replace(self.path, self.path.with_name(self.path.name + ".bad"))
            fd, temp = tempfile.mkstemp(prefix=".ledger-", dir=directory)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(self.to_bytes())
                    out.flush()
                    os.fsync(out.fileno())
                os.chmod(temp, 0o600)
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
            self.problems.clear()
            for path in self.taken:  # in the ledger now
                with contextlib.suppress(OSError):
                    os.unlink(path)
            self.taken.clear()
            self.seen = self.on_disk()

    def to_bytes(self) -> bytes:
        """The file's bytes. ASCII JSON: a key holding a file name's undecodable bytes (a lone
        surrogate) is written as its ``\\udcXX`` escape and read back the same. The same
        bytes as ``json.dumps({"version": …, "entries": [asdict(e) …]}, ensure_ascii=True,
        indent=1)``, written entry by entry (:func:`_entry_json`): that took a tenth of a
        second per 2,500 entries, most of it copying each entry (``asdict``) and Python's
        indenting encoder."""
        with self.lock:
            entries = [_entry_json(e) for history in self.entries.values() for e in history]
        body = "[\n" + ",\n".join(entries) + "\n ]" if entries else "[]"
        return f'{{\n "version": {VERSION},\n "entries": {body}\n}}'.encode("ascii")


_ENTRY_INDENT = "   "
"""An entry's fields in the ledger file: ``indent=1`` at depth 3 (file, entries, entry)."""


def _value_json(value: object) -> str:
    """``value`` as ``json.dumps(value, ensure_ascii=True, indent=1)`` writes it at an entry
    field's depth: strings, numbers, None and lists of strings directly; anything else (a
    ledger read from a later memtui may hold other shapes) through ``json.dumps`` itself,
    indented to the field's depth."""
    if isinstance(value, str):
        return _encode_str(value)
    if value is None or isinstance(value, bool):
        return "null" if value is None else "true" if value else "false"
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    if type(value) is list and all(isinstance(v, str) for v in value):
        if not value:
            return "[]"
        inner = ",\n" + _ENTRY_INDENT + " "
        return ("[\n" + _ENTRY_INDENT + " " + inner.join(map(_encode_str, value))
                + "\n" + _ENTRY_INDENT + "]")
    text = json.dumps(value, ensure_ascii=True, indent=1)
    return text.replace("\n", "\n" + _ENTRY_INDENT)


def _entry_json(entry: LedgerEntry) -> str:
    """One entry of the ledger file, as ``asdict`` and the indenting encoder write it."""
    fields = ",\n".join(
        f'{_ENTRY_INDENT}"{name}": {_value_json(getattr(entry, name))}' for name in _FIELD_ORDER
    )
    return f"  {{\n{fields}\n  }}"
