"""agentmemory's entries, parsed from the text of one file: what its ``distil`` reads.

agentmemory (docs/claude-code-rules.md#agentmemory-distil) appends entries to
``daily/YYYY-MM-DD.md`` and ``topics/<slug>.md``, each opened by a marker line
``<!-- YYYY-MM-DD HH:MM:SS [sid8] -->``; a topic entry ends with ``Daily: [[YYYY-MM-DD]]`` and a
topic file starts with ``# Topic: Title``. Tags are ``#word`` (its regex
``(?:^|\\s)#([a-zA-Z][\\w-]*)``, lowercased, the ``#`` kept), links ``[[x]]``. Before distilling
it drops inactive entries: those whose first paragraph says ``Trust: untrusted``,
``Status: expired|superseded|revoked|retired`` or ``Valid until: YYYY-MM-DD`` before today
(UTC).

Pure functions over text: no file is opened here (``memtui.core.distil.agentmemory`` reads).
That section also lists where memtui differs on purpose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from memtui.core.parse.jsstring import JS_WS_CLASS, js_trim, js_trim_end
from memtui.core.parse.utf16 import prefix_by_units, units

EntryKind = Literal["daily", "topic"]

_WS = f"[{JS_WS_CLASS}]"

MARKER_RE = re.compile(r"^<!-- (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) \[([^\]\n]*)\] -->", re.M)
"""An entry's marker at the start of a line (agentmemory's ``metaMatch``), its sid within the
line: found in a whole file at once."""

TAG_RE = re.compile(f"(?:^|{_WS})#([a-zA-Z][A-Za-z0-9_-]*)")
"""agentmemory's ``extractTags`` regex with JavaScript's ``\\s`` and ``\\w``."""

LINK_RE = re.compile(r"\[\[([^\]]+)\]\]")
DATE_LINK_RE = re.compile(r"\[\[(\d{4}-\d{2}-\d{2})\]\]")
DAILY_LINE_RE = re.compile(
    f"^{_WS}*Daily:{_WS}*\\[\\[(\\d{{4}}-\\d{{2}}-\\d{{2}})\\]\\]{_WS}*$", re.I
)
BARE_DATE_LINE_RE = re.compile(f"^{_WS}*\\[\\[\\d{{4}}-\\d{{2}}-\\d{{2}}\\]\\]{_WS}*$")
TOPIC_TITLE_RE = re.compile(r"^# Topic:\s*(.+)$")
SCRATCH_ITEM_RE = re.compile(r"^- \[([ xX])\] (.+)$")
COMMENT_LINE_RE = re.compile(r"^<!--.*-->$")
HEADING_LINE_RE = re.compile(r"^#{1,6}\s")

_META = f"^{_WS}*(?:[-*]{_WS}*)?"
_END = f"{_WS}*\\.?{_WS}*$"
UNTRUSTED_RE = re.compile(f"{_META}Trust:{_WS}*untrusted{_END}", re.I | re.M)
STATUS_RE = re.compile(
    f"{_META}Status:{_WS}*(expired|superseded|revoked|retired){_END}", re.I | re.M
)
VALID_UNTIL_RE = re.compile(
    f"{_META}Valid until:?{_WS}+(\\d{{4}}-\\d{{2}}-\\d{{2}}){_END}", re.I | re.M
)
LIFECYCLE_RE = re.compile(
    f"{_META}(?:Trust:{_WS}*untrusted|Status:{_WS}*(?:expired|superseded|revoked|retired)"
    f"|Valid until:?{_WS}+\\d{{4}}-\\d{{2}}-\\d{{2}}){_END}",
    re.I | re.M,
)
"""Any of the three: what an entry must hold before its first paragraph is looked at."""
PARAGRAPH_BREAK_RE = re.compile(f"\\n{_WS}*\\n")

SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_-]{16,}\b", re.ASCII),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}\b", re.ASCII),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b", re.ASCII),
    re.compile(
        r"\b(?:api[_-]?key|access[_-]?token|secret)\s*[:=]\s*[\"']?[A-Za-z0-9_./+=-]{16,}[\"']?",
        re.ASCII | re.I,
    ),
)
"""agentmemory's ``redactSecrets``: what it masks before an entry reaches its index."""
REDACTED = "[REDACTED_SECRET]"

SUMMARY_UNITS = 80
"""agentmemory's ``summarizeEntry``: an entry's first line, cut at 80 UTF-16 units + ``...``."""


