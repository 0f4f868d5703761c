"""Claude Code's read of the first lines of a file (``readFileInRange`` for a file under
10 MB), which recall uses twice: 30 lines of each memory for the manifest's header scan, and 200
lines or 4096 UTF-8 bytes of whole lines of each memory it attaches
([the rule](../../../docs/claude-code-rules.md#the-recall-preview)).

One BOM at the start is dropped; lines are split at ``\\n`` and lose one trailing ``\\r``;
lines are taken while fewer than ``max_lines`` were and while the bytes taken (joined by
``\\n``) stay within ``max_bytes``; ``total_lines`` counts every line, so a file that ends with
a newline has an empty last line (200 lines and a newline are 201 lines: "truncated")."""

from __future__ import annotations

from dataclasses import dataclass

BOM = "\ufeff"


@dataclass(frozen=True)
class RangeRead:
    content: str
    line_count: int
    total_lines: int
    truncated_by_bytes: bool = False

    @property
    def truncated(self) -> bool:
        """What recall calls truncated: more lines than asked for, or cut at the byte cap."""
        return self.truncated_by_bytes or self.total_lines > self.line_count


def read_range(text: str, max_lines: int, max_bytes: int | None = None) -> RangeRead:
    """The first ``max_lines`` lines of ``text`` (within ``max_bytes`` UTF-8 bytes)."""
    if text.startswith(BOM):
        text = text[1:]
    lines = text.split("\n")
    taken: list[str] = []
    used = 0
    cut = False
    for line in lines[:max_lines]:
        if line.endswith("\r"):
            line = line[:-1]
        if max_bytes is not None:
            size = used + (1 if taken else 0) + len(line.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                cut = True
                break
            used = size
        taken.append(line)
    return RangeRead("\n".join(taken), len(taken), len(lines), cut)
