"""Generate a LARGE Claude Code home to benchmark memtui's scanner and views.

    python bench/generate_home.py OUT_DIR [--projects 300] [--memories 20000]
                                          [--transcript-bytes 2e9] [--seed 1]

Writes ``OUT_DIR/claude`` (the CC home) and ``OUT_DIR/project`` (a git repo, the project to
scan). A quarter of the memories sit in the bench project's own stores (auto, team, agent in
user/project/local scope, sessions) so scanning that one project is heavy; the rest are spread
over the other projects. Transcripts are sparse: a few real JSON lines, then ``os.truncate`` to
their full size, so gigabytes of apparent size cost almost no disk. The output is deterministic
for a given ``--seed`` (mtimes are set relative to the time of the run).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memtui.core.demo.writers import (
    AgentScope,
    agent_memory_dir,
    index_entry,
    make_git_repo,
    write_agent,
    write_file,
    write_index,
    write_memory,
    write_session,
    write_transcript,
)
from memtui.core.stores.sanitize import sanitize_path

TYPES = ("user", "feedback", "project", "reference")
WORDS = (
    "cart",
    "checkout",
    "payment",
    "refund",
    "coupon",
    "invoice",
    "ledger",
    "shipping",
    "carrier",
    "label",
    "stock",
    "warehouse",
    "search",
    "index",
    "catalog",
    "price",
    "tax",
    "vat",
    "customer",
    "account",
    "login",
    "session",
    "token",
    "deploy",
    "release",
    "rollback",
    "canary",
    "freeze",
    "pipeline",
    "cache",
    "lint",
    "test",
    "fixture",
    "factory",
    "flaky",
    "postgres",
    "redis",
    "queue",
    "worker",
    "retry",
    "webhook",
    "timeout",
    "latency",
    "dashboard",
    "alert",
    "oncall",
    "runbook",
    "migration",
    "schema",
    "column",
    "backfill",
    "feature",
    "flag",
    "rollout",
    "experiment",
    "metric",
)
BIG_TRANSCRIPTS = 4
BIG_SHARE = 0.7
PROMPTS = 12


@dataclass
class Plan:
    """How many memories go where, derived from the command-line options."""

    auto: int
    team: int
    agent: int
    sessions: int
    others: list[int]


@dataclass
class Tally:
    memories: Counter[str] = field(default_factory=Counter)
    indexes: int = 0
    transcripts: int = 0
    transcript_bytes: int = 0
    transcript_disk: int = 0
    projects: int = 0


def make_plan(memories: int, projects: int) -> Plan:
    """A quarter of the memories in the bench project's stores, the rest over the others."""
    auto, team = round(memories * 0.15), round(memories * 0.025)
    agent, sessions = round(memories * 0.05), round(memories * 0.025)
    rest = max(0, memories - auto - team - agent - sessions)
    others = max(1, projects - 1)
    per, extra = divmod(rest, others)
    return Plan(auto, team, agent, sessions, [per + (i < extra) for i in range(others)])


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize()


def memory_body(rng: random.Random, kind: str) -> str:
    lines = [sentence(rng, rng.randint(6, 16)) + "." for _ in range(rng.randint(1, 6))]
    if rng.random() < 0.01:  # a few long files
        lines += [f"- {sentence(rng, 8)}" for _ in range(rng.randint(150, 400))]
    if kind in ("feedback", "project"):
        lines += ["", f"**Why:** {sentence(rng, 8)}.", "", f"**How to apply:** {sentence(rng, 9)}."]
    return "\n".join(lines) + "\n"