@dataclass(frozen=True)
class Entry:
    """One entry of a daily log or a topic file, as agentmemory's distil sees it."""

    file: str
    """Relative to the home: ``daily/2026-11-25.md``, ``topics/payments.md``."""
    kind: EntryKind
    start: int
    """First line (1-based): the marker, or the file's first line for an unmarked entry."""
    end: int
    """Last line (1-based, inclusive)."""
    date: str
    """The daily file's name; for a topic entry its first ``[[YYYY-MM-DD]]``, else the
    marker's date."""
    timestamp: str
    """``YYYY-MM-DD HH:MM:SS`` from the marker, or ``""`` (an unmarked daily entry)."""
    sid: str
    content: str
    """The body, trimmed; a topic entry's ``Daily:`` backlink lines removed."""
    tags: tuple[str, ...]
    links: tuple[str, ...]
    daily_link: str | None = None
    """A topic entry's ``Daily: [[YYYY-MM-DD]]`` backlink."""
    topic: str | None = None
    """The topic's title (``# Topic: Title``, else its slug)."""
    slug: str | None = None

    @property
    def first_line(self) -> str:
        return first_line(self.content)

    def sort_key(self) -> tuple[str, str]:
        return (self.date, self.timestamp)


@dataclass(frozen=True)
class Excluded:
    """An entry distil leaves out, and why (``Status: superseded``, ``Valid until: …``)."""

    entry: Entry
    reason: str


@dataclass(frozen=True)
class ScratchItem:
    """A ``- [ ]`` / ``- [x]`` line of SCRATCHPAD.md with the marker line above it."""

    line: int
    text: str
    done: bool
    meta: str = ""


@dataclass
class ParsedFile:
    entries: list[Entry]
    excluded: list[Excluded]
    title: str | None = None


def extract_tags(text: str) -> tuple[str, ...]:
    """``#tag`` words, lowercased with their ``#``, unique, sorted."""
    return tuple(sorted({"#" + tag.lower() for tag in TAG_RE.findall(text)}))


def extract_links(text: str) -> tuple[str, ...]:
    """``[[link]]`` targets, trimmed, unique, sorted."""
    return tuple(sorted({js_trim(m.group(1)) for m in LINK_RE.finditer(text)}))


def redact(text: str) -> str:
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def may_hold_secret(text: str) -> bool:
    """False only when no pattern of ``SECRET_PATTERNS`` can match ``text`` (then ``redact``
    returns it unchanged): each needs a piece of text that is tested here, the last one in any
    ASCII case (``str.lower`` lowers every ASCII letter)."""
    if "sk-" in text or "AKIA" in text or ("gh" in text and "_" in text):
        return True
    lowered = text.lower()
    return "key" in lowered or "token" in lowered or "secret" in lowered


def first_line(content: str) -> str:
    return content.split("\n", 1)[0].removesuffix("\r")


def summary(content: str) -> str:
    """agentmemory's summary of an entry: its first line (secrets masked), 80 UTF-16 units,
    ``...`` when longer. A cut through a surrogate pair leaves U+FFFD, as Node writes a lone
    surrogate."""
    line = first_line(redact(content))
    if units(line) <= SUMMARY_UNITS:
        return line
    head = prefix_by_units(line, SUMMARY_UNITS)
    if units(head) < SUMMARY_UNITS:
        head += "\ufffd"
    return head + "..."


def lifecycle_reason(block: str, today: str) -> str | None:
    """Why agentmemory treats an entry as inactive (its first paragraph only), or None."""
    if not LIFECYCLE_RE.search(block):  # none in the block: none in its first paragraph
        return None
    header = PARAGRAPH_BREAK_RE.split(block, maxsplit=1)[0]
    if UNTRUSTED_RE.search(header):
        return "Trust: untrusted"
    status = STATUS_RE.search(header)
    if status:
        return f"Status: {status.group(1).lower()}"
    valid = VALID_UNTIL_RE.search(header)
    if valid and valid.group(1) < today:
        return f"Valid until: {valid.group(1)} (expired)"
    return None


@dataclass
class _Block:
    start: int  # 0-based index of the first line
    text: str
    """The block's lines joined (the newline before the next marker left out)."""
    marker: re.Match[str] | None
    """The marker (matched in the whole file)."""

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @property
    def body(self) -> str:
        """The text after the marker, trimmed."""
        if self.marker is None:
            return js_trim(self.text)
        return js_trim(self.text[self.marker.end() - self.marker.start() :])

    def span(self) -> tuple[int, int]:
        """First and last line (1-based), trailing blank lines left out."""
        return self.start + 1, self.start + 1 + js_trim_end(self.text).count("\n")


def _blocks(text: str) -> list[_Block]:
    """The file cut before every marker line; the part before the first marker (if any) is a
    block without a marker. One pass over the text: each block is a slice of it."""
    blocks: list[_Block] = []
    markers = list(MARKER_RE.finditer(text))
    if not markers or markers[0].start() > 0:
        blocks.append(_Block(0, text[: markers[0].start() - 1] if markers else text, None))
    line = previous = 0
    for index, marker in enumerate(markers):
        cut = marker.start()
        line += text.count("\n", previous, cut)
        previous = cut
        end = markers[index + 1].start() - 1 if index + 1 < len(markers) else len(text)
        blocks.append(_Block(line, text[cut:end], marker))
    return blocks


