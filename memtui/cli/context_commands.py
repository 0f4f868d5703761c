"""``memtui context [--agent NAME] [--json] [--count-tokens]``: what Claude Code puts in front
of the main session (or an agent) from CLAUDE.md files and memory indexes, each part with its
lines, UTF-16 units and tokens, and a bar."""

from __future__ import annotations

import argparse

from memtui.cli.common import EXIT_OK, EXIT_USAGE, context_from, print_json, say, shown

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.recall.context import SessionContext
    from memtui.core.stores.locations import Context

BAR_WIDTH = 24


def context_json(found: SessionContext, ctx: Context) -> dict[str, Any]:
    return {
        "agent": found.agent,
        "parts": [{"path": str(p.path), "kind": p.kind, "origin": p.origin, "lines": p.lines,
                   "units": p.units, "tokens": p.tokens, "exact": p.exact, "depth": p.depth,
                   "parent": None if p.parent is None else str(p.parent),
                   "problem": p.problem, "note": p.note, "repeats": p.repeats}
                  for p in found.parts],
        "total": {"lines": found.lines, "units": found.units, "tokens": found.tokens,
                  "exact": found.exact},
        "notes": found.notes,
    }


def bar(share: float) -> str:
    filled = round(share * BAR_WIDTH)
    return "█" * filled + "·" * (BAR_WIDTH - filled)


def print_context(found: SessionContext, ctx: Context) -> None:
    who = f"agent {shown(found.agent)}" if found.agent else "the main session"
    say(f"context of {who} at session start (CLAUDE.md files and memory indexes)")
    largest = max((p.tokens for p in found.parts), default=0) or 1
    for part in found.parts:
        indent = "  " * part.depth
        tokens = f"{part.tokens:,}" + ("" if part.exact else "~")
        say(f"  {bar(part.tokens / largest)} {tokens:>8} tok {part.lines:>5} lines "
            f"{part.units:>7,} units  {indent}{shown(ctx.show(part.path))}  ({shown(part.origin)})")
        for extra in (part.problem, part.note, *part.repeats):
            if extra:
                say(f"  {'':>{BAR_WIDTH}}  ! {shown(extra)}")
    estimated = "" if found.exact else " (~ estimated: about 3.5 characters a token; " \
        "--count-tokens counts exactly)"
    say(f"  total: {found.tokens:,} tokens, {found.lines:,} lines, {found.units:,} units"
        f"{estimated}")
    for note in found.notes:
        say(f"  note: {shown(note)}")


def cmd_context(args: argparse.Namespace) -> int:
    from memtui.core.recall.context import ContextError, TokenCounter, session_context

    ctx = context_from(args)
    counter: TokenCounter | None = None
    if args.count_tokens:
        from memtui.core.config import load_config
        from memtui.core.judge.providers import ProviderError
        from memtui.core.recall.anthropic_recall import AnthropicRecall, token_counter

        try:
            counter = token_counter(AnthropicRecall.from_config(load_config(ctx.env,
                                                                            ctx.home).judge,
                                                                env=ctx.env))
        except ProviderError as err:
            say(f"memtui context: --count-tokens: {shown(err)}", err=True)
            return EXIT_USAGE
    from memtui.core.judge.ledger import Ledger, default_ledger_path

    try:
        found = session_context(ctx, agent=args.agent, counter=counter,
                                ledger=Ledger.load(default_ledger_path(ctx.env)))
    except ContextError as err:
        say(f"memtui context: {shown(err)}", err=True)
        return EXIT_USAGE
    if args.json:
        print_json(context_json(found, ctx))
    else:
        print_context(found, ctx)
    return EXIT_OK
