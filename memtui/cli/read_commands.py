"""Commands that only read: ``scan``, ``index`` and ``snapshot status``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memtui.cli.common import EXIT_OK, EXIT_USAGE, context_from, print_json
from memtui.core.age import age_text
from memtui.core.locations import Context
from memtui.core.model import StoreKind, StoreLocation

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from memtui.core.contents import LoadReport, ScanResult, Store


def store_heading(store: Store, ctx: Context) -> str:
    loc = store.location
    state = [] if store.exists else ["missing"]
    if not loc.enabled:
        state.append("disabled")
    suffix = f"  [{', '.join(state)}]" if state else ""
    return f"{store.title}  {ctx.show(loc.path)}{suffix}"


def index_summary(report: LoadReport) -> list[str]:
    lines = [
        f"{Path(report.path).name}: {report.lines} lines / 200, "
        f"{report.units:,} units / 25,000, "
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
    ctx = context_from(args)
    if args.json:
        from memtui.core.scan_text import scan_json_text

        sys.stdout.write(scan_json_text(ctx).text)
        sys.stdout.write("\n")
        return EXIT_OK
    from memtui.core.scan import cache_for, scan

    print_scan(scan(ctx, cache=cache_for(ctx)), ctx)
    return EXIT_OK


def cmd_index(args: argparse.Namespace) -> int:
    from memtui.core.scan import INDEX_NAME, compute_store_index, own_index_dirs, scan_store
    from memtui.core.serialize import load_report_json

    path: Path = args.path
    if path.is_dir():
        path = path / INDEX_NAME
    if not path.is_file():
        print(f"memtui index: {path} is not a file", file=sys.stderr)
        return EXIT_USAGE
    kind = StoreKind.AGENT if args.agent else StoreKind.AUTO
    location = StoreLocation(kind=kind, path=path.parent, rule="given on the command line")
    if path.name == INDEX_NAME:
        report = scan_store(location).index
    else:  # any other file is measured as if it were the index of its folder
        store = scan_store(location, index=False)
        report = compute_store_index(store, own_index_dirs(store), path.name)
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
