"""Judge test homes: real memory files written with the demo's writers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memtui.core.demo.writers import write_agent, write_file, write_memory
from memtui.core.stores.locations import Context


@dataclass(frozen=True)
class Note:
    """One memory to write: the store folder (``auto``, ``agent-user:NAME``), file and text."""

    store: str
    rel: str
    description: str
    body: str
    days_ago: float = 10.0
    type: str = "project"


def context(root: Path) -> Context:
    return Context.create(
        project=root / "project",
        claude_home=root / "claude",
        agent_memory_home=root / "agent-memory",
        env={"HOME": str(root)},
    )


def store_dir(root: Path, store: str) -> Path:
    ctx = context(root)
    if store == "auto":
        from memtui.core.stores.sanitize import sanitize_path

        return ctx.claude_home / "projects" / sanitize_path(str(ctx.project)) / "memory"
    if store.startswith("agent-user:"):
        return ctx.claude_home / "agent-memory" / store.split(":", 1)[1]
    if store.startswith("agent-project:"):
        return ctx.project / ".claude" / "agent-memory" / store.split(":", 1)[1]
    if store == "team":
        return store_dir(root, "auto") / "team"
    raise ValueError(store)


def write_home(root: Path, notes: Iterable[Note], claude_md: str | None = None) -> Context:
    """A CC home and project at ``root`` holding ``notes`` (and a project CLAUDE.md)."""
    ctx = context(root)
    (ctx.project).mkdir(parents=True, exist_ok=True)
    agents: set[str] = set()
    for note in notes:
        write_memory(
            store_dir(root, note.store),
            note.rel,
            description=note.description,
            type=note.type,
            body=note.body,
            mtime_days_ago=note.days_ago,
        )
        if note.store.startswith("agent-"):
            scope, agent = note.store.split(":", 1)
            agents.add(agent)
            write_agent(
                ctx.project / ".claude" / "agents",
                agent,
                description=agent,
                memory="user" if scope == "agent-user" else "project",
                prompt="An agent.",
            )
    if claude_md is not None:
        write_file(ctx.project / "CLAUDE.md", claude_md)
    return ctx


TIMEOUT_NOTES = [
    Note("auto", "api-timeout.md", "Gateway timeout for the payments API",
         "The payments gateway timeout is 30 seconds.\nRetries back off twice.\n\n"
         "Ask #infra before changing it.", 40),
    Note("auto", "gateway-timeout.md", "Gateway timeout for the payments API",
         "The payments gateway timeout is 90 seconds.\nRetries back off twice.", 2),
    Note("auto", "deploy.md", "How we deploy", "Deploys go through the release train."),
]
"""A contradiction inside one store (the local judge says ``conflicts_with``, the newer
``gateway-timeout.md`` kept) and an unrelated memory: what the decisions that rewrite both
sides (scoped, merge) can act on in one operation."""


def write_timeout_home(root: Path) -> Context:
    """:data:`TIMEOUT_NOTES` with a MEMORY.md listing the three."""
    from memtui.core.demo.writers import index_entry, write_index

    ctx = write_home(root, TIMEOUT_NOTES)
    write_index(store_dir(root, "auto"), [
        "# Memory", index_entry("API timeout", "api-timeout.md", "30 s"),
        index_entry("Gateway timeout", "gateway-timeout.md", "90 s"),
        index_entry("Deploy", "deploy.md", "release train"),
    ])
    return ctx


def cli_args(ctx: Context) -> list[str]:
    """The CLI options that point memtui at ``ctx``'s home."""
    return ["--claude-home", str(ctx.claude_home), "--project", str(ctx.project),
            "--agent-memory-home", str(ctx.agent_memory_home)]
