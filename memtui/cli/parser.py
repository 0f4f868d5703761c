"""The ``memtui`` command line: every command's options, and no command's implementation.

Building the parser imports none of the command modules (``memtui.cli.*_commands``): the one
dispatched is imported when it runs (:func:`memtui.cli.dispatch`). Each subcommand's parser is
filled in when it is used, not when it is built: its options, its own subcommands' parsers and
the global options it accepts too are added the first time it parses, formats its help or its
usage (:class:`Parser`). ``memtui scan --json`` builds one subcommand's options, not fifteen.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

STORE_HELP = ("auto, team, agent:NAME[:SCOPE], agentmemory, or the path of a store "
              "directory or its MEMORY.md")
"""``memtui distil STORE`` and the stores it names."""
HISTORY_ACTIONS = ("record", "restore", "diff", "install-hook", "remove-hook", "gc", "purge")
"""The actions of ``memtui history`` (its first word)."""
HISTORY_READ_LIMIT = 20
"""``memtui history --limit``'s default: versions shown."""
JUDGE_STORE_KINDS = ("auto", "team", "session", "agent", "snapshot", "agentmemory")
MAX_SENT_PAIRS = 200
"""``memtui.core.judge.run.MAX_SENT_PAIRS``, spelled out: the judge is not imported on every
run (``tests/cli/test_cli_judge.py`` checks they agree)."""
RECORD_ONLY = ("related", "compatible", "not_conflict")
"""Decisions that change no file: the pair is not raised again until one side changes."""


def terminal_columns() -> int:
    """What ``shutil.get_terminal_size().columns`` gives, without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized without shutil: argparse builds one for every
    ``add_argument`` and imports shutil (with bz2 and lzma) to size it, a cost every command
    would pay before doing anything."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        kwargs.setdefault("width", terminal_columns() - 2)
        super().__init__(prog, **kwargs)


Build = Callable[["Parser"], None]


def path_arg(value: str) -> Path:
    """``type=Path``, with pathlib imported when a path is given (not for ``--help``)."""
    from pathlib import Path

    return Path(value)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser (and its subcommands' parsers) formatting help with ``HelpFormatter``.

    A subcommand's parser is made with ``build`` (what adds its arguments) and ``root`` (the
    parser whose global options it accepts as well) and is not set up until it is first used
    (it parses, formats its help or usage, or any of its attributes is looked up): then it is,
    ``build`` runs and the root's options are added, in a group of their own, with the
    default SUPPRESS (a value given before the command is not overwritten by the
    subcommand's default). So ``memtui judge resolve ID a --claude-home H`` works as
    ``memtui --claude-home H judge resolve ID a``, and a run sets up only the parsers of the
    command it runs (``--help`` lists the commands from their help texts alone)."""

    def __init__(
        self, *args: Any, build: Build | None = None, root: Parser | None = None, **kwargs: Any
    ) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        self._root = root
        if root is not None:
            self.__dict__["_deferred"] = (args, kwargs, build)
            return
        super().__init__(*args, **kwargs)
        self.arg_strings: list[str] = []

    def __getattr__(self, name: str) -> Any:
        """Only for attributes not set: those of a parser not set up yet, which it now is."""
        if "_deferred" not in self.__dict__:
            raise AttributeError(name)
        self.populate()
        return getattr(self, name)

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs.setdefault("parser_class", functools.partial(Parser, root=self._root or self))
        return super().add_subparsers(**kwargs)

    def populate(self) -> None:
        """Set up this subcommand's parser: its arguments and the global options (once)."""
        deferred = self.__dict__.pop("_deferred", None)
        if deferred is None:
            return
        args, kwargs, build = deferred
        super().__init__(*args, **kwargs)
        self.arg_strings = []
        if build is not None:
            build(self)
        assert self._root is not None
        group = self.add_argument_group("options of every command (also before it)")
        for option in global_options(self._root):
            group._add_action(option)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.populate()
        self.arg_strings = [str(a) for a in (sys.argv[1:] if args is None else args)]
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self.populate()
        return super().format_usage()

    def format_help(self) -> str:
        self.populate()
        return super().format_help()

    def error(self, message: str) -> Any:
        super().error(message + dash_value_hint(message, self.arg_strings))


