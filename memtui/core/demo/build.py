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
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from memtui.core.demo.story import (
    AGENTS,
    ARCHIVE,
    AREAS,
    CURATED,
    DAILY,
    DEMO_ORIGIN,
    FAKE_AWS_KEY_ID,
    FAKE_GITHUB_PAT,
    MAIN_LINES_TARGET,
    ORPHANS,
    OTHER_PROJECTS,
    REVIEWER_SYNCED_FROM,
    SESSION_MAIN_CI,
    SESSION_MAIN_EMPTY,
    SESSION_MAIN_FILLED,
    SESSION_WORKTREE,
    SNAPSHOT_UPDATED,
    Topic,
    fixed_main_lines,
    generated_topics,
    main_index,
    rule,
)
from memtui.core.demo.writers import (
    add_worktree,
    agent_memory_dir,
    index_entry,
    make_dir,
    make_git_repo,
    run_git,
    set_age,
    snapshot_json,
    write_agent,
    write_file,
    write_index,
    write_memory,
    write_session,
    write_snapshot,
    write_synced,
    write_transcript,
)
from memtui.core.stores.sanitize import sanitize_path


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


def _write_topics(directory: Path, topics: Iterable[Topic], now: float, sid: str) -> None:
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
    generated = generated_topics(MAIN_LINES_TARGET - fixed_main_lines(), rng)
    sid = "9f3c2a71-4d8e-4b6a-9c1f-2e7d5b8a6c40"
    _write_topics(auto, [t for _, group in CURATED for t in group], now, sid)
    _write_topics(auto, [*generated, *ARCHIVE, *ORPHANS], now, sid)
    _write_awkward_files(auto, outside, now)
    write_index(auto, main_index(generated), mtime_days_ago=1, now=now)
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
        body=rule(
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


def _build_other_projects(claude_home: Path, now: float) -> None:
    projects = claude_home / "projects"
    for number, (cwd, fact, days) in enumerate(OTHER_PROJECTS):
        memory = projects / sanitize_path(cwd) / "memory"
        write_memory(
            memory,
            "overview.md",
            description=fact,
            type="project",
            body=rule(
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
        body=rule("Prototype is frozen.", "superseded by the shop.", "do not extend."),
        mtime_days_ago=119,
        now=now,
    )
    write_index(unknown, ["- [Notes](notes.md) — prototype is frozen"], mtime_days_ago=119, now=now)


def _build_agent_definitions(home: DemoHome, now: float) -> None:
    dirs = {"user": home.claude_home / "agents", "project": home.project / ".claude" / "agents"}
    for name, description, memory, where in AGENTS:
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
    areas = [a[0] for a in AREAS]
    while len(lines) < 203:
        pr = 1400 + len(lines)
        lines.append(f"- PR #{pr}: {rng.choice(areas)} change lacked a test for the error path")
    write_index(directory, lines, mtime_days_ago=3, now=now)
    write_memory(
        directory,
        "deploy-freeze.md",
        description="When production deploys are frozen",
        type="project",
        body=rule(
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
        body=rule(
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
        body=rule(
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
        body=rule(
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
    # for the judge: a contradiction with the project's auto memory (feature-flags.md says 25
    # percent) and a newer sizing rule that supersedes estimation.md
    write_memory(
        directory,
        "feature-flags.md",
        description="Feature flags in flight",
        type="project",
        body="Flags live in Unleash; `checkout_v2` is at 100 percent since the Black Friday "
        "prep.\n",
        mtime_days_ago=2,
        now=now,
    )
    write_memory(
        directory,
        "sizing.md",
        description="How stories are sized now",
        type="feedback",
        body=rule(
            "Size in days, never more than 2 per story.",
            "3-day stories kept slipping.",
            "split anything bigger.",
        ),
        mtime_days_ago=3,
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
            else rule(body, "agreed with the team.", "apply it in every change."),
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


def _build_agentmemory_home(directory: Path, now: float) -> None:
    for offset, (day, entries) in enumerate(DAILY):
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
    run_git(project, "remote", "add", "origin", DEMO_ORIGIN)  # team memory syncs per GitHub repo
    add_worktree(project, home.worktree, "hotfix")
    _age_tree(home.worktree, 1, clock)
    _build_auto_memory(auto, home.outside_file, clock)
    _build_team_memory(home.team_memory, clock)
    _build_sessions(home, clock)
    _build_other_projects(claude_home, clock)
    _build_agentmemory_home(home.agent_memory_home, clock)
    return home
