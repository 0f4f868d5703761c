"""``read_header``'s line counting: the offset past the N-th newline, whatever the data."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memtui.core.fileread import HEADER_LINES, _end_of_line, read_header


def reference(data: bytes, number: int) -> int:
    lines = data.split(b"\n")
    if len(lines) <= number:
        return -1
    return sum(len(line) + 1 for line in lines[:number])


@given(st.binary(max_size=300).map(lambda b: b.replace(b"\x00", b"\n")), st.integers(0, 40))
def test_end_of_line_is_past_the_nth_newline(data: bytes, number: int) -> None:
    assert _end_of_line(data, number) == reference(data, number)


def test_a_header_is_its_first_lines_or_the_whole_short_file(tmp_path: Path) -> None:
    for count in (0, 1, HEADER_LINES - 1, HEADER_LINES, HEADER_LINES + 1, 5000):
        path = tmp_path / f"m{count}.md"
        text = b"".join(b"line %d\n" % i for i in range(count)) + b"tail"
        path.write_bytes(text)
        result = read_header(path, tmp_path)
        expected = text if count < HEADER_LINES else text[: reference(text, HEADER_LINES)]
        assert result.data == expected
        assert result.complete == (len(expected) >= os.path.getsize(path))
