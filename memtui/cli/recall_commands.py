"""``memtui recall --manifest [--store STORE] [--json]``: exactly the manifest Claude Code
offers its recall side query (the 200 newest memory files, one line each), and the memories
past it that recall is never offered."""

from __future__ import annotations

import argparse
import sys

from memtui.cli.common import EXIT_OK, EXIT_USAGE, context_from, print_json, say, shown

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.recall.manifest import Manifest


def add_recall_parser(sub: Any) -> None:
    recall = sub.add_parser(
        "recall", help="what Claude Code's recall is offered: the manifest of the 200 newest "
        "memory files (--manifest)")
    recall.add_argument("--manifest", action="store_true",
                        help="print the manifest exactly as Claude Code builds it")
    recall.add_argument("--store", metavar="STORE", default="auto",
                        help="auto (default: auto memory, team/ included), team, "
                        "agent:NAME[:SCOPE], or the path of a memory directory")
    recall.add_argument("--json", action="store_true",
                        help='{"manifest": str, "files": [...], "invisible": [paths]}')


def manifest_json(manifest: Manifest) -> dict[str, Any]:
    from memtui.core.secrets.redact import masked_text

    return {
        "store": str(manifest.root),
        "manifest": masked_text(manifest.text),
        "files": [{"path": masked_text(f.rel_path), "mtime": f.mtime_iso, "type": f.type,
                   "description": None if f.description is None else masked_text(f.description)}
                  for f in manifest.files],
        "invisible": [masked_text(path) for path in manifest.invisible],
        "problems": [masked_text(problem) for problem in manifest.problems],
    }


def cmd_recall(args: argparse.Namespace) -> int:
    from memtui.cli.distil_commands import StoreSpecError, resolve_store
    from memtui.core.recall.manifest import build_manifest
    from memtui.core.secrets.redact import masked_text

    if not args.manifest:
        say("memtui recall: say --manifest (a recall preview for a prompt is not built yet)",
            err=True)
        return EXIT_USAGE
    ctx = context_from(args)
    try:
        store = resolve_store(ctx, args.store)
    except StoreSpecError as err:
        say(f"memtui recall: {err}", err=True)
        return EXIT_USAGE
    manifest = build_manifest(store.location.path)
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
