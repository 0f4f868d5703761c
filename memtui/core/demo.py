"""A realistic demo home: every store kind, every status, a conflict, an overflow.

:func:`build_demo_home` writes a Claude Code home, a git project with a linked worktree and an
agentmemory home into one directory, so a newcomer can try every memtui feature without Claude
Code installed. The test suite builds its fixtures with the same small writers, so they are
public: :func:`write_memory`, :func:`write_index`, :func:`write_transcript`,
:func:`write_session`, :func:`write_agent`, :func:`write_snapshot`, :func:`make_git_repo`,
:func:`add_worktree` and friends.

Contents use fixed dates (the story happens in November 2026); file mtimes are set relative to
``now`` so ages such as "12 days old" stay stable.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from memtui.core.sanitize import sanitize_path
from memtui.core.sessions import DEFAULT_SESSION_TEMPLATE as SESSION_TEMPLATE

DAY = 86_400.0


# Clearly fake secrets, built by concatenation so the literals never sit in the source.
FAKE_GITHUB_PAT = "ghp_" + "DEMOfakeTOKENmemtui" + "0123456789abcdefg"
"""Matches gitleaks' github-pat rule ``ghp_[0-9a-zA-Z]{36}``; not a real token."""
FAKE_AWS_KEY_ID = "AKIA" + "DEMOFAKEKEY23456"
"""Matches gitleaks' aws-access-token rule; not a real key id."""

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


@dataclass
class DemoHome:
    """Where the demo put things. ``root`` is a real path (symlinks resolved)."""

    root: Path
    claude_home: Path
    project: Path
    worktree: Path
    agent_memory_home: Path
    auto_memory: Path
    team_memory: Path
    outside_file: Path
    session_ids: tuple[str, ...]
    now: float


# --------------------------------------------------------------------------- small writers


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


# --------------------------------------------------------------------------- sessions


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


# --------------------------------------------------------------------------- agents, snapshots


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


# --------------------------------------------------------------------------- git


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


# --------------------------------------------------------------------------- demo content


@dataclass(frozen=True)
class _Topic:
    stem: str
    title: str
    hook: str
    type: str
    description: str
    body: str
    days: float
    layout: Layout = "flat"


def _rule(rule: str, why: str, how: str) -> str:
    """A feedback/project body: the rule, then **Why:** and **How to apply:** lines."""
    return f"{rule}\n\n**Why:** {why}\n\n**How to apply:** {how}\n"


_STRIPE_HOOK = (
    "webhooks arrive out of order and can repeat for up to three days; dedupe on event.id in "
    "the stripe_event table, never trust the event payload amount, always re-fetch the "
    "PaymentIntent before changing order state (see the refund incident of 2026-11-20)"
)

