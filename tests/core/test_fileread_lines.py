"""``read_header``'s line counting: the offset past the N-th newline, whatever the data."""

from __future__ import annotations

import os
import random
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memtui.core.fileread import HEADER_LINES, _end_of_line, read_first_lines, read_header


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


def readline_reference(path: Path, count: int, byte_cap: int) -> list[bytes]:
    """``read_first_lines`` as a file object's ``readline`` gives it (lines end at ``\\n``
    only, never more than ``byte_cap`` bytes in all)."""
    out: list[bytes] = []
    total = 0
    with open(path, "rb") as handle:
        for _ in range(count):
            line = handle.readline(max(1, byte_cap - total))
            if not line:
                break
            out.append(line)
            total += len(line)
            if total >= byte_cap:
                break
    return out


def test_first_lines_are_what_readline_gives(tmp_path: Path) -> None:
    """Read in chunks of the descriptor: the same lines as ``readline`` (``\\r`` is no line
    end; a line across chunks, past the cap, at the end without a newline)."""
    rng = random.Random(25)
    path = tmp_path / "t.jsonl"
    for _ in range(400):
        data = b"".join(
            bytes(rng.choice(b"ab\r\n\n ") for _ in range(rng.choice([0, 1, 5, 50, 9000, 70000])))
            for _ in range(rng.randint(0, 12))
        )
        path.write_bytes(data)
        count = rng.randint(0, 15)
        cap = rng.choice([1, 10, 100, 8192, 20000, 256 * 1024])
        assert read_first_lines(path, count, cap) == readline_reference(path, count, cap)
