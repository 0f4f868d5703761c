"""UTF-16 and UTF-8 lengths of long texts, measured a chunk at a time."""

from __future__ import annotations

import pytest

from memtui.core.parse.utf16 import CHUNK, encoded_length, units


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ascii " * (CHUNK // 4),
        "é" * (CHUNK + 1),
        ("a" * (CHUNK - 1)) + "😀" + "b" * CHUNK,  # an astral character on a chunk's edge
        ("x" * (CHUNK - 1)) + "\ud83d" + "\ude00" * 3 + "—" * CHUNK,  # lone surrogates there
        "😀" * (3 * CHUNK + 7),
    ],
)
def test_chunked_lengths_are_the_whole_encodings(text: str) -> None:
    for encoding in ("utf-16-le", "utf-8"):
        assert encoded_length(text, encoding) == len(text.encode(encoding, "surrogatepass"))
    assert units(text) == len(text.encode("utf-16-le", "surrogatepass")) // 2
