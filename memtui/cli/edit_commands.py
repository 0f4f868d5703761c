"""Commands that write, always through the one safe path: snapshot init / replace /
mark-synced and ``delete`` (``undo`` is in :mod:`memtui.cli.undo_commands`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from memtui.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    ask_to_apply,
    context_from,
    print_json,
    say,
    settings_of,
    shown,
    write,
)
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.plaintext import counted

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from memtui.core.contents import Memory
    from memtui.core.stores.locations import Context
    from memtui.core.write.ops.snapshot import SnapshotAction
    from memtui.core.write.proposal import AppliedOp, FileDiff, Proposal


SNAPSHOT_ACTION_NAMES: dict[str, SnapshotAction] = {
    "init": "initialize",
    "replace": "replace",
    "mark-synced": "mark-synced",
}


def plan_json(proposal: Proposal, diffs: list[FileDiff]) -> dict[str, Any]:
    target, refused = proposal.target()
    return {
        "kind": proposal.kind,
        "title": proposal.title,
        "root": str(proposal.root),
        "target": target,
        "refused": refused,
        "lock_dir": str(proposal.lock_dir) if proposal.lock_dir else None,
        "roots": [
            {"root": str(r.path), "lock_dir": str(r.lock_dir) if r.lock_dir else None}
            for r in proposal.roots()
        ],
        "notes": proposal.notes,
        "files": [
            {"path": str(d.path), "rel": d.rel, "status": d.status, "binary": d.binary,
             "diff": d.unified}
            for d in diffs
        ],
    }


def print_plan(proposal: Proposal, diffs: list[FileDiff], ctx: Context) -> None:
    """The plan as text: names, notes and diffs with their control characters escaped."""
    from memtui.core.plaintext import escape_diff

    say(
        f"{shown(proposal.title)}\n  in {shown(ctx.show(proposal.base))}\n"
        f"  {shown(proposal.target_text())}"
    )
    for d in diffs:
        say(f"  {d.status:<9} {shown(d.rel)}{'  (binary)' if d.binary else ''}")
    for note in proposal.notes:
        say(f"  * {shown(note)}")
    for d in diffs:
        if d.status in ("changed", "deleted") and d.rel.endswith(".md") and d.unified:
            write("\n" + escape_diff(d.unified, d.rel))


def confirm_and_apply(
    proposal: Proposal,
    args: argparse.Namespace,
    ctx: Context,
    after: Callable[[AppliedOp], str | None] | None = None,
) -> int:
    """Show the plan unless ``--yes``, ask, then apply through the one write path; ``after``
    runs once it is applied (its text, if any, is printed with the result)."""
    from memtui.core.write.apply import apply
    from memtui.core.write.dirfd import EditRefused
    from memtui.core.write.journal import journal_for

    if not args.yes:
        diffs = proposal.diff()
        if args.json:
            print_json(plan_json(proposal, diffs))
        else:
            print_plan(proposal, diffs, ctx)
        sys.stdout.flush()
        _target, refused = proposal.target()
        if refused is not None:
            say(f"memtui: refused: {shown(refused)}; nothing was written", err=True)
            return EXIT_PROBLEMS
        answer = ask_to_apply()
        if answer is None:
            print("memtui: nothing changed; re-run with --yes to apply", file=sys.stderr)
            return EXIT_PROBLEMS
        if not answer:
            print("memtui: nothing changed", file=sys.stderr)
            return EXIT_PROBLEMS
    try:
        done = apply(proposal, journal_for(ctx, settings_of(args, ctx)))
    except EditRefused as exc:
        say(f"memtui: refused: {shown(exc.reason)}", err=True)
        return EXIT_PROBLEMS
    extra = after(done) if after is not None else None
    if args.json:
        print_json(done.record.to_json())
    else:
        say(f"done: {shown(done.title)} ({counted(len(done.files), 'file')}); "
            f"undo with: memtui undo {done.op_id}")
        if extra:
            say(shown(extra))
    return EXIT_OK


def cmd_snapshot_action(args: argparse.Namespace) -> int:
    from memtui.core.model import Scope
    from memtui.core.scan.scanner import scan_snapshot
    from memtui.core.stores.locations import locate
    from memtui.core.write.dirfd import EditRefused
    from memtui.core.write.ops.snapshot import nothing_to_do, plan_snapshot

    ctx = context_from(args)
    locations = locate(ctx)
    found = [loc for loc in locations.snapshots if (loc.agent or loc.path.name) == args.agent]
    if not found:
        names = ", ".join(sorted(loc.agent or loc.path.name for loc in locations.snapshots))
        say(f"memtui snapshot: no snapshot for agent {shown(repr(args.agent))} "
            f"(snapshots: {shown(names) or 'none'})", err=True)
        return EXIT_USAGE
    snapshot = scan_snapshot(found[0], locations).snapshot
    assert snapshot is not None
    scope = Scope(args.scope) if args.scope else snapshot.acted_scope
    local = snapshot.for_scope(scope).local
    try:
        action = SNAPSHOT_ACTION_NAMES[args.snapshot_command]
        proposal = plan_snapshot(snapshot.snapshot_dir, local, action)
    except EditRefused as exc:
        say(f"memtui: refused: {shown(exc.reason)}", err=True)
        return EXIT_PROBLEMS
    proposal.title += f" ({scope.value} scope)"
    nothing = nothing_to_do(proposal)
    if nothing is not None:
        if args.json:
            print_json({**plan_json(proposal, proposal.diff()), "nothing_to_do": nothing})
        else:
            say(f"{shown(proposal.title)}\n  in {shown(ctx.show(proposal.base))}\n"
                f"  {shown(nothing)}; nothing was written")
        return EXIT_OK
    return confirm_and_apply(proposal, args, ctx)


class PathChanged(Exception):
    """A path that could not be resolved because it changed meanwhile."""


def real_path(path: Path | str) -> Path:
    """``os.path.realpath``; :class:`PathChanged` when a directory or link on the way is
    swapped while it is resolved (a link gone between its ``lstat`` and its ``readlink``)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise PathChanged(f"{path} changed while it was resolved ({reason.lower()}): a "
                          "directory or link on the way was swapped") from exc


