"""``memtui distil STORE [--json] [--apply] [--yes]``: rebuild a MEMORY.md that fits Claude
Code's load budget with headroom, or an agentmemory home's tag index. Without ``--apply`` it
only prints the proposal."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from memtui.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    context_from,
    print_json,
    say,
    settings_of,
    write,
)
from memtui.cli.common import shown as esc

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.contents import Store
    from memtui.core.distil.model import DistilOutcome, DistilPlan, Meter
    from memtui.core.model import StoreLocation
    from memtui.core.stores.locations import Context, Locations

PROGRESS_FROM = 200
"""A store with at least this many files gets a progress bar on stderr (when a terminal)."""


class StoreSpecError(ValueError):
    """STORE names no store distil can plan (exit 2); the message says why."""


def resolve_store(ctx: Context, spec: str) -> Store:
    """The store STORE names. One branch per form: ``auto``, ``team``, ``agentmemory``,
    ``agent:NAME[:SCOPE]``, else a path."""
    from memtui.core.contents import Store
    from memtui.core.stores.locations import locate

    locations = locate(ctx)
    if spec == "auto":
        location = locations.auto
    elif spec == "team":
        location = locations.team
    elif spec == "agentmemory":
        location = locations.agentmemory
    elif spec.startswith("agent:"):
        location = _agent_location(locations, spec)
    else:
        location = _path_location(locations, spec)
    if not location.path.is_dir():
        raise StoreSpecError(f"{esc(spec)}: no store directory at {esc(location.path)}")
    return Store(location=location, exists=True)


def _agent_location(locations: Locations, spec: str) -> StoreLocation:
    """``agent:NAME`` or ``agent:NAME:SCOPE`` (NAME may hold a colon: ``plugin:agent``)."""
    name, scope = spec.removeprefix("agent:"), None
    if not any(loc.agent == name for loc in locations.agents) and ":" in name:
        name, scope = name.rsplit(":", 1)
    found = [loc for loc in locations.agents
             if loc.agent == name and (scope is None or (loc.scope and loc.scope.value == scope))]
    if len(found) == 1:
        return found[0]
    known = ", ".join(sorted(f"agent:{loc.agent}:{loc.scope.value if loc.scope else '?'}"
                             for loc in locations.agents))
    if not found:
        raise StoreSpecError(f"{esc(spec)}: no such agent memory (known: {esc(known) or 'none'})")
    scopes = ", ".join(loc.scope.value for loc in found if loc.scope)
    raise StoreSpecError(f"{esc(spec)}: agent {esc(name)} has memory in several scopes "
                         f"({scopes}): name one, e.g. agent:{esc(name)}:user")


def _path_location(locations: Locations, spec: str) -> StoreLocation:
    from memtui.core.model import StoreKind, StoreLocation

    path = Path(spec)
    if path.name == "MEMORY.md":
        path = path.parent
    if not path.is_dir():
        raise StoreSpecError(f"{esc(spec)} is no store directory (nor its MEMORY.md)")
    wanted = os.path.realpath(path)
    for location in [locations.auto, locations.team, *locations.agents, locations.agentmemory]:
        if os.path.realpath(location.path) == wanted:
            return location
    return StoreLocation(kind=StoreKind.AUTO, path=path, rule="given on the command line")


class ProgressBar:
    """``reading memories [#####.....] 120/300`` on stderr, redrawn in place."""

    def __init__(self) -> None:
        self.drawn = False

    def __call__(self, step: str, done: int, total: int) -> None:
        if total < PROGRESS_FROM:
            return
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r{step} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        sys.stderr.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()


def cmd_distil(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from memtui.core.distil.plan import plan_distil

    ctx = context_from(args)
    try:
        store = resolve_store(ctx, args.store)
    except StoreSpecError as err:
        say(f"memtui distil: {err}", err=True)
        return EXIT_USAGE
    config = settings_of(args, ctx)
    bar = ProgressBar() if sys.stderr.isatty() else None
    try:
        plan = plan_distil(store, headroom=config.distil.headroom, now=datetime.now(UTC),
                           progress=bar)
    finally:
        if bar is not None:
            bar.close()
    outcome = plan.outcome()
    if args.apply:
        return _apply(plan, outcome, args, ctx)
    if args.json:
        print_json(plan_json(plan, outcome))
    else:
        print_proposal(plan, outcome, ctx)
    return EXIT_OK


def _apply(plan: DistilPlan, outcome: DistilOutcome, args: argparse.Namespace,
           ctx: Context) -> int:
    from memtui.cli.edit_commands import confirm_and_apply

    if plan.refusals:
        for refusal in plan.refusals:
            say(f"memtui: refused: {esc(refusal)}; nothing was written", err=True)
        return EXIT_PROBLEMS
    if outcome.proposal is None:
        if args.json:
            print_json({**plan_json(plan, outcome), "nothing_to_do": True})
        else:
            say(f"{esc(plan.store_title)}: {esc(plan.index_path)} is already distilled; "
                "nothing was written")
        return EXIT_OK
    return confirm_and_apply(outcome.proposal, args, ctx)


def meter_json(meter: Meter) -> dict[str, Any]:
    return {
        "lines": meter.lines, "units": meter.units, "bytes": meter.bytes,
        "dropped": meter.dropped, "truncated": meter.truncated, "limit": meter.limit,
        "share": round(meter.share, 4), "headroom": round(meter.headroom, 4),
        "target": meter.target, "fits": meter.fits, "cut_line": meter.cut_line,
    }


def plan_json(plan: DistilPlan, outcome: DistilOutcome) -> dict[str, Any]:
    from memtui.core.distil.model import meter_text

    diffs = outcome.proposal.diff() if outcome.proposal is not None else []
    return {
        "store": {"kind": plan.store_kind.value, "path": str(plan.store_path),
                  "title": plan.store_title},
        "index": str(plan.index_path),
        "agent": plan.agent,
        "headroom_target": plan.headroom,
        "before": meter_json(plan.before),
        "after": meter_json(outcome.after),
        "meter": meter_text(plan.before, outcome.after),
        "refusals": plan.refusals,
        "notes": plan.notes + outcome.notes,
        "changes": [
            {"id": c.id, "kind": c.kind, "summary": c.summary, "lines": list(c.lines),
             "moved_to": c.moved_to, "group": c.group, "target": c.target}
            for c in plan.changes
        ],
        "cut": outcome.cut,
        "team_refused": outcome.team_refused,
        "files": [{"path": str(d.path), "rel": d.rel, "status": d.status, "diff": d.unified}
                  for d in diffs],
    }


def print_proposal(plan: DistilPlan, outcome: DistilOutcome, ctx: Context) -> None:
    from memtui.core.distil.model import GROUP_TITLES, meter_text
    from memtui.core.plaintext import escape_diff

    say(f"distil {esc(plan.store_title)}: {esc(ctx.show(plan.index_path))}")
    for refusal in plan.refusals:
        say(f"  refused: {esc(refusal)}")
    say(f"  {meter_text(plan.before, outcome.after)}")
    for note in plan.notes + outcome.notes:
        say(f"  * {esc(note)}")
    for group, changes in plan.groups().items():
        say(f"{GROUP_TITLES.get(group, group)} ({len(changes)}):")
        for change in changes:
            say(f"  {esc(change.summary)}")
    if outcome.cut:
        say(f"still cut by Claude Code ({len(outcome.cut)}):")
        for item in outcome.cut:
            say(f"  {esc(item)}")
    if outcome.proposal is None:
        say("nothing would change" if not plan.refusals else "nothing may be written")
        return
    for diff in outcome.proposal.diff():
        if diff.unified:
            write("\n" + escape_diff(diff.unified, diff.rel))
    say("\npreview only: memtui distil STORE --apply writes it (journaled; memtui undo)")
