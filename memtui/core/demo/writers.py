"""The small writers the demo home is built with, public because the test suite builds its
fixtures with them: a file with an age, a memory with frontmatter, an index, a transcript, a
session summary, an agent, a snapshot, a git repository (docs/claude-code-rules.md has the formats).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from memtui.core.stores.sanitize import sanitize_path
from memtui.core.stores.sessions import DEFAULT_SESSION_TEMPLATE as SESSION_TEMPLATE

DAY = 86_400.0


GIT_CONFIG = (
    "-c", "user.name=memtui",
    "-c", "user.email=demo@memtui.invalid",
    "-c", "init.defaultBranch=main",
    "-c", "commit.gpgsign=false",
    "-c", "core.hooksPath=" + os.devnull,
)  # fmt: skip


GIT_DATE = "2026-11-01T12:00:00+00:00"


STORY_NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
"""The moment the demo's contents are written for; only ``modified:`` values derive from it."""


Layout = Literal["flat", "metadata"]


AgentScope = Literal["user", "project", "local"]


def set_age(path: Path, days_ago: float | None, now: float | None = None) -> None:
    """Set ``path``'s mtime (and atime) to ``days_ago`` days before ``now``; None leaves it."""
    if days_ago is None:
        return
    stamp = (time.time() if now is None else now) - days_ago * DAY
    os.utime(path, (stamp, stamp))


def make_dir(path: Path, mode: int | None = None) -> Path:
    """``mkdir -p``; with ``mode`` the last component gets exactly that mode (umask ignored)."""
    path.mkdir(parents=True, exist_ok=True)
    if mode is not None:
        os.chmod(path, mode)
    return path


def write_file(
    path: Path,
    content: str | bytes,
    *,
    mode: int | None = None,
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """Write text (UTF-8, no newline translation) or bytes, creating parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(data)
    if mode is not None:
        os.chmod(path, mode)
    set_age(path, mtime_days_ago, now)
    return path


_YAML_SPECIAL = set("{}[]*&#!|>%@`")


_YAML_WORDS = {"yes", "no", "on", "off", "true", "false", "null", "~", "y", "n"}


def yaml_scalar(value: str) -> str:
    """``value`` as a YAML scalar: plain when that reads back as the same string, else
    double-quoted."""
    risky = (
        not value
        or not value.isprintable()
        or value != value.strip()
        or ": " in value
        or " #" in value
        or value.endswith(":")
        or any(ch in _YAML_SPECIAL for ch in value)
        or value[0] in "'\"-?:,.+<=~0123456789"
        or value.lower() in _YAML_WORDS
    )
    return value if not risky else double_quoted(value)


def double_quoted(value: str) -> str:
    """A YAML double-quoted scalar; characters that are not printable become escapes."""
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def iso_ms(moment: datetime) -> str:
    """``2026-11-27T10:00:00.000Z``: UTC with milliseconds, as Claude Code writes times."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def render_memory(
    *,
    name: str | None,
    description: str | None,
    type: str | None,
    body: str,
    layout: Layout = "flat",
    origin_session: str | None = None,
    modified: str | None = None,
    extra: Mapping[str, str] | None = None,
) -> str:
    """A memory file's text in the flat or the ``metadata:`` frontmatter layout."""
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {yaml_scalar(name)}")
    if description is not None:
        lines.append(f"description: {yaml_scalar(description)}")
    fields: list[tuple[str, str]] = []
    if type is not None:
        fields.append(("type", type))
    if origin_session is not None:
        fields.append(("originSessionId", origin_session))
    if layout == "metadata":
        lines.append("metadata: ")  # newer CC writes the trailing space
        lines.append("  node_type: memory")
        lines.extend(f"  {key}: {yaml_scalar(value)}" for key, value in fields)
        if modified is not None:
            lines.append(f"  modified: {modified}")
    else:
        lines.extend(f"{key}: {yaml_scalar(value)}" for key, value in fields)
    lines.extend(f"{key}: {yaml_scalar(value)}" for key, value in (extra or {}).items())
    lines.append("---")
    text = "\n".join(lines) + "\n"
    if body:
        text += body if body.endswith("\n") else body + "\n"
    return text


