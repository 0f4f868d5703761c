"""``memtui judge``: candidate pairs of memories (and CLAUDE.md rules), their verdicts and the
ledger's state; ``memtui judge resolve PAIR DECISION`` records a decision."""

from __future__ import annotations

import argparse
from pathlib import Path

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
from memtui.cli.parser import MAX_SENT_PAIRS  # noqa: F401  (tests check it)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from memtui.core.judge.groups import Group
    from memtui.core.judge.providers import Estimate
    from memtui.core.judge.run import JudgeRun
    from memtui.core.judge.session import JudgeSession
    from memtui.core.judge.verdicts import JudgedPair, JudgeItem, Verdict


def _side(item: JudgeItem) -> dict[str, Any]:
    return {
        "key": item.key,
        "kind": item.kind,
        "scope": item.scope,
        "agent": item.agent,
        "path": item.rel_path,
        "file": item.file,
        "line": item.line,
        "name": item.name,
        "modified": item.modified,
        "mtime": item.mtime or None,
    }


def _verdict(verdict: Verdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {
        "relation": verdict.relation.value,
        "winner": verdict.winner,
        "confidence": verdict.confidence,
        "reason": verdict.reason,
        "judge": verdict.judge,
        "evidence": list(verdict.evidence),
        "fallback": verdict.fallback,
    }


def _pair_json(pair: JudgedPair) -> dict[str, Any]:
    c = pair.candidate
    return {
        "id": c.id,
        "state": pair.state,
        "score": c.score,
        "reasons": list(c.reasons),
        "a": _side(c.a),
        "b": _side(c.b),
        "verdict": _verdict(pair.verdict),
        "previous": _verdict(pair.previous),
        "notes": pair.notes,
    }


def _estimate_json(estimate: Estimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {
        "provider": estimate.provider,
        "model": estimate.model,
        "pairs": estimate.pairs,
        "memories": estimate.memories,
        "requests": estimate.requests,
        "groups": estimate.groups,
        "input_tokens": estimate.input_tokens,
        "cache_read_tokens": estimate.cache_read_tokens,
        "cache_write_tokens": estimate.cache_write_tokens,
        "output_tokens": estimate.output_tokens,
        "cost_usd": round(estimate.cost_usd, 6),
        "redactions": estimate.redactions,
        "notes": estimate.notes,
    }


def _print_pair(pair: JudgedPair) -> None:
    c, verdict = pair.candidate, pair.verdict or pair.previous
    head = f"{verdict.relation.value} {verdict.confidence:.2f}" if verdict else "not judged"
    by = f" by {verdict.judge}" if verdict else ""
    say(f"[{c.id}] {head}{by} ({pair.state}; {', '.join(c.reasons)})")
    for tag, item in (("A", c.a), ("B", c.b)):
        when = f"  modified {item.modified}" if item.modified else ""
        win = "  ← keep" if verdict is not None and verdict.winner == tag.lower() else ""
        say(f"  {tag} {shown(item.label)}{shown(when)}{win}")
    if verdict is not None:
        say(f"  {shown(verdict.reason)}")
        for tag, quote in zip("AB", verdict.evidence, strict=False):
            say(f"  {tag}: “{shown(quote)}”")
        if verdict.fallback:
            say(f"  (judged locally: {shown(verdict.fallback)})")


def cmd_judge(args: argparse.Namespace) -> int:
    if getattr(args, "judge_command", None) == "resolve":
        return cmd_judge_resolve(args)
    if getattr(args, "judge_command", None) == "archive":
        return cmd_judge_archive(args)
    if getattr(args, "judge_command", None) == "restore":
        return cmd_judge_restore(args)
    from memtui.core.judge.groups import group_json, group_pairs
    from memtui.core.judge.providers import ProviderError
    from memtui.core.judge.session import JudgeSession
    from memtui.core.model import StoreKind

    ctx = context_from(args)
    config = settings_of(args, ctx)
    if args.max_pairs < 1:
        say("memtui judge: --max-pairs must be 1 or more", err=True)
        return EXIT_USAGE
    kinds = [StoreKind(k) for k in args.store] if args.store else None
    try:
        session = JudgeSession.start(
            ctx, config, provider=args.provider, batch=True if args.batch else None,
            kinds=kinds, claude_md=not args.no_claude_md, rejudge=args.rejudge,
            max_pairs=args.max_pairs)
    except ProviderError as err:
        say(f"memtui judge: {shown(err)}", err=True)
        return EXIT_USAGE
    if session.held_back:
        session.run.notes.append(f"only the best {len(session.todo)} pairs sent (--max-pairs)")
    if session.asks_first:
        refused = _check_spend(session, args)
        if refused is not None:
            return refused
    session.send()
    run, usage = session.run, session.usage
    shown_pairs = session.pairs(every=args.all)
    if args.json:
        print_json(
            {
                "provider": session.judge.name,
                "items": len(run.items),
                "candidates": len(run.pairs),
                "judged": run.judged,
                "open": len(run.open_pairs()),
                "estimate": _estimate_json(session.estimate),
                "usage": vars(usage) if usage is not None else None,
                "notes": session.notes,
                "pairs": [_pair_json(p) for p in shown_pairs],
                "groups": [group_json(g) for g in group_pairs(run.open_pairs())],
            }
        )
        return EXIT_PROBLEMS if run.open_pairs() else EXIT_OK
    return _print_run(run, session.notes, session.judge.name, list(shown_pairs), usage, args.all,
                      group_pairs(run.open_pairs()))


def _check_spend(session: JudgeSession, args: argparse.Namespace) -> int | None:
    """Print what would be sent; refuse it over the spend cap, else ask (unless ``--yes``)."""
    estimate = session.estimate
    if estimate is None:  # nothing leaves the machine (not session.asks_first)
        return None
    say(f"memtui judge: would send {shown(estimate.describe())}", err=True)
    for note in estimate.notes:
        say(f"  {shown(note)}", err=True)
    refusal = session.spend_check()
    if refusal is not None:
        say(f"memtui judge: that is {refusal}", err=True)
        return EXIT_PROBLEMS
    if args.yes:
        return None
    from memtui.cli.common import ask_to_apply

    answer = ask_to_apply("Send?")
    if answer is None:
        say("memtui judge: nothing was sent; re-run with --yes to send", err=True)
        return EXIT_PROBLEMS
    if not answer:
        say("memtui judge: nothing was sent", err=True)
        return EXIT_PROBLEMS
    return None


def _print_group(group: Group) -> None:
    """A group of three or more: its id, relation and readable name, its members numbered
    (what ``resolve GROUP keep N`` takes; the one kept by default marked), one line per pair."""
    from memtui.core.judge.group_names import group_name, pair_name
    from memtui.core.judge.group_resolve import default_keep

    kept = default_keep(group)
    say(f"[{group.id}] group: {group.relation.value} · {len(group.members)} memories, "
        f"{len(group.pairs)} pairs: {shown(group_name(group.members))}")
    number = {m.key: n for n, m in enumerate(group.members, 1)}
    for n, item in enumerate(group.members, 1):
        when = f"  modified {item.modified}" if item.modified else ""
        mark = "  ← keep" if item.key == kept.key else ""
        say(f"  {n} {shown(item.label)}{shown(when)}{mark}")
    for pair in group.pairs:
        c, verdict = pair.candidate, pair.verdict or pair.previous
        head = f"{verdict.relation.value} {verdict.confidence:.2f}" if verdict else "not judged"
        say(f"  [{c.id}] {head}  {number[c.a.key]} ↔ {number[c.b.key]}  "
            f"{shown(pair_name(c.a, c.b))}")


def _print_run(
    run: JudgeRun, notes: list[str], provider: str, pairs: list[JudgedPair], usage: Any,
    every: bool, groups: list[Group] | None = None,
) -> int:
    open_pairs = run.open_pairs()
    memories = sum(1 for i in run.items if i.kind != "claude-md")
    rules = len(run.items) - memories
    say(
        f"judge: {provider} · {memories} memories, {rules} CLAUDE.md rules · "
        f"{len(run.pairs)} candidate pairs · {run.judged} judged now · "
        f"{len(open_pairs)} need a decision"
    )
    if usage is not None and usage.requests:
        say(
            f"sent {usage.requests} requests: {usage.input_tokens:,} input tokens "
            f"({usage.cache_read_tokens:,} from cache), {usage.output_tokens:,} output, "
            f"${usage.cost_usd:.4f}"
        )
    for note in notes:
        say(f"note: {shown(note)}")
    big = [g for g in groups or [] if len(g.members) > 2]
    in_groups = {p.candidate.id for g in big for p in g.pairs}
    if big:
        say()
        from memtui.core.plaintext import counted

        say(f"{counted(len(big), 'group')} (one decision settles every pair of a group):")
    for group in big:
        say()
        _print_group(group)
    for pair in pairs:
        if pair.candidate.id in in_groups and not every:
            continue
        say()
        _print_pair(pair)
    if open_pairs and not every:
        say()
        say(
            "decide with: memtui judge resolve PAIR a|b (keep that side, archive the other), "
            "scoped (an \"applies when\" note on each), merge (one memory in place of both) or "
            "related|compatible|not_conflict (or press J in the TUI); --all lists every candidate"
        )
        if big:
            say("a group: memtui judge resolve GROUP keep [N] (keep member N, archive the "
                "rest), merge, scoped or related|compatible|not_conflict (one operation, one "
                "undo)")
    return EXIT_PROBLEMS if open_pairs else EXIT_OK


def cmd_judge_resolve(args: argparse.Namespace) -> int:
    from memtui.core.judge.finder import judge_candidates
    from memtui.core.judge.groups import is_group_id
    from memtui.core.judge.ledger import USER, Ledger, default_ledger_path
    from memtui.core.judge.run import collect_items
    from memtui.core.judge.verdicts import Relation, Verdict
    from memtui.core.scan.scanner import cache_for, scan

    ctx = context_from(args)
    result = scan(ctx, cache=cache_for(ctx))
    items, _problems = collect_items(ctx, result, None)
    candidates = {c.id: c for c in judge_candidates(items, ctx=ctx)}
    if is_group_id(args.pair):
        return _resolve_group(args, ctx, result, list(candidates.values()))
    if args.decision == "keep":
        if args.member not in ("a", "b"):
            say("memtui judge resolve: keep a pair's side with a or b", err=True)
            return EXIT_USAGE
        args.decision = args.member
    elif args.member is not None:
        say(f"memtui judge resolve: {shown(args.decision)} takes no MEMBER for a pair", err=True)
        return EXIT_USAGE
    if args.keep not in (None, "a", "b"):
        say("memtui judge resolve: --keep takes a or b for a pair", err=True)
        return EXIT_USAGE
    candidate = candidates.get(args.pair)
    if candidate is None:
        say(f"memtui judge resolve: no candidate pair {shown(args.pair)} now (run memtui judge "
            "for the current ids)", err=True)
        return EXIT_USAGE
    ledger = Ledger.load(default_ledger_path(ctx.env))
    if args.decision in ("a", "b"):
        return _keep_side(args, ctx, result, candidate, ledger)
    if args.decision == "scoped":
        return _scope_both(args, ctx, result, candidate, ledger)
    if args.decision == "merge":
        return _merge_both(args, ctx, result, candidate, ledger)
    verdict = Verdict(Relation(args.decision), 1.0, f"decided: {args.decision}", USER)
    ledger.record(candidate, verdict, note=args.decision)
    problem = ledger.save()
    if problem:
        say(f"memtui judge resolve: {shown(problem)}; the decision is not recorded", err=True)
        return EXIT_PROBLEMS
    if args.json:
        print_json({"id": candidate.id, "decision": args.decision, "a": _side(candidate.a),
                    "b": _side(candidate.b)})
    else:
        say(f"[{candidate.id}] decided: {args.decision} (not raised again until one side "
            "changes)")
        say(f"  A {shown(candidate.a.label)}")
        say(f"  B {shown(candidate.b.label)}")
    return EXIT_OK


def _decide(args: argparse.Namespace, ctx: Any, plan: Callable[[], Any],
            after: Callable[[Any, Any], str]) -> int:
    """Plan a decision (a refusal is said, exit 1), then preview, ask and apply its
    ``proposal``; ``after(planned, done)`` records it once applied and says what it did."""
    from memtui.cli.edit_commands import confirm_and_apply
    from memtui.core.write.dirfd import EditRefused

    try:
        planned = plan()
    except EditRefused as exc:
        say(f"memtui: refused: {shown(exc.reason)}; nothing was written", err=True)
        return EXIT_PROBLEMS
    return confirm_and_apply(planned.proposal, args, ctx, lambda done: after(planned, done))


def _archived(entry: Any) -> str:
    return f"archived as {entry.id} (memtui judge restore {entry.id} puts it back)"


def _keep_side(args: argparse.Namespace, ctx: Any, result: Any, candidate: Any,
               ledger: Any) -> int:
    from memtui.core.judge.archive import Archive
    from memtui.core.judge.resolve import finish_keep, plan_keep

    archive = Archive.default(ctx.env)
    return _decide(args, ctx, lambda: plan_keep(result, candidate, args.decision),
                   lambda plan, done: _archived(finish_keep(plan, done, archive, ledger)))


def _scope_both(args: argparse.Namespace, ctx: Any, result: Any, candidate: Any,
                ledger: Any) -> int:
    from memtui.core.judge.scoped import finish_scoped, plan_scoped, propose_notes

    known = ledger.lookup(candidate)
    notes = propose_notes(candidate, known.verdict or known.previous)
    for tag, given in (("a", args.when_a), ("b", args.when_b)):
        if given is not None:
            notes[tag] = given
    unnamed = [tag for tag, text in notes.items() if not text.strip()]
    if unnamed:
        flags = " and ".join(f"--when-{tag} TEXT" for tag in unnamed)
        say("memtui judge resolve: no condition that differs between the two could be named for "
            f"{' and '.join(t.upper() for t in unnamed)}: say when each applies with {flags} "
            "(e.g. --when-a 'in staging')", err=True)
        return EXIT_USAGE

    def after(plan: Any, _done: Any) -> str:
        finish_scoped(plan, ledger)
        return "decided: scoped (not raised again until one side changes)"

    return _decide(args, ctx, lambda: plan_scoped(result, candidate, notes), after)


def _merge_both(args: argparse.Namespace, ctx: Any, result: Any, candidate: Any,
                ledger: Any) -> int:
    from memtui.core.fileread import read_file
    from memtui.core.judge.archive import FILE_CAP, Archive
    from memtui.core.judge.merge import finish_merge, kept_side, plan_merge

    merged = None
    if args.merged_file is not None:
        read = read_file(args.merged_file, FILE_CAP)
        if not read.readable or not read.complete:
            problem = "; ".join(read.problems) or "cannot read it"
            say(f"memtui judge resolve: --merged-file {shown(args.merged_file)}: "
                f"{shown(problem)}", err=True)
            return EXIT_USAGE
        merged = read.data
    keep = args.keep or kept_side(candidate)
    archive = Archive.default(ctx.env)
    return _decide(args, ctx, lambda: plan_merge(result, candidate, keep, merged),
                   lambda plan, done: _archived(finish_merge(plan, done, archive, ledger)))


def _resolve_group(args: argparse.Namespace, ctx: Any, result: Any, candidates: list[Any]
                   ) -> int:
    """``resolve GROUP DECISION``: the group as ``memtui judge`` listed it (the pairs the ledger
    holds verdicts for), one operation for all of it."""
    from memtui.core.judge.groups import group_pairs
    from memtui.core.judge.ledger import Ledger, default_ledger_path
    from memtui.core.write.dirfd import EditRefused

    ledger = Ledger.load(default_ledger_path(ctx.env))
    groups = {g.id: g for g in group_pairs(ledger.lookup(c) for c in candidates)}
    group = groups.get(args.pair)
    if group is None:
        say(f"memtui judge resolve: no group {shown(args.pair)} now (run memtui judge for the "
            "current ids)", err=True)
        return EXIT_USAGE
    if args.decision in ("a", "b"):
        say("memtui judge resolve: a group has no sides a and b: keep MEMBER keeps one "
            "(its number in the group or its file name) and archives the rest", err=True)
        return EXIT_USAGE
    if args.member is not None and args.decision != "keep":
        say(f"memtui judge resolve: {shown(args.decision)} takes no MEMBER (merge: --keep "
            "MEMBER)", err=True)
        return EXIT_USAGE
    try:
        planner = _group_planner(args, result, group, ledger)
    except EditRefused as exc:
        say(f"memtui judge resolve: {shown(exc.reason)}", err=True)
        return EXIT_USAGE
    if planner is None:
        return EXIT_USAGE
    return _decide(args, ctx, planner, lambda plan, done: _group_done(plan, done, ctx, ledger))


def _group_planner(args: argparse.Namespace, result: Any, group: Any, ledger: Any
                   ) -> Callable[[], Any] | None:
    """What plans the group decision ``args`` asks for (EditRefused: a member it names is
    not in the group; None: a file it names cannot be read, said)."""
    from memtui.core.judge import group_resolve as gr
    from memtui.core.write.dirfd import EditRefused

    if args.decision == "keep":
        kept = gr.member_of(group, args.member) if args.member is not None else None
        return lambda: gr.plan_group_keep(result, group, kept)
    if args.decision == "merge":
        into = gr.member_of(group, args.keep) if args.keep is not None else None
        merged = None
        if args.merged_file is not None:
            merged = _read_merged(args.merged_file)
            if merged is None:
                return None
        return lambda: gr.plan_group_merge(result, group, into, merged)
    if args.decision == "scoped":
        notes = gr.propose_group_notes(group)
        named: dict[str, str] = {}
        every: str | None = None
        for given in args.when:
            name, sep, text = given.partition("=")
            member = None
            if sep:
                try:
                    member = gr.member_of(group, name.strip())
                except EditRefused:
                    member = None
            if member is not None:
                named[member.key] = text
            else:
                every = given
        for key in notes:
            if key in named:
                notes[key] = named[key]
            elif every is not None:
                notes[key] = every
        return lambda: gr.plan_group_scoped(result, group, notes)
    return lambda: gr.plan_group_dismiss(group, args.decision, ledger)


def _group_done(plan: Any, done: Any, ctx: Any, ledger: Any) -> str:
    from memtui.core.judge.archive import Archive
    from memtui.core.judge.group_resolve import finish_group

    entries = finish_group(plan, done, Archive.default(ctx.env), ledger)
    said = f"decided for group {plan.group.id}: {plan.decision.replace('_', ' ')} " \
        f"({len(plan.decisions)} pairs; not raised again until a member changes)"
    if entries:
        said += "; " + "; ".join(f"{e.rel_path} {_archived(e)}" for e in entries)
    return said


def _read_merged(path: Path) -> bytes | None:
    from memtui.core.fileread import read_file
    from memtui.core.judge.archive import FILE_CAP

    read = read_file(path, FILE_CAP)
    if not read.readable or not read.complete:
        problem = "; ".join(read.problems) or "cannot read it"
        say(f"memtui judge resolve: --merged-file {shown(path)}: {shown(problem)}", err=True)
        return None
    return read.data


def cmd_judge_archive(args: argparse.Namespace) -> int:
    from memtui.core.judge.archive import Archive

    ctx = context_from(args)
    archive = Archive.default(ctx.env)
    entries = archive.entries()
    if args.json:
        print_json({"archive": str(archive.root), "problems": archive.problems, "entries": [
            {"id": e.id, "time": e.time, "store_kind": e.store_kind, "store_path": e.store_path,
             "rel_path": e.rel_path, "sha256": e.sha256, "reason": e.reason, "op_id": e.op_id,
             "pair": e.pair, "index_lines": e.index_lines,
             "back_in_store": e.original.exists()}
            for e in entries]})
        return EXIT_PROBLEMS if archive.problems else EXIT_OK
    say(f"archive: {shown(ctx.show(archive.root))} · {len(entries)} memories")
    for problem in archive.problems:
        say(f"problem: {shown(problem)}")
    for e in entries:
        back = "  (a file of that name is back in the store)" if e.original.exists() else ""
        say(f"{shown(e.id)}  {shown(e.store_kind)} · {shown(e.rel_path)}{back}")
        say(f"    {shown(e.reason)}")
    return EXIT_PROBLEMS if archive.problems else EXIT_OK


def cmd_judge_restore(args: argparse.Namespace) -> int:
    from memtui.cli.edit_commands import confirm_and_apply
    from memtui.core.judge.archive import Archive, plan_restore
    from memtui.core.write.dirfd import EditRefused

    ctx = context_from(args)
    archive = Archive.default(ctx.env)
    entry = next((e for e in archive.entries() if e.id == args.id), None)
    if entry is None:
        say(f"memtui judge restore: no archived memory {shown(args.id)} "
            "(memtui judge archive lists them)", err=True)
        return EXIT_USAGE
    try:
        proposal = plan_restore(archive, entry, above_cut=args.above_cut)
    except EditRefused as exc:
        say(f"memtui: refused: {shown(exc.reason)}; nothing was written", err=True)
        return EXIT_PROBLEMS
    return confirm_and_apply(proposal, args, ctx)