_CURATED: tuple[tuple[str, tuple[_Topic, ...]], ...] = (
    (
        "People & preferences",
        (
            _Topic(
                "user-role",
                "Who I work with",
                "tech lead for checkout and payments, wants terse answers",
                "user",
                "The user leads checkout and payments and prefers terse answers",
                "The user is the tech lead for checkout and payments. Prefers terse answers that "
                "name the file and function; no preamble.\n",
                40,
            ),
            _Topic(
                "user-editor",
                "Editor setup",
                "Neovim + tmux, paste commands ready to run",
                "user",
                "The user works in Neovim inside tmux",
                "Neovim in tmux, zsh. Give commands that can be pasted as-is; no GUI steps.\n",
                95,
                "metadata",
            ),
            _Topic(
                "user-review-style",
                "Review preferences",
                "small PRs under 400 lines, conventional commits",
                "user",
                "How the user likes changes split and reviewed",
                "Prefers small PRs (under ~400 changed lines) and one concern per PR.\n",
                60,
            ),
            _Topic(
                "user-languages",
                "Languages",
                "reads German and English, docs in English",
                "user",
                "Languages the user reads and writes",
                "Reads German and English. All docs and commit messages in English.\n",
                120,
            ),
        ),
    ),
    (
        "Working rules",
        (
            _Topic(
                "commit-messages",
                "Commit messages",
                "conventional commits with a scope, e.g. fix(refunds)",
                "feedback",
                "Commit message format for the shop repo",
                _rule(
                    "Use conventional commits with a scope: `fix(refunds): ...`.",
                    "release notes are generated from commit subjects.",
                    "pick the scope from the top-level package touched (refunds, cart, web).",
                ),
                30,
            ),
            _Topic(
                "python-style",
                "Python style",
                "ruff + mypy strict in api/, no Any in new code",
                "feedback",
                "Python code rules for the api package",
                _rule(
                    "`api/` is checked by ruff and mypy --strict; new code must not use `Any`.",
                    "a typed boundary caught three refund bugs in review last quarter.",
                    "run `make lint` before proposing a diff; annotate every function.",
                ),
                21,
                "metadata",
            ),
            _Topic(
                "frontend-style",
                "Frontend style",
                "Next.js app router, server components by default, Tailwind",
                "feedback",
                "Frontend conventions for web/",
                _rule(
                    "Use server components by default; client components only for interaction.",
                    "the storefront's TTFB budget is 300 ms.",
                    "add 'use client' only to leaf components; style with Tailwind classes.",
                ),
                45,
            ),
            _Topic(
                "logging",
                "Logging",
                "structlog everywhere, never log card data or emails",
                "feedback",
                "What may and may not be logged",
                _rule(
                    "Log with structlog key-value pairs; never log PAN, CVC or customer emails.",
                    "PCI scope: a leaked log line would pull the log stack into the audit.",
                    "use `log.bind(order_id=...)`; redact with `shop.logging.redact()`.",
                ),
                12,
            ),
            _Topic(
                "pii",
                "PII handling",
                "PII encrypted with pgcrypto, exports redact emails",
                "feedback",
                "How personal data is stored and exported",
                _rule(
                    "Personal data columns are encrypted with pgcrypto; CSV exports redact emails.",
                    "GDPR audit finding 2026-04.",
                    "use the `EncryptedText` field for new PII columns.",
                ),
                70,
                "metadata",
            ),
            _Topic(
                "no-mocks-payments",
                "No PSP mocks",
                "use the stripe-mock container, never mock the PSP client",
                "feedback",
                "Integration tests talk to stripe-mock",
                _rule(
                    "Never mock the PSP client in integration tests; use the stripe-mock "
                    "container.",
                    "mocks hid the 2026-03 currency bug for two weeks.",
                    "`docker compose up stripe-mock` and set STRIPE_API_BASE.",
                ),
                33,
            ),
            _Topic(
                "migrations-expand-contract",
                "Migrations: expand/contract",
                "never drop a column in the release that stops using it",
                "feedback",
                "Schema changes must be backward compatible for one release",
                _rule(
                    "Expand, deploy, contract: never drop or rename a column in the release "
                    "that stops reading it.",
                    "rollbacks redeploy the previous image against the new schema.",
                    "split the migration into two PRs, a release apart.",
                ),
                52,
            ),
        ),
    ),
    (
        "Payments & refunds",
        (
            _Topic(
                "stripe-webhooks",
                "Stripe webhooks",
                _STRIPE_HOOK,
                "reference",
                "Stripe webhook endpoint, signing secret and idempotency",
                "Endpoint `/api/payments/stripe/webhook`. Signing secret in Vault at "
                "`shop/prod/stripe`. Every handler is idempotent on `event.id`.\n",
                8,
            ),
            _Topic(
                "partial-refunds",
                "Partial refunds",
                "shipping fee is refunded only with the whole order",
                "feedback",
                "Partial refunds leave the shipping fee alone",
                _rule(
                    "A partial refund never includes the shipping fee unless every line is "
                    "refunded.",
                    "finance reconciles shipping separately.",
                    "use `RefundPlan.for_lines()`; it handles the shipping rule.",
                ),
                14,
            ),
            _Topic(
                "payment-retries",
                "Payment retries",
                "3 retries at 1/5/30 min, then payment_failed",
                "project",
                "How failed card payments are retried",
                _rule(
                    "Card payments retry three times (1, 5, 30 minutes), then the order moves "
                    "to `payment_failed`.",
                    "PSP soft declines often clear within minutes.",
                    "change the schedule in `worker/payments/retry.py` only.",
                ),
                26,
                "metadata",
            ),
            _Topic(
                "currency-rounding",
                "Money in cents",
                "integer cents via Money, never floats",
                "feedback",
                "Money is stored and computed as integer cents",
                _rule(
                    "All amounts are integer cents wrapped in `Money`; never use float.",
                    "the 2026-03 rounding bug refunded 0.01 EUR too much on 4,812 orders.",
                    "construct with `Money.cents(...)`; format only at the edge.",
                ),
                88,
            ),
            _Topic(
                "psp-sandbox",
                "PSP sandbox",
                "Stripe test keys in 1Password vault shop-dev",
                "reference",
                "Where the sandbox credentials live",
                "Stripe test-mode keys: 1Password vault `shop-dev`. The Adyen sandbox was "
                "retired in 2026-07.\n",
                110,
            ),
            _Topic(
                "chargebacks",
                "Chargebacks",
                "finance owns disputes, webhooks post to #payments-alerts",
                "project",
                "Who handles chargebacks and how they surface",
                _rule(
                    "Finance owns disputes; `charge.dispute.*` webhooks post to #payments-alerts.",
                    "engineering kept answering disputes by mistake.",
                    "do not change dispute state from code; link the Stripe dashboard.",
                ),
                64,
            ),
            _Topic(
                "refund-approval",
                "Refund approval",
                "refunds over 500 EUR need a second approver",
                "feedback",
                "Large refunds need two people",
                _rule(
                    "Refunds above 500 EUR need a second approver in the admin.",
                    "fraud ring in 2026-05 used a compromised support account.",
                    "the admin enforces it; never bypass with the shell.",
                ),
                19,
            ),
        ),
    ),
    (
        "Deploy, CI & ops",
        (
            _Topic(
                "deploy-freeze",
                "Deploy freeze",
                "no prod deploys Fri 15:00 to Mon 09:00 CET, none Nov 20 - Dec 2",
                "project",
                "When production deploys are frozen",
                _rule(
                    "No production deploys from Friday 15:00 to Monday 09:00 CET, and none at "
                    "all from November 20 to December 2 (Black Friday).",
                    "weekend and peak incidents cost the most.",
                    "hotfixes during a freeze need the on-call lead's OK in #deploys.",
                ),
                5,
            ),
            _Topic(
                "ci-pipeline",
                "CI pipeline",
                "ci.yml lint/unit/integration, deploy.yml, e2e-safari quarantined",
                "reference",
                "The GitHub Actions workflows",
                "`ci.yml` runs lint, unit and integration; `deploy.yml` ships tags. "
                "`e2e-safari` is quarantined. Test DB policy: [[test-db-postgres]].\n",
                9,
            ),
            _Topic(
                "ci-cache",
                "CI cache",
                "keep the pnpm cache key, install with --frozen-lockfile",
                "feedback",
                "How CI caches dependencies",
                _rule(
                    "Never change the pnpm cache key by hand; install with `--frozen-lockfile`.",
                    "a busted key doubled CI time for a week.",
                    "bump the key only via `make ci-cache-bump`.",
                ),
                41,
            ),
            _Topic(
                "release-process",
                "Releases",
                "tag vYYYY.MM.DD.N, changelog via make changelog",
                "reference",
                "How a release is cut",
                "Tag `vYYYY.MM.DD.N` on main; `make changelog` writes CHANGELOG.md.\n",
                55,
            ),
            _Topic(
                "rollback",
                "Rollback",
                "make rollback ENV=prod redeploys the previous image",
                "reference",
                "How to roll production back",
                "`make rollback ENV=prod` redeploys the previous image tag. Migrations stay.\n",
                77,
                "metadata",
            ),
            _Topic(
                "staging-env",
                "Staging",
                "staging.shop.internal, reseeded nightly from anonymised prod",
                "reference",
                "The staging environment",
                "https://staging.shop.internal, reseeded nightly at 03:00 UTC.\n",
                100,
            ),
            _Topic(
                "feature-flags",
                "Feature flags",
                "Unleash; checkout_v2 at 25 percent",
                "project",
                "Feature flags in flight",
                _rule(
                    "Flags live in Unleash; `checkout_v2` is at 25 percent.",
                    "checkout v2 is rolled out gradually after the 2026-10 incident.",
                    "read flags through `shop.flags.enabled()` only.",
                ),
                3,
            ),
        ),
    ),
    (
        "Testing",
        (
            _Topic(
                "test-db-postgres",
                "Test database: real Postgres",
                "integration tests hit a real Postgres 16, never SQLite",
                "feedback",
                "Test database: integration tests run against a real Postgres",
                _rule(
                    "Integration tests run against a real Postgres 16 (compose service `db`); "
                    "never SQLite, never mocks.",
                    "SQLite hid a JSONB query bug that broke refunds in production.",
                    "`docker compose up db` then `make test`. "
                    "CI does the same, see [[ci-pipeline]].",
                ),
                44,
            ),
            _Topic(
                "test-db-sqlite",
                "Test database: SQLite in memory",
                "tests use SQLite in memory so the suite runs under a minute",
                "project",
                "Test database: tests use SQLite in memory for speed",
                _rule(
                    "Tests use SQLite in memory (`DATABASE_URL=sqlite://:memory:`) so the suite "
                    "runs in under a minute.",
                    "developers skipped the 6-minute Postgres run.",
                    "set DATABASE_URL in `pytest.ini`; no docker needed.",
                ),
                6,
                "metadata",
            ),
            _Topic(
                "test-factories",
                "Test factories",
                "factory_boy in tests/factories.py, no JSON fixtures",
                "feedback",
                "How test data is built",
                _rule(
                    "Build test data with factory_boy (`tests/factories.py`).",
                    "JSON fixtures rotted with every migration.",
                    "add a factory next to the model's existing one.",
                ),
                58,
            ),
            _Topic(
                "e2e-playwright",
                "End-to-end tests",
                "pnpm e2e runs Playwright on :3000 as demo@shop.test",
                "reference",
                "How the Playwright suite runs",
                "`pnpm e2e` runs Playwright against localhost:3000 as demo@shop.test.\n",
                36,
            ),
            _Topic(
                "flaky-tests",
                "Flaky tests",
                "quarantine list tests/quarantine.txt, reviewed Mondays",
                "project",
                "How flaky tests are handled",
                _rule(
                    "Flaky tests go to `tests/quarantine.txt`; the list is reviewed Mondays.",
                    "retries hid real races.",
                    "never add a retry decorator.",
                ),
                17,
            ),
        ),
    ),
    (
        "Reference",
        (
            _Topic(
                "grafana-dashboards",
                "Grafana dashboards",
                "Shop / Checkout and Shop / Payments boards, SLO panels",
                "reference",
                "Where the Grafana dashboards are",
                "Dashboards: grafana.shop.internal, folder Shop.\n- Shop / Checkout: funnel "
                "and p95 latency\n- Shop / Payments: auth rate, refunds per hour\nSLO panels "
                "are on the top row.\n",
                90,
            ),
            _Topic(
                "dashboards-grafana",
                "Dashboards (Grafana)",
                "checkout and payments boards in the Shop folder",
                "reference",
                "Grafana dashboards for the shop",
                "Dashboards: grafana.shop.internal, folder Shop.\n- Shop / Checkout: funnel "
                "and P95 latency\n-  Shop / Payments: auth rate, refunds per hour\nSLO panels "
                "are on the top row.\n",
                12,
                "metadata",
            ),
            _Topic(
                "sentry",
                "Sentry",
                "projects shop-api and shop-web, release = deploy tag",
                "reference",
                "Sentry projects and release naming",
                "Sentry projects `shop-api`, `shop-web`; release names equal deploy tags.\n",
                67,
            ),
            _Topic(
                "oncall",
                "On-call",
                "PagerDuty Shop Primary, escalates after 15 min",
                "reference",
                "The on-call rotation",
                "PagerDuty schedule 'Shop Primary'; escalation after 15 minutes.\n",
                48,
            ),
            _Topic(
                "architecture",
                "Architecture",
                "api/ Django 5, web/ Next.js 15, worker/ Celery, infra/ Terraform",
                "project",
                "Monorepo layout",
                _rule(
                    "Monorepo: `api/` (Django 5), `web/` (Next.js 15), `worker/` (Celery), "
                    "`infra/` (Terraform).",
                    "one repo keeps API and storefront releases in step.",
                    "put shared types in `packages/contracts`.",
                ),
                115,
            ),
            _Topic(
                "search-index",
                "Search index",
                "Meilisearch reindex 02:00 UTC, full run 40 min",
                "project",
                "How the product search index is rebuilt",
                _rule(
                    "Meilisearch reindexes nightly at 02:00 UTC; a full reindex takes 40 min.",
                    "catalog imports land at 01:00.",
                    "never trigger a full reindex by day.",
                ),
                73,
            ),
            _Topic(
                "inventory-sync",
                "Inventory sync",
                "ERP sync every 10 min, reservations expire after 15 min",
                "project",
                "Stock sync with the ERP",
                _rule(
                    "Stock syncs from the ERP every 10 minutes; cart reservations expire after "
                    "15 minutes.",
                    "oversells during drops.",
                    "reserve via `InventoryService.reserve()` only.",
                ),
                29,
            ),
            _Topic(
                "tax-rules",
                "Tax rules",
                "VAT via TaxJar, B2B reverse charge",
                "reference",
                "Where VAT is computed",
                "TaxJar computes VAT; B2B orders use reverse charge.\n",
                99,
            ),
            _Topic(
                "email-templates",
                "Email templates",
                "MJML in api/emails, preview at /admin/emails",
                "reference",
                "Transactional email templates",
                "MJML templates in `api/emails/`; preview at /admin/emails.\n",
                81,
            ),
            _Topic(
                "shipping-carriers",
                "Shipping carriers",
                "DHL and UPS, labels kept 90 days",
                "reference",
                "Carriers and label storage",
                "DHL and UPS. Label PDFs are stored 90 days in the `labels` bucket.\n",
                105,
            ),
        ),
    ),
)

