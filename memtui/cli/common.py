"""What every CLI command shares: exit codes, the Context from the options, JSON output.

Every line and JSON document a command prints goes out through :func:`say`, :func:`shown`,
:func:`write` or :func:`print_json`: each masks the secrets in it
(:mod:`memtui.core.secrets.mask`) and escapes its control characters."""

from __future__ import annotations

import argparse
import os
import sys

from memtui.core.plaintext import escape_controls, json_safe
from memtui.core.secrets.mask import mask_data, mask_secrets

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.config import Config
    from memtui.core.stores.locations import Context

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
CONFIG_ENV = "MEMTUI_CONFIG"
"""memtui.core.config.CONFIG_ENV, spelled out: the config is not imported on every run."""


def context_from(args: argparse.Namespace) -> Context:
    """The options' Context; ``args.env_overrides`` (set by ``--demo``: its own journal and
    cache) take the place of those variables of the environment, and ``--config FILE`` that
    of ``$MEMTUI_CONFIG`` (so the journal's limits, the TUI's theme and keymap come from it)."""
    from memtui.core.stores.locations import Context  # not on ``memtui index``'s path

    overrides = getattr(args, "env_overrides", None)
    if getattr(args, "config", None) is not None:
        overrides = {**(overrides or {}), CONFIG_ENV: str(args.config)}
    env = {**os.environ, **overrides} if overrides else None
    ctx = Context.create(
        project=args.project,
        claude_home=args.claude_home,
        agent_memory_home=args.agent_memory_home,
        env=env,
        claude_code_version=getattr(args, "claude_code_version", None),
    )
    by_dir = getattr(args, "project_dir", None)
    if by_dir is not None:
        from memtui.core.stores.projects import project_dir_named, project_path_from_transcripts

        found = project_dir_named(ctx, by_dir)
        source = project_path_from_transcripts(str(found), None)
        if source is not None and os.path.isdir(source):
            from pathlib import Path

            return ctx.opened_at(Path(source))  # its source tree is here: open it there
        return ctx.opened_by_dir(found, source)
    return ctx


TRY_TEXT = ("try `memtui --demo` for a demo home, `memtui --project-dir NAME` for a project "
            "of the CC home (names: `memtui scan` lists them), or `p` in the TUI to pick one")


def project_problem(args: argparse.Namespace) -> str | None:
    """Why the project options name nothing that exists (bad usage: exit 2), or None."""
    project = getattr(args, "project", None)
    if project is not None and not os.path.isdir(project):
        what = "does not exist" if not os.path.lexists(project) else "is not a directory"
        return f"--project {shown(project)} {what}; nothing to show ({TRY_TEXT})"
    if getattr(args, "project_dir", None) is not None:
        ctx = context_from(args)
        if ctx.project_dir is not None and not os.path.isdir(ctx.project_dir):
            return (f"--project-dir {shown(args.project_dir)}: no project directory "
                    f"{shown(ctx.show(ctx.project_dir))}; nothing to show ({TRY_TEXT})")
    return None


def print_json(data: Any) -> None:
    """One compact JSON document (C encoder, one write: large homes print fast), every string
    in it with its secrets masked (:func:`memtui.core.secrets.mask.mask_data`). ``json.dumps``
    escapes C0 controls; the C1 controls, DEL and bidi controls it leaves raw are written as
    ``\\uXXXX`` escapes too (:func:`memtui.core.plaintext.json_safe`: the same JSON value)."""
    import json

    from memtui.core.cache import gc_paused

    with gc_paused():
        text = json_safe(json.dumps(mask_data(data), ensure_ascii=False))
    sys.stdout.write(text + "\n")


def shown(value: object) -> str:
    """A value from disk (a name, path, title, description, rule, problem) for a line of
    output: its secrets masked, control characters escaped, newlines too, so it stays on its
    line and nothing in it reaches the terminal as a control sequence."""
    return escape_controls(mask_secrets(str(value)))


def say(text: str = "", *, err: bool = False) -> None:
    """Print a line memtui composed (its values passed through :func:`shown`). Any secret or
    control character still in it is masked or escaped as well; only the newlines memtui
    writes stay."""
    write(text + "\n", err=err)


def write(text: str, *, err: bool = False) -> None:
    """Write ``text`` (lines memtui composed, a diff, a file's body) as it is, but with its
    secrets masked and its control characters but newlines and tabs escaped."""
    stream = sys.stderr if err else sys.stdout
    stream.write(escape_controls(mask_secrets(text), keep_newlines=True))


def ask_to_apply(question: str = "Apply?") -> bool | None:
    """True/False from the user; None when stdin is not a terminal."""
    if not sys.stdin.isatty():
        return None
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def settings_of(args: argparse.Namespace, ctx: Context) -> Config:
    """The process's settings: memtui's config, loaded once, on first use (``scan`` and
    ``index`` never load it), and kept on ``args`` for every command of the run to share."""
    settings: Config | None = getattr(args, "settings", None)
    if settings is None:
        from memtui.core.config import load_config

        settings = load_config(ctx.env, ctx.home, getattr(args, "config", None))
        args.settings = settings
    return settings
