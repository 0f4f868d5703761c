"""Hand a memory file to the user's own editor (``$VISUAL``, ``$EDITOR``, else ``vi``).

The editor's write is the user's own, so it is not journaled; memtui only checks that the file
is one it may hand over (a readable text file inside its store) and reloads the store after.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from memtui.core.fileread import check_file, read_header
from memtui.tui.nodes import NodeRef
from memtui.tui.plain import line

FALLBACK_EDITOR = "vi"
EDITOR_VARIABLES = ("VISUAL", "EDITOR")


def editor_command(env: Mapping[str, str]) -> list[str]:
    """The editor command line from ``$VISUAL`` or ``$EDITOR`` (split like a shell would),
    else ``vi``. Raises ValueError when the variable cannot be split (unbalanced quotes)."""
    for variable in EDITOR_VARIABLES:
        value = env.get(variable, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError as err:
                raise ValueError(f"${variable} cannot be split: {err}") from err
            if words:
                return words
    return [FALLBACK_EDITOR]


def editor_name() -> str:
    """The editor's program name, as the history names the author of an edit."""
    try:
        return Path(editor_command(os.environ)[0]).name
    except ValueError:
        return FALLBACK_EDITOR


def edit_refusal(ref: NodeRef | None) -> str | None:
    """Why the selection cannot go to an editor, or None when it can."""
    if ref is None:
        return "Select a memory file first."
    if ref.memory is None:
        what = f"the folder {ref.folder}/" if ref.folder else "a store"
        return f"This is {what}, not a file: select a memory file to edit."
    path, root = ref.memory.path, ref.store.path
    _st, problems, readable = check_file(path, root)
    if not readable:
        reason = problems[0] if problems else "unreadable"
        return f"{ref.memory.rel_path} cannot be edited: {reason}"
    header = read_header(path, root)
    refused = [p for p in header.problems if p.startswith(("binary", "cannot read"))]
    if not header.readable or refused:
        reason = refused[0] if refused else "; ".join(header.problems) or "unreadable"
        return f"{ref.memory.rel_path} cannot be edited: {reason}"
    return None


def run_editor(app: App[Any], command: list[str]) -> int:
    """Run ``command`` with the app suspended; where the driver cannot suspend (headless
    tests, the web) it runs without a terminal of its own."""
    try:
        with app.suspend():
            return subprocess.run(command, check=False).returncode
    except SuspendNotSupported:
        return subprocess.run(command, check=False, stdin=subprocess.DEVNULL).returncode


def edit_in_editor(app: App[Any], ref: NodeRef | None) -> Path | None:
    """Open the selected memory in the user's editor; the edited path, or None (and a
    notification saying why) when nothing was opened."""
    reason = edit_refusal(ref)
    if reason is not None or ref is None or ref.memory is None:
        app.notify(line(reason or "Nothing to edit."), title="Edit", severity="warning",
                   markup=False)
        return None
    path = ref.memory.path
    if not any(os.environ.get(v, "").strip() for v in EDITOR_VARIABLES):
        app.notify(f"No $VISUAL or $EDITOR is set: opened {FALLBACK_EDITOR}. Choose your "
                   "editor with e.g. export EDITOR=nano (or VISUAL) before memtui.",
                   title="Edit", markup=False)
    try:
        command = [*editor_command(os.environ), str(path)]
    except ValueError as err:
        app.notify(line(err), title="Edit", severity="error", markup=False)
        return None
    try:
        status = run_editor(app, command)
    except OSError as err:
        app.notify(line(f"cannot start {command[0]}: {err.strerror or err}"), title="Edit",
                   severity="error", markup=False)
        return None
    if status != 0:
        app.notify(line(f"{command[0]} exited with status {status}"), title="Edit",
                   severity="warning", markup=False)
    return path
