"""``memtui undo``: undo an operation (asking first), list the journal, recover an interrupted
operation, prune the journal. Every action is on operations of the current Claude Code home
(``--claude-home``); operations of other homes are listed and named, never acted on."""

from __future__ import annotations

import argparse
import sys

from memtui.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    context_from,
    print_json,
    say,
    settings_of,
    shown,
)
from memtui.core.plaintext import counted

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.stores.locations import Context
    from memtui.core.write.journal import Journal, OpRecord
    from memtui.core.write.prune import PruneReport


def recovery_hint(journal: Journal, record: OpRecord) -> str:
    """The commands that recover ``record``, with ``--claude-home`` when it is another home."""
    import shlex

    prefix = "memtui"
    if not journal.of_home(record) and record.home is not None:
        prefix += f" --claude-home {shlex.quote(shown(record.home))}"
    return (f"Roll it back with `{prefix} undo --rollback {record.id}` or finish it with "
            f"`{prefix} undo --complete {record.id}`.")


def home_words(journal: Journal, record: OpRecord) -> str:
    if record.home is None:
        return "home unknown (recorded before memtui noted homes)"
    if journal.of_home(record):
        return f"{shown(record.home)} (this home)"
    return f"{shown(record.home)} (another home)"


def warn_incomplete_operations(ctx: Context) -> None:
    """Name every interrupted operation on stderr: this home's, then other homes' (with where
    they were made), each with the commands that recover it."""
    from memtui.core.write.journal import journal_for

    journal = journal_for(ctx)  # reads only: no limits needed, no config loaded
    for record in journal.incomplete():
        what = f"{shown(record.kind)}: {shown(record.title)}"
        say(f"memtui: operation {record.id} ({what}) was interrupted "
            f"({record.state}, {record.progress} of {counted(len(record.files), 'file')} done). "
            + recovery_hint(journal, record), err=True)
    for record in journal.incomplete_elsewhere():
        what = f"{shown(record.kind)}: {shown(record.title)}"
        say(f"memtui: operation {record.id} ({what}) in Claude Code "
            f"{home_words(journal, record)} was interrupted ({record.state}, "
            f"{record.progress} of {counted(len(record.files), 'file')} done, in "
            f"{shown(record.where())}); it is left as it is. " + recovery_hint(journal, record),
            err=True)


def cmd_undo(args: argparse.Namespace) -> int:
    from memtui.core.write.dirfd import EditRefused

    chosen = [x for x in (args.op_id, args.rollback, args.complete) if x] + (
        ["--list"] if args.list else []) + (["--gc"] if args.gc else [])
    if len(chosen) > 1:
        say("memtui undo: give one of OP_ID, --list, --rollback, --complete, --gc",
            err=True)
        return EXIT_USAGE
    from memtui.core.write.journal import journal_for

    ctx = context_from(args)
    journal = journal_for(ctx, settings_of(args, ctx))
    try:
        return run_undo_action(args, journal)
    except KeyError as exc:
        say(f"memtui undo: no operation {shown(repr(exc.args[0]))} in {shown(journal.directory)}",
            err=True)
        return EXIT_USAGE
    except EditRefused as exc:
        say(f"memtui: refused: {shown(exc.reason)}", err=True)
        return EXIT_PROBLEMS
    except OSError as exc:
        say(f"memtui undo: stopped by an I/O error: {shown(io_words(exc))}. The journal in "
            f"{shown(journal.directory)} keeps every operation; `memtui undo --list` shows where "
            "each stands", err=True)
        return EXIT_PROBLEMS


def io_words(exc: OSError) -> str:
    words = exc.strerror or str(exc) or type(exc).__name__
    return f"{words} ({exc.filename})" if exc.filename else words


def run_undo_action(args: argparse.Namespace, journal: Journal) -> int:
    if args.list:
        return list_operations(journal, args.json)
    if args.gc:
        return collect_garbage(journal, args.json)
    if args.rollback:
        from memtui.core.write.recovery import rollback

        record = rollback(journal, args.rollback, force=args.force)
        say(f"rolled back {record.id} ({shown(record.kind)}: {shown(record.title)})")
        return EXIT_OK
    if args.complete:
        from memtui.core.write.recovery import complete

        record = complete(journal, args.complete)
        say(f"completed {record.id} ({shown(record.kind)}: {shown(record.title)})")
        return EXIT_OK
    return undo_one(args, journal)


def undo_one(args: argparse.Namespace, journal: Journal) -> int:
    from memtui.core.write.dirfd import EditRefused

    warn_interrupted(journal)
    target = journal.get(args.op_id) if args.op_id else journal.latest_undoable()
    if target is None:
        say(f"memtui undo: nothing to undo in Claude Code home {shown(journal.home)}"
            + others_hint(journal), err=True)
        return EXIT_PROBLEMS
    problem = journal.home_problem(target)
    if problem is not None:
        raise EditRefused(problem + "; nothing changed")
    if not args.yes:
        answer = show_and_ask(journal, target, args.json)
        if answer is not True:
            say("memtui: nothing changed" + ("; re-run with --yes to undo" if answer is None
                                              else ""), err=True)
            return EXIT_PROBLEMS
    from memtui.core.write.recovery import undo

    done = undo(journal, target.id, force=args.force)
    if args.json:
        print_json(done.record.to_json())
    else:
        say(f"undid {target.id} ({shown(target.title)}) as operation {done.op_id}; "
            f"`memtui undo {done.op_id}` redoes it")
    return EXIT_OK


