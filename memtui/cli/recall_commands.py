"""``memtui recall --manifest [--store STORE] [--json]``: exactly the manifest Claude Code
offers its recall side query (the 200 newest memory files, one line each), and the memories
past it that recall is never offered. ``memtui recall "PROMPT"``: the memories recall would
attach for a prompt (offline: memtui's ranking, an approximation), and exactly what it would
attach of each."""

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
    shown,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.recall.manifest import Manifest
    from memtui.core.recall.preview import RecallPreview
    from memtui.core.stores.locations import Context


def masked_lines(texts: list[str]) -> list[str]:
    """Each text with its secrets masked, in one pass over them all (a secret's mask keeps its
    newlines, so the lines stay apart); one by one when a text holds a newline itself."""
    from memtui.core.secrets.mask import mask_secrets as masked_text

    if any("\n" in text for text in texts):
        return [masked_text(text) for text in texts]
    masked = masked_text("\n".join(texts)).split("\n") if texts else []
    return masked if len(masked) == len(texts) else [masked_text(text) for text in texts]


def manifest_json(manifest: Manifest) -> dict[str, Any]:
    from memtui.core.secrets.mask import mask_secrets as masked_text

    return {
        "store": str(manifest.root),
        "manifest": masked_text(manifest.text),
        "files": [{"path": masked_text(f.rel_path), "mtime": f.mtime_iso, "type": f.type,
                   "description": None if f.description is None else masked_text(f.description)}
                  for f in manifest.files],
        "invisible": masked_lines(manifest.invisible),
        "problems": [masked_text(problem) for problem in manifest.problems],
    }


def cmd_recall(args: argparse.Namespace) -> int:
    from memtui.cli.distil_commands import StoreSpecError, resolve_store
    from memtui.core.recall.manifest import build_manifest
    from memtui.core.secrets.mask import mask_secrets as masked_text

    if not args.manifest and args.prompt is None:
        say("memtui recall: give a PROMPT (the memories recall would attach for it) or "
            "--manifest (what recall chooses from)", err=True)
        return EXIT_USAGE
    ctx = context_from(args)
    try:
        store = resolve_store(ctx, args.store)
    except StoreSpecError as err:
        say(f"memtui recall: {err}", err=True)
        return EXIT_USAGE
    manifest = build_manifest(store.location.path)
    if not args.manifest:
        return print_preview(manifest, args, ctx)
    if args.json:
        print_json(manifest_json(manifest))
        return EXIT_OK
    if manifest.text:
        sys.stdout.write(shown_lines(masked_text(manifest.text)) + "\n")
    for problem in manifest.problems:
        say(f"left out: {shown(masked_text(problem))}", err=True)
    if manifest.invisible:
        say(f"{len(manifest.invisible):,} more memory files are past the 200 newest: recall "
            "is never offered them (--json lists them)", err=True)
    return EXIT_OK


def shown_lines(text: str) -> str:
    """``text``'s lines each through :func:`shown` (controls escaped), newlines kept."""
    return "\n".join(shown(line) for line in text.split("\n"))


def preview_json(preview: RecallPreview) -> dict[str, Any]:
    from memtui.core.secrets.mask import mask_secrets as masked_text

    return {
        "provider": preview.provider,
        "exact": preview.exact,
        "selected": [{"path": masked_text(c.file.rel_path),
                      "attachment": None if c.attachment is None
                      else masked_text(c.attachment.text)}
                     for c in preview.chosen],
        "near": [masked_text(path) for path in preview.near],
        "notes": preview.notes,
    }


def anthropic_preview(manifest: Manifest, args: argparse.Namespace, ctx: Context,
                      now_ms: float) -> RecallPreview | int:
    """The preview by Claude Code's selector: the estimate first (over the spend cap: nothing
    sent), asked unless ``--yes``; no key: the offline preview, said so."""
    from memtui.cli.common import ask_to_apply
    from memtui.core.config import load_config
    from memtui.core.judge.providers import ProviderError
    from memtui.core.recall.anthropic_recall import AnthropicRecall, preview_anthropic
    from memtui.core.recall.preview import preview_local, runs_recall

    config = load_config(ctx.env, ctx.home)
    try:
        recall = AnthropicRecall.from_config(config.judge, env=ctx.env)
    except ProviderError as err:
        preview = preview_local(manifest, args.prompt, now_ms)
        preview.notes.insert(0, f"anthropic cannot run: {err}; the offline ranking instead")
        return preview
    if not runs_recall(args.prompt):
        return preview_local(manifest, args.prompt, now_ms)
    estimate = recall.estimate(manifest, args.prompt)
    say(f"memtui recall: would send {shown(estimate.describe())}", err=True)
    cap = config.judge.spend_cap_usd
    if cap is not None and estimate.cost_usd > cap:
        say(f"memtui recall: that is over judge.spend_cap_usd (${cap:g}); nothing was sent",
            err=True)
        return EXIT_PROBLEMS
    if not args.yes:
        answer = ask_to_apply("Send?")
        if not answer:
            say("memtui recall: nothing was sent" + ("; re-run with --yes to send"
                                                     if answer is None else ""), err=True)
            return EXIT_PROBLEMS
    return preview_anthropic(recall, manifest, args.prompt, now_ms)


def print_preview(manifest: Manifest, args: argparse.Namespace, ctx: Context) -> int:
    import time

    from memtui.core.recall.preview import preview_local
    from memtui.core.secrets.mask import mask_secrets as masked_text

    now_ms = time.time() * 1000
    if args.provider == "anthropic":
        found = anthropic_preview(manifest, args, ctx, now_ms)
        if isinstance(found, int):
            return found
        preview = found
    else:
        preview = preview_local(manifest, args.prompt, now_ms)
    as_json = args.json
    if as_json:
        print_json(preview_json(preview))
        return EXIT_OK
    for note in preview.notes:
        say(f"note: {shown(note)}")
    if not preview.chosen:
        say("recall would attach nothing")
    for chosen in preview.chosen:
        say(f"\n== {shown(masked_text(chosen.file.rel_path))}")
        if chosen.attachment is None:
            say("  (cannot be read: Claude Code drops it)")
        else:
            sys.stdout.write(shown_lines(masked_text(chosen.attachment.text)) + "\n")
    if preview.near:
        say("\nclose, not chosen: " + ", ".join(shown(masked_text(p)) for p in preview.near))
    return EXIT_OK
