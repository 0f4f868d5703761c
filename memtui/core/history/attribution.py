"""Who changed the files of a version, as far as memtui can know, and how a commit keeps it.

A version's commit message is a summary line, a blank line, then one ``Memtui-<Field>: value``
trailer per known field (values from outside, such as a session id from a hook's input, are
cut short and stripped of control characters). The commit's author name says the same in
words (``Claude Code session 2afc…``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

AuthorKind = Literal["memtui", "editor", "session", "consolidation", "unknown"]
AUTHOR_KINDS: tuple[AuthorKind, ...] = ("memtui", "editor", "session", "consolidation", "unknown")
TRAILER_PREFIX = "Memtui-"
VALUE_CAP = 300


def clean(value: object) -> str:
    """A value fit for one trailer line: control characters dropped, at most VALUE_CAP
    characters."""
    text = "".join(c for c in str(value) if c.isprintable())
    return text[:VALUE_CAP]


@dataclass(frozen=True)
class Attribution:
    """Who made a change: ``kind`` and what is known with it (the memtui operation's id and
    title, the phase before or after it; the session id, tool and file of a hook; the editor;
    the pid holding ``.consolidate-lock``)."""

    kind: AuthorKind = "unknown"
    op_id: str | None = None
    op_title: str | None = None
    phase: str | None = None
    session_id: str | None = None
    tool: str | None = None
    file: str | None = None
    editor: str | None = None
    lock_pid: str | None = None
    source: str | None = None
    """How the version was recorded: ``record`` (by hand or cron), ``hook``, ``start``,
    ``live``, ``operation``."""

    @classmethod
    def unknown(cls, source: str = "record") -> Attribution:
        return cls("unknown", source=source)

    @classmethod
    def memtui(cls, op_id: str, title: str, phase: str = "after") -> Attribution:
        return cls("memtui", op_id=op_id, op_title=title, phase=phase, source="operation")

    @classmethod
    def editor_of(cls, file: str, editor: str | None = None) -> Attribution:
        return cls("editor", file=file, editor=editor, source="editor")

    @classmethod
    def session(cls, session_id: str | None, tool: str | None, file: str | None) -> Attribution:
        return cls("session", session_id=session_id, tool=tool, file=file, source="hook")

    def author_name(self) -> str:
        """The commit author's name: the attribution in a few words."""
        if self.kind == "memtui":
            return f"memtui {self.op_id}" if self.op_id else "memtui"
        if self.kind == "session":
            return f"Claude Code session {self.session_id or '?'}"
        if self.kind == "consolidation":
            return "Claude Code consolidation"
        if self.kind == "editor":
            return f"editor {self.editor}" if self.editor else "editor"
        return "unknown"

    def describe(self) -> str:
        """One line for a timeline."""
        if self.kind == "memtui":
            what = f" ({self.op_title})" if self.op_title else ""
            when = "before " if self.phase == "before" else ""
            return f"{when}memtui operation {self.op_id or '?'}{what}"
        if self.kind == "session":
            tool = f" {self.tool}" if self.tool else ""
            return f"Claude Code session {self.session_id or '?'}{tool}"
        if self.kind == "consolidation":
            pid = f" (pid {self.lock_pid})" if self.lock_pid else ""
            return f"Claude Code consolidation{pid}"
        if self.kind == "editor":
            return f"your editor{f' ({self.editor})' if self.editor else ''}"
        return "unknown"

    def trailers(self) -> list[str]:
        lines = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                name = "".join(part.capitalize() for part in f.name.split("_"))
                lines.append(f"{TRAILER_PREFIX}{name}: {clean(value)}")
        return lines

    def to_json(self) -> dict[str, str | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)} | {
            "describe": self.describe()}


_FIELD_OF = {"".join(p.capitalize() for p in f.name.split("_")): f.name
             for f in fields(Attribution)}


def message(summary: str, attribution: Attribution) -> str:
    """A commit message: the summary, then the attribution's trailers."""
    return clean(summary) + "\n\n" + "\n".join(attribution.trailers()) + "\n"


def parse_message(text: str) -> tuple[str, Attribution]:
    """(summary, attribution) of a commit message (unknown when it has no trailers)."""
    lines = text.splitlines()
    summary = lines[0] if lines else ""
    values: dict[str, str] = {}
    for line in lines[1:]:
        if not line.startswith(TRAILER_PREFIX) or ": " not in line:
            continue
        name, _sep, value = line[len(TRAILER_PREFIX):].partition(": ")
        if name in _FIELD_OF:
            values[_FIELD_OF[name]] = value
    kind = values.pop("kind", "unknown")
    if kind not in AUTHOR_KINDS:
        kind = "unknown"
    return summary, Attribution(kind, **values)  # type: ignore[arg-type]
