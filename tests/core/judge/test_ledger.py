"""The judge's ledger: a judged pair is not raised again until one side changes, a user's
decision beats every verdict, and a broken ledger file loses nothing."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

import pytest
from core.judge.homes import Note, store_dir, write_home
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.demo.writers import write_memory
from memtui.core.judge.items import memory_items
from memtui.core.judge.ledger import USER, Ledger, LedgerEntry
from memtui.core.judge.local import LocalJudge
from memtui.core.judge.run import judge_pairs, pair_up
from memtui.core.judge.verdicts import LOCAL_RULES, Candidate, Relation, Verdict
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context

NOTES = [
    Note("auto", "api-timeout.md", "Gateway timeout for the payments API",
         "The payments gateway timeout is 30 seconds; retries back off twice.", 50),
    Note("auto", "gateway-timeout.md", "Gateway timeout for the payments API",
         "The payments gateway timeout is 90 seconds; retries back off twice.", 1),
    Note("auto", "deploy-freeze.md", "No deploys on Fridays", "No production deploys on Fridays."),
    Note("team", "deploy-freeze.md", "No deploys on Fridays", "No production deploys on Fridays."),
]


class CountingJudge(LocalJudge):
    """The local judge, counting the pairs it is asked about."""

    def __init__(self) -> None:
        self.asked = 0

    def judge(
        self,
        candidates: Sequence[Candidate],
        *,
        cancelled: Callable[[], bool] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Verdict | None]:
        self.asked += len(candidates)
        return super().judge(candidates, cancelled=cancelled, progress=progress)


def run(ctx: Context, path: Path, judge: CountingJudge, **options: bool):  # type: ignore[no-untyped-def]
    ledger = Ledger.load(path)
    pairs = pair_up(memory_items(scan(ctx)), ledger)
    judged = judge_pairs(pairs, judge, ledger, **options)
    ledger.save()
    return pairs, judged


def test_a_judged_pair_is_raised_again_only_after_one_side_changes(tmp_path: Path) -> None:
    ctx = write_home(tmp_path, NOTES)
    path = tmp_path / "state" / "ledger.json"
    judge = CountingJudge()
    pairs, judged = run(ctx, path, judge)
    assert judged == len(pairs) == 2 and judge.asked == 2

    pairs, judged = run(ctx, path, judge)
    assert (judged, judge.asked) == (0, 2)
    assert {p.state for p in pairs} == {"judged"}

    write_memory(store_dir(tmp_path, "auto"), "gateway-timeout.md",
                 description="Gateway timeout for the payments API", type="project",
                 body="The payments gateway timeout is 120 seconds; retries back off twice.")
    ledger = Ledger.load(path)
    states = {p.candidate.b.rel_path: p for p in pair_up(memory_items(scan(ctx)), ledger)}
    stale = states["gateway-timeout.md"]
    assert stale.state == "stale" and stale.verdict is None
    assert stale.previous is not None and "“30” vs “90”" in stale.previous.reason
    assert states["deploy-freeze.md"].state == "judged"

    pairs, judged = run(ctx, path, judge)
    assert (judged, judge.asked) == (1, 3)
    again = next(p for p in pairs if p.candidate.b.rel_path == "gateway-timeout.md")
    assert again.verdict is not None and "“30” vs “120”" in again.verdict.reason


def test_a_users_decision_beats_the_judges_and_is_never_rejudged(tmp_path: Path) -> None:
    ctx = write_home(tmp_path, NOTES)
    path = tmp_path / "ledger.json"
    judge = CountingJudge()
    pairs, _ = run(ctx, path, judge)
    ledger = Ledger.load(path)
    conflict = next(p for p in pairs if p.verdict and p.verdict.relation is Relation.CONFLICTS_WITH)
    ledger.record(conflict.candidate, Verdict(Relation.SCOPED, 1.0, "staging vs prod", USER))
    ledger.save()

    pairs, judged = run(ctx, path, judge, rejudge=True)
    assert judged == 1  # only the other pair
    decided = next(p for p in pairs if p.candidate.id == conflict.candidate.id)
    assert decided.state == "decided"
    assert decided.verdict is not None and decided.verdict.relation is Relation.SCOPED


def test_a_broken_ledger_is_reported_kept_aside_and_replaced(tmp_path: Path) -> None:
    ctx = write_home(tmp_path, NOTES)
    path = tmp_path / "ledger.json"
    path.write_text('{"version": 1, "entries": [{"pair": ')
    ledger = Ledger.load(path)
    assert ledger.problems and "starting a new one" in ledger.problems[0]
    assert not ledger.entries
    judge = CountingJudge()
    run(ctx, path, judge)
    assert path.with_name("ledger.json.bad").read_text() == '{"version": 1, "entries": [{"pair": '
    assert len(Ledger.load(path).entries) == 2
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_the_ledger_of_a_large_home_is_read_back_not_judged_again(tmp_path: Path) -> None:
    """At 10,000 memories the judge records about 82,000 verdicts (67 MB); the ledger cap
    must let the next run read them (it used to call such a ledger broken). Measured here:
    the bytes a verdict takes in the saved ledger, against the cap, for 200,000 verdicts."""
    from memtui.core.judge.ledger import LEDGER_CAP

    ctx = write_home(tmp_path, NOTES)
    path = tmp_path / "ledger.json"
    _pairs, judged = run(ctx, path, CountingJudge())
    assert judged == 2
    per_verdict = path.stat().st_size / judged
    assert per_verdict * 200_000 < LEDGER_CAP


def test_a_verdict_recorded_on_another_thread_while_the_ledger_is_written_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The conflicts screen records verdicts on a worker thread while a decision saves the
    ledger on another: a record that comes while the ledger is being serialized waits for it
    (it changed the dict being written: "dictionary changed size during iteration"), and the
    next save holds both."""
    import threading

    from memtui.core.judge import ledger as ledger_module

    ctx = write_home(tmp_path / "home", NOTES)
    items = memory_items(scan(ctx))
    pairs = pair_up(items, Ledger(tmp_path / "scratch.json"))
    assert len(pairs) >= 2
    first, second = pairs[0].candidate, pairs[1].candidate
    ledger = Ledger(tmp_path / "ledger.json")
    verdict = Verdict(Relation.DUPLICATE, 0.9, "same", "local")
    ledger.record(first, verdict)
    started, done = threading.Event(), threading.Event()

    def record_meanwhile() -> None:
        started.set()
        ledger.record(second, verdict)
        done.set()

    real_entry_json = ledger_module._entry_json  # called for each entry as it is written
    recorder = threading.Thread(target=record_meanwhile)

    def entry_json(entry):  # type: ignore[no-untyped-def]
        if not recorder.is_alive() and not done.is_set():
            recorder.start()
            assert started.wait(60)
            done.wait(0.5)  # without the lock the record lands now, inside the iteration
        return real_entry_json(entry)

    monkeypatch.setattr(ledger_module, "_entry_json", entry_json)
    assert ledger.save() is None  # raised RuntimeError before the lock
    recorder.join(60)
    assert done.is_set()
    monkeypatch.setattr(ledger_module, "_entry_json", real_entry_json)
    assert ledger.save() is None
    again = Ledger.load(tmp_path / "ledger.json")
    assert again.lookup(first).state == "judged" and again.lookup(second).state == "judged"