def write_memory(
    directory: Path,
    rel: str,
    *,
    name: str | None = None,
    description: str | None = None,
    type: str | None = None,
    body: str = "",
    layout: Layout = "flat",
    origin_session: str | None = None,
    extra: Mapping[str, str] | None = None,
    mode: int | None = None,
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """Write a memory file ``directory/rel``; ``name`` defaults to the file's stem."""
    modified = None
    if layout == "metadata":
        modified = iso_ms(STORY_NOW - timedelta(days=mtime_days_ago or 0))
    text = render_memory(
        name=Path(rel).stem if name is None else name,
        description=description,
        type=type,
        body=body,
        layout=layout,
        origin_session=origin_session,
        modified=modified,
        extra=extra,
    )
    return write_file(directory / rel, text, mode=mode, mtime_days_ago=mtime_days_ago, now=now)


def write_index(
    directory: Path,
    lines: Iterable[str],
    *,
    name: str = "MEMORY.md",
    mode: int | None = None,
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """Write an index file (``MEMORY.md``): the lines joined by ``\\n`` plus a final newline."""
    text = "\n".join(lines) + "\n"
    return write_file(directory / name, text, mode=mode, mtime_days_ago=mtime_days_ago, now=now)


def index_entry(title: str, target: str, hook: str) -> str:
    """``- [Title](target) — hook``, the line format CC writes into MEMORY.md."""
    return f"- [{title}]({target}) — {hook}"


def huge_index_lines(count: int = 50_000) -> list[str]:
    """A runaway MEMORY.md (benchmarks and tests): a comment (so comments are stripped the
    way CC strips them), then ``count`` entries to files that do not exist, every 100th one
    longer than 200 characters."""
    lines = ["# Memory index", "<!-- written by a runaway agent -->", ""]
    for i in range(count):
        hook = f"note {i} about the checkout flow" + (" and more" * 25 if i % 100 == 0 else "")
        lines.append(index_entry(f"Note {i}", f"note-{i}.md", hook))
    return lines


def _transcript_records(
    cwd: str,
    session_id: str,
    git_branch: str,
    started: datetime,
    prompts: Sequence[str],
    summary: str | None,
) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    if summary is not None:
        records.append({"type": "summary", "summary": summary, "leafUuid": f"{session_id}-leaf"})
    parent: str | None = None
    for i, prompt in enumerate(prompts):
        for role in ("user", "assistant"):
            uid = f"{session_id[:8]}-{i:04d}-{role[0]}"
            content: Any = prompt if role == "user" else [{"type": "text", "text": "Done."}]
            records.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "userType": "external",
                    "cwd": cwd,
                    "sessionId": session_id,
                    "version": "2.1.88",
                    "gitBranch": git_branch,
                    "type": role,
                    "message": {"role": role, "content": content},
                    "uuid": uid,
                    "timestamp": iso_ms(started + timedelta(minutes=2 * i + (role == "assistant"))),
                }
            )
            parent = uid
    return records


