"""The ``memtui`` command: the TUI by default, and subcommands over the same core library."""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from memtui.cli.common import EXIT_OK, EXIT_USAGE, context_from, project_problem, say
from memtui.cli.config_commands import add_config_parser, cmd_config
from memtui.cli.context_commands import add_context_parser, cmd_context
from memtui.cli.distil_commands import add_distil_parser, cmd_distil
from memtui.cli.edit_commands import (
    add_edit_parsers,
    cmd_delete,
    cmd_redact,
    cmd_snapshot_action,
)
from memtui.cli.history_commands import add_history_parser, cmd_history
from memtui.cli.judge_commands import add_judge_parser, cmd_judge
from memtui.cli.read_commands import cmd_index, cmd_scan, cmd_snapshot_status
from memtui.cli.recall_commands import add_recall_parser, cmd_recall
from memtui.cli.team_commands import add_team_parser, cmd_team_check
from memtui.cli.undo_commands import cmd_undo, warn_incomplete_operations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any


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


class Parser(argparse.ArgumentParser):
    """An ArgumentParser (and its subcommands' parsers) formatting help with ``HelpFormatter``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.arg_strings: list[str] = []

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.arg_strings = [str(a) for a in (sys.argv[1:] if args is None else args)]
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> Any:
        super().error(message + dash_value_hint(message, self.arg_strings))


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


@contextlib.contextmanager
def translations_looked_up_once() -> Iterator[None]:
    """argparse asks gettext for the same few strings ("options", "show this help message
    and exit") for every parser it builds, and gettext searches the locale directories afresh
    each time: memtui's eleven parsers cost more to build than a warm scan takes to print.
    Inside, each string is looked up once."""
    original = argparse._  # type: ignore[attr-defined]
    argparse._ = functools.cache(original)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._ = original  # type: ignore[attr-defined]


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
    parser.add_argument("--claude-home", type=Path, help="CC home (default $CLAUDE_CONFIG_DIR "
                        "or ~/.claude)")
    parser.add_argument("--project", type=Path, help="project directory (default: cwd)")
    parser.add_argument("--project-dir", metavar="NAME",
                        help="open a project by its directory under the CC home "
                        "(<CC home>/projects/NAME, or that directory's path): for a project "
                        "whose source path is unknown or gone (memtui scan lists the names; "
                        "write --project-dir=-home-x or drop the leading -: home-x)")
    parser.add_argument("--claude-code-version", metavar="VERSION", type=version_arg,
                        help="follow this Claude Code version's rules (default: the version in "
                        "the project's newest transcript, else `claude --version`, else the "
                        "newest memtui knows)")
    parser.add_argument("--agent-memory-home", type=Path,
                        help="agentmemory home (default $AGENT_MEMORY_DIR or ~/.agent-memory)")
    parser.add_argument("--theme", metavar="NAME",
                        help="TUI theme (default $MEMTUI_THEME, the config's theme or "
                        "memtui-dusk; also "
                        "memtui-paper, Textual's themes and your own in "
                        "~/.config/memtui/themes)")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="memtui's config file (default $MEMTUI_CONFIG or "
                        "$XDG_CONFIG_HOME/memtui/config.toml, ~/.config/memtui/config.toml)")
    parser.add_argument("--demo", action="store_true",
                        help="build the demo home (with its own journal) in a temporary "
                        "directory and open it; removed on exit")
    parser.add_argument("--keep-demo", action="store_true",
                        help="like --demo, but keep the demo home on exit")
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
    add_team_parser(sub)
    add_judge_parser(sub)
    add_distil_parser(sub)
    add_recall_parser(sub)
    add_context_parser(sub)
    add_history_parser(sub)

    add_config_parser(sub)

    demo = sub.add_parser("demo", help="write the demo home to DIR")
    demo.add_argument("dir", type=Path)
    accept_global_options_anywhere(parser)
    return parser


def accept_global_options_anywhere(parser: argparse.ArgumentParser) -> None:
    """The global options (``--claude-home``, ``--project-dir``, ...) on every subcommand's
    parser too, nested ones included: ``memtui judge resolve ID a --claude-home H`` works as
    ``memtui --claude-home H judge resolve ID a``. Their default there is SUPPRESS: a value
    given before the command is not overwritten by the subcommand's default."""
    import copy

    options = [a for a in parser._actions if a.option_strings and a.dest != "help"]
    pending, seen = [parser], {id(parser)}
    while pending:
        for action in pending.pop()._actions:
            if not isinstance(action, argparse._SubParsersAction):
                continue
            for sub in action.choices.values():
                if id(sub) in seen:
                    continue
                seen.add(id(sub))
                group = sub.add_argument_group("options of every command (also before it)")
                for option in options:
                    moved = copy.copy(option)
                    moved.default = argparse.SUPPRESS
                    group._add_action(moved)
                pending.append(sub)


def cmd_demo(args: argparse.Namespace) -> int:
    from memtui.core.demo.build import build_demo_home

    home = build_demo_home(args.dir)
    print(f"demo home written to {home.root}")
    print(
        f"try: memtui --claude-home {home.claude_home} --project {home.project} "
        f"--agent-memory-home {home.agent_memory_home} scan"
    )
    return EXIT_OK


STATE_DIR_ENV = "MEMTUI_STATE_DIR"
"""``memtui.core.write.journal.STATE_DIR_ENV``, spelled out: the journal is not imported on every
run."""
DATA_DIR_ENV = "MEMTUI_DATA_DIR"
"""``memtui.core.history.paths.DATA_DIR_ENV``, spelled out (the history's repository)."""
READ_ONLY_COMMANDS = ("scan", "index", "demo", "config", "context")
"""Commands that never apply an operation: no history observer is registered for them."""


def make_demo_root() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp(prefix="memtui-demo-"))