def test_a_ledger_knows_whether_another_process_wrote_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TUI goes on with the ledger it read for the trees' marks while no one wrote the
    file or a decision beside it since (a new inode; the decisions folder's stat)."""
    from memtui.core.judge import ledger as ledger_module

    path = tmp_path / "state" / "judge" / "ledger.json"
    ctx = write_home(tmp_path, NOTES)
    run(ctx, path, CountingJudge())
    mine = Ledger.load(path)
    assert mine.unchanged_on_disk()
    other = Ledger.load(path)
    other.save()  # another process writes it whole
    assert not mine.unchanged_on_disk()
    mine = Ledger.load(path)
    assert mine.unchanged_on_disk()
    mine.save()  # its own write: still the file it knows
    assert mine.unchanged_on_disk()
    # a decision an operation wrote beside it (the folder's stat changes)
    mine.decisions_dir.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr(ledger_module, "RACY_SECONDS", 0)
    mine = Ledger.load(path)
    assert mine.unchanged_on_disk()
    (mine.decisions_dir / "1-abc.json").write_text("{}", encoding="utf-8")
    assert not mine.unchanged_on_disk()
    # a folder changed within the racy window is never trusted
    monkeypatch.setattr(ledger_module, "RACY_SECONDS", 3600)
    assert not Ledger.load(path).unchanged_on_disk()


def test_a_local_verdict_of_other_rules_is_judged_again(tmp_path: Path) -> None:
    """The local judge's rules changed (a new kind of contradiction found, say): its verdicts
    given under the old rules are stale, shown with their old verdict and judged again; a
    user's decision and another judge's verdict stay as they are."""
    import json

    ctx = write_home(tmp_path, NOTES)
    path = tmp_path / "state" / "ledger.json"
    judge = CountingJudge()
    run(ctx, path, judge)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert {e["rules"] for e in data["entries"]} == {LOCAL_RULES}
    for entry in data["entries"]:
        entry["rules"] = LOCAL_RULES - 1  # as an older memtui's engine gave them
    data["entries"][0]["judge"] = "anthropic"  # another judge's verdict keeps
    data["entries"][0]["rules"] = None
    path.write_text(json.dumps(data), encoding="utf-8")

    ledger = Ledger.load(path)
    states = {p.candidate.id: p for p in pair_up(memory_items(scan(ctx)), ledger)}
    kept = states.pop(data["entries"][0]["pair"])
    assert kept.state == "judged"
    (old,) = states.values()
    assert old.state == "stale" and old.verdict is None and old.previous is not None

    pairs, judged = run(ctx, path, judge)
    assert (judged, judge.asked) == (1, 3)
    assert {p.state for p in pairs} == {"judged"}


def test_an_entry_with_a_field_this_version_does_not_know_is_read(tmp_path: Path) -> None:
    import json

    ctx = write_home(tmp_path, NOTES)
    path = tmp_path / "ledger.json"
    run(ctx, path, CountingJudge())
    data = json.loads(path.read_text(encoding="utf-8"))
    for entry in data["entries"]:
        entry["written_by"] = "a later memtui"
    path.write_text(json.dumps(data), encoding="utf-8")
    ledger = Ledger.load(path)
    assert ledger.problems == []
    assert {p.state for p in pair_up(memory_items(scan(ctx)), ledger)} == {"judged"}


def test_the_local_rules_name_the_engines_sources() -> None:
    """A change to how the local judge decides must change :data:`LOCAL_RULES` (else the
    ledger keeps the old rules' verdicts as today's): update both lines below together."""
    import hashlib

    from memtui.core.judge import engine

    folder = Path(engine.__file__).parent
    digest = hashlib.sha256()
    for name in ("engine.py", "statements.py", "kinds.py", "local.py"):
        digest.update((folder / name).read_bytes())
    assert (LOCAL_RULES, digest.hexdigest()[:16]) == (5, ENGINE_PINNED), (
        "the local judge's sources changed: bump verdicts.LOCAL_RULES and pin the new digest "
        f"{digest.hexdigest()[:16]}")


ENGINE_PINNED = "e03bfdd733b37eb6"


def _asdict_bytes(ledger: Ledger) -> bytes:
    """The ledger file as it was written before (and what ``to_bytes`` must match byte for
    byte): every entry through ``asdict``, then the indenting JSON encoder."""
    data = {"version": 1,
            "entries": [asdict(e) for history in ledger.entries.values() for e in history]}
    return json.dumps(data, ensure_ascii=True, indent=1).encode("ascii")


_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from("\udcff\udc80\n\t\"\\é☃"),
                max_size=12)