def _is_header_only(text: str) -> bool:
    """A preamble of headings, comments and blank lines only (a daily file's ``# date``)."""
    for line in text.split("\n"):
        stripped = js_trim(line)
        if stripped and not HEADING_LINE_RE.match(stripped) and not COMMENT_LINE_RE.match(stripped):
            return False
    return True


def split_lines(text: str) -> list[str]:
    """The lines of a file's text (a leading BOM dropped, as agentmemory does)."""
    return text.removeprefix("\ufeff").split("\n")


def _links(text: str) -> tuple[str, ...]:
    return extract_links(text) if "[[" in text else ()


def _tags(text: str) -> tuple[str, ...]:
    """``extract_tags(redact(text))``, redacting only when a secret may be there."""
    if "#" not in text:  # redact adds none
        return ()
    return extract_tags(redact(text) if may_hold_secret(text) else text)


def _reason(block: _Block, today: str) -> str | None:
    return lifecycle_reason(js_trim(block.text), today)


def parse_daily(rel: str, date: str, text: str, today: str) -> ParsedFile:
    """The entries of a daily log; an unmarked part before the first marker is an entry
    without a timestamp unless it holds only headings and comments."""
    parsed = ParsedFile([], [])
    for block in _blocks(text.removeprefix("\ufeff")):
        body = block.body
        if not body or (block.marker is None and _is_header_only(body)):
            continue
        start, end = block.span()
        timestamp, sid = block.marker.groups() if block.marker else ("", "")
        # positional: keywords cost a third more, and a year of logs is 3,650 entries
        entry = Entry(rel, "daily", start, end, date, timestamp, sid, body, _tags(body),
                      _links(body))
        _sort_in(parsed, entry, _reason(block, today))
    return parsed


def _sort_in(parsed: ParsedFile, entry: Entry, reason: str | None) -> None:
    if reason is None:
        parsed.entries.append(entry)
    else:
        parsed.excluded.append(Excluded(entry, reason))


def _strip_daily_lines(body: str) -> str:
    kept = [
        line
        for line in body.split("\n")
        if not DAILY_LINE_RE.match(line) and not BARE_DATE_LINE_RE.match(line)
    ]
    return js_trim("\n".join(kept)) or body


def _title(blocks: list[_Block], excluded: set[int]) -> str | None:
    for index, block in enumerate(blocks):
        if index in excluded:
            continue
        for line in block.lines:
            found = TOPIC_TITLE_RE.match(line.removesuffix("\r"))
            if found and js_trim(found.group(1)):
                return js_trim(found.group(1))
    return None


def parse_topic(rel: str, slug: str, text: str, today: str) -> ParsedFile:
    """The entries of a topic file (marked ones only) and its ``# Topic:`` title."""
    parsed = ParsedFile([], [])
    blocks = _blocks(text.removeprefix("\ufeff"))
    inactive: set[int] = set()
    pending: list[tuple[_Block, str, str | None]] = []
    for index, block in enumerate(blocks):
        reason = _reason(block, today)
        if reason is not None:
            inactive.add(index)
        body = block.body
        if block.marker is not None and body:
            pending.append((block, body, reason))
    parsed.title = _title(blocks, inactive)
    title = parsed.title or slug
    for block, body, reason in pending:
        assert block.marker is not None
        dated = DATE_LINK_RE.search(body)
        cleaned = _strip_daily_lines(body)
        backlink = next(
            (m.group(1) for line in body.split("\n") if (m := DAILY_LINE_RE.match(line))), None
        )
        start, end = block.span()
        entry = Entry(
            file=rel,
            kind="topic",
            start=start,
            end=end,
            date=dated.group(1) if dated else block.marker.group(1)[:10],
            timestamp=block.marker.group(1),
            sid=block.marker.group(2),
            content=cleaned,
            tags=_tags(cleaned),
            links=_links(cleaned),
            daily_link=backlink,
            topic=title,
            slug=slug,
        )
        _sort_in(parsed, entry, reason)
    return parsed


def parse_scratchpad(text: str) -> list[ScratchItem]:
    """Every checklist item of SCRATCHPAD.md, with the ``<!-- … -->`` line above it."""
    lines = split_lines(text)
    items: list[ScratchItem] = []
    for number, raw in enumerate(lines):
        line = raw.removesuffix("\r")
        found = SCRATCH_ITEM_RE.match(line)
        if not found:
            continue
        above = lines[number - 1].removesuffix("\r") if number else ""
        meta = above if COMMENT_LINE_RE.match(above) else ""
        items.append(ScratchItem(number + 1, found.group(2), found.group(1) != " ", meta))
    return items
