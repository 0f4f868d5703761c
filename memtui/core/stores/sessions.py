"""Session memory: summaries, their template, and what a transcript's first lines reveal."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memtui.core.cache import ScanCache
from memtui.core.fileread import parse_json, read_file, read_first_lines
from memtui.core.model import SessionInfo, StoreLocation

TRANSCRIPT_SUFFIX = ".jsonl"
TRANSCRIPT_PROBE_LINES = 12
"""How many lines of a transcript are read to find its cwd; a transcript is never read whole."""

SESSION_SECTIONS: tuple[tuple[str, str], ...] = (
    (
        "Session Title",
        "A short and distinctive 5-10 word descriptive title for the session. Super info dense, "
        "no filler",
    ),
    (
        "Current State",
        "What is actively being worked on right now? Pending tasks not yet completed. "
        "Immediate next steps.",
    ),
    (
        "Task specification",
        "What did the user ask to build? Any design decisions or other explanatory context",
    ),
    (
        "Files and Functions",
        "What are the important files? In short, what do they contain and why are they relevant?",
    ),
    (
        "Workflow",
        "What bash commands are usually run and in what order? How to interpret their output if "
        "not obvious?",
    ),
    (
        "Errors & Corrections",
        "Errors encountered and how they were fixed. What did the user correct? What approaches "
        "failed and should not be tried again?",
    ),
    (
        "Codebase and System Documentation",
        "What are the important system components? How do they work/fit together?",
    ),
    (
        "Learnings",
        "What has worked well? What has not? What to avoid? Do not duplicate items from other "
        "sections",
    ),
    (
        "Key results",
        "If the user asked a specific output such as an answer to a question, a table, or other "
        "document, repeat the exact result here",
    ),
    ("Worklog", "Step by step, what was attempted, done? Very terse summary for each step"),
)
"""The ten sections of CC's default session memory template with their italic hints."""

DEFAULT_SESSION_TEMPLATE = "\n" + "\n".join(
    f"# {title}\n_{hint}_\n" for title, hint in SESSION_SECTIONS
)
"""CC's default template (v2.1.88): ten ``# `` sections, each followed by an italic hint."""


@dataclass
class TranscriptHead:
    """What a transcript's first lines tell: the session's cwd, first timestamp, branch."""

    cwd: str | None
    started: str | None
    git_branch: str | None


def read_transcript_head(path: Path | str, lines: int = TRANSCRIPT_PROBE_LINES) -> TranscriptHead:
    """The cwd, first timestamp and git branch found in a transcript's first lines."""
    head = TranscriptHead(None, None, None)
    for raw in read_first_lines(path, lines):
        record, _problem = parse_json(raw)  # a line that is no JSON (or nested too deep): next
        if not isinstance(record, dict):
            continue
        if head.cwd is None and isinstance(record.get("cwd"), str):
            head.cwd = record["cwd"]
        if head.started is None and isinstance(record.get("timestamp"), str):
            head.started = record["timestamp"]
        if head.git_branch is None and isinstance(record.get("gitBranch"), str):
            head.git_branch = record["gitBranch"]
        if head.cwd and head.started and head.git_branch:
            break
    return head


def session_template(claude_home: Path) -> str:
    """The summary template: ``session-memory/config/template.md`` if present, else CC's default."""
    custom = read_file(claude_home / "session-memory" / "config" / "template.md")
    if not custom.readable or not custom.complete:
        return DEFAULT_SESSION_TEMPLATE
    try:
        return custom.data.decode("utf-8")
    except UnicodeDecodeError:
        return DEFAULT_SESSION_TEMPLATE


def summary_is_empty(summary: str, template: str) -> bool:
    """A summary equal to its template (after trimming) holds nothing yet."""
    return summary.strip() == template.strip()


def summary_title(summary: str) -> str | None:
    """The first non-italic, non-empty line under ``# Session Title``."""
    lines = summary.splitlines()
    for i, line in enumerate(lines):
        if line.strip().lower() == "# session title":
            for following in lines[i + 1 :]:
                text = following.strip()
                if text.startswith("# "):
                    return None
                if text and not (text.startswith("_") and text.endswith("_")):
                    return text
            return None
    return None


def transcript_of(location: StoreLocation) -> str:
    """The transcript beside a session's directory: ``<session id>.jsonl``."""
    return os.path.dirname(str(location.path)) + TRANSCRIPT_SUFFIX


def transcript_head(path: str, cache: ScanCache | None) -> TranscriptHead | None:
    """What a transcript's first lines say, from the cache while the file is unchanged."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    if cache is not None:
        payload = cache.get("transcript", path, st)
        if payload is not None:
            return TranscriptHead(*payload)
    head = read_transcript_head(path)
    if cache is not None:
        cache.put("transcript", path, st, (head.cwd, head.started, head.git_branch))
    return head


def session_info(
    location: StoreLocation, head: TranscriptHead | None, title: str | None, empty: bool
) -> SessionInfo:
    session_dir = os.path.dirname(str(location.path))
    return SessionInfo(
        session_id=os.path.basename(session_dir),
        transcript=Path(session_dir + TRANSCRIPT_SUFFIX) if head is not None else None,
        cwd=head.cwd if head else None,
        started=head.started if head else None,
        git_branch=head.git_branch if head else None,
        title=title,
        empty=empty,
    )
