"""What every CLI command shares: exit codes, the Context from the options, JSON output."""

from __future__ import annotations

import argparse
import json
import os
import sys

from memtui.core.locations import Context

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def context_from(args: argparse.Namespace) -> Context:
    """The options' Context; ``args.env_overrides`` (set by ``--demo``: its own journal and
    cache) take the place of those variables of the environment."""
    overrides = getattr(args, "env_overrides", None)
    env = {**os.environ, **overrides} if overrides else None
    return Context.create(
        project=args.project,
        claude_home=args.claude_home,
        agent_memory_home=args.agent_memory_home,
        env=env,
    )


def print_json(data: Any) -> None:
    """One compact JSON document (C encoder, one write: large homes print fast)."""
    from memtui.core.cache import gc_paused

    with gc_paused():
        text = json.dumps(data, ensure_ascii=False)
    sys.stdout.write(text + "\n")
