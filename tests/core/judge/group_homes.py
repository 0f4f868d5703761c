"""A home whose open pairs make one group: four near copies of one fact, three in auto memory
(listed in its MEMORY.md) and one in a user agent's memory, and an unrelated memory."""

from __future__ import annotations

from pathlib import Path

from core.judge.homes import Note, store_dir, write_home

from memtui.core.judge.groups import Group, group_pairs
from memtui.core.judge.items import memory_items
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.local import LocalJudge
from memtui.core.judge.run import judge_pairs, pair_up
from memtui.core.judge.verdicts import JudgedPair
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context

FACT = "Integration tests run against the real Postgres container from docker compose."
COPIES = [
    Note("auto", "feedback_testing-postgres.md", "Real Postgres in integration tests",
         FACT, 30),
    Note("auto", "feedback_testing-postgres-2.md", "Real Postgres in integration tests",
         FACT + " Always.", 20),
    Note("auto", "feedback_testing-postgres-3.md", "Real Postgres in integration tests",
         FACT + " No exceptions.", 10),
    Note("agent-user:planner", "feedback_testing-postgres.md",
         "Real Postgres in integration tests", FACT + " Keep it that way.", 5),
]
OTHER = Note("auto", "deploy.md", "How we deploy", "Deploys go through the release train.")
AUTO_NAMES = [n.rel for n in COPIES if n.store == "auto"]


def write_group_home(root: Path) -> Context:
    from memtui.core.demo.writers import index_entry, write_index

    ctx = write_home(root, [*COPIES, OTHER])
    write_index(store_dir(root, "auto"), [
        "# Memory", *(index_entry(n.rel.removesuffix(".md"), n.rel, "real db")
                      for n in COPIES if n.store == "auto"),
        index_entry("Deploy", "deploy.md", "release train"),
    ])
    return ctx


def judged_pairs(ctx: Context, ledger: Ledger) -> list[JudgedPair]:
    """The home's pairs, judged by the local judge (verdicts recorded in ``ledger``)."""
    pairs = pair_up(memory_items(scan(ctx)), ledger)
    judge_pairs(pairs, LocalJudge(), ledger)
    return pairs


def the_group(ctx: Context, ledger: Ledger) -> Group:
    [group] = group_pairs(judged_pairs(ctx, ledger))
    return group