def cmd_delete(args: argparse.Namespace) -> int:
    """Delete every REL_PATH, with their MEMORY.md lines, as one operation (one preview, one
    journal entry, one undo). A memory of the Team folder inside an Auto store may be named by
    its path from the Auto store (``team/x.md``); a memory of another of the project's stores
    (an agent memory beside the auto memory) by its path: the operation then spans both
    stores' roots, each locked on its own."""
    from memtui.core.scan.scanner import cache_for, scan, scan_store
    from memtui.core.write.dirfd import EditRefused
    from memtui.core.write.ops.memory import plan_delete_memories

    ctx = context_from(args)
    try:
        wanted = real_path(args.store)
        scanned = scan(ctx, cache=cache_for(ctx)).stores
        stores = [s for s in scanned if real_path(s.path) == wanted]
        store = stores[0] if stores else scan_store(
            StoreLocation(kind=StoreKind.AUTO, path=args.store, rule="given on the command line"))
        inner = [s for s in scanned if s is not store and s.path.is_relative_to(store.path)]
        given = {id(s) for s in [store, *inner]}
        others = [s for s in scanned if id(s) not in given]
        by_path: dict[Path, Memory] = {}
        for each in [store, *inner, *others]:  # a path of the given store first
            for memory in each.memories:
                by_path.setdefault(memory.path, memory)
                by_path.setdefault(real_path(memory.path), memory)
        found = {rel: by_path.get(store.path / rel) or by_path.get(real_path(store.path / rel))
                 for rel in args.rel_paths}
    except PathChanged as exc:
        say(f"memtui delete: refused: {shown(exc)}; nothing was written", err=True)
        return EXIT_PROBLEMS
    missing = [rel for rel, memory in found.items() if memory is None]
    if missing:
        names = ", ".join(shown(repr(rel)) for rel in missing)
        say(f"memtui delete: no memory {names} in {shown(args.store)}; nothing was written",
            err=True)
        return EXIT_USAGE
    memories = [m for m in found.values() if m is not None]
    try:
        proposal = plan_delete_memories([store, *inner, *others], memories)
    except EditRefused as exc:
        say(f"memtui: refused: {shown(exc.reason)}", err=True)
        return EXIT_PROBLEMS
    return confirm_and_apply(proposal, args, ctx)


def cmd_redact(args: argparse.Namespace) -> int:
    """Redact a memory's secrets: the plan (secrets masked) first, asked unless ``--yes``;
    the secret must be rotated anyway, and the command says so."""
    from memtui.core.scan.scanner import cache_for, scan
    from memtui.core.write.dirfd import EditRefused
    from memtui.core.write.ops.redact import ROTATE_NOTE, NothingToRedact, plan_redact

    ctx = context_from(args)
    try:
        wanted = real_path(args.path)
        found = [
            (store, memory)
            for store in scan(ctx, cache=cache_for(ctx)).stores
            for memory in store.memories
            if real_path(memory.file) == wanted
        ]
    except PathChanged as exc:
        say(f"memtui redact: refused: {shown(exc)}; nothing was written", err=True)
        return EXIT_PROBLEMS
    if not found:
        say(f"memtui redact: {shown(args.path)} is no memory file of this project's stores",
            err=True)
        return EXIT_USAGE
    store, memory = found[0]
    try:
        proposal = plan_redact(store, memory)
    except NothingToRedact as exc:
        if args.json:
            print_json({"path": memory.file, "nothing_to_do": exc.reason})
        else:
            say(f"memtui: {shown(exc.reason)}; nothing was written")
        return EXIT_OK
    except EditRefused as exc:
        say(f"memtui: refused: {shown(exc.reason)}", err=True)
        return EXIT_PROBLEMS
    code = confirm_and_apply(proposal, args, ctx)
    if code == EXIT_OK and not args.json:
        say(f"note: {ROTATE_NOTE}")
    return code
