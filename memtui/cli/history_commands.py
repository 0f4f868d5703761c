"""``memtui history``: the versions of every store (``memtui/core/history``).

- ``memtui history [STORE|FILE] [--json]``: the newest versions and recently deleted files,
  or the timeline of a store (auto, team, agent:NAME[:SCOPE], agentmemory, a store's key or
  directory) or of a file (on disk or deleted);
- ``memtui history diff FILE REV [REV2]``: a version against the disk, or two versions;
- ``memtui history restore FILE@REV [--yes]``: the plan, its diff, asked, applied (undoable);
- ``memtui history record [--hook]``: record a version now (quiet: for cron and the hook);
- ``memtui history install-hook`` / ``remove-hook [--settings FILE]``: the Claude Code hook;
- ``memtui history gc [--json]``: prune to the retention limits (``[history]`` of the config),
  saying what went (versions, bytes);
- ``memtui history purge FILE [--yes] [--json]``: take a file out of every version (a secret),
  after showing what goes and asking.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from memtui.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    context_from,
    print_json,
    say,
    shown,
)
from memtui.cli.parser import HISTORY_ACTIONS as ACTIONS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.history.timeline import FileVersion, History, StoreVersion
    from memtui.core.stores.locations import Context


def cmd_history(args: argparse.Namespace) -> int:
    from memtui.core.history.paths import HistoryError

    words: list[str] = list(args.words)
    action = words[0] if words and words[0] in ACTIONS else None
    rest = words[1:] if action else words
    try:
        if action == "record":
            return _record(args)
        if action in ("install-hook", "remove-hook"):
            return _hook(args, install=action == "install-hook")
        if action == "gc":
            if rest:
                say("memtui history gc: takes no STORE or FILE (it prunes every store)",
                    err=True)
                return EXIT_USAGE
            return _gc(args)
        if action == "purge":
            if len(rest) != 1:
                say("memtui history purge: give one FILE (a file of a store, on disk or "
                    "deleted)", err=True)
                return EXIT_USAGE
            return _purge(args, rest[0])
        if action == "restore":
            if len(rest) != 1 or "@" not in rest[0]:
                say("memtui history restore: give FILE@REV (a version from "
                    "`memtui history FILE`)", err=True)
                return EXIT_USAGE
            return _restore(args, rest[0])
        if action == "diff":
            if len(rest) not in (2, 3):
                say("memtui history diff: give FILE REV [REV2]", err=True)
                return EXIT_USAGE
            return _diff(args, rest[0], rest[1], rest[2] if len(rest) == 3 else None)
        if len(rest) > 1:
            say("memtui history: give one STORE or FILE", err=True)
            return EXIT_USAGE
        return _show(args, rest[0] if rest else None)
    except HistoryError as exc:
        say(f"memtui history: {shown(exc)}", err=True)
        return EXIT_PROBLEMS


def memtui_program() -> str:
    """How the hook starts memtui: the console script beside this Python, else ``memtui``."""
    script = Path(sys.executable).parent / "memtui"
    return str(script) if script.is_file() else "memtui"


def _record(args: argparse.Namespace) -> int:
    from memtui.cli.common import settings_of
    from memtui.core.history.attribution import Attribution
    from memtui.core.history.record import record
    from memtui.core.history.retention import RetentionLimits
    from memtui.core.stores.locations import locate

    ctx = context_from(args)
    hook = None
    if args.hook:
        from memtui.core.history.hook import HOOK_INPUT_CAP, parse_hook_input

        data = b"" if sys.stdin.isatty() else sys.stdin.buffer.read(HOOK_INPUT_CAP)
        hook, problem = parse_hook_input(data)
        if problem is not None:
            say(f"memtui history record: {problem}; recording without attribution", err=True)
        if hook is not None and hook.cwd and args.project is None and os.path.isdir(hook.cwd):
            ctx = ctx.opened_at(Path(hook.cwd))
    locations = locate(ctx)
    source = "hook" if args.hook else "record"
    target = hook.file_path if hook is not None else None
    if target is not None and not os.path.isabs(target):
        target = os.path.join(str(ctx.project), target)
    def limits() -> RetentionLimits:
        return RetentionLimits.from_config(settings_of(args, ctx))

    results = [record(ctx, Attribution.unknown(source), locations=locations,
                      skip=[Path(target)] if target else None, retention=limits)]
    if hook is not None and target is not None:
        results.append(record(ctx, hook.attribution(), locations=locations,
                              only=[Path(target)], retention=limits))
    problems = [p for r in results for p in r.problems]
    for problem in problems:
        say(f"memtui history record: {shown(problem)}", err=True)
    if args.json:
        print_json({"commits": [c for r in results for c in r.commits],
                    "changes": [{"store": c.key, "rel": c.rel, "path": str(c.path),
                                 "status": c.status, "stub": c.stub}
                                for r in results for c in r.changes],
                    "problems": problems})
    return EXIT_OK


def _gc(args: argparse.Namespace) -> int:
    from memtui.cli.common import settings_of
    from memtui.core.history.record import history_of
    from memtui.core.history.retention import RetentionLimits, gc_history
    from memtui.core.write.prune import human_size

    ctx = context_from(args)
    limits = RetentionLimits.from_config(settings_of(args, ctx))
    for problem in limits.problems:
        say(f"memtui history gc: {shown(problem)}", err=True)
    report = gc_history(history_of(ctx), limits)
    if args.json:
        print_json(report.to_json())
        return EXIT_OK
    size = (f"{human_size(report.bytes_before)} → {human_size(report.bytes_after)}, "
            f"{human_size(report.freed)} freed")
    say(f"history gc ({limits.describe()}): removed {len(report.removed)} "
        f"version{'s' if len(report.removed) != 1 else ''}, kept {report.kept}; {size}")
    if report.pinned:
        say(f"  {report.pinned} version{'s' if report.pinned != 1 else ''} past a limit kept: "
            "they hold a deleted file's last version or its deletion (purge the file to "
            "drop them)")
    for item in report.removed[:args.limit]:
        say(f"  removed {_when(item.time)}  {item.rev[:12]}  {shown(item.summary)} "
            f"({item.reason})")
    if len(report.removed) > args.limit:
        say(f"  … and {len(report.removed) - args.limit} more")
    return EXIT_OK


def _purge(args: argparse.Namespace, file: str) -> int:
    from memtui.cli.common import ask_to_apply
    from memtui.core.history.purge import apply_purge, plan_purge
    from memtui.core.history.timeline import open_history
    from memtui.core.write.prune import human_size

    ctx = context_from(args)
    path = Path(os.path.abspath(file))
    history = open_history(ctx)
    try:
        plan = plan_purge(history, path)
        if not args.yes:
            if args.json:
                print_json({"plan": plan.to_json()})
            else:
                say(f"purge {shown(plan.rel)} of {shown(plan.key)} from the history: "
                    f"{len(plan.versions)} version{'s' if len(plan.versions) != 1 else ''}, "
                    f"{len(plan.blobs)} distinct content{'s' if len(plan.blobs) != 1 else ''} "
                    f"({human_size(plan.bytes)}) go from every version")
                for item in plan.versions[:args.limit]:
                    say("  " + _file_line(item))
                if len(plan.versions) > args.limit:
                    say(f"  … and {len(plan.versions) - args.limit} more")
                _purge_warnings(plan, ctx)
                say("versions that changed nothing else go too; this cannot be undone")
            sys.stdout.flush()
            answer = ask_to_apply("Purge?")
            if answer is None:
                say("memtui: nothing changed; re-run with --yes to purge", err=True)
                return EXIT_PROBLEMS
            if not answer:
                say("memtui: nothing changed", err=True)
                return EXIT_PROBLEMS
        result = apply_purge(history, plan)
    finally:
        history.repo.close()
    if args.json:
        print_json(result.to_json())
        return EXIT_OK
    say(f"purged {shown(plan.rel)}: {result.dropped} version"
        f"{'s' if result.dropped != 1 else ''} that changed only it removed, "
        f"{result.rewritten} kept without it; {human_size(result.bytes_before)} → "
        f"{human_size(result.bytes_after)}")
    if result.left:
        say("  the same bytes stay in another file's versions: purge it too", err=True)
    if plan.on_disk and args.yes:
        _purge_warnings(plan, ctx)
    return EXIT_OK


def _purge_warnings(plan: Any, ctx: Context) -> None:
    for blob, names in plan.shared.items():
        say(f"  note: content {blob[:12]} is also held by {shown(', '.join(names))}: it stays "
            "unless that file is purged too")
    if plan.disk_recorded:
        say(f"  note: {shown(ctx.show(plan.path))} holds the bytes of a purged version: the "
            "next recording records it again (remove the secret from it first, if it is "
            "still there)")
    elif plan.on_disk:
        say(f"  note: {shown(ctx.show(plan.path))} is on disk: the next recording records it "
            "as it is then")


def _settings_path(args: argparse.Namespace, ctx: Context) -> Path:
    return Path(os.path.abspath(args.settings or ctx.claude_home / "settings.json"))


def _hook(args: argparse.Namespace, *, install: bool) -> int:
    from memtui.cli.edit_commands import confirm_and_apply
    from memtui.core.history.hook import hook_command
    from memtui.core.write.dirfd import EditRefused
    from memtui.core.write.ops.history import plan_hook

    ctx = context_from(args)
    try:
        proposal = plan_hook(_settings_path(args, ctx), hook_command(memtui_program()),
                             install=install)
    except EditRefused as exc:
        say(f"memtui history: {shown(exc.reason)}", err=True)
        return EXIT_PROBLEMS
    return confirm_and_apply(proposal, args, ctx)


def _restore(args: argparse.Namespace, spec: str) -> int:
    from memtui.cli.edit_commands import confirm_and_apply
    from memtui.core.history.timeline import open_history
    from memtui.core.write.dirfd import EditRefused
    from memtui.core.write.ops.history import plan_restore

    ctx = context_from(args)
    file, _at, rev = spec.rpartition("@")
    history = open_history(ctx)
    try:
        proposal = plan_restore(history, Path(os.path.abspath(file)), rev,
                                index_lines=not args.no_index_line)
    except EditRefused as exc:
        say(f"memtui history: refused: {shown(exc.reason)}", err=True)
        return EXIT_PROBLEMS
    finally:
        history.repo.close()
    return confirm_and_apply(proposal, args, ctx)


def _diff(args: argparse.Namespace, file: str, old: str, new: str | None) -> int:
    from memtui.core.history.timeline import open_history
    from memtui.core.plaintext import escape_diff

    ctx = context_from(args)
    history = open_history(ctx)
    try:
        old_rev = history.resolve(old)
        new_rev = history.resolve(new) if new is not None else None
        diff = history.diff(Path(os.path.abspath(file)), old_rev, new_rev)
    finally:
        history.repo.close()
    if args.json:
        print_json({"rel": diff.rel, "old_rev": diff.old_rev, "new_rev": diff.new_rev,
                    "binary": diff.binary, "diff": diff.unified})
    elif not diff.unified:
        say("no difference")
    else:
        sys.stdout.write(diff.unified if diff.binary else escape_diff(diff.unified, diff.rel))
    return EXIT_OK


def _show(args: argparse.Namespace, target: str | None) -> int:
    from memtui.core.history.timeline import open_history

    ctx = context_from(args)
    history = open_history(ctx)
    try:
        if target is None:
            versions = history.recent(args.limit)
            deleted = history.deleted(args.limit)
            if args.json:
                print_json({"directory": str(history.repo.directory),
                            "versions": [v.to_json() for v in versions],
                            "deleted": [d.to_json() for d in deleted]})
                return EXIT_OK
            say(f"history in {shown(ctx.show(history.repo.directory))}")
            _print_versions(versions, ctx)
            say("\nrecently deleted:" if deleted else "\nno file deleted")
            for item in deleted:
                d = item.deleted
                say(f"  {_when(d.time)}  {shown(ctx.show(d.path))}  by "
                    f"{shown(d.attribution.describe())}\n"
                    f"      memtui history restore {shown(d.path)}@{item.restore_rev[:12]}")
            return EXIT_OK
        return _show_target(args, ctx, history, target)
    finally:
        history.repo.close()


def _show_target(args: argparse.Namespace, ctx: Context, history: History, target: str) -> int:
    path = _target_path(ctx, history, target)
    found = history.store_of(path) if path is not None else None
    if found is None:
        say(f"memtui history: {shown(target)} is no store or file the history records",
            err=True)
        return EXIT_USAGE
    ref, rel = found
    if not rel:
        versions = history.store_timeline(ref, args.limit)
        if args.json:
            print_json({"store": ref.key, "path": str(ref.path),
                        "versions": [v.to_json() for v in versions]})
            return EXIT_OK
        say(f"history of {shown(ref.key)} ({shown(ctx.show(ref.path))})")
        _print_versions(versions, ctx)
        return EXIT_OK
    files = history.file_timeline(ref.path / rel, args.limit)
    if args.json:
        print_json({"store": ref.key, "rel": rel, "path": str(ref.path / rel),
                    "versions": [f.to_json() for f in files]})
        return EXIT_OK
    say(f"history of {shown(rel)} in {shown(ref.key)} ({shown(ctx.show(ref.path / rel))})")
    for item in files:
        say("  " + _file_line(item))
    if not files:
        say("  no version recorded")
    return EXIT_OK


def _target_path(ctx: Context, history: History, target: str) -> Path | None:
    """The path STORE or FILE names."""
    from memtui.core.stores.locations import locate

    if target in history.manifest:
        return history.manifest[target].path
    if target in ("auto", "team", "agentmemory") or target.startswith("agent:"):
        from memtui.cli.distil_commands import StoreSpecError, _agent_location

        locations = locate(ctx)
        if target.startswith("agent:"):
            try:
                return _agent_location(locations, target).path
            except StoreSpecError as exc:
                say(f"memtui history: {exc}", err=True)
                return None
        return {"auto": locations.auto, "team": locations.team,
                "agentmemory": locations.agentmemory}[target].path
    return Path(os.path.abspath(target))


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def _size(item: FileVersion) -> str:
    if item.status == "deleted":
        return "deleted"
    change = "" if item.size_change is None else f" ({item.size_change:+d})"
    stub = " stub" if item.stub else ""
    return f"{item.size} B{change}{stub}"


def _file_line(item: FileVersion) -> str:
    pruned = f"  (after {item.pruned} pruned versions)" if item.pruned else ""
    return (f"{_when(item.time)}  {item.rev[:12]}  {item.status:<7}  {_size(item):<18}  "
            f"{shown(item.attribution.describe())}{pruned}")


def _print_versions(versions: list[StoreVersion], ctx: Context) -> None:
    if not versions:
        say("  no version recorded")
    for version in versions:
        say(f"  {_when(version.time)}  {version.rev[:12]}  {shown(version.summary)}  by "
            f"{shown(version.attribution.describe())}")
        for item in version.files[:10]:
            say(f"      {item.status:<7} {shown(item.key)}/{shown(item.rel)}  {_size(item)}")
        if len(version.files) > 10:
            say(f"      … and {len(version.files) - 10} more")