def global_options(root: argparse.ArgumentParser) -> list[argparse.Action]:
    """Copies of the root parser's options (not ``--help``) for a subcommand's parser, their
    default SUPPRESS."""
    import copy

    options = []
    for action in root._actions:
        if action.option_strings and action.dest != "help":
            moved = copy.copy(action)
            moved.default = argparse.SUPPRESS
            options.append(moved)
    return options


def dash_value_hint(message: str, arg_strings: Sequence[str]) -> str:
    """For argparse's "argument --project-dir: expected one argument" when the value given
    starts with ``-`` (argparse takes it for an option): how to pass it."""
    prefix, marker = "argument ", ": expected one argument"
    if not (message.startswith(prefix) and message.endswith(marker)):
        return ""
    import itertools

    names = message[len(prefix):-len(marker)].split("/")
    for option, value in itertools.pairwise(arg_strings):
        if option in names and value.startswith("-"):
            return f" (use {names[-1]}={value} for a value that starts with -)"
    return ""


def _untranslated(message: str) -> str:
    return message


def _no_translations() -> bool:
    """``gettext.gettext`` returns every message as it is: the directory it would find a
    ``.mo`` file of the current domain in (``<dir>/<lang>/LC_MESSAGES/<domain>.mo``, for any
    language) does not exist."""
    import gettext

    domain = getattr(gettext, "_current_domain", None)
    dirs = getattr(gettext, "_localedirs", None)
    default = getattr(gettext, "_default_localedir", None)
    if not isinstance(domain, str) or not isinstance(dirs, dict) or not isinstance(default, str):
        return False  # another gettext than CPython's: ask it
    localedir = dirs.get(domain)
    if localedir is None:
        localedir = default
    return isinstance(localedir, str) and localedir != "" and not os.path.isdir(localedir)


class _LookedUpOnce:
    """:func:`translations_looked_up_once` (a class: contextlib is not imported for
    ``--help``)."""

    def __enter__(self) -> None:
        self.original = argparse._  # type: ignore[attr-defined]
        lookup = _untranslated if _no_translations() else functools.cache(self.original)
        argparse._ = lookup  # type: ignore[attr-defined]

    def __exit__(self, *exc: object) -> None:
        argparse._ = self.original  # type: ignore[attr-defined]


def translations_looked_up_once() -> _LookedUpOnce:
    """argparse asks gettext for the same few strings ("options", "show this help message
    and exit") for every parser it builds, and gettext searches the locale directories afresh
    each time: memtui's eleven parsers cost more to build than a warm scan takes to print.
    Inside, each string is looked up once; where gettext has no locale directory to look in
    (a Python without translations, the common case) none is looked up, and ``locale``, which
    gettext imports to name the languages, is not imported."""
    return _LookedUpOnce()


def version_arg(value: str) -> str:
    """``--claude-code-version``: a version such as ``2.1.88``."""
    import re

    if re.fullmatch(r"v?\d{1,4}\.\d{1,4}\.\d{1,6}", value.strip()) is None:
        raise argparse.ArgumentTypeError(f"{value!r} is no Claude Code version (e.g. 2.1.88)")
    return value.strip()


def build_parser() -> argparse.ArgumentParser:
    with translations_looked_up_once():
        return _build_parser()