_ARCHIVE: tuple[_Topic, ...] = (
    _Topic(
        "refund-coupons",
        "Refund coupons",
        "recompute the coupon share per item line",
        "project",
        "Refunds recompute coupon discounts per line item",
        _rule(
            "When refunding part of an order, recompute the coupon share per item line; "
            "never refund the order-level discount pro rata.",
            "pro-rata refunds paid out more than customers paid on mixed carts.",
            "use `CouponAllocator.per_line()`. Watch [[deploy-freeze]] before shipping; "
            "related: [[partial-refunds]] and [[payments-retry-policy]].",
        ),
        2,
    ),
    _Topic(
        "black-friday",
        "Black Friday plan",
        "12 web pods, cache warmup at 05:00",
        "project",
        "Capacity plan for Black Friday",
        _rule(
            "Scale to 12 web pods and run the cache warmup at 05:00 CET.",
            "2025 peak hit 9x normal traffic.",
            "`make bf-scale` on the 27th.",
        ),
        4,
    ),
    _Topic(
        "gift-cards",
        "Gift cards",
        "balance lives in the ledger, not on the card row",
        "project",
        "How gift card balances are stored",
        _rule(
            "Gift card balances are derived from the ledger.",
            "double spends on concurrent checkouts.",
            "query `GiftCardLedger.balance()`.",
        ),
        84,
    ),
)

_ORPHANS: tuple[_Topic, ...] = (
    _Topic(
        "legacy-coupons",
        "Legacy coupons",
        "",
        "project",
        "Old coupon codes from the Magento shop still validate",
        _rule(
            "Magento-era coupon codes (prefix `MG-`) still validate until 2027-01.",
            "printed vouchers are still out there.",
            "keep `LegacyCouponValidator`.",
        ),
        118,
    ),
    _Topic(
        "user-timezone",
        "Time zone",
        "",
        "user",
        "The user works in CET",
        "Works in CET; avoid proposing meetings before 10:00.\n",
        7,
        "metadata",
    ),
)

