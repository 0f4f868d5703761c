"""The ``memtui`` command: the TUI by default, and subcommands over the same core library."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence

from memtui.cli.parser import build_parser, translations_looked_up_once

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["build_parser", "dispatch", "entry", "main"]

COMMANDS = {
    "scan": ("read_commands", "cmd_scan"),
    "index": ("read_commands", "cmd_index"),
    "config": ("config_commands", "cmd_config"),
    "team": ("team_commands", "cmd_team_check"),
    "judge": ("judge_commands", "cmd_judge"),
    "recall": ("recall_commands", "cmd_recall"),
    "context": ("context_commands", "cmd_context"),
    "history": ("history_commands", "cmd_history"),
    "undo": ("undo_commands", "cmd_undo"),
    "delete": ("edit_commands", "cmd_delete"),
    "redact": ("edit_commands", "cmd_redact"),
    "distil": ("distil_commands", "cmd_distil"),
}
"""Each command's function, by its module under ``memtui.cli``: a run imports the module of the
command it runs, no other (building the parser imports none: :mod:`memtui.cli.parser`)."""


def command(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """``memtui.cli.<module>.<name>``, imported now."""
    import importlib

    run: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(f"memtui.cli.{module}"), name)
    return run


def cmd_demo(args: argparse.Namespace) -> int:
    from memtui.cli.common import EXIT_OK
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
    from pathlib import Path

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
    """The TUI. Its first scan is forked first (:mod:`memtui.core.scan.forked`): the stores
    are read while this process imports Textual and the app (where no fork is possible, the
    app scans in its own process)."""
    from memtui.cli.common import context_from
    from memtui.core.scan.forked import ForkedScan

    first_scan = ForkedScan.start(context_from(args))
    try:
        record_operations(args)
        from memtui.cli.undo_commands import warn_incomplete_operations

        warn_incomplete_operations(context_from(args))
        from memtui.tui.app import run_app

        return run_app(context_from(args), theme=args.theme, first_scan=first_scan)
    finally:
        if first_scan is not None:
            first_scan.close()


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
    with translations_looked_up_once():  # the subcommand's parser is filled in as it parses
        args = build_parser().parse_args(argv)
    if fast_exit and args.command in ("index", "scan"):
        gc.disable()  # the process ends with os._exit: nothing to collect at the end either
    code = run_command(args)
    if fast_exit and args.command is not None:
        exit_now(code)
    return code


def exit_now(code: int) -> None:
    import contextlib  # not for --help (it ends in argparse)

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
    import contextlib
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
        from memtui.cli.common import EXIT_OK

        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    finally:
        if demo_root is not None:
            finish_demo(demo_root, args.keep_demo)


def record_operations(args: argparse.Namespace) -> None:
    """Record the stores before and after every operation this run applies (once the history
    repository exists: ``memtui history record`` makes it)."""
    from memtui.cli.common import context_from
    from memtui.core.history.observe import record_operations as observe_operations

    observe_operations(context_from(args))


def dispatch(args: argparse.Namespace) -> int:
    # imported here, not for --help (and with it the secret masking and control escaping)
    from memtui.cli.common import EXIT_USAGE, context_from, project_problem, say

    if args.command not in ("index", "demo", "config"):
        problem = project_problem(args)
        if problem is not None:
            say(f"memtui: {problem}", err=True)
            return EXIT_USAGE
    if args.command is None:
        return run_tui(args)
    if args.command not in READ_ONLY_COMMANDS:
        record_operations(args)
    if args.command in ("scan", "index", "config", "team", "judge", "recall", "context",
                        "history"):
        return command(*COMMANDS[args.command])(args)
    if args.command not in ("undo", "demo"):
        from memtui.cli.undo_commands import warn_incomplete_operations

        warn_incomplete_operations(context_from(args))
    if args.command == "snapshot" and args.snapshot_command != "status":
        return command("edit_commands", "cmd_snapshot_action")(args)
    if args.command == "snapshot":
        return command("read_commands", "cmd_snapshot_status")(args)
    if args.command in COMMANDS:
        return command(*COMMANDS[args.command])(args)
    return cmd_demo(args)
