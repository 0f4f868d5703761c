"""The ``memtui`` command: the TUI by default, and subcommands over the same core library."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.core.age import age_text
from memtui.core.locations import Context
from memtui.core.model import LoadReport, ScanResult, Store, StoreKind, StoreLocation

if TYPE_CHECKING:
    from memtui.core.edits import FileDiff, Proposal
    from memtui.core.journal import Journal, OpRecord
    from memtui.core.snapshot_ops import SnapshotAction

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memtui",
        description="See and curate what AI coding agents remember. Without a command, opens "
        "the TUI.",
    )
    parser.add_argument("--claude-home", type=Path, help="CC home (default $CLAUDE_CONFIG_DIR "
                        "or ~/.claude)")
    parser.add_argument("--project", type=Path, help="project directory (default: cwd)")
    parser.add_argument("--agent-memory-home", type=Path,
                        help="agentmemory home (default $AGENT_MEMORY_DIR or ~/.agent-memory)")
    parser.add_argument("--theme", metavar="NAME",
                        help="TUI theme (default $MEMTUI_THEME or memtui-dusk; also "
                        "memtui-paper, Textual's themes and your own in "
                        "~/.config/memtui/themes)")
    parser.add_argument("--demo", action="store_true",
                        help="build the demo home in a temporary directory and open it")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    scan = sub.add_parser("scan", help="list every store and memory of the project")
    scan.add_argument("--json", action="store_true", help="machine-readable output")

    index = sub.add_parser("index", help="what Claude Code loads of a MEMORY.md")
    index.add_argument("path", type=Path)
    index.add_argument("--agent", action="store_true",
                       help="agent memory: measure the raw file (no frontmatter/comment strip)")
    index.add_argument("--json", action="store_true")

    snapshot = sub.add_parser("snapshot", help="agent memory snapshots")
    snap_sub = snapshot.add_subparsers(dest="snapshot_command", metavar="ACTION", required=True)
    status = snap_sub.add_parser("status", help="each agent's snapshot status")
    status.add_argument("--json", action="store_true")
    add_edit_parsers(sub, snap_sub)

    demo = sub.add_parser("demo", help="write the demo home to DIR")
    demo.add_argument("dir", type=Path)
    return parser


def context_from(args: argparse.Namespace) -> Context:
    return Context.create(
        project=args.project,
        claude_home=args.claude_home,
        agent_memory_home=args.agent_memory_home,
    )


def print_json(data: Any) -> None:
    """One compact JSON document (C encoder, one write: large homes print fast)."""
    from memtui.core.cache import gc_paused

    with gc_paused():
        text = json.dumps(data, ensure_ascii=False)
    sys.stdout.write(text + "\n")


def store_heading(store: Store, ctx: Context) -> str:
    loc = store.location
    state = [] if store.exists else ["missing"]
    if not loc.enabled:
        state.append("disabled")
    suffix = f"  [{', '.join(state)}]" if state else ""
    return f"{store.title}  {ctx.show(loc.path)}{suffix}"


def index_summary(report: LoadReport) -> list[str]:
    lines = [
        f"MEMORY.md: {report.lines} lines / 200, {report.units:,} units / 25,000, "
        f"binds: {report.binds}"
    ]
    if report.cut_line is not None:
        lines.append(
            f"Claude stops reading at line {report.cut_line}; "
            f"{len(report.dropped)} entries are never loaded"
        )
    health = report.health
    for entry in health.dangling:
        lines.append(f"dangling: line {entry.line} → {entry.target} (no such file)")
    for orphan in health.orphans:
        lines.append(f"orphan: {orphan} (no index entry points to it)")
    for long in health.long_entries:
        lines.append(f"long entry: line {long.line} is {long.length} chars (over {long.limit})")
    for broken in health.broken_wikilinks:
        lines.append(f"broken link: [[{broken.link}]] in {broken.source}")
    return lines


def print_scan(result: ScanResult, ctx: Context) -> None:
    out = sys.stdout
    branch = f" (git: {result.git_branch})" if result.git_branch else ""
    out.write(f"project {ctx.show(result.project)}{branch}\n")
    out.write(f"claude home {ctx.show(result.claude_home)} ({ctx.claude_home_rule})\n")
    for store in result.stores:
        out.write("\n" + store_heading(store, ctx) + "\n")
        out.write(f"  rule: {store.location.rule}\n")
        if store.location.enabled_rule:
            out.write(f"  {store.location.enabled_rule}\n")
        for problem in store.problems:
            out.write(f"  ! {problem}\n")
        if store.snapshot:
            snap = store.snapshot
            primary = snap.primary
            out.write(
                f"  snapshot: {primary.status} for {snap.acted_scope.value} scope "
                f"(updatedAt {snap.updated_at or '-'}, syncedFrom {primary.synced_from or '-'})"
                f"{'  ! ' + snap.problem if snap.problem else ''}\n"
            )
        if store.session_info:
            info = store.session_info
            title = "(empty: still the template)" if info.empty else (info.title or "untitled")
            out.write(f"  session {info.started or '?'} cwd {info.cwd or '?'}: {title}\n")
        if store.index:
            for line in index_summary(store.index):
                out.write(f"  {line}\n")
        for memory in store.memories:
            kind = memory.type or "-"
            problems = f"  ! {'; '.join(memory.problems)}" if memory.problems else ""
            out.write(
                f"  {kind:<9} {memory.rel_path:<40} {age_text(memory.mtime):>14}"
                f"  {memory.description or ''}{problems}\n"
            )
    if result.projects:
        out.write("\nprojects under the CC home:\n")
        for ref in result.projects:
            out.write(f"  {Path(ref.dir).name}  →  {ref.path or '(path unknown)'}\n")


def cmd_scan(args: argparse.Namespace) -> int:
    from memtui.core.scan import cache_for, scan
    from memtui.core.serialize import scan_json

    ctx = context_from(args)
    result = scan(ctx, cache=cache_for(ctx))
    if args.json:
        print_json(scan_json(result))
    else:
        print_scan(result, ctx)
    return EXIT_OK


def cmd_index(args: argparse.Namespace) -> int:
    from memtui.core.scan import scan_store
    from memtui.core.serialize import load_report_json

    path: Path = args.path
    if path.is_dir():
        path = path / "MEMORY.md"
    if not path.is_file():
        print(f"memtui index: {path} is not a file", file=sys.stderr)
        return EXIT_USAGE
    kind = StoreKind.AGENT if args.agent else StoreKind.AUTO
    store = scan_store(StoreLocation(kind=kind, path=path.parent, rule="given on the command line"))
    report = store.index
    if report is None:
        print(f"memtui index: cannot read {path}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print_json(load_report_json(report))
        return EXIT_OK
    for line in index_summary(report):
        print(line)
    if report.dropped:
        print("entries past the cut (never loaded):")
        for dropped in report.dropped:
            print(f"  line {dropped.line}: {dropped.title} ({dropped.target})")
    if report.warning:
        print(f"Claude Code shows:\n{report.warning}")
    for problem in report.problems:
        print(f"! {problem}")
    return EXIT_OK


def cmd_snapshot_status(args: argparse.Namespace) -> int:
    from memtui.core.scan import cache_for, scan
    from memtui.core.serialize import snapshot_json

    ctx = context_from(args)
    result = scan(ctx, cache=cache_for(ctx))
    snaps = [s for s in result.stores if s.snapshot is not None]
    if args.json:
        print_json(
            [{"agent": s.location.agent, **snapshot_json(s.snapshot)} for s in snaps if s.snapshot]
        )
        return EXIT_OK
    if not snaps:
        print("no agent memory snapshots in this project")
    for store in snaps:
        snap = store.snapshot
        assert snap is not None
        print(f"{snap.agent}: snapshot updatedAt {snap.updated_at or '-'}"
              f"{'  ! ' + snap.problem if snap.problem else ''}")
        for item in snap.scopes:
            acts = "  ← Claude Code acts on this" if item.cc_acts else ""
            print(f"  {item.scope.value:<8} {item.status:<14} {ctx.show(item.local)}  "
                  f"{item.reason}{acts}")
    return EXIT_OK


# --- edits: snapshot actions, delete, undo (all through memtui.core.edits) -------------------

SNAPSHOT_ACTION_NAMES: dict[str, SnapshotAction] = {
    "init": "initialize",
    "replace": "replace",
    "mark-synced": "mark-synced",
}


def add_edit_parsers(sub: Any, snap_sub: Any) -> None:
    """``snapshot init|replace|mark-synced``, ``undo`` and ``delete``."""
    helps = {
        "init": "copy the snapshot into the agent's local memory",
        "replace": "delete the local top-level *.md memories, then copy the snapshot",
        "mark-synced": "keep the local memory; record the snapshot as seen",
    }
    for name, help_text in helps.items():
        action = snap_sub.add_parser(name, help=help_text)
        action.add_argument("agent", metavar="AGENT", help="agent type, as in the snapshot dir")
        action.add_argument("--scope", choices=["user", "project", "local"],
                            help="which local memory (default: the agent's own scope)")
        add_apply_flags(action)
    undo = sub.add_parser("undo", help="undo an operation memtui made, or recover one that "
                          "was interrupted")
    undo.add_argument("op_id", nargs="?", metavar="OP_ID", help="default: the latest")
    undo.add_argument("--list", action="store_true", help="list the journaled operations")
    undo.add_argument("--rollback", metavar="OP_ID",
                      help="put back the files of an interrupted operation")
    undo.add_argument("--complete", metavar="OP_ID", help="finish an interrupted operation")
    undo.add_argument("--force", action="store_true",
                      help="undo/roll back even over files changed since (their changes are lost)")
    undo.add_argument("--json", action="store_true")
    delete = sub.add_parser("delete", help="delete a memory and its MEMORY.md lines")
    delete.add_argument("store", type=Path, metavar="STORE_PATH")
    delete.add_argument("rel_path", metavar="REL_PATH", help="the memory's path in the store")
    add_apply_flags(delete)


def add_apply_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def warn_incomplete_operations() -> None:
    """Name every interrupted operation on stderr, with the commands that recover it."""
    from memtui.core.journal import Journal

    for record in Journal.default().incomplete():
        print(
            f"memtui: operation {record.id} ({record.kind}: {record.title}) was interrupted "
            f"({record.state}, {record.progress}/{len(record.files)} files). Roll it back with "
            f"`memtui undo --rollback {record.id}` or finish it with "
            f"`memtui undo --complete {record.id}`.",
            file=sys.stderr,
        )


def plan_json(proposal: Proposal, diffs: list[FileDiff]) -> dict[str, Any]:
    return {
        "kind": proposal.kind,
        "title": proposal.title,
        "root": str(proposal.root),
        "lock_dir": str(proposal.lock_dir) if proposal.lock_dir else None,
        "notes": proposal.notes,
        "files": [
            {"path": str(d.path), "rel": d.rel, "status": d.status, "binary": d.binary,
             "diff": d.unified}
            for d in diffs
        ],
    }


def print_plan(proposal: Proposal, diffs: list[FileDiff], ctx: Context) -> None:
    out = sys.stdout
    out.write(f"{proposal.title}\n  in {ctx.show(proposal.root)}\n")
    for d in diffs:
        out.write(f"  {d.status:<9} {d.rel}{'  (binary)' if d.binary else ''}\n")
    for note in proposal.notes:
        out.write(f"  * {note}\n")
    for d in diffs:
        if d.status in ("changed", "deleted") and d.rel.endswith(".md") and d.unified:
            out.write("\n" + d.unified)


def ask_to_apply() -> bool | None:
    """True/False from the user; None when stdin is not a terminal."""
    if not sys.stdin.isatty():
        return None
    sys.stderr.write("Apply? [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def confirm_and_apply(proposal: Proposal, args: argparse.Namespace, ctx: Context) -> int:
    """Show the plan unless ``--yes``, ask, then apply through the one write path."""
    from memtui.core.edits import EditRefused, apply
    from memtui.core.journal import Journal

    if not args.yes:
        diffs = proposal.diff()
        if args.json:
            print_json(plan_json(proposal, diffs))
        else:
            print_plan(proposal, diffs, ctx)
        sys.stdout.flush()
        answer = ask_to_apply()
        if answer is None:
            print("memtui: nothing changed; re-run with --yes to apply", file=sys.stderr)
            return EXIT_PROBLEMS
        if not answer:
            print("memtui: nothing changed", file=sys.stderr)
            return EXIT_PROBLEMS
    try:
        done = apply(proposal, Journal.default())
    except EditRefused as exc:
        print(f"memtui: refused: {exc.reason}", file=sys.stderr)
        return EXIT_PROBLEMS
    if args.json:
        print_json(done.record.to_json())
    else:
        print(f"done: {done.title} ({len(done.files)} files); undo with: memtui undo {done.op_id}")
    return EXIT_OK


def cmd_snapshot_action(args: argparse.Namespace) -> int:
    from memtui.core.edits import EditRefused
    from memtui.core.locations import locate
    from memtui.core.model import Scope
    from memtui.core.scan import scan_snapshot
    from memtui.core.snapshot_ops import plan_snapshot

    ctx = context_from(args)
    locations = locate(ctx)
    found = [loc for loc in locations.snapshots if (loc.agent or loc.path.name) == args.agent]
    if not found:
        names = ", ".join(sorted(loc.agent or loc.path.name for loc in locations.snapshots))
        print(f"memtui snapshot: no snapshot for agent {args.agent!r} "
              f"(snapshots: {names or 'none'})", file=sys.stderr)
        return EXIT_USAGE
    snapshot = scan_snapshot(found[0], locations).snapshot
    assert snapshot is not None
    scope = Scope(args.scope) if args.scope else snapshot.acted_scope
    local = snapshot.for_scope(scope).local
    try:
        action = SNAPSHOT_ACTION_NAMES[args.snapshot_command]
        proposal = plan_snapshot(snapshot.snapshot_dir, local, action)
    except EditRefused as exc:
        print(f"memtui: refused: {exc.reason}", file=sys.stderr)
        return EXIT_PROBLEMS
    proposal.title += f" ({scope.value} scope)"
    return confirm_and_apply(proposal, args, ctx)


def cmd_delete(args: argparse.Namespace) -> int:
    from memtui.core.edits import EditRefused
    from memtui.core.memory_ops import plan_delete_memory
    from memtui.core.scan import cache_for, scan, scan_store

    ctx = context_from(args)
    wanted = Path(os.path.realpath(args.store))
    stores = [s for s in scan(ctx, cache=cache_for(ctx)).stores
              if Path(os.path.realpath(s.path)) == wanted]
    store = stores[0] if stores else scan_store(
        StoreLocation(kind=StoreKind.AUTO, path=args.store, rule="given on the command line"))
    memory = next((m for m in store.memories if m.rel_path == args.rel_path), None)
    if memory is None:
        print(f"memtui delete: no memory {args.rel_path!r} in {args.store}", file=sys.stderr)
        return EXIT_USAGE
    try:
        proposal = plan_delete_memory(store, memory)
    except EditRefused as exc:
        print(f"memtui: refused: {exc.reason}", file=sys.stderr)
        return EXIT_PROBLEMS
    return confirm_and_apply(proposal, args, ctx)


def op_line(record: OpRecord, undone: bool) -> str:
    stamp = record.time.replace("T", " ")[:19]
    state = "undone" if undone else record.state
    if record.incomplete:
        state += " (interrupted)"
    return f"{record.id}  {stamp} UTC  {state:<10} {record.kind:<20} {record.title}"


def cmd_undo(args: argparse.Namespace) -> int:
    from memtui.core.edits import EditRefused
    from memtui.core.journal import Journal

    journal = Journal.default()
    chosen = [x for x in (args.op_id, args.rollback, args.complete) if x] + (
        ["--list"] if args.list else [])
    if len(chosen) > 1:
        print("memtui undo: give one of OP_ID, --list, --rollback, --complete", file=sys.stderr)
        return EXIT_USAGE
    if args.list:
        return list_operations(journal, args.json)
    try:
        if args.rollback:
            record = journal.rollback(args.rollback, force=args.force)
            print(f"rolled back {record.id} ({record.kind}: {record.title})")
            return EXIT_OK
        if args.complete:
            record = journal.complete(args.complete)
            print(f"completed {record.id} ({record.kind}: {record.title})")
            return EXIT_OK
        target = journal.get(args.op_id) if args.op_id else journal.latest_undoable()
        if target is None:
            print("memtui undo: nothing to undo", file=sys.stderr)
            return EXIT_PROBLEMS
        done = journal.undo(target.id, force=args.force)
    except KeyError as exc:
        print(f"memtui undo: no operation {exc.args[0]!r} in {journal.directory}",
              file=sys.stderr)
        return EXIT_USAGE
    except EditRefused as exc:
        print(f"memtui: refused: {exc.reason}", file=sys.stderr)
        return EXIT_PROBLEMS
    if args.json:
        print_json(done.record.to_json())
    else:
        print(f"undid {target.id} ({target.title}) as operation {done.op_id}; "
              f"`memtui undo {done.op_id}` redoes it")
    return EXIT_OK


def list_operations(journal: Journal, as_json: bool) -> int:
    records = journal.list()
    if as_json:
        print_json([{**r.to_json(), "undone": journal.is_undone(r)} for r in records])
        return EXIT_OK
    if not records:
        print(f"no operations in {journal.directory}")
    for record in records:
        print(op_line(record, journal.is_undone(record)))
        for item in record.files:
            print(f"    {item.action:<6} {item.path}")
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from memtui.core.demo import build_demo_home

    home = build_demo_home(args.dir)
    print(f"demo home written to {home.root}")
    print(
        f"try: memtui --claude-home {home.claude_home} --project {home.project} "
        f"--agent-memory-home {home.agent_memory_home} scan"
    )
    return EXIT_OK


def use_demo_home(args: argparse.Namespace) -> None:
    """``--demo``: build the demo home in a temporary directory and point every option at it."""
    import tempfile

    from memtui.core.demo import build_demo_home

    home = build_demo_home(Path(tempfile.mkdtemp(prefix="memtui-demo-")))
    args.claude_home, args.project = home.claude_home, home.project
    args.agent_memory_home = home.agent_memory_home
    print(f"memtui: demo home in {home.root}", file=sys.stderr)


def run_tui(args: argparse.Namespace) -> int:
    from memtui.tui.app import run_app

    return run_app(context_from(args), theme=args.theme)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.demo:
            use_demo_home(args)
        if args.command == "scan":
            return cmd_scan(args)
        if args.command == "index":
            return cmd_index(args)
        if args.command not in ("undo", "demo"):
            warn_incomplete_operations()
        if args.command == "snapshot" and args.snapshot_command != "status":
            return cmd_snapshot_action(args)
        if args.command == "snapshot":
            return cmd_snapshot_status(args)
        if args.command == "undo":
            return cmd_undo(args)
        if args.command == "delete":
            return cmd_delete(args)
        if args.command == "demo":
            return cmd_demo(args)
        return run_tui(args)
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
