"""Index health agrees with distil (issue 13): a memory listed by a topic file distil wrote,
one MEMORY.md points to, is no orphan for the scan, ``memtui index``, ``scan --json`` and
distil alike; any other file's links, a topic file the index does not point to and a second
level are not followed; only the topic files the index points to are read whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import counting_reads, home_args, tree_state

from memtui.cli import main
from memtui.core.cache import ScanCache
from memtui.core.contents import Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import index_entry, write_index, write_memory
from memtui.core.distil.plan import plan_distil
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.link_targets import resolve_target
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memories
from memtui.core.write.recovery import undo

pytestmark = pytest.mark.usefixtures("state_home")

DISTILLED = {"distilled-from": "MEMORY.md"}


def store_at(root: Path) -> Store:
    return scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"))


def health_of(root: Path) -> tuple[list[str], dict[str, str]]:
    report = store_at(root).index
    assert report is not None
    return report.health.orphans, report.health.listed


def distil(root: Path) -> list[str]:
    """Apply the full distil of the store at ``root``; the memories its moved sections held."""
    plan = plan_distil(store_at(root))
    old = plan.old_text.split("\n")
    moved: list[str] = []
    for change in plan.changes:
        if change.kind == "move-section":
            section = "\n".join(old[n - 1] for n in change.lines)
            moved += [resolve_target(e.target) for e in parse_entries(section) if e.target]
    proposal = plan.outcome().proposal
    assert proposal is not None
    apply(proposal, Journal.default())
    return [rel for rel in moved if (root / rel).is_file()]


@pytest.fixture
def demo(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path / "demo")


def scan_json_health(capsys: pytest.CaptureFixture[str], demo: DemoHome) -> dict[str, object]:
    capsys.readouterr()
    assert main([*home_args(demo), "scan", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    auto = next(s for s in data["stores"] if s["kind"] == "auto")
    health: dict[str, object] = auto["index"]["health"]
    return health


def test_after_a_distil_no_memory_of_the_moved_section_is_an_orphan(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    root = demo.auto_memory
    moved = distil(root)
    assert len(moved) == 140  # the demo's "Area notes" section, its files that exist
    orphans, listed = health_of(root)
    assert orphans == []
    assert listed == {rel: "memory-section-area-notes.md" for rel in moved}

    write_memory(root, "fresh-note.md", name="fresh", description="no file points here")
    orphans, listed = health_of(root)
    assert orphans == ["fresh-note.md"] and "fresh-note.md" not in listed
    health = scan_json_health(capsys, demo)
    assert health["orphans"] == ["fresh-note.md"]
    assert health["listed"] == dict(sorted(listed.items()))
    # distil agrees: the one orphan it would add is the one the scan reports
    plan = plan_distil(store_at(root))
    assert [c.target for c in plan.changes if c.kind == "add-orphan"] == ["fresh-note.md"]


def test_memtui_index_says_which_file_lists_them(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    distil(demo.auto_memory)
    capsys.readouterr()
    assert main(["index", str(demo.auto_memory / "MEMORY.md")]) == 0
    out = capsys.readouterr().out
    assert "orphan:" not in out
    assert ("listed: 140 memories in memory-section-area-notes.md (a topic file distil wrote "
            "that the index points to: not orphans)") in out


def small_store(root: Path) -> None:
    for name in ("a", "b", "c", "d", "e"):
        write_memory(root, f"{name}.md", description=f"memory {name}")
    # a plain memory whose body links to a.md: a mention, not an index
    write_memory(root, "notes.md", description="notes", body=index_entry("A", "a.md", "see a"))
    # a topic file distil wrote that no entry points to: b.md stays an orphan
    write_memory(root, "memory-old.md", description="old", extra=DISTILLED,
                 body=index_entry("B", "b.md", "hook b"))
    # a second level: memory-top.md lists memory-deep.md, which lists d.md
    write_memory(root, "memory-deep.md", description="deep", extra=DISTILLED,
                 body=index_entry("D", "d.md", "hook d"))
    write_memory(root, "memory-top.md", description="top", extra=DISTILLED,
                 body="\n".join([index_entry("C", "./c.md#part", "hook c"),
                                 index_entry("Deep", "memory-deep.md", "deeper"),
                                 index_entry("Web", "https://example.com/e.md", "not e"),
                                 index_entry("Gone", "gone.md", "no such file")]))
    write_index(root, ["# Memory",
                       index_entry("Notes", "notes.md", "notes"),
                       index_entry("Top", "memory-top.md", "moved out"),
                       index_entry("E", "e.md", "e")])


def test_only_a_distilled_file_the_index_points_to_lists_memories(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    small_store(root)
    orphans, listed = health_of(root)
    assert listed == {"c.md": "memory-top.md", "memory-deep.md": "memory-top.md"}
    assert orphans == ["a.md", "b.md", "d.md", "memory-old.md"]
    plan = plan_distil(store_at(root))
    added = sorted(c.target or "" for c in plan.changes if c.kind == "add-orphan")
    assert added == orphans


def test_the_scan_reads_whole_only_the_topic_files_the_index_points_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    small_store(root)
    read = counting_reads(monkeypatch)
    location = StoreLocation(kind=StoreKind.AUTO, path=root, rule="test")
    store = scan_store(location, secrets=False)  # memtui index: no file is read for secrets
    assert store.index is not None and "c.md" in store.index.health.listed
    assert sorted(read) == ["MEMORY.md", "memory-top.md"]


def test_the_cached_health_follows_the_topic_file(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    small_store(root)
    cache_file = tmp_path / "cache" / "scan.marshal"
    location = StoreLocation(kind=StoreKind.AUTO, path=root, rule="test")

    def scan() -> tuple[list[str], dict[str, str]]:
        cache = ScanCache(cache_file)
        cache._now += 3600  # every file was written "long ago": cached
        store = scan_store(location, cache=cache)
        cache.save()
        assert store.index is not None
        return store.index.health.orphans, store.index.health.listed

    first = scan()
    assert scan() == first and first[1]["c.md"] == "memory-top.md"  # from the cache
    write_memory(root, "memory-top.md", description="top", extra=DISTILLED,
                 body=index_entry("D", "d.md", "now d"))
    orphans, listed = scan()
    assert listed == {"d.md": "memory-top.md"}
    assert "c.md" in orphans and "d.md" not in orphans


def test_deleting_a_listed_memory_takes_its_line_out_of_the_topic_file(demo: DemoHome) -> None:
    root = demo.auto_memory
    distil(root)
    topic = root / "memory-section-area-notes.md"
    before = tree_state(root)
    store = store_at(root)
    gone = [m for m in store.memories if m.rel_path in ("accounts-backlog.md", "cart-runbook.md")]
    proposal = plan_delete_memories(store, gone)
    assert sorted(c.path.name for c in proposal.changes) == [
        "accounts-backlog.md", "cart-runbook.md", "memory-section-area-notes.md"]
    assert any(n.startswith("removes memory-section-area-notes.md line ") and "cart-runbook.md"
               in n for n in proposal.notes)
    lines = topic.read_text().split("\n")
    journal = Journal.default()
    done = apply(proposal, journal)
    left = topic.read_text().split("\n")
    assert [line for line in lines if line not in left] == [
        line for line in lines if "(accounts-backlog.md)" in line or "(cart-runbook.md)" in line]
    report = store_at(root).index
    assert report is not None and not report.health.orphans and not report.health.dangling
    assert "cart-runbook.md" not in report.health.listed
    undo(journal, done.op_id)
    assert tree_state(root) == before
