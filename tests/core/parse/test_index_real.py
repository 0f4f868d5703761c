"""Index health on the shapes real MEMORY.md files have (issue 10, item 7): entries whose link
is bold (``- **[Title](file.md)** — hook``), links to folders, and ``[[wikilinks]]`` past the
30 lines a scan reads of each file. Every store is real files in a tmp dir, read by the scan,
``memtui index``, ``scan --json`` and the delete plan."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from helpers import counting_reads

from memtui.cli import main
from memtui.cli.read_commands import index_summary
from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.contents import Store
from memtui.core.demo.writers import write_index, write_memory
from memtui.core.fileread import READ_CHUNK
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.scan.serialize import load_report_json
from memtui.core.scan.store_index import check_whole_files
from memtui.core.write import recovery as recovery_ops
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memory

FILES = 250

pytestmark = pytest.mark.usefixtures("state_home")


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan cache whose clock runs ahead: the files just written are not racy, so cached."""
    monkeypatch.setattr(ScanCache, "clock", staticmethod(lambda: time.time() + RACY_SECONDS + 5))


def auto_store(root: Path, cache: ScanCache | None = None) -> Store:
    return scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"), cache=cache)


def index_json(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, object]:
    capsys.readouterr()
    assert main(["index", "--json", str(path)]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def index_text(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    capsys.readouterr()
    assert main(["index", str(path)]) == 0
    return capsys.readouterr().out


def bold_store(root: Path) -> list[str]:
    """The real index: 250 topic files, 249 of them as bold entries, one plain; the lines."""
    lines = ["# Project memory", ""]
    for i in range(FILES):
        write_memory(root, f"topic-{i}.md", name=f"topic-{i}", description=f"topic {i}")
        link = f"[Topic {i}](topic-{i}.md)"
        lines.append(f"- {link} — plain" if i == 0 else f"- **{link}** — hook {i}")
    write_index(root, lines)
    return lines


# --- bold links ---------------------------------------------------------------------------


def test_bold_entries_point_to_their_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "memory"
    bold_store(root)
    report = auto_store(root).index
    assert report is not None
    assert len(report.entries) == FILES
    first_bold = report.entries[1]
    assert (first_bold.title, first_bold.target, first_bold.hook) == ("Topic 1", "topic-1.md",
                                                                      "hook 1")
    assert report.health.orphans == [] and report.health.dangling == []
    data = index_json(capsys, root)
    health = data["health"]
    assert isinstance(health, dict) and health["orphans"] == [] and data["entries"] == FILES
    assert "orphan" not in index_text(capsys, root)


@pytest.mark.parametrize(
    ("line", "title", "hook"),
    [
        ("- **[Deploy](deploy.md)** — freeze rules", "Deploy", "freeze rules"),
        ("- __[Deploy](deploy.md)__: freeze rules", "Deploy", "freeze rules"),
        ("* *[Deploy](deploy.md)* - freeze rules", "Deploy", "freeze rules"),
        ("- _[Deploy](deploy.md)_ freeze rules", "Deploy", "freeze rules"),
        ("1. ***[Deploy](deploy.md)***", "Deploy", ""),
        ("- **[Deploy](deploy.md) — freeze rules", "Deploy", "freeze rules"),  # never closed
    ],
)
def test_emphasised_entries_in_the_scan_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, title: str, hook: str
) -> None:
    root = tmp_path / "memory"
    write_memory(root, "deploy.md", name="deploy", description="deploy rules")
    write_index(root, ["# Memory", line])
    report = auto_store(root).index
    assert report is not None
    assert [(e.line, e.title, e.target, e.hook, e.raw) for e in report.entries] == [
        (2, title, "deploy.md", hook, line)
    ]
    assert report.health.ok
    dangling = tmp_path / "dangling"
    write_index(dangling, ["# Memory", line])  # the same entry, its file missing
    assert index_json(capsys, dangling)["health"] == {
        "dangling": [{"line": 2, "title": title, "target": "deploy.md"}],
        "orphans": [],
        "listed": {},
        "topic_dangling": [],
        "long_entries": [],
        "broken_wikilinks": [],
        "wikilinks_checked": "files",
    }


def test_a_long_bold_entry_is_a_long_entry(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    write_memory(root, "a.md", description="a")
    line = "- **[A](a.md)** — " + "x" * 190
    write_index(root, [line])
    report = auto_store(root).index
    assert report is not None
    assert [(e.line, e.length, e.limit) for e in report.health.long_entries] == [
        (1, len(line), 200)
    ]


def test_delete_removes_a_bold_entry_line(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    lines = bold_store(root)
    store = auto_store(root)
    memory = next(m for m in store.memories if m.rel_path == "topic-7.md")
    before = (root / "MEMORY.md").read_bytes()
    plan = plan_delete_memory(store, memory)
    assert [c.path for c in plan.changes] == [root / "topic-7.md", root / "MEMORY.md"]
    assert f"removes MEMORY.md line 10: {lines[9]}" in plan.notes
    journal = Journal.default()
    apply(plan, journal)
    assert not (root / "topic-7.md").exists()
    assert (root / "MEMORY.md").read_text() == "\n".join(lines[:9] + lines[10:]) + "\n"
    recovery_ops.undo(journal, journal.list()[0].id)
    assert (root / "MEMORY.md").read_bytes() == before and (root / "topic-7.md").exists()


# --- links to folders ---------------------------------------------------------------------


def test_links_to_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "memory"
    write_memory(root, "notes/a.md", description="a note")
    write_memory(root, "notes/deep/b.md", description="a deeper note")
    write_memory(root, "loose.md", description="no entry points to it")
    (root / "empty").mkdir()
    os.symlink(root / "notes", root / "linked")
    write_index(root, [
        "- [notes/](notes/) — topic notes",
        "- **[ephemeral/](ephemeral/)** — scratch, deleted since",
        "- [ephemeral/](ephemeral/) — the same, plain",
        "- [Empty](empty) — a folder without memories yet",
        "- [Linked](linked/) — a symlink is no folder of the store",
        "- [Up](../) — leaves the store",
    ])
    report = auto_store(root).index
    assert report is not None
    assert [(e.line, e.target) for e in report.health.dangling] == [
        (2, "ephemeral/"), (3, "ephemeral/"), (5, "linked/"), (6, "../")
    ]
    assert report.health.orphans == ["loose.md"]  # those below notes/ have their entry
    text = index_text(capsys, root)
    assert "dangling: line 2 → ephemeral/ (no such folder)" in text
    assert "notes" not in text and "empty" not in text


@pytest.mark.usefixtures("settled")
def test_a_cached_report_sees_a_folder_appear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    write_memory(root, "a.md", description="a")
    write_index(root, ["- [A](a.md) — a", "- [Later](later/) — not made yet"])
    cache_file = tmp_path / "cache.marshal"
    read = counting_reads(monkeypatch)

    def scanned() -> list[str | None]:
        cache = ScanCache(cache_file)
        report = auto_store(root, cache).index
        cache.save()
        assert report is not None
        return [e.target for e in report.health.dangling]

    assert scanned() == ["later/"] and read == ["MEMORY.md"]
    assert scanned() == ["later/"] and read == ["MEMORY.md"]  # the report from the cache
    (root / "later").mkdir()  # no file changed: only the folder check sees it
    assert scanned() == []
    assert read == ["MEMORY.md", "MEMORY.md"]


# --- wikilinks past line 30 ---------------------------------------------------------------


def late_link_store(root: Path) -> None:
    write_memory(root, "deploy.md", name="deploy", description="deploy rules",
                 body="".join(f"rule {i}\n" for i in range(40)) + "See [[rollback]], [[ghost]].\n")
    write_memory(root, "rollback.md", name="rollback", description="how to roll back",
                 body="Early [[early-ghost]].\n")
    write_index(root, ["- [Deploy](deploy.md) — rules", "- [Rollback](rollback.md) — back"])


def test_wikilinks_past_line_30_are_checked_in_whole_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "memory"
    late_link_store(root)
    store = auto_store(root)
    report = store.index
    assert report is not None
    # the scan (and so ``scan``, ``scan --json``) reads headers only, and says so
    assert [b.link for b in report.health.broken_wikilinks] == ["early-ghost"]
    assert load_report_json(report)["health"]["wikilinks_checked"] == "headers"
    assert any("first 30 lines of each memory file" in line for line in index_summary(report))
    checked = check_whole_files(store, report)
    assert [(b.source, b.link) for b in checked.health.broken_wikilinks] == [
        ("deploy.md", "ghost"), ("rollback.md", "early-ghost")
    ]
    assert checked.health.wikilinks_checked == "files"
    assert report.health.wikilinks_checked == "headers"  # the scan's report is left as it is
    text = index_text(capsys, root)
    assert "broken link: [[ghost]] in deploy.md" in text
    assert "first 30 lines" not in text
    health = index_json(capsys, root)["health"]
    assert isinstance(health, dict) and health["wikilinks_checked"] == "files"
    assert {"source": "deploy.md", "link": "ghost"} in health["broken_wikilinks"]


@pytest.mark.usefixtures("settled")
def test_whole_file_links_are_cached_by_stat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    late_link_store(root)
    deploy = root / "deploy.md"  # longer than one read: its header's read leaves the rest
    deploy.write_text(deploy.read_text() + "".join(f"note {i}\n" for i in range(READ_CHUNK // 7)))
    read = counting_reads(monkeypatch)
    cache_file = tmp_path / "cache.marshal"

    def check() -> list[str]:
        cache = ScanCache(cache_file)
        store = auto_store(root, cache)
        assert store.index is not None
        links = check_whole_files(store, store.index, cache).health.broken_wikilinks
        cache.save()
        return [b.link for b in links]

    assert check() == ["ghost", "early-ghost"]
    # deploy.md read whole once, by the scan (for its secrets, its links cached with them);
    # rollback.md: its header is the whole file
    assert sorted(read) == ["MEMORY.md", "deploy.md"]
    read.clear()
    assert check() == ["ghost", "early-ghost"]
    assert read == []  # the report and deploy.md's links both from the cache
    deploy.write_text(deploy.read_text().replace("[[ghost]]", "[[gone]]"))
    assert check() == ["gone", "early-ghost"]
    assert sorted(read) == ["MEMORY.md", "deploy.md"]  # deploy.md once, by the scan


def test_whole_file_links_open_only_regular_files_of_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO is never opened (no reader would ever come: the check would hang) and a link
    leaving the store is never followed; the other files are still checked whole."""
    root = tmp_path / "memory"
    late_link_store(root)
    os.mkfifo(root / "pipe.md")
    outside = tmp_path / "outside.md"
    outside.write_text("".join(f"x {i}\n" for i in range(40)) + "[[outside-ghost]]\n")
    os.symlink(outside, root / "leaves.md")
    text = index_text(capsys, root)
    assert "broken link: [[ghost]] in deploy.md" in text
    assert "outside-ghost" not in text
