"""Index health follows distil's topic files all the way: an entry of a topic file distil wrote
(one MEMORY.md points to) whose memory is gone (deleted outside memtui) is dangling, named by
file and line, for the scan, its cache, ``memtui index`` and ``scan --json``; distil run again
drops it (a "dropped pointer" change: toggled, journaled, undone byte for byte)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import home_args, tree_state

from memtui.cli import main
from memtui.core.cache import ScanCache
from memtui.core.contents import IndexHealth, Store, TopicDangling
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import index_entry, write_index, write_memory
from memtui.core.distil.plan import plan_distil
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.parse.index_entries import parse_entries
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.core.write.recovery import undo

pytestmark = pytest.mark.usefixtures("state_home")

DISTILLED = {"distilled-from": "MEMORY.md"}
TOPIC = "memory-section-area-notes.md"


def store_at(root: Path, cache: ScanCache | None = None) -> Store:
    return scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"), cache=cache)


def health_of(root: Path, cache: ScanCache | None = None) -> IndexHealth:
    report = store_at(root, cache).index
    assert report is not None
    return report.health


def entry_on(path: Path, target: str) -> TopicDangling:
    """The entry of ``path`` pointing to ``target``, as a dangling one (read from the file)."""
    found = [e for e in parse_entries(path.read_text()) if e.target == target]
    assert len(found) == 1
    return TopicDangling(path.name, found[0].line, found[0].title, target)


def gone_entries(topic: Path) -> list[TopicDangling]:
    """The entries of ``topic`` whose memories the ``distilled`` fixture deleted, by line."""
    found = [entry_on(topic, "accounts-backlog.md"), entry_on(topic, "cart-runbook.md")]
    return sorted(found, key=lambda item: item.line)


@pytest.fixture
def distilled(tmp_path: Path) -> DemoHome:
    """The demo home after a full distil: "Area notes" moved out to ``TOPIC``; then two of
    the memories it lists deleted outside memtui."""
    home = build_demo_home(tmp_path / "demo")
    root = home.auto_memory
    proposal = plan_distil(store_at(root)).outcome().proposal
    assert proposal is not None
    apply(proposal, Journal.default())
    assert health_of(root).topic_dangling == []
    (root / "cart-runbook.md").unlink()
    (root / "accounts-backlog.md").unlink()
    return home


def test_a_topic_files_entry_whose_memory_is_gone_is_dangling(distilled: DemoHome) -> None:
    root = distilled.auto_memory
    topic = root / TOPIC
    health = health_of(root)
    assert health.topic_dangling == gone_entries(topic)
    assert not health.ok
    assert "cart-runbook.md" not in health.listed and health.orphans == []


def test_memtui_index_and_scan_json_name_the_file_and_line(
    distilled: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    root = distilled.auto_memory
    gone = entry_on(root / TOPIC, "cart-runbook.md")
    capsys.readouterr()
    assert main(["index", str(root / "MEMORY.md")]) == 0
    out = capsys.readouterr().out
    assert f"dangling: {TOPIC} line {gone.line} → cart-runbook.md (no such file)" in out
    for args in (["scan", "--json"], ["scan", "--json"]):  # the second: from the scan's cache
        assert main([*home_args(distilled), *args]) == 0
        auto = next(s for s in json.loads(capsys.readouterr().out)["stores"]
                    if s["kind"] == "auto")
        assert auto["index"]["health"]["topic_dangling"] == [
            {"file": t.file, "line": t.line, "title": t.title, "target": t.target}
            for t in health_of(root).topic_dangling
        ]
        assert gone.line in [t["line"] for t in auto["index"]["health"]["topic_dangling"]]


def small_store(root: Path) -> None:
    write_memory(root, "c.md", description="memory c")
    write_memory(root, "memory-top.md", description="top", extra=DISTILLED,
                 body="\n".join([index_entry("C", "c.md", "hook c"),
                                 index_entry("Web", "https://example.com/e.md", "not e"),
                                 index_entry("Gone", "gone.md", "no such file")]))
    # a topic file no entry points to: its dangling entry is not looked for
    write_memory(root, "memory-old.md", description="old", extra=DISTILLED,
                 body=index_entry("Lost", "lost.md", "no such file"))
    write_index(root, ["# Memory", index_entry("Top", "memory-top.md", "moved out")])


def test_the_cached_health_keeps_the_topic_files_dangling_entries(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    small_store(root)
    cache_file = tmp_path / "cache" / "scan.marshal"

    def scan() -> list[TopicDangling]:
        cache = ScanCache(cache_file)
        cache._now += 3600  # every file was written "long ago": cached
        health = health_of(root, cache)
        cache.save()
        return health.topic_dangling

    first = scan()
    assert first == [entry_on(root / "memory-top.md", "gone.md")]
    assert scan() == first  # from the cache
    write_memory(root, "gone.md", description="back again")
    assert scan() == []


def test_distil_drops_the_topic_files_dangling_entries(distilled: DemoHome) -> None:
    root = distilled.auto_memory
    topic = root / TOPIC
    gone = gone_entries(topic)
    plan = plan_distil(store_at(root))
    drops = [c for c in plan.changes if c.kind == "drop-dangling"]
    assert [(c.id, c.group, c.target) for c in drops] == [
        (f"drop-dangling:{TOPIC}:{g.line}", "dangling", g.target) for g in gone]
    assert all(c.summary.startswith(f"{TOPIC} line ") for c in drops)
    old = topic.read_text().split("\n")
    lines = {g.line for g in gone}
    outcome = plan.outcome()
    assert outcome.files[TOPIC].split("\n") == [
        line for n, line in enumerate(old, 1) if n not in lines]
    # toggled: one drop left out keeps its line, all left out leave the file alone
    one = plan.outcome({drops[0].id}).files[TOPIC].split("\n")
    assert old[gone[0].line - 1] in one and old[gone[1].line - 1] not in one
    assert TOPIC not in plan.outcome({c.id for c in drops}).files
    before = tree_state(root)
    journal = Journal.default()
    assert outcome.proposal is not None
    notes = outcome.proposal.notes  # the journal keeps them
    assert any(n.startswith(f"{TOPIC} line {gone[1].line}: drop ") for n in notes)
    done = apply(outcome.proposal, journal)
    health = health_of(root)
    assert health.topic_dangling == [] and health.dangling == [] and health.orphans == []
    assert not [c for c in plan_distil(store_at(root)).changes if c.kind == "drop-dangling"]
    undo(journal, done.op_id)
    assert tree_state(root) == before


def test_a_topic_file_changed_since_the_plan_refuses(distilled: DemoHome) -> None:
    root = distilled.auto_memory
    plan = plan_distil(store_at(root))
    proposal = plan.outcome().proposal
    assert proposal is not None
    with (root / TOPIC).open("a") as handle:
        handle.write("- [New](new.md) — written meanwhile\n")
    before = tree_state(root)
    with pytest.raises(Exception, match="changed"):
        apply(proposal, Journal.default())
    assert tree_state(root) == before
