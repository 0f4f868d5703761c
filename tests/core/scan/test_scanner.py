"""Scanning: every store kind, problems per file, headers only, transcripts barely touched."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from memtui.core.contents import ScanResult, Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_file, write_memory, write_transcript
from memtui.core.fileread import HEADER_LINES, read_header
from memtui.core.model import Scope, StoreKind, StoreLocation
from memtui.core.scan.scanner import scan, scan_store
from memtui.core.stores.locations import Context
from memtui.core.stores.sessions import read_transcript_head


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="module")
def result(demo: DemoHome) -> ScanResult:
    ctx = Context.create(
        project=demo.project,
        claude_home=demo.claude_home,
        agent_memory_home=demo.agent_memory_home,
        env={"HOME": str(demo.root), "MEMTUI_POLICY_SETTINGS": str(demo.root / "none.json")},
    )
    return scan(ctx)


def only(result: ScanResult, kind: StoreKind, **attrs: object) -> Store:
    found = [
        s
        for s in result.stores
        if s.kind == kind and all(getattr(s.location, k) == v for k, v in attrs.items())
    ]
    assert len(found) == 1, [s.title for s in found]
    return found[0]


def test_every_store_kind_is_found(result: ScanResult) -> None:
    kinds = {s.kind for s in result.stores}
    assert kinds == set(StoreKind)
    assert result.git_branch == "main"


def test_broken_files_are_listed_with_their_problem_and_the_rest_loads(result: ScanResult) -> None:
    auto = only(result, StoreKind.AUTO)
    by_path = {m.rel_path: m for m in auto.memories}
    assert any("binary" in p for p in by_path["binary.md"].problems)
    assert any("invalid UTF-8" in p for p in by_path["latin1.md"].problems)
    assert any("bad YAML" in p for p in by_path["bad-yaml.md"].problems)
    assert any("symlink leaves the store" in p for p in by_path["escape.md"].problems)
    assert any("very large" in p for p in by_path["huge.md"].problems)
    healthy = [m for m in auto.memories if not m.problems and not m.is_index]
    assert len(healthy) > 150
    assert all(m.description for m in healthy if m.rel_path.count("/") == 0)


def test_symlink_leaving_the_store_is_never_read(result: ScanResult) -> None:
    escape = next(m for m in only(result, StoreKind.AUTO).memories if m.rel_path == "escape.md")
    assert escape.links == [] and escape.frontmatter.data == {} and not escape.header_complete


def test_team_is_its_own_store_not_part_of_auto(result: ScanResult) -> None:
    auto = only(result, StoreKind.AUTO)
    team = only(result, StoreKind.TEAM)
    assert not any(m.rel_path.startswith("team/") for m in auto.memories)
    assert team.index is not None and team.index.binds == "none"


def test_auto_index_report_and_health(result: ScanResult) -> None:
    report = only(result, StoreKind.AUTO).index
    assert report is not None
    assert report.line_truncated and report.binds == "lines" and report.cut_line == 200
    assert report.dropped and all(d.line > 200 for d in report.dropped)
    assert report.warning and report.warning.startswith("> WARNING: MEMORY.md is 215 lines")
    assert len(report.health.dangling) == 2
    assert sorted(report.health.orphans) == ["legacy-coupons.md", "user-timezone.md"]
    assert report.health.long_entries and report.health.broken_wikilinks


def test_sessions_carry_cwd_title_and_emptiness(result: ScanResult, demo: DemoHome) -> None:
    sessions = [s for s in result.stores if s.kind == StoreKind.SESSION]
    assert len(sessions) == 3
    infos = [s.session_info for s in sessions]
    assert all(i is not None and i.cwd == str(demo.project) for i in infos)
    assert sum(1 for i in infos if i and i.empty) == 1
    assert any(i and i.title and "Refund coupons" in i.title for i in infos)


def test_snapshot_statuses(result: ScanResult) -> None:
    statuses = {}
    for store in result.stores:
        if store.snapshot is not None:
            statuses[store.location.agent] = (store.snapshot.primary.status, store.snapshot.problem)
    assert statuses["reviewer"] == ("prompt-update", None)
    assert statuses["qa"] == ("initialize", None)
    assert statuses["planner"] == ("none", None)
    assert statuses["docs-writer"][0] == "none" and statuses["docs-writer"][1]
    reviewer = only(result, StoreKind.SNAPSHOT, agent="reviewer").snapshot
    assert reviewer is not None
    assert reviewer.primary.cc_acts and reviewer.acted_scope == Scope.USER


def test_agent_index_is_measured_raw(result: ScanResult) -> None:
    reviewer = only(result, StoreKind.AGENT, agent="reviewer", scope=Scope.USER).index
    assert reviewer is not None and reviewer.agent
    assert reviewer.line_truncated  # 203 raw lines; stripped it would be 193


def test_other_projects_are_listed_with_paths_from_transcripts(result: ScanResult) -> None:
    paths = {Path(p.dir).name: p.path for p in result.projects}
    assert paths["-home-dev-src-blog"] == "/home/dev/src/blog"
    assert paths["-home-dev-old-prototype"] is None


def test_missing_store_is_reported_not_raised(tmp_path: Path) -> None:
    loc = StoreLocation(kind=StoreKind.AUTO, path=tmp_path / "nope", rule="test")
    store = scan_store(loc)
    assert not store.exists and store.memories == [] and store.index is None


def test_unreadable_entries_do_not_stop_the_store(tmp_path: Path) -> None:
    store_dir = tmp_path / "mem"
    write_memory(store_dir, "good.md", name="good", description="fine", type="user", body="x")
    (store_dir / "dir.md").mkdir()
    os.symlink(store_dir / "missing-target.md", store_dir / "dangling.md")
    os.symlink(store_dir / "loop-a.md", store_dir / "loop-b.md")
    os.symlink(store_dir / "loop-b.md", store_dir / "loop-a.md")
    os.mkfifo(store_dir / "fifo.md")
    store = scan_store(StoreLocation(kind=StoreKind.AUTO, path=store_dir, rule="test"))
    by_path = {m.rel_path: m for m in store.memories}
    assert by_path["good.md"].problems == [] and by_path["good.md"].type == "user"
    assert "directory" in by_path["dir.md"].problems[0]
    assert "broken symlink" in by_path["dangling.md"].problems[0]
    assert "broken symlink" in by_path["loop-a.md"].problems[0]
    assert "not a regular file" in by_path["fifo.md"].problems[0]


@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root reads files whatever their mode (the same OSError path is covered by the "
    "symlink-loop case above)",
)
def test_unreadable_file_is_reported(tmp_path: Path) -> None:
    write_memory(tmp_path, "ok.md", name="ok", description="d", body="b")
    write_memory(tmp_path, "secret.md", name="s", description="d", body="b").chmod(0)
    store = scan_store(StoreLocation(kind=StoreKind.AUTO, path=tmp_path, rule="test"))
    by_path = {m.rel_path: m for m in store.memories}
    assert by_path["ok.md"].problems == []
    assert by_path["secret.md"].problems[0].startswith("cannot read: permission denied")


def test_header_read_stops_after_30_lines_of_a_huge_file(tmp_path: Path) -> None:
    path = write_memory(tmp_path, "big.md", name="big", description="d", body="line\n" * 40)
    with open(path, "ab") as handle:
        handle.truncate(1_500_000_000)  # sparse: 1.5 GB apparent size
    tracemalloc.start()
    header = read_header(path, tmp_path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert header.data.count(b"\n") == HEADER_LINES
    assert not header.complete
    assert peak < 2_000_000


def test_a_small_memory_takes_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_memory(tmp_path, "small.md", name="small", description="d", body="three\n")
    reads: list[int] = []
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr("memtui.core.fileread.os.read", counting_read)
    header = read_header(path, tmp_path, regular=True)
    assert header.complete and header.data == path.read_bytes()
    assert len(reads) == 1  # the whole file came in the first read: no read to find its end


def test_transcript_is_read_only_at_its_start(tmp_path: Path) -> None:
    transcript = tmp_path / "s.jsonl"
    write_transcript(transcript, "/work/app", "s1")
    with open(transcript, "ab") as handle:
        handle.truncate(3_000_000_000)  # 3 GB of NULs with no newline after the real lines
    tracemalloc.start()
    head = read_transcript_head(transcript)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert head.cwd == "/work/app"
    assert peak < 2_000_000


def test_crlf_and_bom_memory_parses(tmp_path: Path) -> None:
    write_file(
        tmp_path / "w.md",
        b"\xef\xbb\xbf---\r\nname: win\r\ndescription: saved on Windows\r\n"
        b"type: user\r\n---\r\nb\r\n",
    )
    memory = scan_store(StoreLocation(kind=StoreKind.AUTO, path=tmp_path, rule="t")).memories[0]
    assert (memory.name, memory.description, memory.type) == ("win", "saved on Windows", "user")