def use_demo_home(args: argparse.Namespace, root: Path) -> None:
    """``--demo``: build the demo home in ``root`` and point every option at it, memtui's
    journal and scan cache included (nothing lands in the user's state or cache dirs)."""
    from memtui.core.demo.build import build_demo_home

    home = build_demo_home(root / "home")
    args.claude_home, args.project = home.claude_home, home.project
    args.agent_memory_home = home.agent_memory_home
    args.env_overrides = {STATE_DIR_ENV: str(root / "state"), "XDG_CACHE_HOME": str(root / "cache"),
                          DATA_DIR_ENV: str(root / "data")}
    after = "kept on exit" if args.keep_demo else "removed on exit; --keep-demo keeps it"
    print(f"memtui: demo home in {home.root} ({after})", file=sys.stderr)


def finish_demo(root: Path, keep: bool) -> None:
    """Remove the demo's temporary directory, or say where it was kept."""
    if keep:
        print(f"memtui: demo home kept in {root}", file=sys.stderr)
        return
    import shutil

    shutil.rmtree(root, ignore_errors=True)


def run_tui(args: argparse.Namespace) -> int:
    from memtui.tui.app import run_app

    return run_app(context_from(args), theme=args.theme)


def entry() -> None:
    """The ``memtui`` console script and ``python -m memtui``."""
    raise SystemExit(main(fast_exit=True))


def main(argv: Sequence[str] | None = None, *, fast_exit: bool = False) -> int:
    """Run one command (the TUI without one). ``fast_exit``: once a command other than the TUI
    has finished (its writes are synced before it returns), flush the output and end the
    process without freeing its objects one by one, which for a large scan takes longer than
    printing it. For the read-only commands that build many objects (``index``, ``scan``) no
    garbage collection runs either: reference counting frees what they drop, and each
    collection would walk everything they built (a runaway index: 100,000 objects)."""
    args = build_parser().parse_args(argv)
    if fast_exit and args.command in ("index", "scan"):
        gc.disable()  # the process ends with os._exit: nothing to collect at the end either
    code = run_command(args)
    if fast_exit and args.command is not None:
        exit_now(code)
    return code


def exit_now(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):  # a closed pipe: nothing left to print to
            stream.flush()
    os._exit(code)


HANGUP_EXIT = 129
"""The exit code after a hangup or a terminate (128 + SIGHUP), as a shell reports it."""


def end_on_hangup() -> None:
    """A closed terminal (SIGHUP) or a ``kill`` (SIGTERM) ends the run like an exception, so
    what ``finally`` cleans up (the demo's temporary home) goes: by default they kill the
    process on the spot."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(HANGUP_EXIT if signum == signal.SIGHUP else 128 + signum)

    for name in ("SIGHUP", "SIGTERM"):
        number = getattr(signal, name, None)
        if number is not None:
            with contextlib.suppress(ValueError, OSError):  # not the main thread
                signal.signal(number, stop)


def run_command(args: argparse.Namespace) -> int:
    demo_root = make_demo_root() if args.demo or args.keep_demo else None
    try:
        if demo_root is not None:
            end_on_hangup()
            use_demo_home(args, demo_root)
        return dispatch(args)
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    finally:
        if demo_root is not None:
            finish_demo(demo_root, args.keep_demo)


def record_operations(args: argparse.Namespace) -> None:
    """Record the stores before and after every operation this run applies (once the history
    repository exists: ``memtui history record`` makes it)."""
    from memtui.core.history.observe import record_operations as observe_operations

    observe_operations(context_from(args))


def dispatch(args: argparse.Namespace) -> int:
    if args.command not in ("index", "demo", "config"):
        problem = project_problem(args)
        if problem is not None:
            say(f"memtui: {problem}", err=True)
            return EXIT_USAGE
    if args.command not in READ_ONLY_COMMANDS:
        record_operations(args)
    if args.command == "scan":
        return cmd_scan(args)
    if args.command == "index":
        return cmd_index(args)
    if args.command == "config":
        return cmd_config(args)
    if args.command == "team":
        return cmd_team_check(args)
    if args.command == "judge":
        return cmd_judge(args)
    if args.command == "recall":
        return cmd_recall(args)
    if args.command == "context":
        return cmd_context(args)
    if args.command == "history":
        return cmd_history(args)
    if args.command not in ("undo", "demo"):
        warn_incomplete_operations(context_from(args))
    if args.command == "snapshot" and args.snapshot_command != "status":
        return cmd_snapshot_action(args)
    if args.command == "snapshot":
        return cmd_snapshot_status(args)
    if args.command == "undo":
        return cmd_undo(args)
    if args.command == "delete":
        return cmd_delete(args)
    if args.command == "redact":
        return cmd_redact(args)
    if args.command == "distil":
        return cmd_distil(args)
    if args.command == "demo":
        return cmd_demo(args)
    return run_tui(args)