_AREAS: tuple[tuple[str, str, str, str], ...] = (
    ("cart", "Cart", "api/cart", "checkout"),
    ("checkout", "Checkout", "api/checkout", "checkout"),
    ("payments", "Payments", "api/payments", "payments"),
    ("refunds", "Refunds", "api/refunds", "payments"),
    ("catalog", "Catalog", "api/catalog", "catalog"),
    ("search", "Search", "api/search", "catalog"),
    ("inventory", "Inventory", "worker/inventory", "fulfilment"),
    ("shipping", "Shipping", "api/shipping", "fulfilment"),
    ("tax", "Tax", "api/tax", "payments"),
    ("promotions", "Promotions", "api/promotions", "growth"),
    ("accounts", "Accounts", "api/accounts", "identity"),
    ("auth", "Auth", "api/auth", "identity"),
    ("admin", "Admin", "api/admin", "backoffice"),
    ("emails", "Emails", "api/emails", "growth"),
    ("analytics", "Analytics", "worker/analytics", "data"),
    ("storefront", "Storefront", "web/app", "web"),
    ("images", "Images", "worker/images", "web"),
    ("reviews", "Reviews", "api/reviews", "catalog"),
    ("wishlist", "Wishlist", "api/wishlist", "growth"),
    ("infra", "Infra", "infra", "platform"),
)

_ASPECTS: tuple[tuple[str, str, str], ...] = (
    ("runbook", "reference", "first steps when its alerts fire"),
    ("gotchas", "feedback", "traps that already bit us"),
    ("owners", "reference", "who owns it and where to ask"),
    ("flags", "project", "feature flags currently live"),
    ("fixtures", "feedback", "test data and factories to use"),
    ("metrics", "reference", "dashboards and SLOs to watch"),
    ("backlog", "project", "known bugs and open decisions"),
    ("conventions", "feedback", "naming and layout rules"),
)


def _generated_body(area: tuple[str, str, str, str], aspect: str, rng: random.Random) -> str:
    slug, title, path, team = area
    if aspect == "runbook":
        return (
            f"1. Check the Shop / {title} dashboard.\n2. Tail `{path}` logs in Grafana Loki.\n"
            f"3. Page #{team}-oncall if errors stay above 2% for 10 minutes.\n"
        )
    if aspect == "owners":
        return f"{title} is owned by the {team} team; ask in #{team}. Code: `{path}/`.\n"
    if aspect == "metrics":
        return (
            f"SLO: {rng.choice(['99.5', '99.9', '99.95'])}% of {slug} requests under "
            f"{rng.choice([200, 300, 500])} ms. Board: Shop / {title}.\n"
        )
    rules = {
        "gotchas": (
            f"{title}: timestamps in `{path}` are UTC; never compare with local time.",
            "a DST switch once doubled a batch run.",
            "use `shop.time.utcnow()`.",
        ),
        "flags": (
            f"{title} flags: `{slug}_v2` at {rng.choice([5, 10, 25, 50])} percent.",
            "gradual rollout after the October incident.",
            f"clean the flag up once it reaches 100 percent in `{path}/flags.py`.",
        ),
        "fixtures": (
            f"Use `{slug.capitalize()}Factory` from `tests/factories.py` for {slug}.",
            "shared factories keep migrations cheap.",
            "extend it, do not copy it.",
        ),
        "backlog": (
            f"Open: {slug} pagination returns duplicates on concurrent writes.",
            "cursor is not stable.",
            f"fix with a keyset cursor in `{path}`.",
        ),
        "conventions": (
            f"Modules in `{path}` are named by noun; services end in `Service`.",
            "consistent names keep grep useful.",
            "follow the existing files.",
        ),
    }
    return _rule(*rules[aspect])


