"""Editing memory files' frontmatter: :class:`MemoryDocument` splits the raw bytes into pieces
that concatenate back to the original exactly and changes frontmatter line by line, so untouched
lines stay byte-identical; :func:`format_scalar` writes a value that reads back as itself.
Apart from :mod:`memtui.core.parse.frontmatter` (the parsing, which every scan imports): a scan
never edits, and these classes cost their creation at import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memtui.core.model import Frontmatter
from memtui.core.parse.frontmatter import (
    _SPECIAL,
    BOM,
    DELIMITER,
    _find_span,
    _load_yaml,
    decode_text,
    parse_frontmatter,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from memtui.core.model import FrontmatterLayout


# --------------------------------------------------------------------------- value formatting


def _double_quote(value: str) -> str:
    """A YAML double-quoted scalar for ``value`` (control characters escaped)."""
    simple = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    out: list[str] = []
    for ch in value:
        code = ord(ch)
        if ch in simple:
            out.append(simple[ch])
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\x{code:02x}")
        elif ch in "\u2028\u2029\ufeff":
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _plain_round_trips(value: str) -> bool:
    try:
        return bool(_load_yaml(f"k: {value}\n") == {"k": value})
    except Exception:
        return False


def format_scalar(value: str) -> str:
    """``value`` as a YAML scalar that reads back as that exact string, plain when safe."""
    plain_ok = (
        value != ""
        and value == value.strip()
        and value.isprintable()
        and not _SPECIAL.search(value)
        and not value.startswith(("'", '"'))
        and _plain_round_trips(value)
    )
    return value if plain_ok else _double_quote(value)


# --------------------------------------------------------------------------- editing


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace")


def _split_lines(text: str) -> tuple[str, ...]:
    """Split on ``\\n`` only (not ``str.splitlines``' many separators), endings kept."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return tuple(lines)


def _eol_of(line: str, default: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return default


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _is_blank(line: str) -> bool:
    return line.strip() == ""


def _defines(line: str, indent: str, key: str) -> bool:
    """``line`` is ``<indent>key:`` followed by whitespace or the end of the line."""
    prefix = indent + key + ":"
    if not line.startswith(prefix):
        return False
    rest = line[len(prefix) :]
    return rest == "" or rest[0] in " \t\r\n"


def _block_end(lines: list[str], start: int, deeper_than: int) -> int:
    """End (exclusive) of the lines after ``start`` indented deeper than ``deeper_than``.

    Blank lines count only when more indented lines follow them.
    """
    end = start + 1
    for j in range(start + 1, len(lines)):
        line = lines[j]
        if _is_blank(line):
            continue
        if len(_indent_of(line)) <= deeper_than:
            break
        end = j + 1
    return end


@dataclass(frozen=True)
class _MetadataBlock:
    """Where the ``metadata:`` block of a frontmatter is: its line, its end, its indent."""

    line: int
    end: int
    indent: str


def _metadata_block(lines: list[str]) -> _MetadataBlock | None:
    """The ``metadata:`` block mapping (CC's newer layout), if the frontmatter has one."""
    for i, line in enumerate(lines):
        if not _defines(line, "", "metadata") or not _is_blank(line[len("metadata:") :]):
            continue
        end = _block_end(lines, i, 0)
        children = [c for c in lines[i + 1 : end] if not _is_blank(c)]
        if children and not re.match(r"[ \t]+[^\s#-][^:]*:(\s|$)", children[0]):
            return None
        indent = _indent_of(children[0]) if children else "  "
        return _MetadataBlock(i, end, indent)
    return None


def _find_key(lines: list[str], key: str, indent: str, lo: int, hi: int) -> int | None:
    for i in range(lo, hi):
        if _defines(lines[i], indent, key):
            return i
    return None


def _set_in(
    lines: list[str], key: str, value: str, indent: str, lo: int, hi: int, eol: str
) -> tuple[list[str], bool]:
    """Replace ``key`` (and its continuation lines) between ``lo`` and ``hi``; False if absent."""
    found = _find_key(lines, key, indent, lo, hi)
    if found is None:
        return lines, False
    end = _block_end(lines, found, len(indent))
    new_line = f"{indent}{key}: {format_scalar(value)}{_eol_of(lines[found], eol)}"
    return [*lines[:found], new_line, *lines[end:]], True


def _ensure_eol(lines: list[str], index: int, eol: str) -> list[str]:
    """Make sure line ``index - 1`` ends with a newline before inserting at ``index``."""
    if index > 0 and not lines[index - 1].endswith("\n"):
        lines = list(lines)
        lines[index - 1] += eol
    return lines


def _insert(lines: list[str], index: int, line: str, eol: str) -> list[str]:
    lines = _ensure_eol(lines, index, eol)
    return [*lines[:index], line, *lines[index:]]


def _set_top_level(lines: list[str], key: str, value: str, eol: str, before: int) -> list[str]:
    new, ok = _set_in(lines, key, value, "", 0, len(lines), eol)
    if ok:
        return new
    return _insert(lines, before, f"{key}: {format_scalar(value)}{eol}", eol)


def _set_metadata(
    lines: list[str], block: _MetadataBlock, key: str, value: str, eol: str
) -> list[str]:
    new, ok = _set_in(lines, key, value, block.indent, block.line + 1, block.end, eol)
    if not ok:
        line = f"{block.indent}{key}: {format_scalar(value)}{eol}"
        new = _insert(lines, block.end, line, eol)
    # A top-level duplicate would win over metadata.<key> (Frontmatter.type reads it first).
    top, ok = _set_in(new, key, value, "", 0, len(new), eol)
    return top if ok else new


@dataclass(frozen=True)
class MemoryDocument:
    """A memory file split into pieces that concatenate back to its exact bytes.

    The text is decoded with ``surrogateescape`` so invalid UTF-8 survives. ``opening`` is the
    ``---`` line (empty when there is no frontmatter), ``lines`` the YAML lines with their
    endings, ``closing`` the closing ``---`` line, ``body`` the rest.
    """

    bom: str = ""
    opening: str = ""
    lines: tuple[str, ...] = ()
    closing: str = ""
    body: str = ""

    @classmethod
    def from_bytes(cls, data: bytes) -> MemoryDocument:
        text = data.decode("utf-8", errors="surrogateescape")
        span = _find_span(text)
        bom = BOM if text.startswith(BOM) else ""
        if span is None:
            return cls(bom=bom, body=text[len(bom) :])
        start, open_end, close_start, close_end = span
        return cls(
            bom=bom,
            opening=text[start:open_end],
            lines=_split_lines(text[open_end:close_start]),
            closing=text[close_start:close_end],
            body=text[close_end:],
        )

    @property
    def has_frontmatter(self) -> bool:
        return bool(self.opening)

    def to_text(self) -> str:
        """The document as a (possibly surrogate-escaped) string."""
        return self.bom + self.opening + "".join(self.lines) + self.closing + self.body

    def to_bytes(self) -> bytes:
        return _encode(self.to_text())

    @property
    def text(self) -> str:
        """The document decoded for display (bad bytes as U+FFFD)."""
        return decode_text(self.to_bytes())[0]

    @property
    def frontmatter(self) -> Frontmatter:
        return parse_frontmatter(self.text)

    @property
    def layout(self) -> FrontmatterLayout | None:
        """Layout as the editor sees it: ``metadata`` when a ``metadata:`` block exists."""
        if not self.has_frontmatter:
            return None
        return "metadata" if _metadata_block(list(self.lines)) else "flat"

    def _eol(self) -> str:
        return _eol_of(self.opening, "\r\n" if "\r\n" in self.body else "\n")

    def with_frontmatter_value(self, key: str, value: str) -> MemoryDocument:
        """Set ``key`` to the string ``value``, changing only the lines that must change.

        In the ``metadata:`` layout every key but ``name``/``description`` lives under
        ``metadata``. A document without frontmatter gets a new flat block.
        """
        eol = self._eol()
        if not self.has_frontmatter:
            return replace(
                self,
                opening=DELIMITER + eol,
                lines=(f"{key}: {format_scalar(value)}{eol}",),
                closing=DELIMITER + eol,
            )
        lines = list(self.lines)
        block = _metadata_block(lines)
        if block is not None and key not in ("name", "description"):
            new = _set_metadata(lines, block, key, value, eol)
        else:
            before = block.line if block is not None else len(lines)
            new = _set_top_level(lines, key, value, eol, before)
        return replace(self, lines=tuple(new))

    def with_body(self, body: str) -> MemoryDocument:
        """Replace the body; frontmatter (and BOM) untouched."""
        return replace(self, body=body)
