"""What recall attaches of a chosen memory, pinned to Claude Code's ``readMemoriesForSurfacing``
and ``memoryHeader`` (docs/claude-code-rules.md#the-recall-preview): 200 lines or 4096 UTF-8
bytes of whole lines, the truncation note, the age header, the system-reminder wrapper."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.demo.writers import write_file
from memtui.core.recall.attach import (
    DAY_MS,
    MAX_MEMORY_BYTES,
    attachment_of,
    memory_header,
    read_attachment,
)
from memtui.core.recall.readrange import read_range

NOW = 1_800_000_000_000.0


@pytest.mark.parametrize(("age_ms", "header"), [
    (0, "Memory (saved today): /m/a.md:"),
    (DAY_MS - 1, "Memory (saved today): /m/a.md:"),
    (DAY_MS, "Memory (saved yesterday): /m/a.md:"),
    (-5 * DAY_MS, "Memory (saved today): /m/a.md:"),  # a future mtime counts as today
    (2 * DAY_MS, "This memory is 2 days old. Memories are point-in-time observations, not live "
     "state — claims about code behavior or file:line citations may be outdated. Verify against "
     "current code before asserting as fact.\n\nMemory: /m/a.md:"),
])
def test_the_header_by_age(age_ms: float, header: str) -> None:
    assert memory_header("/m/a.md", NOW - age_ms, NOW) == header


def test_a_small_file_is_attached_whole_and_wrapped() -> None:
    found = attachment_of("---\nname: a\n---\nbody\n", "/m/a.md", NOW, NOW)
    assert not found.truncated
    assert found.text == ("<system-reminder>\nMemory (saved today): /m/a.md:\n\n"
                          "---\nname: a\n---\nbody\n\n</system-reminder>")


def test_201_lines_are_cut_at_200_with_the_note() -> None:
    text = "".join(f"line {i}\n" for i in range(201))
    found = attachment_of(text, "/m/long.md", NOW, NOW)
    assert found.truncated and found.line_count == 200
    assert found.content == "\n".join(f"line {i}" for i in range(200)) + (
        "\n\n> This memory file was truncated (first 200 lines). Use the Read tool to view the "
        "complete file at: /m/long.md")


def test_200_lines_and_a_final_newline_count_as_truncated() -> None:
    text = "".join(f"line {i}\n" for i in range(200))
    found = attachment_of(text, "/m/x.md", NOW, NOW)
    assert found.truncated and "first 200 lines" in found.content


def test_200_lines_without_a_final_newline_are_whole() -> None:
    text = "\n".join(f"line {i}" for i in range(200))
    assert not attachment_of(text, "/m/x.md", NOW, NOW).truncated


def test_the_byte_cap_takes_whole_lines_only() -> None:
    line = "é" * 99  # 198 UTF-8 bytes, 99 characters
    text = "\n".join([line] * 30)
    found = attachment_of(text, "/m/wide.md", NOW, NOW)
    kept = MAX_MEMORY_BYTES // 199  # each line and its separator: 199 bytes
    assert found.line_count == kept and found.truncated
    assert found.content.startswith("\n".join([line] * kept) + "\n\n> This memory file was "
                                    "truncated (4096 byte limit).")


def test_a_single_line_over_the_cap_gives_empty_content_and_the_note() -> None:
    found = attachment_of("x" * 5000, "/m/one.md", NOW, NOW)
    assert found.line_count == 0 and found.content.startswith("\n\n> This memory file was")


def test_bom_and_trailing_cr_are_dropped_but_an_inner_cr_stays() -> None:
    read = read_range("\ufeffa\r\nb\rc\r\n", 30)
    assert read.content == "a\nb\rc\n" and read.total_lines == 3


def test_an_unreadable_file_is_dropped(tmp_path: Path) -> None:
    assert read_attachment(tmp_path, "gone.md", NOW, NOW) is None
    write_file(tmp_path / "ok.md", "hello\n")
    found = read_attachment(tmp_path, "ok.md", NOW, NOW)
    assert found is not None and found.path == str(tmp_path / "ok.md")
