"""``memtui team check``: team memory as Claude Code would push it."""

from __future__ import annotations

import argparse

from memtui.cli.common import EXIT_OK, EXIT_PROBLEMS, context_from, print_json, say, shown


def cmd_team_check(args: argparse.Namespace) -> int:
    from memtui.core.stores.locations import locate
    from memtui.core.team.push import MAX_BATCH_BYTES, plan_push
    from memtui.core.team.repo import origin_repo

    ctx = context_from(args)
    team = locate(ctx).team
    repo, found = origin_repo(ctx.project)
    plan = plan_push(team.path)
    if args.json:
        print_json({
            "team_dir": str(team.path),
            "repo": repo,
            "origin": found,
            "files": [{
                "key": f.key, "fate": f.fate, "reason": f.reason, "bytes": f.size,
                "checksum": f.checksum,
                "secrets": [{"rule": h.rule, "line": h.line} for h in f.secrets],
            } for f in plan.files],
            "batches": plan.batches,
            "batch_limit": MAX_BATCH_BYTES,
        })
        return EXIT_PROBLEMS if plan.refused else EXIT_OK
    where = shown(ctx.show(team.path))
    if repo:
        say(f"team memory {where} syncs for {shown(repo)}")
    else:
        say(f"team memory {where}: no GitHub origin ({shown(found)}): team memory does not sync")
    if not plan.files:
        say("no files" if team.path.is_dir() else "the team directory does not exist")
    for item in plan.files:
        label = f"{item.fate}: {item.reason}" if item.reason else item.fate
        tail = f"  {item.checksum}" if item.fate == "push" and item.checksum else ""
        say(f"  {label:<44} {shown(item.key)}{tail}")
        for hit in item.secrets:
            say(f"      line {hit.line}: {hit.rule} {shown(hit.masked)} "
                "(rotate it: it was on disk)")
    sizes = {f.key: f.size for f in plan.files}
    for number, keys in enumerate(plan.batches, 1):
        total = sum(sizes[k] for k in keys)
        files = "file" if len(keys) == 1 else "files"
        say(f"batch {number}: {len(keys)} {files}, {total:,} bytes (limit {MAX_BATCH_BYTES:,})")
    refused = len(plan.refused)
    if refused:
        say(f"{refused} file{'s' if refused != 1 else ''} would be refused on push")
    return EXIT_PROBLEMS if refused else EXIT_OK