def warn_interrupted(journal: Journal) -> None:
    for record in journal.incomplete() + journal.incomplete_elsewhere():
        what = f"{shown(record.kind)}: {shown(record.title)}"
        say(f"memtui: operation {record.id} ({what}) in Claude Code "
            f"{home_words(journal, record)} was interrupted and is left as it is. "
            + recovery_hint(journal, record), err=True)


def others_hint(journal: Journal) -> str:
    others = [r for r in journal.list() if not journal.of_home(r) and r.state == "done"
              and r.undoes is None and not journal.is_undone(r)]
    if not others:
        return ""
    return (f" ({len(others)} operation(s) of other homes are not undone from here; "
            "`memtui undo --list` names their homes)")


def show_and_ask(journal: Journal, record: OpRecord, as_json: bool) -> bool | None:
    """Print what undoing ``record`` does, then ask; None when stdin is not a terminal."""
    from memtui.cli.common import ask_to_apply

    if as_json:
        print_json(record.to_json())
    else:
        say(undo_plan(journal, record))
    sys.stdout.flush()
    return ask_to_apply("Undo?")


def undo_plan(journal: Journal, record: OpRecord) -> str:
    from memtui.core.write.journal import undo_verb
    from memtui.core.write.proposal import record_target_text

    lines = [
        f"undo {shown(record.kind)}: {shown(record.title)}",
        f"  operation {record.id}, {op_time(record)} UTC, Claude Code "
        f"{home_words(journal, record)}",
        f"  {record_target_text(record)}",
    ]
    lines += [f"  {undo_verb(item):<8} {shown(item.path)}" for item in record.files]
    return "\n".join(lines)


def op_time(record: OpRecord) -> str:
    return record.time.replace("T", " ")[:19]


def op_line(record: OpRecord, undone: bool) -> str:
    state = "undone" if undone else record.state
    if record.incomplete:
        state += " (interrupted)"
    kind, title = shown(record.kind), shown(record.title)
    return f"{record.id}  {op_time(record)} UTC  {state:<10} {kind:<20} {title}"


def list_operations(journal: Journal, as_json: bool) -> int:
    """Every operation of every home, newest first, each naming its home."""
    records = journal.list()
    if as_json:
        print_json([{**r.to_json(), "undone": journal.is_undone(r),
                     "this_home": journal.of_home(r)} for r in records])
        return EXIT_OK
    if not records:
        say(f"no operations in {shown(journal.directory)}")
        return EXIT_OK
    say(f"operations in {shown(journal.directory)}, newest first; this Claude Code home is "
        f"{shown(journal.home)}")
    for record in records:
        say(op_line(record, journal.is_undone(record)))
        say(f"    home   {home_words(journal, record)}")
        for item in record.files:
            say(f"    {item.action:<6} {shown(item.path)}")
    return EXIT_OK


def collect_garbage(journal: Journal, as_json: bool) -> int:
    """``--gc``: prune by the limits, say what went and how much space it freed."""
    report = journal.prune()
    for problem in report.limits.problems:
        say(f"memtui: {shown(problem)}", err=True)
    if as_json:
        print_json(report_json(report))
    else:
        print_report(journal, report)
    for failure in report.failures:
        say(f"memtui undo --gc: {shown(failure)}", err=True)
    return EXIT_PROBLEMS if report.failures else EXIT_OK


def print_report(journal: Journal, report: PruneReport) -> None:
    from memtui.core.write.prune import human_size

    limits = report.limits.describe()
    if not report.removed:
        say(f"nothing to remove (limits: {limits})")
    else:
        say(f"removed {len(report.removed)} journal entries, freed "
            f"{human_size(report.freed)} (limits: {limits}):")
    for item in report.removed:
        record = item.record
        what = item.name if record is None else (
            f"{record.id}  {op_time(record)} UTC  {shown(record.kind)}: {shown(record.title)}")
        say(f"  {shown(what)}  ({human_size(item.size)}, {item.reason})")
    say(f"kept {report.kept} operation(s), {human_size(report.kept_bytes)}, in "
        f"{shown(journal.directory)}")
    if report.protected:
        say(f"kept whatever the limits (an interrupted operation and its undo chain): "
            f"{', '.join(report.protected)}")


def report_json(report: PruneReport) -> dict[str, Any]:
    return {
        "removed": [
            {"id": item.name, "kind": item.record.kind if item.record else None,
             "title": item.record.title if item.record else None,
             "time": item.record.time if item.record else None,
             "size": item.size, "reason": item.reason}
            for item in report.removed
        ],
        "freed": report.freed,
        "kept": report.kept,
        "kept_bytes": report.kept_bytes,
        "protected": report.protected,
        "failures": report.failures,
        "limits": {"max_age_days": report.limits.max_age_days,
                   "max_bytes": report.limits.max_bytes},
    }
