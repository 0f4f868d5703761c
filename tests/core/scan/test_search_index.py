"""Full-text search over the demo home: fields, AND semantics, ranking, snippets, odd files."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.contents import ScanResult
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_index, write_memory
from memtui.core.scan.scanner import scan
from memtui.core.scan.search import (
    FIELDS,
    SearchHit,
    SearchIndex,
    body_lines,
    build_search_index,
    fold,
    make_snippet,
    match_spans,
    query_terms,
)
from memtui.core.stores.locations import Context
from memtui.core.stores.sanitize import sanitize_path


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("search") / "home")


@pytest.fixture(scope="module")
def result(demo: DemoHome) -> ScanResult:
    ctx = Context.create(
        project=demo.project,
        claude_home=demo.claude_home,
        agent_memory_home=demo.agent_memory_home,
        env={"HOME": str(demo.root)},
    )
    return scan(ctx)


@pytest.fixture(scope="module")
def index(result: ScanResult) -> SearchIndex:
    return build_search_index(result)


def paths(hits: list[SearchHit]) -> list[str]:
    return [f"{h.store.kind.value}:{h.memory.rel_path}" for h in hits if h.memory]


def test_indexes_every_memory_of_the_scan(result: ScanResult, index: SearchIndex) -> None:
    assert len(index) == sum(len(s.memories) for s in result.stores)
    assert index.complete


def test_postgres_finds_both_conflicting_test_db_memories(index: SearchIndex) -> None:
    found = paths(index.query("postgres"))
    assert "auto:test-db-postgres.md" in found
    assert "auto:test-db-sqlite.md" in found  # only its body mentions Postgres


def test_case_insensitive(index: SearchIndex) -> None:
    assert paths(index.query("POSTGRES")) == paths(index.query("postgres"))
    assert paths(index.query("PoStGrEs")) == paths(index.query("postgres"))


def test_every_term_must_match(index: SearchIndex) -> None:
    both = paths(index.query("postgres sqlite"))
    assert "auto:test-db-sqlite.md" in both
    assert set(both) <= set(paths(index.query("postgres")))
    assert set(both) <= set(paths(index.query("sqlite")))
    assert "auto:flaky-tests.md" not in both
    assert index.query("postgres qqqzzzxx") == []


def test_terms_may_match_in_different_fields(index: SearchIndex) -> None:
    # "sqlite" is in test-db-sqlite's name, "minute" only in its body.
    hits = index.query("sqlite minute")
    assert "auto:test-db-sqlite.md" in paths(hits)


def test_hooks_are_searched(index: SearchIndex) -> None:
    # The binary file's body is never read; its MEMORY.md hook says "by mistake".
    hits = [h for h in index.query("mistake") if h.memory and h.memory.rel_path == "binary.md"]
    assert len(hits) == 1
    assert hits[0].field == "hook"
    assert "Screenshot paste" in hits[0].snippet


def test_dangling_entry_hooks_are_found_on_the_index(index: SearchIndex) -> None:
    hits = index.query("austria")
    assert [(h.memory.rel_path if h.memory else None, h.field) for h in hits] == [
        ("MEMORY.md", "hook")
    ]


def test_binary_and_huge_bodies_are_not_indexed(index: SearchIndex) -> None:
    assert "auto:binary.md" not in paths(index.query("IHDR"))
    assert "auto:huge.md" not in paths(index.query("GET /api/cart HTTP"))
    assert "auto:huge.md" in paths(index.query("huge"))  # still found by its path
    assert "auto:binary.md" in paths(index.query("binary"))


def test_memories_in_folders_are_found(index: SearchIndex) -> None:
    hits = index.query("double-charge reported")
    assert "auto:logs/2026/11/2026-11-20.md" in paths(hits)


def test_name_and_path_rank_above_description_above_body(index: SearchIndex) -> None:
    hits = index.query("postgres")
    assert hits[0].memory is not None and hits[0].memory.rel_path == "test-db-postgres.md"
    assert hits[0].field in ("name", "path")
    ranks = [FIELDS.index(h.field) for h in hits]
    weights = [h.score for h in hits]
    assert weights == sorted(weights, reverse=True)
    assert ranks[-1] == FIELDS.index("body")


def test_newer_first_among_equal_scores(index: SearchIndex) -> None:
    hits = index.query("the")
    for a, b in itertools.pairwise(hits):
        if a.score == b.score and a.memory and b.memory:
            assert a.memory.mtime >= b.memory.mtime


def test_snippet_is_one_line_around_the_first_body_match(index: SearchIndex) -> None:
    hit = next(
        h for h in index.query("jsonb") if h.memory and h.memory.rel_path == "test-db-postgres.md"
    )
    assert hit.field == "body"
    assert "\n" not in hit.snippet
    assert len(hit.snippet) <= 102
    assert hit.spans
    for start, end in hit.spans:
        assert hit.snippet[start:end].lower() == "jsonb"


def test_spans_mark_every_term(index: SearchIndex) -> None:
    for hit in index.query("refund coupon"):
        for start, end in hit.spans:
            assert hit.snippet[start:end].lower() in ("refund", "coupon")


def test_limit(index: SearchIndex) -> None:
    assert len(index.query("e", limit=7)) == 7
    assert index.query("e", limit=0) == []
    assert index.query("   ") == []


def test_narrowing_cache_gives_the_same_answers(index: SearchIndex) -> None:
    typed = [index.query(q) for q in ("p", "po", "pos", "post", "postgres", "postgres t")]
    index.clear_cache()
    fresh = []
    for q in ("p", "po", "pos", "post", "postgres", "postgres t"):
        index.clear_cache()
        fresh.append(index.query(q))
    assert [paths(h) for h in typed] == [paths(h) for h in fresh]
    # A query that does not extend the last one must search everything again.
    assert paths(index.query("sqlite")) == paths(SearchIndex(index.docs).query("sqlite"))


def test_progress_and_cancel(result: ScanResult) -> None:
    seen: list[tuple[int, int]] = []
    build_search_index(result, progress=lambda done, total: seen.append((done, total)))
    total = sum(len(s.memories) for s in result.stores)
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)

    calls = 0

    def cancelled() -> bool:
        nonlocal calls
        calls += 1
        return calls > 10

    partial = build_search_index(result, cancelled=cancelled)
    assert not partial.complete
    assert len(partial) == 10


def test_unreadable_and_binary_files_do_not_crash(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    store_dir = tmp_path / "claude" / "projects" / sanitize_path(str(project)) / "memory"
    write_memory(store_dir, "ok.md", description="plain note", type="user", body="hello world\n")
    (store_dir / "nul.md").write_bytes(b"---\nname: n\n---\n" + b"\x00" * 50 + b"hello")
    (store_dir / "bad.md").write_bytes(b"\xff\xfe hello \xc3")
    (store_dir / "dir.md").mkdir()
    (store_dir / "dangling.md").symlink_to(tmp_path / "missing.md")
    write_index(store_dir, ["- [OK](ok.md) — greeting note"])
    ctx = Context.create(
        project=project, claude_home=tmp_path / "claude", env={"HOME": str(tmp_path)}
    )
    scanned = scan(ctx)
    assert scanned.stores[0].path == store_dir
    index = build_search_index(scanned)
    found = {h.memory.rel_path for h in index.query("hello") if h.memory}
    assert "ok.md" in found
    assert "nul.md" not in found


def test_fold_keeps_length() -> None:
    for text in ("İstanbul", "Straße", "ǅ", "ABC", ""):
        assert len(fold(text)) == len(text)
    assert query_terms("  Foo foo BAR ") == ("foo", "bar")


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("abc xyzİß\n"), max_size=300),
    terms=st.lists(st.text(alphabet="abcxyz", min_size=1, max_size=3), min_size=1, max_size=3),
)
def test_snippet_spans_always_point_at_a_term(text: str, terms: list[str]) -> None:
    line = " ".join(text.split())
    snippet, spans = make_snippet(line, fold(line), tuple(terms))
    assert len(snippet) <= 102
    assert spans == match_spans(fold(snippet), terms)
    for start, end in spans:
        assert 0 <= start < end <= len(snippet)


def test_a_body_hit_names_its_file_line_and_shows_that_line(tmp_path: Path) -> None:
    """The hit names the file line of the match (frontmatter, blank lines, CRLF and a BOM
    counted as an editor counts them), and its snippet is that line, not the text around it."""
    project = tmp_path / "p"
    project.mkdir()
    store_dir = tmp_path / "claude" / "projects" / sanitize_path(str(project)) / "memory"
    lines = ["---", "name: n", "description: d", "---", "", "# Title", "first paragraph",
             "", "   ", "the needle is here", "after it", "needle again"]
    (store_dir).mkdir(parents=True)
    (store_dir / "crlf.md").write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode())
    write_memory(store_dir, "named-needle.md", body="nothing\nline two\nsee the needle\n")
    write_memory(store_dir, "only-name-needle.md", body="no match in here\n")
    ctx = Context.create(project=project, claude_home=tmp_path / "claude",
                         env={"HOME": str(tmp_path)})
    hits = {h.memory.rel_path: h for h in build_search_index(scan(ctx)).query("needle")
            if h.memory}
    body = hits["crlf.md"]
    assert body.field == "body" and body.line == 10
    assert body.snippet == body.line_snippet == "the needle is here"
    assert [body.snippet[a:b] for a, b in body.spans] == ["needle"]
    named = hits["named-needle.md"]  # the name ranks first; the body line comes along
    assert named.field != "body"
    body_start = (store_dir / "named-needle.md").read_text().split("\n").index("see the needle")
    assert named.line == body_start + 1
    assert named.line_snippet == "see the needle"
    assert [named.line_snippet[a:b] for a, b in named.line_spans] == ["needle"]
    assert hits["only-name-needle.md"].line is None


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab \t\n\u2028x"), max_size=200))
def test_body_lines_map_every_position_to_its_line(text: str) -> None:
    body = body_lines(text, 5)
    assert body.text == " ".join(text.split())
    raw_lines = text.split("\n")
    for start, number in zip(body.line_starts, body.line_numbers, strict=True):
        words = " ".join(raw_lines[number - 5].split())
        assert words and body.text[start:].startswith(words)