def _generated_topics(count: int, rng: random.Random) -> list[_Topic]:
    topics: list[_Topic] = []
    for i in range(count):
        area = _AREAS[i % len(_AREAS)]
        aspect, kind, hook = _ASPECTS[(i // len(_AREAS)) % len(_ASPECTS)]
        slug, title = area[0], area[1]
        topics.append(
            _Topic(
                stem=f"{slug}-{aspect}",
                title=f"{title} {aspect}",
                hook=f"{title.lower()}: {hook}",
                type=kind,
                description=f"{title} {aspect}: {hook}",
                body=_generated_body(area, aspect, rng),
                days=rng.randint(1, 120),
                layout="metadata" if i % 3 == 0 else "flat",
            )
        )
    return topics


# --------------------------------------------------------------------------- auto memory

_AWKWARD_ENTRIES: tuple[tuple[str, str, str], ...] = (
    ("Screenshot paste", "binary.md", "bytes pasted from a screenshot by mistake"),
    ("Café supplier", "latin1.md", "imported from the old wiki in Latin-1"),
    ("Broken frontmatter", "bad-yaml.md", "hand-edited, YAML does not parse"),
    ("Locked notes", "unreadable.md", "mode 000 after a bad rsync"),
    ("Access log dump", "huge.md", "3 MB of access log that should not be here"),
    ("Ops secrets", "escape.md", "symlink to a file outside the memory dir"),
    ("Incident 2026-11-20", "logs/2026/11/2026-11-20.md", "double refund on a retried webhook"),
)

_MAIN_LINES_TARGET = 215
_CUT_LINE = 200


def _curated_sections(dangling: str) -> list[str]:
    lines = [
        "# Shop: project memory",
        "",
        "What I know about the shop monorepo. One line per memory; details live in the files.",
        "Keep entries short; move anything long into a topic file.",
    ]
    for heading, topics in _CURATED:
        lines += ["", f"## {heading}"]
        lines += [index_entry(t.title, f"{t.stem}.md", t.hook) for t in topics]
        if heading == "Payments & refunds":
            lines.append(dangling)
    lines += ["", "## Imported and odd files"]
    lines += [index_entry(*entry) for entry in _AWKWARD_ENTRIES]
    return lines


def _main_index(generated: list[_Topic]) -> list[str]:
    """The overflowing MEMORY.md: curated sections, the generated bulk, then the archive."""
    lines = _curated_sections(
        index_entry("Klarna pay-later", "klarna.md", "pilot in Austria only, ends 2026-12")
    )
    lines += ["", "## Area notes", "Short notes per area; the files hold the detail."]
    lines += [index_entry(t.title, f"{t.stem}.md", t.hook) for t in generated]
    lines += ["", "## Archive"]
    lines += [index_entry(t.title, f"{t.stem}.md", t.hook) for t in _ARCHIVE]
    lines.append(index_entry("Checkout v1", "checkout-v1.md", "old flow, removed in 2026-06"))
    return lines


def _fixed_main_lines() -> int:
    return len(_main_index([]))


def _write_topics(directory: Path, topics: Iterable[_Topic], now: float, sid: str) -> None:
    for topic in topics:
        write_memory(
            directory,
            f"{topic.stem}.md",
            description=topic.description,
            type=topic.type,
            body=topic.body,
            layout=topic.layout,
            origin_session=sid,
            mtime_days_ago=topic.days,
            now=now,
        )


def _write_awkward_files(auto: Path, outside: Path, now: float) -> None:
    header = "---\nname: {0}\ndescription: {1}\ntype: reference\n---\n"
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x02\x80\x00\x00\x01\xe0\x08\x06\x00"
    write_file(
        auto / "binary.md",
        header.format("screenshot-paste", "pasted screenshot").encode() + png,
        mtime_days_ago=23,
        now=now,
    )
    latin = header.format("cafe-supplier", "Café supplier notes from the old wiki")
    latin += "Lieferant für Kaffeebohnen: Müller & Söhne, Ansprechpartnerin Frau Weiß.\n"
    write_file(auto / "latin1.md", latin.encode("latin-1"), mtime_days_ago=61, now=now)
    bad = (
        "---\nname: [unclosed\ndescription: {\n  owner: payments\n\tpriority: high\n"
        "type: feedback\n---\nThe frontmatter above was edited by hand and does not parse.\n"
    )
    write_file(auto / "bad-yaml.md", bad, mtime_days_ago=15, now=now)
    write_file(
        auto / "unreadable.md",
        header.format("locked-notes", "notes nobody can read") + "Nothing to see.\n",
        mtime_days_ago=31,
        now=now,
    )
    os.chmod(auto / "unreadable.md", 0o000)
    _write_huge(auto / "huge.md", now)
    write_file(
        outside,
        "---\nname: ops-secrets\ndescription: lives outside the store\n---\n"
        "Root password hint: ask the on-call lead.\n",
        mtime_days_ago=50,
        now=now,
    )
    os.symlink(os.path.relpath(outside, auto), auto / "escape.md")
    write_file(
        auto / "logs/2026/11/2026-11-20.md",
        "# 2026-11-20\n\n- 09:12 refund double-charge reported by support\n"
        "- 09:40 cause: retried webhook re-ran the refund; dedupe on event.id\n"
        "- 11:05 fix deployed from the hotfix worktree\n",
        mtime_days_ago=9,
        now=now,
    )


def _write_huge(path: Path, now: float, size: int = 3_000_000) -> None:
    head = "---\nname: access-log-dump\ndescription: raw access log pasted by mistake\n---\n"
    line = '10.0.0.7 - - [20/Nov/2026:10:00:00 +0000] "GET /api/cart HTTP/1.1" 200 512\n'
    body = line * ((size - len(head)) // len(line) + 1)
    text = (head + body)[: size - 1] + "\n"
    write_file(path, text, mtime_days_ago=9, now=now)


def _build_auto_memory(auto: Path, outside: Path, now: float) -> None:
    rng = random.Random(20261129)
    generated = _generated_topics(_MAIN_LINES_TARGET - _fixed_main_lines(), rng)
    sid = "9f3c2a71-4d8e-4b6a-9c1f-2e7d5b8a6c40"
    _write_topics(auto, [t for _, group in _CURATED for t in group], now, sid)
    _write_topics(auto, [*generated, *_ARCHIVE, *_ORPHANS], now, sid)
    _write_awkward_files(auto, outside, now)
    write_index(auto, _main_index(generated), mtime_days_ago=1, now=now)
    write_file(auto / ".consolidate-lock", "48213", mtime_days_ago=2, now=now)


def _build_team_memory(team: Path, now: float) -> None:
    write_index(
        team,
        [
            "# Team memory",
            "",
            index_entry(
                "Code review", "code-review.md", "two approvals for payments/, one elsewhere"
            ),
            index_entry("CI tokens", "ci-tokens.md", "how CI reads GitHub packages"),
            index_entry("AWS staging", "aws-staging.md", "staging account, role and key owner"),
        ],
        mtime_days_ago=3,
        now=now,
    )
    write_memory(
        team,
        "code-review.md",
        description="Review rules shared by the team",
        type="feedback",
        body=_rule(
            "Changes under `api/payments/` need two approvals; elsewhere one.",
            "payments bugs cost real money.",
            "request the payments group.",
        ),
        mtime_days_ago=10,
        now=now,
    )
    write_memory(
        team,
        "ci-tokens.md",
        description="The token CI uses for GitHub packages",
        type="reference",
        body="CI pulls private packages with the bot token "
        f"`{FAKE_GITHUB_PAT}` (demo value, not a real token).\n",
        mtime_days_ago=4,
        now=now,
    )
    write_memory(
        team,
        "aws-staging.md",
        description="AWS staging access for the team",
        type="reference",
        layout="metadata",
        body="Staging account 123456789012, role "
        f"`shop-staging-deploy`. Deploy key id {FAKE_AWS_KEY_ID} (demo value).\n",
        mtime_days_ago=11,
        now=now,
    )


# --------------------------------------------------------------------------- sessions

SESSION_MAIN_FILLED = "9f3c2a71-4d8e-4b6a-9c1f-2e7d5b8a6c40"
SESSION_MAIN_CI = "ab12cd34-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
SESSION_MAIN_EMPTY = "3e8d1f20-7a6b-4c5d-9e0f-1a2b3c4d5e6f"
SESSION_WORKTREE = "c0ffee00-1234-4abc-8def-0123456789ab"


def _build_sessions(home: DemoHome, now: float) -> None:
    project, worktree = str(home.project), str(home.worktree)
    write_session(
        home.claude_home,
        project,
        SESSION_MAIN_FILLED,
        sections={
            "Session Title": "Refund coupons recomputed per line item",
            "Current State": "Tests green locally; waiting for CI run 4812.",
            "Task specification": "Partial refunds must recompute the coupon share per line.",
            "Files and Functions": "- `api/refunds/plan.py`: `RefundPlan.for_lines()`\n"
            "- `api/promotions/allocator.py`: `CouponAllocator.per_line()`",
            "Workflow": "`make test K=refunds` then `make lint`.",
            "Errors & Corrections": "User corrected: never refund the order discount pro rata.",
            "Learnings": "The allocator already rounds per line; reuse it.",
            "Worklog": "1. Reproduced the overpayment.\n2. Switched to per-line allocation.",
        },
        started="2026-11-28T09:30:00.000Z",
        summary_line="Refund coupon fix",
        prompts=(
            "Partial refunds pay out too much on coupon orders, fix it.",
            "Add a regression test.",
        ),
        mtime_days_ago=1,
        now=now,
    )
    write_session(
        home.claude_home,
        project,
        SESSION_MAIN_CI,
        sections={
            "Session Title": "CI flake hunt: Postgres vs SQLite test database",
            "Current State": "Undecided: one memory says real Postgres, a newer one says SQLite.",
            "Key results": "Postgres run: 6m12s. SQLite run: 48s, 3 JSONB tests skipped.",
        },
        started="2026-11-27T10:00:00.000Z",
        prompts=("Why is CI slow?", "Try the suite on SQLite."),
        mtime_days_ago=2,
        now=now,
    )
    write_session(
        home.claude_home,
        project,
        SESSION_MAIN_EMPTY,
        started="2026-11-29T08:00:00.000Z",
        prompts=("hi",),
        mtime_days_ago=0.2,
        now=now,
    )
    write_session(
        home.claude_home,
        worktree,
        SESSION_WORKTREE,
        sections={
            "Session Title": "Hotfix: double refund on retried webhook",
            "Current State": "Fix deployed; post-mortem draft in docs/incidents/2026-11-20.md.",
            "Errors & Corrections": "Dedupe on event.id, not on PaymentIntent id.",
        },
        git_branch="hotfix",
        started="2026-11-20T09:15:00.000Z",
        summary_line="Hotfix refunds",
        prompts=("Support reports double refunds, investigate.",),
        mtime_days_ago=9,
        now=now,
    )


_OTHER_PROJECTS: tuple[tuple[str, str, float], ...] = (
    ("/home/dev/src/blog", "Static blog: Hugo, deploys on push to main", 12),
    ("/home/dev/src/infra_tools", "Terraform helpers; state in the ops bucket", 37),
    ("/home/dev/work/api.gateway", "Envoy config; rate limits per client id", 66),
)


def _build_other_projects(claude_home: Path, now: float) -> None:
    projects = claude_home / "projects"
    for number, (cwd, fact, days) in enumerate(_OTHER_PROJECTS):
        memory = projects / sanitize_path(cwd) / "memory"
        write_memory(
            memory,
            "overview.md",
            description=fact,
            type="project",
            body=_rule(
                fact + ".", "so new sessions start with context.", "read before changing anything."
            ),
            mtime_days_ago=days,
            now=now,
        )
        write_index(
            memory,
            ["# Memory", "", index_entry("Overview", "overview.md", fact)],
            mtime_days_ago=days,
            now=now,
        )
        sid = f"0000000{number}-aaaa-4bbb-8ccc-dddddddddddd"
        write_transcript(
            projects / sanitize_path(cwd) / f"{sid}.jsonl",
            cwd,
            sid,
            started="2026-10-01T08:00:00.000Z",
            summary="Earlier work",
            mtime_days_ago=days,
            now=now,
        )
    unknown = projects / "-home-dev-old-prototype" / "memory"
    write_memory(
        unknown,
        "notes.md",
        description="Prototype notes, path unknown",
        type="project",
        body=_rule("Prototype is frozen.", "superseded by the shop.", "do not extend."),
        mtime_days_ago=119,
        now=now,
    )
    write_index(unknown, ["- [Notes](notes.md) — prototype is frozen"], mtime_days_ago=119, now=now)


# --------------------------------------------------------------------------- agents

SNAPSHOT_UPDATED = {
    "reviewer": "2026-11-25T09:00:00.000Z",
    "planner": "2026-11-01T12:00:00.000Z",
    "qa": "2026-11-20T08:00:00.000Z",
}
REVIEWER_SYNCED_FROM = "2026-10-01T09:00:00.000Z"

_AGENTS: tuple[tuple[str, str, AgentScope, str], ...] = (
    ("reviewer", "Reviews diffs touching payments and refunds before merge", "user", "user"),
    ("planner", "Breaks epics into sprint-sized stories", "user", "user"),
    ("docs-writer", "Writes and updates the developer docs", "project", "user"),
    ("migrator", "Plans and writes zero-downtime schema migrations", "local", "project"),
    ("qa", "Writes end-to-end tests and keeps the test matrix", "user", "project"),
)


def _build_agent_definitions(home: DemoHome, now: float) -> None:
    dirs = {"user": home.claude_home / "agents", "project": home.project / ".claude" / "agents"}
    for name, description, memory, where in _AGENTS:
        write_agent(
            dirs[where],
            name,
            description=description,
            memory=memory,
            tools="Read, Grep, Glob, Edit",
            prompt=f"You are the shop's {name}. "
            f"{description}. Consult your memory first and record what you learn.",
            mtime_days_ago=90,
            now=now,
        )


def _reviewer_memory(directory: Path, now: float) -> None:
    lines = [
        "---",
        "name: reviewer-memory",
        "description: what the reviewer agent learned",
        "---",
        "<!--",
        "  Maintained by the reviewer agent.",
        "  Format: one finding per",
        "  line, newest last. Older findings move to common-bugs.md.",
        "-->",
        "# Reviewer memory",
        "",
        index_entry("Deploy freeze", "deploy-freeze.md", "no prod deploys in the freeze"),
        index_entry("Review checklist", "review-checklist.md", "what every review checks"),
        index_entry("Common bugs", "common-bugs.md", "bugs seen more than twice"),
        "",
        "<!-- findings below -->",
        "## Findings",
    ]
    rng = random.Random(7)
    areas = [a[0] for a in _AREAS]
    while len(lines) < 203:
        pr = 1400 + len(lines)
        lines.append(f"- PR #{pr}: {rng.choice(areas)} change lacked a test for the error path")
    write_index(directory, lines, mtime_days_ago=3, now=now)
    write_memory(
        directory,
        "deploy-freeze.md",
        description="When production deploys are frozen",
        type="project",
        body=_rule(
            "No production deploys from Friday 15:00 to Monday 09:00 CET, and none at "
            "all from November 20 to December 2 (Black Friday).",
            "weekend and peak incidents cost the most.",
            "hotfixes during a freeze need the on-call lead's OK in #deploys.",
        ),
        mtime_days_ago=20,
        now=now,
    )
    write_memory(
        directory,
        "review-checklist.md",
        description="The reviewer's checklist",
        type="reference",
        body="- idempotency keys on payment calls\n- money in "
        "cents\n- migrations expand/contract\n",
        mtime_days_ago=40,
        now=now,
    )
    write_memory(
        directory,
        "common-bugs.md",
        description="Bugs seen more than twice",
        type="feedback",
        layout="metadata",
        body=_rule(
            "Check refund paths for double execution on retries.",
            "three incidents in 2026.",
            "ask for a retry test.",
        ),
        mtime_days_ago=8,
        now=now,
    )
    write_synced(directory, REVIEWER_SYNCED_FROM, mtime_days_ago=59, now=now)


def _planner_memory(directory: Path, now: float) -> None:
    lines = [
        "# Planner memory",
        "",
        index_entry("Roadmap", "roadmap.md", "Q4 and Q1 themes"),
        index_entry("Estimation", "estimation.md", "how stories are sized"),
        index_entry("Sprint template", "sprint-template.md", "the story template"),
        "",
        "## Sprint log",
    ]
    start = datetime(2026, 3, 2)
    week = 0
    while len(lines) < 204:
        day = (start + timedelta(days=week)).strftime("%Y-%m-%d")
        lines.append(f"- {day}: split story {300 + week} into two; carry-over {week % 4}")
        week += 1
    write_index(directory, lines, mtime_days_ago=4, now=now)
    write_memory(
        directory,
        "roadmap.md",
        description="Q4 and Q1 themes",
        type="project",
        body=_rule(
            "Q4: checkout v2. Q1: marketplace sellers.",
            "board decision.",
            "plan stories against these themes.",
        ),
        mtime_days_ago=25,
        now=now,
    )
    write_memory(
        directory,
        "estimation.md",
        description="How stories are sized",
        type="feedback",
        body=_rule(
            "Size in days, never more than 3 per story.",
            "points were gamed.",
            "split anything bigger.",
        ),
        mtime_days_ago=70,
        now=now,
    )
    write_memory(
        directory,
        "sprint-template.md",
        description="The story template",
        type="reference",
        body="Goal / Acceptance / Risks / Rollout.\n",
        mtime_days_ago=28,
        now=now,
    )
    write_synced(directory, SNAPSHOT_UPDATED["planner"], mtime_days_ago=28, now=now)


def _small_agent_memory(
    directory: Path, files: Sequence[tuple[str, str, str, str]], now: float, days: float
) -> None:
    lines = [f"# {directory.name} memory", ""]
    for stem, kind, description, body in files:
        write_memory(
            directory,
            f"{stem}.md",
            description=description,
            type=kind,
            body=body
            if kind in ("user", "reference")
            else _rule(body, "agreed with the team.", "apply it in every change."),
            mtime_days_ago=days,
            now=now,
        )
        lines.append(index_entry(stem.replace("-", " ").capitalize(), f"{stem}.md", description))
        days += 3
    write_index(directory, lines, mtime_days_ago=days, now=now)


def _build_agent_memories(home: DemoHome, now: float) -> None:
    agent_root = home.claude_home / "agent-memory"
    _reviewer_memory(agent_root / "reviewer", now)
    _planner_memory(agent_root / "planner", now)
    _small_agent_memory(
        agent_memory_dir(
            "project", "docs-writer", claude_home=home.claude_home, project=home.project
        ),
        [
            ("style-guide", "feedback", "House style for docs", "Sentence case headings."),
            ("api-docs", "reference", "Where API docs are generated", "`make docs` runs redoc."),
            ("glossary", "reference", "Shop glossary", "SKU, PSP, RMA, AOV defined here."),
        ],
        now,
        6,
    )
    _small_agent_memory(
        agent_memory_dir("local", "migrator", claude_home=home.claude_home, project=home.project),
        [
            (
                "migration-order",
                "project",
                "Order of pending migrations",
                "Run 0142 before 0143; 0143 backfills in batches of 5000.",
            ),
            ("zero-downtime", "feedback", "Zero-downtime rules", "Add columns nullable first."),
        ],
        now,
        2,
    )
    _small_agent_memory(
        agent_root / "old-helper",
        [
            ("scratch", "user", "Notes from a deleted agent", "Helped with the 2025 migration."),
            ("todo", "project", "Leftover todo", "Nothing left; safe to delete."),
        ],
        now,
        100,
    )
    _small_agent_memory(
        agent_root / "acme-lint",
        [
            ("rules", "reference", "Which acme lint rules are enabled", "ACME001-ACME014."),
            ("ignores", "feedback", "Lint ignores we accept", "ACME007 in migrations only."),
        ],
        now,
        18,
    )


def _build_snapshots(project: Path, now: float) -> None:
    write_snapshot(
        project,
        "reviewer",
        snapshot_json=snapshot_json(SNAPSHOT_UPDATED["reviewer"]),
        files={
            "MEMORY.md": "# Reviewer memory\n\n- [Review checklist]"
            "(review-checklist.md) — what every review checks\n",
            "review-checklist.md": "---\nname: review-checklist\ndescription: The "
            "team checklist\ntype: reference\n---\n- idempotency keys\n- money in "
            "cents\n- feature flag cleanup\n",
            "security-checklist.md": "---\nname: security-checklist\ndescription: "
            "Security review points\ntype: reference\n---\n- no PII in logs\n",
            "house-style.txt": "Prefer questions over commands in review comments.\n",
            "drafts/wip.md": "Draft, not shipped (subfolders are skipped).\n",
        },
        mtime_days_ago=4,
        now=now,
    )
    write_snapshot(
        project,
        "planner",
        snapshot_json=snapshot_json(SNAPSHOT_UPDATED["planner"]),
        files={
            "MEMORY.md": "# Planner memory\n\n- [Roadmap](roadmap.md) — themes\n",
            "roadmap.md": "---\nname: roadmap\ndescription: Q4 and Q1 themes\n"
            "type: project\n---\nQ4: checkout v2.\n",
            "notes.txt": "Shipped with the snapshot.\n",
            "archive/old.md": "Old plan (subfolders are skipped).\n",
        },
        mtime_days_ago=28,
        now=now,
    )
    write_snapshot(
        project,
        "qa",
        snapshot_json=snapshot_json(SNAPSHOT_UPDATED["qa"], source="team"),
        files={
            "MEMORY.md": "# QA memory\n\n- [Test matrix](test-matrix.md) — browsers and devices\n",
            "test-matrix.md": "---\nname: test-matrix\ndescription: Browsers and "
            "devices we test\ntype: reference\n---\nChrome, Firefox, Safari 17.\n",
            "browsers.txt": "chromium firefox webkit\n",
            "fixtures/seed.md": "Seed data notes (subfolders are skipped).\n",
        },
        mtime_days_ago=9,
        now=now,
    )
    write_snapshot(
        project,
        "docs-writer",
        snapshot_json='{"updatedAt": "2026-11-02T10:00:00.000Z",',
        files={
            "MEMORY.md": "# Docs writer\n\n- [Style guide](style-guide.md) — house style\n",
            "style-guide.md": "---\nname: style-guide\ndescription: House style\n"
            "type: feedback\n---\nSentence case headings.\n",
            "glossary.txt": "SKU: stock keeping unit\n",
            "old/unused.md": "Not shipped (subfolders are skipped).\n",
        },
        mtime_days_ago=27,
        now=now,
    )


# --------------------------------------------------------------------------- project, home


def _build_project_files(home: DemoHome, now: float) -> None:
    project = home.project
    write_file(
        project / "README.md",
        "# shop\n\nDjango API, Next.js storefront, Celery workers.\n",
        mtime_days_ago=120,
        now=now,
    )
    write_file(
        project / ".gitignore",
        ".claude/settings.local.json\n.claude/agent-memory-local/\n",
        mtime_days_ago=120,
        now=now,
    )
    write_file(
        project / "CLAUDE.md",
        "# shop\n\n- Run `make test` before proposing a diff.\n- Money is integer cents.\n",
        mtime_days_ago=60,
        now=now,
    )
    settings = {"autoMemoryDirectory": "~/evil-memory", "permissions": {"allow": ["Bash(make:*)"]}}
    write_file(
        project / ".claude" / "settings.json",
        json.dumps(settings, indent=2) + "\n",
        mtime_days_ago=30,
        now=now,
    )


def _build_user_home(claude_home: Path, now: float) -> None:
    write_file(
        claude_home / "settings.json",
        json.dumps({"theme": "dark"}, indent=2) + "\n",
        mtime_days_ago=100,
        now=now,
    )
    write_file(
        claude_home / "CLAUDE.md",
        "# Personal preferences\n\n- Terse answers.\n",
        mtime_days_ago=100,
        now=now,
    )


def _age_tree(root: Path, days: float, now: float) -> None:
    """Set every file below ``root`` (outside ``.git``) to ``days`` old."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            if name != ".git":
                set_age(Path(dirpath) / name, days, now)


_DAILY: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "2026-11-25",
        (
            (
                "09:14:02",
                "ab12cd34",
                "Refund double-charge traced to webhook retries #payments "
                "#incident. See [[payments]].",
            ),
            ("16:40:11", "ab12cd34", "Deploy freeze starts Friday #deploy."),
        ),
    ),
    (
        "2026-11-26",
        (
            ("10:02:45", "77e1f0aa", "CI takes 6 minutes on Postgres #ci #testing."),
            ("11:30:00", "77e1f0aa", "Tried SQLite in memory: 48 s but JSONB tests skip #testing."),
        ),
    ),
    (
        "2026-11-27",
        (
            (
                "08:55:19",
                "9f3c2a71",
                "Coupon share must be recomputed per line #payments [[payments]].",
            ),
            ("14:12:07", "9f3c2a71", "Black Friday scale plan agreed #deploy [[deploy]]."),
            ("17:48:30", "9f3c2a71", "Remember to rotate the staging key."),
        ),
    ),
)


def _build_agentmemory_home(directory: Path, now: float) -> None:
    for offset, (day, entries) in enumerate(_DAILY):
        text = f"# {day}\n\n" + "\n".join(
            f"<!-- {day} {clock} [{sid}] -->\n{body}\n" for clock, sid, body in entries
        )
        write_file(directory / "daily" / f"{day}.md", text, mtime_days_ago=4 - offset, now=now)
    topics = {
        "payments": (
            "Payments",
            [
                ("2026-11-25", "Refund double-charge traced to webhook retries."),
                ("2026-11-27", "Coupon share per line."),
            ],
        ),
        "deploy": (
            "Deploy",
            [
                ("2026-11-25", "Deploy freeze starts Friday."),
                ("2026-11-27", "Black Friday scale plan agreed."),
            ],
        ),
    }
    for slug, (title, notes) in topics.items():
        text = f"# Topic: {title}\n\n" + "\n".join(
            f"<!-- {day} 12:00:00 [ab12cd34] -->\n{note}\nDaily: [[{day}]]\n" for day, note in notes
        )
        write_file(directory / "topics" / f"{slug}.md", text, mtime_days_ago=2, now=now)
    write_file(
        directory / "SCRATCHPAD.md",
        "# Scratchpad\n\n"
        "<!-- 2026-11-27 10:00:00 [ab12cd34] -->\n- [ ] decide the test database\n"
        "- [x] write the refund regression test\n"
        "<!-- 2026-11-28 09:31:00 [9f3c2a71] -->\n- [ ] rotate the staging key\n"
        "- [ ] clean up the checkout_v2 flag\n",
        mtime_days_ago=1,
        now=now,
    )
    write_file(
        directory / "MEMORY.md",
        "# Memory Index\n"
        "<!-- last distilled: 2026-11-27 18:00:00 -->\n\n## Pinned\n"
        "- Money is integer cents, always.\n\n## Topics\n- [[payments]]\n- [[deploy]]\n\n"
        "## #payments\n- Coupon share must be recomputed per line → [[2026-11-27]]\n"
        "- Refund double-charge traced to webhook retries → [[2026-11-25]]\n\n"
        "## Recent\n- Remember to rotate the staging key → [[2026-11-27]]\n\n"
        "My own note: ask Dana about the ERP sync window.\n\n"
        "## Tags\n- #payments: 2026-11-27, 2026-11-25\n- #deploy: 2026-11-27, 2026-11-25\n"
        "- #testing: 2026-11-26\n",
        mtime_days_ago=2,
        now=now,
    )


def _prepare_root(root: Path) -> None:
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty; the demo needs an empty directory")
    make_dir(root)


def build_demo_home(root: Path, *, now: float | None = None) -> DemoHome:
    """Write the demo home into ``root`` (created if missing, must be empty) and describe it."""
    root = Path(os.path.realpath(root))
    _prepare_root(root)
    clock = time.time() if now is None else now
    claude_home = root / "claude"
    project = root / "project"
    auto = claude_home / "projects" / sanitize_path(str(project)) / "memory"
    home = DemoHome(
        root=root,
        claude_home=claude_home,
        project=project,
        worktree=root / "project-worktree",
        agent_memory_home=root / "agent-memory",
        auto_memory=auto,
        team_memory=auto / "team",
        outside_file=root / "outside-secret.md",
        session_ids=(SESSION_MAIN_FILLED, SESSION_MAIN_CI, SESSION_MAIN_EMPTY, SESSION_WORKTREE),
        now=clock,
    )
    _build_user_home(claude_home, clock)
    _build_project_files(home, clock)
    _build_agent_definitions(home, clock)
    _build_agent_memories(home, clock)
    _build_snapshots(project, clock)
    make_git_repo(project, message="shop: initial import")
    add_worktree(project, home.worktree, "hotfix")
    _age_tree(home.worktree, 1, clock)
    _build_auto_memory(auto, home.outside_file, clock)
    _build_team_memory(home.team_memory, clock)
    _build_sessions(home, clock)
    _build_other_projects(claude_home, clock)
    _build_agentmemory_home(home.agent_memory_home, clock)
    return home