def _build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="memtui",
        description="See and curate what AI coding agents remember. Without a command, opens "
        "the TUI.",
    )
    parser.add_argument("--claude-home", type=path_arg,
                        help="CC home (default $CLAUDE_CONFIG_DIR or ~/.claude)")
    parser.add_argument("--project", type=path_arg, help="project directory (default: cwd)")
    parser.add_argument("--project-dir", metavar="NAME",
                        help="open a project by its directory under the CC home "
                        "(<CC home>/projects/NAME, or that directory's path): for a project "
                        "whose source path is unknown or gone (memtui scan lists the names; "
                        "write --project-dir=-home-x or drop the leading -: home-x)")
    parser.add_argument("--claude-code-version", metavar="VERSION", type=version_arg,
                        help="follow this Claude Code version's rules (default: the version in "
                        "the project's newest transcript, else `claude --version`, else the "
                        "newest memtui knows)")
    parser.add_argument("--agent-memory-home", type=path_arg,
                        help="agentmemory home (default $AGENT_MEMORY_DIR or ~/.agent-memory)")
    parser.add_argument("--theme", metavar="NAME",
                        help="TUI theme (default $MEMTUI_THEME, the config's theme or "
                        "memtui-dusk; also "
                        "memtui-paper, Textual's themes and your own in "
                        "~/.config/memtui/themes)")
    parser.add_argument("--config", type=path_arg, metavar="FILE",
                        help="memtui's config file (default $MEMTUI_CONFIG or "
                        "$XDG_CONFIG_HOME/memtui/config.toml, ~/.config/memtui/config.toml)")
    parser.add_argument("--demo", action="store_true",
                        help="build the demo home (with its own journal) in a temporary "
                        "directory and open it; removed on exit")
    parser.add_argument("--keep-demo", action="store_true",
                        help="like --demo, but keep the demo home on exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("scan", help="list every store and memory of the project", build=scan_args)
    sub.add_parser("index", help="what Claude Code loads of a MEMORY.md", build=index_args)
    sub.add_parser("snapshot", help="agent memory snapshots", build=snapshot_args)
    sub.add_parser("undo", help="undo an operation memtui made in this Claude Code home, "
                   "recover one that was interrupted, or prune the journal", build=undo_args)
    sub.add_parser(
        "delete", help="delete memories and their MEMORY.md lines (one operation, one undo)",
        build=delete_args,
    )
    sub.add_parser(
        "redact", help="replace each secret of a memory with [REDACTED:<rule-id>]",
        build=redact_args,
    )
    sub.add_parser("team", help="team memory as Claude Code would push it", build=team_args)
    sub.add_parser(
        "judge",
        help="find duplicate and contradicting memories (and CLAUDE.md rules), judge "
        "them; exit 1 while any pair needs a decision",
        build=judge_args,
    )
    sub.add_parser(
        "distil", help="rebuild a MEMORY.md that fits Claude Code's load budget with headroom, "
        "or an agentmemory home's tag index (a preview; --apply to write it)", build=distil_args)
    sub.add_parser(
        "recall", help="what Claude Code's recall would attach for PROMPT, or the manifest of "
        "the 200 newest memory files it chooses from (--manifest)", build=recall_args)
    sub.add_parser(
        "context", help="what Claude Code loads at session start: the CLAUDE.md chain and the "
        "memory indexes, with their sizes", build=context_args)
    sub.add_parser(
        "history", help="every version of every store: timelines, diffs, deleted files, "
        "restore; record, install-hook, remove-hook; gc, purge",
        description="memtui history [STORE|FILE]; memtui history diff FILE REV [REV2]; "
        "memtui history restore FILE@REV; memtui history record [--hook]; "
        "memtui history install-hook|remove-hook [--settings FILE]; memtui history gc; "
        "memtui history purge FILE", build=history_args)
    sub.add_parser(
        "config", help="memtui's effective config: each value and where it came from",
        build=config_args,
    )
    sub.add_parser("demo", help="write the demo home to DIR", build=demo_args)
    return parser


def scan_args(scan: Parser) -> None:
    scan.add_argument("--json", action="store_true", help="machine-readable output")


def index_args(index: Parser) -> None:
    index.add_argument("path", type=path_arg)
    index.add_argument("--agent", action="store_true",
                       help="agent memory: measure the raw file (no frontmatter/comment strip)")
    index.add_argument("--json", action="store_true")


SNAPSHOT_ACTION_HELPS = {
    "init": "copy the snapshot into the agent's local memory",
    "replace": "delete the local top-level *.md memories, then copy the snapshot",
    "mark-synced": "keep the local memory; record the snapshot as seen",
}


def snapshot_args(snapshot: Parser) -> None:
    snap_sub = snapshot.add_subparsers(dest="snapshot_command", metavar="ACTION", required=True)
    snap_sub.add_parser("status", help="each agent's snapshot status", build=snapshot_status_args)
    for name, help_text in SNAPSHOT_ACTION_HELPS.items():
        snap_sub.add_parser(name, help=help_text, build=snapshot_action_args)


def snapshot_status_args(status: Parser) -> None:
    status.add_argument("--json", action="store_true")


def snapshot_action_args(action: Parser) -> None:
    """``snapshot init|replace|mark-synced``."""
    action.add_argument("agent", metavar="AGENT", help="agent type, as in the snapshot dir")
    action.add_argument("--scope", choices=["user", "project", "local"],
                        help="which local memory (default: the agent's own scope)")
    apply_flags(action)


def apply_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def undo_args(undo: Parser) -> None:
    undo.add_argument("op_id", nargs="?", metavar="OP_ID", help="default: the latest")
    undo.add_argument("--list", action="store_true",
                      help="list the journaled operations and the home of each")
    undo.add_argument("--rollback", metavar="OP_ID",
                      help="put back the files of an interrupted operation")
    undo.add_argument("--complete", metavar="OP_ID", help="finish an interrupted operation")
    undo.add_argument("--gc", action="store_true",
                      help="remove operations past the journal's limits: "
                      "$MEMTUI_JOURNAL_MAX_AGE_DAYS (default 30) and $MEMTUI_JOURNAL_MAX_MB "
                      "(default 100), or [journal] in the config file")
    undo.add_argument("--force", action="store_true",
                      help="undo/roll back even over files changed since (their changes are lost)")
    undo.add_argument("--yes", action="store_true", help="undo without asking")
    undo.add_argument("--json", action="store_true")


def delete_args(delete: Parser) -> None:
    delete.add_argument("store", type=path_arg, metavar="STORE_PATH")
    delete.add_argument("rel_paths", nargs="+", metavar="REL_PATH",
                        help="a memory's path in the store, or the path of a memory of another "
                             "of the project's stores (several: one operation, across stores "
                             "too)")
    apply_flags(delete)


def redact_args(redact: Parser) -> None:
    redact.add_argument("path", type=path_arg, metavar="PATH", help="the memory file")
    apply_flags(redact)


def team_args(team: Parser) -> None:
    team_sub = team.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    team_sub.add_parser(
        "check", help="each file's fate on push, the upload batches and checksums; exit 1 when "
        "anything would be refused", build=json_flag)


def json_flag(parser: Parser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def judge_args(judge: Parser) -> None:
    judge.add_argument(
        "--provider",
        choices=("local", "anthropic"),
        help="who judges (default: the config's judge.provider, else local)",
    )
    judge.add_argument(
        "--store",
        action="append",
        choices=JUDGE_STORE_KINDS,
        metavar="KIND",
        help="only memories of this store kind (repeatable; default: every kind but session)",
    )
    judge.add_argument("--no-claude-md", action="store_true", help="leave the CLAUDE.md files out")
    judge.add_argument(
        "--all",
        action="store_true",
        help="every candidate pair, not only those that need a decision",
    )
    judge.add_argument(
        "--rejudge",
        action="store_true",
        help="judge again pairs the ledger has a verdict for (never decided ones)",
    )
    judge.add_argument(
        "--max-pairs",
        type=int,
        default=MAX_SENT_PAIRS,
        metavar="N",
        help=f"at most N pairs sent to a provider that sends text (default "
        f"{MAX_SENT_PAIRS}, best candidates first)",
    )
    judge.add_argument(
        "--batch",
        action="store_true",
        help="anthropic: send as one Message Batch (half the price; the run waits for it, "
        "usually minutes, at most 24 hours); default: the config's judge.batch",
    )
    judge.add_argument(
        "--yes",
        action="store_true",
        help="send to the provider without asking (after printing the estimate)",
    )
    judge.add_argument("--json", action="store_true", help="machine-readable output")
    judge_sub = judge.add_subparsers(dest="judge_command", metavar="ACTION")
    judge_sub.add_parser(
        "resolve", help="decide a pair: a or b keeps that side and archives the other; scoped "
        "adds an \"applies when\" note to each side; merge writes one memory in place of both "
        "(each previewed, journaled, undoable); related, compatible or not_conflict change no "
        "file. A group (its id starts with g) takes keep [MEMBER], merge, scoped or "
        "related|compatible|not_conflict, one operation for all its pairs (one undo)",
        build=judge_resolve_args)
    judge_sub.add_parser("archive", help="memories archived by a decision", build=json_flag)
    judge_sub.add_parser(
        "restore", help="put an archived memory back in its store (previewed, undoable)",
        build=judge_restore_args)


def judge_resolve_args(resolve: Parser) -> None:
    resolve.add_argument("pair", help="the pair's or the group's id, as `memtui judge` prints it")
    resolve.add_argument("decision", choices=("a", "b", "keep", "scoped", "merge", *RECORD_ONLY))
    resolve.add_argument("member", nargs="?", metavar="MEMBER",
                         help="keep: the member to keep (its number in the group, its file "
                         "name or path; default: the newest, a CLAUDE.md rule first); for a "
                         "pair a or b")
    resolve.add_argument("--when", action="append", default=[], metavar="[MEMBER=]TEXT",
                         help="scoped, a group: when MEMBER applies (repeatable; without "
                         "MEMBER=, every member not named; default: proposed for each)")
    resolve.add_argument("--when-a", metavar="TEXT",
                         help="scoped: when A applies (default: proposed from what differs)")
    resolve.add_argument("--when-b", metavar="TEXT",
                         help="scoped: when B applies (default: proposed from what differs)")
    resolve.add_argument("--keep", metavar="SIDE",
                         help="merge: the side the merged memory replaces, a or b (a group: "
                         "the member; default: the newer)")
    resolve.add_argument("--merged-file", type=path_arg, metavar="PATH",
                         help="merge: the merged memory's text (default: memtui's proposal, "
                         "shown in the preview)")
    resolve.add_argument("--yes", action="store_true", help="apply without asking")
    resolve.add_argument("--json", action="store_true", help="machine-readable output")


def judge_restore_args(restore: Parser) -> None:
    restore.add_argument("id", help="the archive id, as `memtui judge archive` prints it")
    restore.add_argument("--yes", action="store_true", help="apply without asking")
    restore.add_argument("--above-cut", action="store_true",
                         help="put its MEMORY.md lines where Claude Code still loads them when "
                              "the end of the index is past the cut")
    restore.add_argument("--json", action="store_true", help="machine-readable output")


def distil_args(distil: Parser) -> None:
    distil.add_argument("store", metavar="STORE", help=STORE_HELP)
    distil.add_argument("--apply", action="store_true",
                        help="apply the proposal (previewed and asked unless --yes)")
    distil.add_argument("--yes", action="store_true", help="with --apply: apply without asking")
    distil.add_argument("--json", action="store_true", help="machine-readable output")


def recall_args(recall: Parser) -> None:
    recall.add_argument("prompt", metavar="PROMPT", nargs="?",
                        help="a prompt: the memories recall would attach for it")
    recall.add_argument("--manifest", action="store_true",
                        help="print the manifest exactly as Claude Code builds it")
    recall.add_argument("--provider", choices=("local", "anthropic"), default="local",
                        help="local (default): memtui's offline ranking of the manifest, an "
                        "approximation; anthropic: Claude Code's own side query (the manifest "
                        "and prompt redacted, its cost shown and asked first)")
    recall.add_argument("--yes", action="store_true",
                        help="with --provider anthropic: send without asking")
    recall.add_argument("--store", metavar="STORE", default="auto",
                        help="auto (default: auto memory, team/ included), team, "
                        "agent:NAME[:SCOPE], or the path of a memory directory")
    recall.add_argument("--json", action="store_true",
                        help='--manifest: {"manifest", "files", "invisible"}; a prompt: '
                        '{"provider", "exact", "selected": [{"path", "attachment"}], "near"}')


def context_args(context: Parser) -> None:
    context.add_argument("--agent", metavar="NAME",
                         help="an agent's context (its own MEMORY.md instead of auto and team)")
    context.add_argument("--count-tokens", action="store_true",
                         help="count tokens exactly with the anthropic API's count_tokens "
                         "(free; sends each part, redacted; needs the judge's API key)")
    context.add_argument("--json", action="store_true", help="machine-readable output")


def history_args(history: Parser) -> None:
    history.add_argument("words", nargs="*", metavar="ACTION_OR_TARGET",
                         help="nothing (the newest versions, the deleted files), STORE (auto, "
                         "team, agent:NAME[:SCOPE], agentmemory, a store's directory) or FILE; "
                         "or an action: " + ", ".join(HISTORY_ACTIONS))
    history.add_argument("--json", action="store_true", help="machine-readable output")
    history.add_argument("--yes", action="store_true", help="restore / install-hook / "
                         "remove-hook / purge: apply without asking")
    history.add_argument("--hook", action="store_true",
                         help="record: read the Claude Code hook's JSON input on stdin and "
                         "attribute the file it names to its session")
    history.add_argument("--settings", type=path_arg, metavar="FILE",
                         help="install-hook / remove-hook: the settings file (default "
                         "<CC home>/settings.json)")
    history.add_argument("--no-index-line", action="store_true",
                         help="restore: do not add a deleted memory's MEMORY.md lines back")
    history.add_argument("--limit", type=int, default=HISTORY_READ_LIMIT, help="versions shown")


def config_args(config: Parser) -> None:
    config.add_argument("--json", action="store_true", help="machine-readable output")


def demo_args(demo: Parser) -> None:
    demo.add_argument("dir", type=path_arg)
