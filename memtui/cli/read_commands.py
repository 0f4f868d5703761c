"""Commands that only read: ``scan``, ``index`` and ``snapshot status``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memtui.cli.common import EXIT_OK, EXIT_USAGE, context_from, print_json, say, shown
from memtui.core.plaintext import counted, has_controls

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Sequence

    from memtui.core.contents import LoadReport, Memory, ScanResult, Store
    from memtui.core.stores.locations import Context

INDEX_LIST_LIMIT = 25
"""Items ``memtui index`` prints of each list (dangling, orphans, long entries, broken links,
entries past the cut, problems); ``--json`` lists all."""


def store_heading(store: Store, ctx: Context) -> str:
    loc = store.location
    state = [] if store.exists else ["missing"]
    if not loc.enabled:
        state.append("disabled")
    suffix = f"  [{', '.join(state)}]" if state else ""
    return f"{shown(store.title)}  {shown(ctx.show(loc.path))}{suffix}"


def more_line(items: Sequence[object], limit: int | None, indent: str = "") -> list[str]:
    """The line that stands for the items past the first ``limit`` (none when none are)."""
    if limit is None or len(items) <= limit:
        return []
    return [f"{indent}… and {len(items) - limit:,} more (--json lists all)"]


def _missing(target: str | None) -> str:
    return "no such folder" if (target or "").endswith("/") else "no such file"


def index_summary(report: LoadReport, limit: int | None = None) -> list[str]:
    """The report as text lines; ``limit``: items shown of each list (None: all)."""
    lines = [
        f"{Path(report.path).name}: {report.lines} lines / 200, "
        f"{report.units:,} units / 25,000, "
        f"binds: {report.binds}"
    ]
    if report.cut_line is not None:
        lines.append(
            f"Claude stops reading at line {report.cut_line}; "
            f"{counted(len(report.dropped), 'entry', 'entries')} "
            f"{'is' if len(report.dropped) == 1 else 'are'} never loaded"
        )
    health = report.health
    for entry in health.dangling[:limit]:
        lines.append(f"dangling: line {entry.line} → {shown(entry.target)} "
                     f"({_missing(entry.target)})")
    lines += more_line(health.dangling, limit)
    for item in health.topic_dangling[:limit]:
        lines.append(f"dangling: {shown(item.file)} line {item.line} → {shown(item.target)} "
                     f"({_missing(item.target)})")
    lines += more_line(health.topic_dangling, limit)
    for orphan in health.orphans[:limit]:
        lines.append(f"orphan: {shown(orphan)} (no index entry points to it)")
    lines += more_line(health.orphans, limit)
    for topic, count in health.listed_counts():
        lines.append(f"listed: {counted(count, 'memory', 'memories')} in {shown(topic)} "
                     "(a topic file distil wrote that the index points to: not orphans)")
    for long in health.long_entries[:limit]:
        lines.append(f"long entry: line {long.line} is {long.length} chars (over {long.limit})")
    lines += more_line(health.long_entries, limit)
    for broken in health.broken_wikilinks[:limit]:
        lines.append(f"broken link: [[{shown(broken.link)}]] in {shown(broken.source)}")
    lines += more_line(health.broken_wikilinks, limit)
    if health.wikilinks_checked == "headers":
        lines.append("[[wikilinks]] checked in MEMORY.md and the first 30 lines of each memory "
                     "file (memtui index checks whole files)")
    return lines


def memory_row(memory: Memory) -> str:
    """One memory's line of ``scan``: type, path, age, description and problems. A value with
    a control character (an ESC, a newline in a file name) is shown escaped, a secret masked;
    one check of all of them keeps the common case, thousands of plain rows, cheap."""
    values = [memory.type or "-", memory.rel_path, memory.description or "",
              "; ".join(memory.problems)]
    from memtui.core.age import age_text
    from memtui.core.secrets.mask import may_hold_secret

    joined = "".join(values)
    if has_controls(joined) or may_hold_secret(joined):
        values = [shown(value) for value in values]
    kind, rel, description, problems = values
    flagged = f"  ! {problems}" if memory.problems else ""
    return f"  {kind:<9} {rel:<40} {age_text(memory.mtime):>14}  {description}{flagged}\n"


def print_scan(result: ScanResult, ctx: Context) -> None:
    """The scan as text; every value from disk through ``shown`` (controls escaped)."""
    out = sys.stdout
    branch = f" (git: {shown(result.git_branch)})" if result.git_branch else ""
    say(f"project {shown(ctx.show(result.project))}{branch}")
    if ctx.project_note:
        say(f"  {shown(ctx.project_note)}")
    say(f"claude home {shown(ctx.show(result.claude_home))} ({shown(ctx.claude_home_rule)})")
    for store in result.stores:
        say("\n" + store_heading(store, ctx))
        say(f"  rule: {shown(store.location.rule)}")
        if store.location.enabled_rule:
            say(f"  {shown(store.location.enabled_rule)}")
        for problem in store.problems:
            say(f"  ! {shown(problem)}")
        if store.snapshot:
            snap = store.snapshot
            primary = snap.primary
            say(
                f"  snapshot: {primary.status} for {snap.acted_scope.value} scope "
                f"(updatedAt {shown(snap.updated_at or '-')}, "
                f"syncedFrom {shown(primary.synced_from or '-')})"
                f"{'  ! ' + shown(snap.problem) if snap.problem else ''}"
            )
        if store.session_info:
            info = store.session_info
            title = "(empty: still the template)" if info.empty else (info.title or "untitled")
            say(f"  session {shown(info.started or '?')} cwd {shown(info.cwd or '?')}: "
                f"{shown(title)}")
        if store.index:
            for line in index_summary(store.index):
                say(f"  {line}")
        for memory in store.memories:
            out.write(memory_row(memory))
    if result.projects:
        say("\nprojects under the CC home:")
        for ref in result.projects:
            say(f"  {shown(Path(ref.dir).name)}  →  {shown(ref.path or '(path unknown)')}")
        say("  (--project-dir NAME opens one by its directory here, whatever its path)")


def cmd_scan(args: argparse.Namespace) -> int:
    ctx = context_from(args)
    if args.json:
        import os

        from memtui.core.scan.json_text import scan_json_text

        sys.stdout.write(scan_json_text(ctx).text)  # JSON-safe as it is rendered
        sys.stdout.write("\n")
        if not os.path.isdir(ctx.claude_home):  # a first run: say so (the stores are not read)
            say_nothing_found(ctx, [])
        return EXIT_OK
    from memtui.core.scan.scanner import cache_for, scan

    result = scan(ctx, cache=cache_for(ctx))
    print_scan(result, ctx)
    say_nothing_found(ctx, result.stores)
    return EXIT_OK


def say_nothing_found(ctx: Context, stores: list[Store]) -> None:
    """On stderr, when no store holds a memory: what was looked for, where, what to try."""
    from memtui.cli.common import TRY_TEXT
    from memtui.core.stores.projects import nothing_found

    found = nothing_found(ctx, stores)
    if found is not None:
        say(f"memtui: {shown(found)}\nmemtui: {TRY_TEXT}", err=True)


def cmd_index(args: argparse.Namespace) -> int:
    from memtui.core.cache import gc_paused

    with gc_paused():  # a runaway index makes 100,000 objects: no collection walks them all
        return index_command(args)


def index_command(args: argparse.Namespace) -> int:
    from memtui.core.model import StoreKind, StoreLocation
    from memtui.core.scan.scanner import scan_store
    from memtui.core.scan.store_index import (
        INDEX_NAME,
        check_whole_files,
        compute_store_index,
        own_index_dirs,
    )

    path: Path = args.path
    if path.is_dir():
        path = path / INDEX_NAME
    if not path.is_file():
        say(f"memtui index: {shown(path)} is not a file", err=True)
        return EXIT_USAGE
    kind = StoreKind.AGENT if args.agent else StoreKind.AUTO
    location = StoreLocation(kind=kind, path=path.parent, rule="given on the command line")
    if path.name == INDEX_NAME:  # secrets are no part of a load report: not looked for
        store = scan_store(location, secrets=False, lazy_index=True)  # 25 of each list shown
        report = store.index
    else:  # any other file is measured as if it were the index of its folder
        store = scan_store(location, index=False, secrets=False)
        report = compute_store_index(store, own_index_dirs(store), path.name, lazy=True)
    if report is None:
        say(f"memtui index: cannot read {shown(path)}", err=True)
        return EXIT_USAGE
    report = check_whole_files(store, report, name=path.name)  # [[links]] past line 30 too
    if args.json:
        from memtui.core.scan.serialize import load_report_json

        print_json(load_report_json(report))
        return EXIT_OK
    limit = INDEX_LIST_LIMIT
    out = index_summary(report, limit)
    if report.dropped:
        out.append("entries past the cut (never loaded):")
        out += [f"  line {dropped.line}: {shown(dropped.title)} ({shown(dropped.target)})"
                for dropped in report.dropped[:limit]]
        out += more_line(report.dropped, limit, "  ")
    if report.warning:
        out.append(f"Claude Code shows:\n{report.warning}")
    out += [f"! {shown(problem)}" for problem in report.problems[:limit]]
    out += more_line(report.problems, limit)
    say("\n".join(out))
    return EXIT_OK


def cmd_snapshot_status(args: argparse.Namespace) -> int:
    from memtui.core.scan.scanner import cache_for, scan
    from memtui.core.scan.serialize import snapshot_json

    ctx = context_from(args)
    result = scan(ctx, cache=cache_for(ctx))
    snaps = [s for s in result.stores if s.snapshot is not None]
    if args.json:
        print_json(
            [{"agent": s.location.agent, **snapshot_json(s.snapshot)} for s in snaps if s.snapshot]
        )
        return EXIT_OK
    if not snaps:
        say("no agent memory snapshots in this project")
    for store in snaps:
        snap = store.snapshot
        assert snap is not None
        say(f"{shown(snap.agent)}: snapshot updatedAt {shown(snap.updated_at or '-')}"
            f"{'  ! ' + shown(snap.problem) if snap.problem else ''}")
        for item in snap.scopes:
            acts = "  ← Claude Code acts on this" if item.cc_acts else ""
            say(f"  {item.scope.value:<8} {item.status:<14} {shown(ctx.show(item.local))}  "
                f"{shown(item.reason)}{acts}")
    return EXIT_OK


# --- edits: snapshot actions, delete, undo (all through memtui.core.write.apply) ----------------
