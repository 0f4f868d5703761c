"""The offline recall preview: BM25 over the manifest picks what shares the prompt's rare
words, attaches each exactly, lists the near misses, and says it is an approximation."""

from __future__ import annotations

from pathlib import Path

from memtui.core.demo.writers import write_memory
from memtui.core.recall.manifest import build_manifest
from memtui.core.recall.preview import OFFLINE, ONE_WORD, preview_local, runs_recall
from memtui.core.recall.rank import bm25

NOW = 1_800_000_000_000.0


def store(tmp_path: Path) -> Path:
    write_memory(tmp_path, "pgbouncer.md", type="reference",
                 description="Postgres goes through pgbouncer on port 6432, never 5432")
    write_memory(tmp_path, "testing.md", type="feedback",
                 description="Integration tests hit a real database, never mocks")
    write_memory(tmp_path, "style.md", type="feedback", description="Line length is 100")
    write_memory(tmp_path, "deploy.md", type="project",
                 description="Deploys go out on Tuesdays after the database backup")
    return tmp_path


def test_the_prompt_picks_what_shares_its_rare_words(tmp_path: Path) -> None:
    manifest = build_manifest(store(tmp_path))
    now = max(f.mtime_ms for f in manifest.files)
    preview = preview_local(manifest, "why does my pgbouncer connection fail on port 5432", now)
    assert [c.file.rel_path for c in preview.chosen] == ["pgbouncer.md"]
    assert preview.chosen[0].attachment is not None
    assert preview.chosen[0].attachment.text.startswith("<system-reminder>\nMemory (saved")
    assert preview.provider == "local" and not preview.exact and OFFLINE in preview.notes


def test_close_files_are_listed_not_chosen(tmp_path: Path) -> None:
    preview = preview_local(build_manifest(store(tmp_path)),
                            "should integration tests use the database backup", NOW)
    chosen = [c.file.rel_path for c in preview.chosen]
    assert "testing.md" in chosen
    assert "style.md" not in chosen + preview.near
    assert set(chosen).isdisjoint(preview.near)


def test_a_one_word_prompt_runs_no_recall(tmp_path: Path) -> None:
    preview = preview_local(build_manifest(store(tmp_path)), "  pgbouncer ", NOW)
    assert preview.chosen == [] and ONE_WORD in preview.notes
    assert not runs_recall("") and runs_recall("two words")


def test_nothing_shared_attaches_nothing(tmp_path: Path) -> None:
    preview = preview_local(build_manifest(store(tmp_path)), "banana smoothie recipes", NOW)
    assert preview.chosen == [] and preview.near == []


def test_at_most_five_are_chosen(tmp_path: Path) -> None:
    for i in range(9):
        write_memory(tmp_path, f"kafka-{i}.md", description=f"kafka topic number {i}")
    preview = preview_local(build_manifest(tmp_path), "which kafka topic", NOW)
    assert len(preview.chosen) == 5 and len(preview.near) == 4


def test_bm25_weights_rare_words_over_common_ones() -> None:
    docs = ["database tests", "database deploys", "database pgbouncer port"]
    scores = bm25("pgbouncer database", docs)
    assert scores[2] > scores[0] > 0 and scores[0] == scores[1]
    assert bm25("", docs) == [0.0, 0.0, 0.0]