def write_transcript(
    path: Path,
    cwd: str,
    session_id: str,
    *,
    git_branch: str = "main",
    started: str = "2026-11-27T10:00:00.000Z",
    prompts: Sequence[str] = ("Summarise what changed since yesterday.",),
    summary: str | None = None,
    size: int | None = None,
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """Write a CC transcript (JSON lines), mode 0o600.

    With ``summary`` the first line is a ``{"type": "summary"}`` record without ``cwd``, as in
    real transcripts. With ``size`` the file is then extended sparsely (``os.truncate``) to that
    many bytes: a huge transcript that costs no disk space. The tail is NUL bytes.
    """
    start = datetime.fromisoformat(started)
    records = _transcript_records(cwd, session_id, git_branch, start, prompts, summary)
    text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    write_file(path, text, mode=0o600)
    if size is not None and size > path.stat().st_size:
        os.truncate(path, size)
    set_age(path, mtime_days_ago, now)
    return path


def fill_session_template(sections: Mapping[str, str], template: str = SESSION_TEMPLATE) -> str:
    """The template with ``sections[title]`` written under each section's italic line."""
    out: list[str] = []
    current: str | None = None
    for line in template.split("\n"):
        out.append(line)
        if line.startswith("# "):
            current = line[2:]
        elif current is not None and line.startswith("_") and current in sections:
            out.extend(["", sections[current].rstrip("\n")])
            current = None
    return "\n".join(out)


def session_paths(claude_home: Path, cwd: str, session_id: str) -> tuple[Path, Path]:
    """``(summary.md, transcript.jsonl)`` of a session, keyed on ``sanitizePath(cwd)``."""
    project_dir = claude_home / "projects" / sanitize_path(cwd)
    summary = project_dir / session_id / "session-memory" / "summary.md"
    return summary, project_dir / f"{session_id}.jsonl"


def write_session(
    claude_home: Path,
    cwd: str,
    session_id: str,
    *,
    sections: Mapping[str, str] | None = None,
    git_branch: str = "main",
    started: str = "2026-11-27T10:00:00.000Z",
    prompts: Sequence[str] = ("Summarise what changed since yesterday.",),
    summary_line: str | None = None,
    transcript_size: int | None = None,
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """A session: ``summary.md`` (0o600, dirs 0o700) and its transcript beside it.

    Without ``sections`` the summary is the bare template (an empty session memory).
    Returns the summary's path.
    """
    summary, transcript = session_paths(claude_home, cwd, session_id)
    make_dir(summary.parent.parent, 0o700)
    make_dir(summary.parent, 0o700)
    text = SESSION_TEMPLATE if sections is None else fill_session_template(sections)
    write_file(summary, text, mode=0o600, mtime_days_ago=mtime_days_ago, now=now)
    write_transcript(
        transcript,
        cwd,
        session_id,
        git_branch=git_branch,
        started=started,
        prompts=prompts,
        summary=summary_line,
        size=transcript_size,
        mtime_days_ago=mtime_days_ago,
        now=now,
    )
    return summary


def write_agent(
    directory: Path,
    name: str,
    *,
    description: str,
    memory: AgentScope | None,
    prompt: str,
    tools: str | None = None,
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """An agent definition ``directory/<name>.md`` (``name`` may be ``plugin:agent``)."""
    lines = ["---", f"name: {yaml_scalar(name)}", f"description: {yaml_scalar(description)}"]
    if tools is not None:
        lines.append(f"tools: {tools}")
    if memory is not None:
        lines.append(f"memory: {memory}")
    lines.append("---")
    text = "\n".join(lines) + "\n" + prompt.rstrip("\n") + "\n"
    file_name = name.replace(":", "-") + ".md"
    return write_file(directory / file_name, text, mtime_days_ago=mtime_days_ago, now=now)


def write_snapshot(
    project: Path,
    agent_type: str,
    *,
    snapshot_json: str,
    files: Mapping[str, str],
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """``<project>/.claude/agent-memory-snapshots/<agent_type>/`` with ``snapshot.json`` (given
    verbatim, so it can be invalid) and ``files`` (relative paths; subfolders allowed)."""
    directory = project / ".claude" / "agent-memory-snapshots" / agent_type
    write_file(directory / "snapshot.json", snapshot_json, mtime_days_ago=mtime_days_ago, now=now)
    for rel, text in files.items():
        write_file(directory / rel, text, mtime_days_ago=mtime_days_ago, now=now)
    return directory


def snapshot_json(updated_at: str, **extra: str) -> str:
    """A valid ``snapshot.json`` body."""
    return json.dumps({"updatedAt": updated_at, **extra}, indent=2) + "\n"


def write_synced(
    local_dir: Path,
    synced_from: str,
    *,
    mtime_days_ago: float | None = None,
    now: float | None = None,
) -> Path:
    """``.snapshot-synced.json`` exactly as CC writes it: compact JSON, no newline."""
    text = json.dumps({"syncedFrom": synced_from}, separators=(",", ":"))
    return write_file(
        local_dir / ".snapshot-synced.json", text, mtime_days_ago=mtime_days_ago, now=now
    )


def agent_memory_dir(
    scope: AgentScope, agent_type: str, *, claude_home: Path, project: Path
) -> Path:
    """Where CC keeps an agent's memory for ``scope`` (``:`` in the type becomes ``-``)."""
    name = agent_type.replace(":", "-")
    if scope == "user":
        return claude_home / "agent-memory" / name
    if scope == "project":
        return project / ".claude" / "agent-memory" / name
    return project / ".claude" / "agent-memory-local" / name


AgentmemoryEntry = tuple[str, str, str]
"""``(stamp, sid, content)``: ``stamp`` is ``YYYY-MM-DD HH:MM:SS`` (UTC), ``sid`` 8 chars."""


def agentmemory_marker(stamp: str, sid: str) -> str:
    """The line agentmemory opens every entry with: ``<!-- 2026-11-25 09:12:00 [ab12cd34] -->``."""
    return f"<!-- {stamp} [{sid}] -->"


def write_agentmemory_daily(
    home: Path, day: str, entries: Sequence[AgentmemoryEntry], *, now: float | None = None
) -> Path:
    """``daily/DAY.md`` as agentmemory's ``memory_write`` appends it: marked entries
    separated by a blank line, no header, no final newline."""
    text = "\n\n".join(f"{agentmemory_marker(st, sid)}\n{body}" for st, sid, body in entries)
    return write_file(home / "daily" / f"{day}.md", text, now=now)


def write_agentmemory_topic(
    home: Path,
    slug: str,
    title: str,
    entries: Sequence[tuple[str, str, str, str]],
    *,
    now: float | None = None,
) -> Path:
    """``topics/SLUG.md`` as agentmemory writes it: ``# Topic: TITLE``, the ``created``
    comment of the first entry, then each ``(stamp, sid, content, day)`` entry ending with
    ``Daily: [[DAY]]``; no final newline."""
    first_stamp, first_sid = entries[0][0], entries[0][1]
    text = f"# Topic: {title}\n\n<!-- created: {first_stamp} [{first_sid}] -->"
    for stamp, sid, body, day in entries:
        text += f"\n\n{agentmemory_marker(stamp, sid)}\n{body.strip()}\nDaily: [[{day}]]"
    return write_file(home / "topics" / f"{slug}.md", text, now=now)


def write_agentmemory_scratchpad(
    home: Path, items: Sequence[tuple[bool, str, str]], *, now: float | None = None
) -> Path:
    """``SCRATCHPAD.md`` as agentmemory serializes it: ``# Scratchpad``, then each
    ``(done, text, meta)`` item as its ``meta`` comment line (when not empty) and
    ``- [ ] text`` / ``- [x] text``."""
    lines = ["# Scratchpad", ""]
    for done, text, meta in items:
        lines += [meta] if meta else []
        lines.append(f"- [{'x' if done else ' '}] {text}")
    return write_file(home / "SCRATCHPAD.md", "\n".join(lines) + "\n", now=now)


def _git_env() -> dict[str, str]:
    """An environment where git reads no user or system config and no inherited repo vars."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        GIT_AUTHOR_DATE=GIT_DATE,
        GIT_COMMITTER_DATE=GIT_DATE,
    )
    return env


def run_git(cwd: Path, *args: str) -> str:
    """Run git with the demo identity; returns stdout. Raises RuntimeError when git fails."""
    try:
        done = subprocess.run(
            ["git", *GIT_CONFIG, *args],
            cwd=cwd,
            env=_git_env(),
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError as exc:
        raise RuntimeError("git is needed to build the demo project but was not found") from exc
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def make_git_repo(path: Path, *, message: str = "Initial commit") -> Path:
    """Make ``path`` a git repo on ``main`` and commit everything in it (empty commit allowed)."""
    make_dir(path)
    run_git(path, "init", "-q")
    run_git(path, "add", "-A")
    run_git(path, "commit", "-q", "--allow-empty", "-m", message)
    return path


def add_worktree(repo: Path, path: Path, branch: str) -> Path:
    """``git worktree add -b branch path``: a linked worktree whose ``.git`` is a file."""
    run_git(repo, "worktree", "add", "-q", "-b", branch, str(path))
    return path


BIG_INDEX_AREAS = ("checkout", "payments", "search", "inventory", "shipping", "accounts")


def write_big_store(
    directory: Path,
    *,
    per_area: int = 33,
    orphans: int = 5,
    now: float | None = None,
) -> list[str]:
    """A Claude Code memory dir whose ``MEMORY.md`` is past the 200-line cap (tests of
    distil): a title, prose and a comment; feedback and user entries at the top (two with
    hooks over 150 characters); then one hand-written ``## Area`` section per area of
    ``BIG_INDEX_AREAS`` with a prose line and ``per_area`` project and reference entries (every
    tenth hook long, one dangling pointer per area); ``orphans`` feedback memories no entry
    lists. Each memory is a day older than the one before. Returns the index lines."""
    lines = [
        "# Memory index",
        "Corrections first; everything else by area.",
        "<!-- keep this index short: detail goes in the topic files -->",
        "",
    ]
    age = 0.0

    def memory(rel: str, title: str, hook: str, kind: str) -> str:
        nonlocal age
        age += 1
        write_memory(directory, rel, name=title, description=hook, type=kind,
                     body=f"{hook}\n\n**Why:** it bit us before.\n", mtime_days_ago=age, now=now)
        return index_entry(title, rel, hook)

    long_tail = ", and the long story of how we learned it the hard way in production" * 2
    for i in range(8):
        kind = "user" if i % 4 == 0 else "feedback"
        hook = f"correction {i}: run the checks before pushing" + (long_tail if i < 2 else "")
        lines.append(memory(f"correction-{i}.md", f"Correction {i}", hook, kind))
    for area in BIG_INDEX_AREAS:
        lines += ["", f"## Area: {area}", f"Hand-written notes for {area}; the files hold detail."]
        for i in range(per_area):
            kind = "project" if i % 3 else "reference"
            hook = f"{area} fact {i}: the rule and where it applies"
            if i % 10 == 5:
                hook += long_tail
            lines.append(memory(f"{area}-{i}.md", f"{area.capitalize()} {i}", hook, kind))
        lines.append(index_entry(f"{area.capitalize()} retired", f"{area}-retired.md",
                                 "a memory deleted long ago"))
    for i in range(orphans):
        memory(f"orphan-{i}.md", f"Orphan {i}", f"orphan {i}: written by the agent, never "
               "indexed", "feedback")
    write_index(directory, lines, now=now)
    return lines
