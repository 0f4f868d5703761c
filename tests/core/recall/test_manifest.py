"""The recall manifest, pinned to Claude Code's header scan and ``formatMemoryManifest``
(docs/claude-code-rules.md#the-header-scan-and-the-recall-manifest): every ``*.md`` below the
memory dir but files named MEMORY.md, the first 30 lines (BOM and ``\\r`` removed), newest
``mtimeMs`` first (stable), at most 200, the exact line format."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import write_file, write_index, write_memory
from memtui.core.recall.jsvalues import iso_from_ms, js_string, node_mtime_ms
from memtui.core.recall.manifest import MAX_FILES, build_manifest
from memtui.core.stores.locations import locate

BASE_NS = 1_764_000_000_000_000_000  # 2025-11-24T16:00:00Z


def stamp(path: Path, ns: int) -> Path:
    os.utime(path, ns=(ns, ns))
    return path


def test_the_line_format_with_and_without_type_and_description(tmp_path: Path) -> None:
    stamp(write_memory(tmp_path, "full.md", description="Use pnpm, never npm", type="feedback"),
          BASE_NS + 3_000_000_000)
    stamp(write_memory(tmp_path, "untyped.md", description="No type here"), BASE_NS + 2_000_000_000)
    stamp(write_memory(tmp_path, "bare.md", type="project"), BASE_NS + 1_000_000_000)
    stamp(write_file(tmp_path / "nofm.md", "just text\n"), BASE_NS)
    assert build_manifest(tmp_path).text == (
        "- [feedback] full.md (2025-11-24T16:00:03.000Z): Use pnpm, never npm\n"
        "- untyped.md (2025-11-24T16:00:02.000Z): No type here\n"
        "- [project] bare.md (2025-11-24T16:00:01.000Z)\n"
        "- nofm.md (2025-11-24T16:00:00.000Z)"
    )


def test_unknown_type_and_empty_description_are_left_out(tmp_path: Path) -> None:
    write_file(tmp_path / "odd.md", "---\nname: odd\ndescription: ''\ntype: Feedback\n---\nx\n")
    assert build_manifest(tmp_path).files[0].line.startswith("- odd.md (")
    assert build_manifest(tmp_path).text.endswith(")")


def test_metadata_layout_type_counts(tmp_path: Path) -> None:
    write_memory(tmp_path, "meta.md", description="d", type="user", layout="metadata")
    assert build_manifest(tmp_path).files[0].type == "user"


def test_bom_and_crlf_are_removed_before_the_frontmatter(tmp_path: Path) -> None:
    write_file(tmp_path / "win.md",
               "\ufeff---\r\nname: win\r\ndescription: Windows line ends\r\n"
               "type: user\r\n---\r\nb\r\n")
    item = build_manifest(tmp_path).files[0]
    assert (item.type, item.description) == ("user", "Windows line ends")


def test_only_the_first_30_lines_are_read(tmp_path: Path) -> None:
    padding = "".join(f"k{i}: v\n" for i in range(40))
    write_file(tmp_path / "late.md", f"---\n{padding}description: too late\n---\n")
    item = build_manifest(tmp_path).files[0]
    assert item.description is None


def test_every_md_below_the_dir_but_memory_md_files(tmp_path: Path) -> None:
    write_index(tmp_path, ["- [a](a.md) — a"])
    write_memory(tmp_path, "a.md", description="top")
    write_memory(tmp_path, "team/shared.md", description="team memory lies below auto memory")
    write_index(tmp_path / "team", ["- [s](shared.md) — s"])
    write_memory(tmp_path, "deep/er/nested.md", description="nested")
    write_file(tmp_path / "notes.txt", "not markdown\n")
    paths = sorted(f.rel_path for f in build_manifest(tmp_path).files)
    assert paths == ["a.md", "deep/er/nested.md", "team/shared.md"]


def test_newest_first_and_ties_keep_path_order(tmp_path: Path) -> None:
    for name, offset in (("b.md", 5), ("a.md", 5), ("c.md", 9), ("sub/z.md", 5)):
        stamp(write_memory(tmp_path, name, description=name), BASE_NS + offset * 1_000_000)
    assert [f.rel_path for f in build_manifest(tmp_path).files] == ["c.md", "a.md", "b.md",
                                                                     "sub/z.md"]


def test_the_cap_is_200_and_the_rest_are_invisible_to_recall(tmp_path: Path) -> None:
    for i in range(MAX_FILES + 7):
        stamp(write_memory(tmp_path, f"m{i:03d}.md", description=f"memory {i}"),
              BASE_NS + i * 1_000_000_000)
    manifest = build_manifest(tmp_path)
    assert len(manifest.files) == MAX_FILES
    assert manifest.files[0].rel_path == f"m{MAX_FILES + 6:03d}.md"
    assert manifest.invisible == [f"m{i:03d}.md" for i in range(6, -1, -1)]
    assert manifest.text.count("\n") == MAX_FILES - 1


def test_an_unreadable_file_is_left_out_and_takes_no_place(tmp_path: Path) -> None:
    for i in range(MAX_FILES):
        stamp(write_memory(tmp_path, f"m{i:03d}.md"), BASE_NS + i * 1_000_000_000)
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    stamp(fifo, BASE_NS + 10_000 * 1_000_000_000)
    manifest = build_manifest(tmp_path)
    assert len(manifest.files) == MAX_FILES and manifest.invisible == []
    assert "pipe.md" not in manifest.text
    assert any(p.startswith("pipe.md:") for p in manifest.problems)


def test_a_link_leaving_the_store_is_not_read(tmp_path: Path) -> None:
    store = tmp_path / "store"
    secret = write_file(tmp_path / "outside.md", "---\ndescription: outside\n---\n")
    store.mkdir()
    (store / "escape.md").symlink_to(secret)
    manifest = build_manifest(store)
    assert manifest.files == [] and "outside" not in manifest.text
    assert manifest.problems == ["escape.md: a link that leaves the store: not read"]


def test_mtime_ms_as_node_computes_it() -> None:
    # 123.999999 ms rounds up in double arithmetic (Node: sec * 1e3 + nsec / 1e6)
    assert node_mtime_ms(1_700_000_000_123_999_999) == 1_700_000_000_124.0
    assert iso_from_ms(1_700_000_000_123.9) == "2023-11-14T22:13:20.123Z"  # toward zero
    assert iso_from_ms(-1.5) == "1969-12-31T23:59:59.999Z"
    assert iso_from_ms(0) == "1970-01-01T00:00:00.000Z"
    assert iso_from_ms(float("nan")) is None


def test_manifest_times_are_utc_with_milliseconds(tmp_path: Path) -> None:
    stamp(write_memory(tmp_path, "t.md"), 1_700_000_000_123_456_789)
    assert build_manifest(tmp_path).text == "- t.md (2023-11-14T22:13:20.123Z)"


@pytest.mark.parametrize(("yaml", "shown"), [
    ("42", "42"), ("1.0", "1"), ("1.5", "1.5"), ("true", "true"), ("[a, b]", "a,b"),
    ("{k: v}", "[object Object]"), ("'yes'", "yes"), ("yes", "yes"), ("2026-01-02", "2026-01-02"),
])
def test_a_description_that_is_no_string_prints_as_js_does(
    tmp_path: Path, yaml: str, shown: str
) -> None:
    write_file(tmp_path / "v.md", f"---\ndescription: {yaml}\n---\n")
    assert build_manifest(tmp_path).files[0].description == shown


@pytest.mark.parametrize("falsy", ["0", "false", "''", "null", "~"])
def test_a_falsy_description_is_left_out(tmp_path: Path, falsy: str) -> None:
    write_file(tmp_path / "f.md", f"---\ndescription: {falsy}\n---\n")
    assert build_manifest(tmp_path).files[0].description is None


def test_js_string_of_numbers() -> None:
    assert [js_string(v) for v in (1e21, 1e-7, 0.00001, 123456789.0, -0.0)] == [
        "1e+21", "1e-7", "0.00001", "123456789", "0"]


def test_a_missing_dir_has_an_empty_manifest(tmp_path: Path) -> None:
    manifest = build_manifest(tmp_path / "nothing")
    assert (manifest.text, manifest.files, manifest.invisible) == ("", [], [])


def test_the_demo_auto_memory(pristine: DemoHome) -> None:
    manifest = build_manifest(locate(demo_context(pristine)).auto.path)
    assert manifest.files and manifest.invisible == []
    assert all(not f.rel_path.endswith("MEMORY.md") for f in manifest.files)
    assert [f.mtime_ms for f in manifest.files] == sorted(
        (f.mtime_ms for f in manifest.files), reverse=True)
    assert any(f.rel_path.startswith("team/") for f in manifest.files)