def fill_store(
    directory: Path,
    count: int,
    rng: random.Random,
    now: float,
    tally: Tally,
    label: str,
    *,
    subfolders: bool = False,
) -> None:
    """``count`` memory files plus a MEMORY.md pointing at every one of them."""
    entries = ["# Memory index", ""]
    for i in range(count):
        kind = rng.choice(TYPES)
        stem = f"{kind}-{rng.choice(WORDS)}-{i:05d}"
        rel = (
            f"logs/2026/{rng.randint(1, 12):02d}/{stem}.md"
            if subfolders and i % 10 == 0
            else f"{stem}.md"
        )
        description = sentence(rng, rng.randint(5, 12))
        write_memory(
            directory,
            rel,
            description=description,
            type=kind,
            body=memory_body(rng, kind),
            layout="metadata" if i % 3 == 0 else "flat",
            mtime_days_ago=rng.uniform(0, 365),
            now=now,
        )
        entries.append(index_entry(stem.replace("-", " "), rel, description.lower()))
    write_index(directory, entries, mtime_days_ago=rng.uniform(0, 30), now=now)
    tally.memories[label] += count
    tally.indexes += 1


def transcript_sizes(total: int, count: int) -> list[int]:
    """``count`` sizes summing to at least ``total``: a few huge ones, the rest equal."""
    big = min(BIG_TRANSCRIPTS, count)
    big_size = int(total * BIG_SHARE) // max(big, 1)
    rest = max(count - big, 1)
    small = -(-(total - big * big_size) // rest)
    return [big_size] * big + [small] * (count - big)


def count_transcript(path: Path, tally: Tally) -> None:
    st = path.stat()
    tally.transcripts += 1
    tally.transcript_bytes += st.st_size
    tally.transcript_disk += st.st_blocks * 512


def build_sessions(
    claude_home: Path,
    project: Path,
    count: int,
    sizes: Sequence[int],
    rng: random.Random,
    now: float,
    tally: Tally,
) -> None:
    """``count`` sessions of the bench project, each a summary and a (sparse) transcript."""
    cwd = str(project)
    for i in range(count):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        sections = (
            None
            if i % 7 == 0
            else {
                "Session Title": sentence(rng, 6),
                "Current State": sentence(rng, 14) + ".",
                "Worklog": "\n".join(f"{n}. {sentence(rng, 6)}" for n in range(1, 6)),
            }
        )
        write_session(
            claude_home,
            cwd,
            sid,
            sections=sections,
            summary_line="Earlier work",
            prompts=[sentence(rng, 10) for _ in range(PROMPTS)],
            transcript_size=sizes[i],
            mtime_days_ago=rng.uniform(0, 60),
            now=now,
        )
        count_transcript(claude_home / "projects" / sanitize_path(cwd) / f"{sid}.jsonl", tally)
        tally.memories["session"] += 1


AGENT_SCOPES: tuple[AgentScope, ...] = ("user",) * 4 + ("project",) * 3 + ("local",) * 3


def build_agents(
    claude_home: Path, project: Path, count: int, rng: random.Random, now: float, tally: Tally
) -> None:
    """Ten agents over the three scopes, sharing ``count`` memories."""
    per, extra = divmod(count, len(AGENT_SCOPES))
    for i, scope in enumerate(AGENT_SCOPES):
        name = f"agent-{i:02d}-{rng.choice(WORDS)}"
        where = claude_home / "agents" if scope == "user" else project / ".claude" / "agents"
        write_agent(
            where,
            name,
            description=sentence(rng, 8),
            memory=scope,
            prompt=sentence(rng, 20) + ".",
            now=now,
            mtime_days_ago=100,
        )
        directory = agent_memory_dir(scope, name, claude_home=claude_home, project=project)
        fill_store(directory, per + (i < extra), rng, now, tally, f"agent-{scope}")


def other_cwd(i: int, rng: random.Random) -> str:
    sep = rng.choice(("-", "_", "."))
    return f"/home/dev/{rng.choice(('src', 'work', 'oss'))}/{rng.choice(WORDS)}{sep}{i:03d}"


def build_other_projects(
    claude_home: Path,
    plan: Plan,
    sizes: Sequence[int],
    rng: random.Random,
    now: float,
    tally: Tally,
) -> None:
    for i, count in enumerate(plan.others):
        cwd = other_cwd(i, rng)
        project_dir = claude_home / "projects" / sanitize_path(cwd)
        memory = project_dir / "memory"
        team = count // 5 if i % 5 == 0 else 0
        fill_store(memory, count - team, rng, now, tally, "auto")
        if team:
            fill_store(memory / "team", team, rng, now, tally, "team")
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        transcript = project_dir / f"{sid}.jsonl"
        write_transcript(
            transcript,
            cwd,
            sid,
            summary="Earlier work",
            size=sizes[i],
            prompts=[sentence(rng, 10) for _ in range(PROMPTS)],
            mtime_days_ago=rng.uniform(0, 90),
            now=now,
        )
        count_transcript(transcript, tally)
        tally.projects += 1


def build_bench_project(
    root: Path, plan: Plan, sizes: Sequence[int], rng: random.Random, now: float, tally: Tally
) -> None:
    claude_home, project = root / "claude", root / "project"
    write_file(claude_home / "settings.json", '{"theme": "dark"}\n', mtime_days_ago=100, now=now)
    write_file(project / "README.md", "# bench project\n", mtime_days_ago=100, now=now)
    write_file(project / ".gitignore", ".claude/agent-memory-local/\n", mtime_days_ago=100, now=now)
    build_agents(claude_home, project, plan.agent, rng, now, tally)
    make_git_repo(project, message="bench: initial import")
    auto = claude_home / "projects" / sanitize_path(str(project)) / "memory"
    fill_store(auto, plan.auto, rng, now, tally, "auto", subfolders=True)
    fill_store(auto / "team", plan.team, rng, now, tally, "team")
    build_sessions(claude_home, project, plan.sessions, sizes, rng, now, tally)
    tally.projects += 1


def generate(
    root: Path, *, projects: int, memories: int, transcript_bytes: int, seed: int
) -> Tally:
    """Write the whole home into ``root`` (must be empty or missing)."""
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    root.mkdir(parents=True, exist_ok=True)
    root = Path(os.path.realpath(root))
    rng = random.Random(seed)
    now = time.time()
    plan = make_plan(memories, projects)
    sizes = transcript_sizes(transcript_bytes, plan.sessions + len(plan.others))
    tally = Tally()
    build_bench_project(root, plan, sizes[: plan.sessions], rng, now, tally)
    build_other_projects(root / "claude", plan, sizes[plan.sessions :], rng, now, tally)
    return tally


def report(root: Path, tally: Tally, seconds: float) -> str:
    total = sum(tally.memories.values())
    by_store = ", ".join(f"{key} {value:,}" for key, value in sorted(tally.memories.items()))
    return "\n".join(
        [
            f"home:        {root / 'claude'}",
            f"project:     {root / 'project'}",
            f"projects:    {tally.projects:,}",
            f"memories:    {total:,} ({by_store}) + {tally.indexes:,} MEMORY.md",
            f"transcripts: {tally.transcripts:,}, {tally.transcript_bytes / 1e9:.2f} GB apparent, "
            f"{tally.transcript_disk / 1e6:.1f} MB on disk",
            f"time:        {seconds:.1f} s",
        ]
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out_dir", type=Path, help="where to write (empty or missing)")
    parser.add_argument("--projects", type=int, default=300)
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--transcript-bytes", type=float, default=2e9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.projects < 1 or args.memories < 0 or args.transcript_bytes < 0:
        parser.error("--projects must be >= 1; --memories and --transcript-bytes >= 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    try:
        tally = generate(
            args.out_dir,
            projects=args.projects,
            memories=args.memories,
            transcript_bytes=int(args.transcript_bytes),
            seed=args.seed,
        )
    except (FileExistsError, RuntimeError, OSError) as exc:
        print(f"generate_home: {exc}", file=sys.stderr)
        return 2
    print(report(Path(os.path.realpath(args.out_dir)), tally, time.perf_counter() - started))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
