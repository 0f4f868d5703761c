"""A git config file's entries, parsed from bytes the bounded reader read (never GitPython:
it reads the file unbounded, so ``/dev/zero`` or a FIFO there grew memory or blocked).

Follows git's ``config.c`` syntax: ``[section]``, ``[section "subsection"]`` (case kept, ``\\``
escapes) and the old ``[section.subsection]`` (lowercased); section and key names
case-insensitive; ``#`` and ``;`` comments outside quotes; values trimmed, ``"…"`` quoting,
the escapes ``\\n \\t \\b \\\\ \\"``, a ``\\`` at the end of a line continuing the value; a key
alone means true. Includes are not followed. A line git would call bad ends the parse there
(git refuses the whole file; the entries before it are kept and the problem is reported).
"""

from __future__ import annotations

from dataclasses import dataclass, field

_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}


@dataclass(frozen=True)
class Entry:
    """One ``key = value``: section lowercased, subsection as written (or None), key lowercased;
    ``value`` is None for a key without ``=``."""

    section: str
    subsection: str | None
    key: str
    value: str | None


@dataclass
class GitConfig:
    entries: list[Entry] = field(default_factory=list)
    problem: str | None = None
    """Where the parse stopped (a bad line), or None."""
    has_includes: bool = False
    """The file includes others (``include.path``, ``includeIf.*.path``), which are not read."""

    def values(self, section: str, subsection: str | None, key: str) -> list[str]:
        """Every value of ``section.subsection.key`` in file order (git's ``--get-all``)."""
        section, key = section.lower(), key.lower()
        return [e.value if e.value is not None else "" for e in self.entries
                if e.section == section and e.subsection == subsection and e.key == key]


def _is_name_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "-")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def next(self) -> str:
        ch = self.peek()
        if ch:
            self.pos += 1
            if ch == "\n":
                self.line += 1
        return ch

    def skip_comment(self) -> None:
        while self.peek() not in ("", "\n"):
            self.pos += 1

    def section(self) -> tuple[str, str | None] | None:
        """After ``[``: the section and subsection, or None on a bad header."""
        name: list[str] = []
        while True:
            ch = self.next()
            if ch == "]":
                dotted = "".join(name)
                head, dot, sub = dotted.partition(".")
                if not head:
                    return None
                return (head.lower(), sub.lower() if dot else None)
            if ch.isspace() and ch != "\n":
                return self.subsection("".join(name))
            if ch == "." or _is_name_char(ch):
                name.append(ch)
                continue
            return None

    def subsection(self, name: str) -> tuple[str, str | None] | None:
        while self.peek() in (" ", "\t"):
            self.pos += 1
        if self.next() != '"' or not name or "." in name:
            return None
        sub: list[str] = []
        while True:
            ch = self.next()
            if ch in ("", "\n"):
                return None
            if ch == '"':
                break
            if ch == "\\":
                ch = self.next()
                if ch in ("", "\n"):
                    return None
            sub.append(ch)
        if self.next() != "]":
            return None
        return name.lower(), "".join(sub)

    def value(self) -> str | None:
        """After ``=``: the value up to the end of its line (continuations followed)."""
        out: list[str] = []
        quoted = False
        pending_space = 0
        while True:
            ch = self.next()
            if ch in ("", "\n"):
                if quoted:
                    return None
                return "".join(out)
            if not quoted and ch in ("#", ";"):
                self.skip_comment()
                continue
            if not quoted and ch in (" ", "\t"):
                if out:
                    pending_space += 1
                continue
            if pending_space:
                out.append(" " * pending_space)
                pending_space = 0
            if ch == "\\":
                nxt = self.next()
                if nxt == "\n":
                    continue
                if nxt not in _ESCAPES:
                    return None
                out.append(_ESCAPES[nxt])
                continue
            if ch == '"':
                quoted = not quoted
                continue
            out.append(ch)


def parse_git_config(data: bytes) -> GitConfig:
    """The entries of a git config file's bytes (invalid UTF-8 replaced)."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").removeprefix("\ufeff")
    parser = _Parser(text)
    config = GitConfig()
    current: tuple[str, str | None] | None = None
    while True:
        ch = parser.next()
        if ch == "":
            return config
        if ch in ("\n", " ", "\t"):
            continue
        if ch in ("#", ";"):
            parser.skip_comment()
            continue
        if ch == "[":
            current = parser.section()
            if current is None:
                config.problem = f"bad section header on line {parser.line}: not read further"
                return config
            continue
        if current is None or not ch.isascii() or not ch.isalpha():
            config.problem = f"bad config line {parser.line}: not read further"
            return config
        key = [ch]
        while _is_name_char(parser.peek()):
            key.append(parser.next())
        while parser.peek() in (" ", "\t"):
            parser.pos += 1
        value: str | None
        end = parser.peek()
        if end == "=":
            parser.pos += 1
            line = parser.line
            value = parser.value()
            if value is None:
                config.problem = f"bad value on line {line}: not read further"
                return config
        elif end in ("", "\n", "#", ";"):
            value = None
            parser.skip_comment()
        else:
            config.problem = f"bad config line {parser.line}: not read further"
            return config
        entry = Entry(current[0], current[1], "".join(key).lower(), value)
        if entry.key == "path" and entry.section in ("include", "includeif"):
            config.has_includes = True
        config.entries.append(entry)