_NUMBER = st.floats(allow_nan=True) | st.integers(-(2**70), 2**70)
_ENTRY = st.builds(
    LedgerEntry,
    pair=_TEXT, a=_TEXT, a_digest=_TEXT, b=_TEXT, b_digest=_TEXT,
    relation=st.sampled_from([r.value for r in Relation]),
    confidence=_NUMBER, reason=_TEXT, judge=st.sampled_from([USER, "local", "claude-x"]),
    winner=st.none() | st.sampled_from(["a", "b"]) | _TEXT,
    evidence=st.lists(_TEXT, max_size=3),
    fallback=st.none() | _TEXT,
    time=_NUMBER,
    note=st.none() | _TEXT,
    rules=st.none() | st.integers(-5, 10**12) | st.booleans(),
)
# what a ledger read from a later (or hand-edited) file may hold in any field
_ODD = st.recursive(st.none() | st.booleans() | _NUMBER | _TEXT,
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=6)


@given(entries=st.lists(_ENTRY, max_size=6),
       odd=st.lists(st.tuples(st.sampled_from(sorted(LedgerEntry.__dataclass_fields__)), _ODD),
                    max_size=3))
@settings(max_examples=300)
def test_the_ledger_file_is_byte_for_byte_what_asdict_and_json_wrote(
    entries: list[LedgerEntry], odd: list[tuple[str, object]]
) -> None:
    ledger = Ledger(Path("/nonexistent/ledger.json"))
    for i, (name, value) in enumerate(odd):
        if entries:
            setattr(entries[i % len(entries)], name, value)
    for entry in entries:
        ledger.entries.setdefault(str(entry.pair), []).append(entry)
    assert ledger.to_bytes() == _asdict_bytes(ledger)
