"""Plans for the three snapshot actions, exactly as Claude Code takes them
(docs/claude-code-rules.md#snapshot-operations).

- initialize: copy every top-level regular file of the snapshot dir except ``snapshot.json``
  (any extension; subfolders and symlinks skipped) into the local dir, then write
  ``.snapshot-synced.json`` = ``{"syncedFrom":"<updatedAt>"}`` (compact, no newline);
- replace: delete the local dir's top-level regular ``*.md`` files (other files stay), copy as
  above, write the synced file;
- mark-synced: only write the synced file ("keep mine").

Each returns a :class:`~memtui.core.write.proposal.Proposal` (confined to the local dir, whose
``.consolidate-lock`` applies) for the caller to preview and :func:`~memtui.core.write.apply.apply`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from memtui.core.secrets.redact import masked_text
from memtui.core.stores.snapshot import SYNCED_JSON, read_snapshot_meta, snapshot_files
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.proposal import (
    FileChange,
    Proposal,
    file_sha256,
    read_regular,
    sha256_hex,
)

__all__ = ["SNAPSHOT_ACTIONS", "SnapshotAction", "nothing_to_do", "plan_snapshot", "synced_bytes"]

SnapshotAction = Literal["initialize", "replace", "mark-synced"]
SNAPSHOT_ACTIONS: tuple[SnapshotAction, ...] = ("initialize", "replace", "mark-synced")

_TITLES = {
    "initialize": "initialize {agent} memory from its snapshot",
    "replace": "replace {agent} memory with its snapshot",
    "mark-synced": "mark {agent} memory as synced with its snapshot (keep mine)",
}


def synced_bytes(updated_at: str) -> bytes:
    """``.snapshot-synced.json`` exactly as Claude Code writes it."""
    text = json.dumps({"syncedFrom": updated_at}, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def plan_snapshot(snapshot_dir: Path, local_dir: Path, action: SnapshotAction) -> Proposal:
    """The files ``action`` changes in ``local_dir``; EditRefused for an unusable snapshot."""
    if action not in SNAPSHOT_ACTIONS:
        raise EditRefused(f"unknown snapshot action {action!r}")
    updated_at, problem = read_snapshot_meta(snapshot_dir)
    if updated_at is None:
        raise EditRefused(
            f"the snapshot in {snapshot_dir} cannot be used: {problem}; nothing was planned",
            snapshot_dir,
        )
    if os.path.lexists(local_dir) and not local_dir.is_dir():
        raise EditRefused(f"{local_dir} is not a directory", local_dir)
    writes: dict[str, bytes] = {}
    deletes: list[str] = []
    if action == "replace":
        deletes = _top_level_md(local_dir)
    if action in ("initialize", "replace"):
        writes.update(_snapshot_contents(snapshot_dir))
    writes[SYNCED_JSON] = synced_bytes(updated_at)
    changes = [_delete(local_dir / name) for name in deletes if name not in writes]
    changes += [_write(local_dir / name, data) for name, data in writes.items()]
    agent = snapshot_dir.name
    return Proposal(
        kind=f"snapshot-{action}",
        title=_TITLES[action].format(agent=agent),
        root=local_dir,
        lock_dir=local_dir,
        changes=changes,
        notes=_notes(action, deletes, writes, updated_at),
        shown=masked_text,  # a memory's secrets show masked in the review's diffs
    )


def nothing_to_do(proposal: Proposal) -> str | None:
    """Why applying ``proposal`` would change no file (every file it writes already has these
    bytes, every file it deletes is gone, as its plan saw them), or None when it changes one.
    Such an action is not offered: applying it would only journal an operation that did
    nothing."""
    for change in proposal.changes:
        if change.action == "delete" and change.expected is not None:
            return None
        if change.action == "write" and (
            change.new_bytes is None or change.expected != sha256_hex(change.new_bytes)
        ):
            return None
    return "nothing to do: every file is already as this action would leave it"


def _snapshot_contents(snapshot_dir: Path) -> dict[str, bytes]:
    contents: dict[str, bytes] = {}
    for name in snapshot_files(snapshot_dir):
        try:
            data, _st = read_regular(snapshot_dir / name)  # no link, no FIFO, size-capped
        except OSError as exc:
            raise EditRefused(
                f"cannot read {snapshot_dir / name}: {exc.strerror or exc}", snapshot_dir / name
            ) from exc
        if data is None:
            raise EditRefused(
                f"{snapshot_dir / name} disappeared while memtui read the snapshot",
                snapshot_dir / name,
            )
        contents[name] = data
    return contents


def _top_level_md(local_dir: Path) -> list[str]:
    """Top-level regular ``*.md`` files (what CC's replace deletes; symlinks are not files)."""
    try:
        with os.scandir(local_dir) as entries:
            names = [e.name for e in entries if e.is_file(follow_symlinks=False)]
    except OSError:
        return []
    return sorted(name for name in names if name.endswith(".md"))


def _delete(path: Path) -> FileChange:
    return FileChange(path, "delete", None, _expected(path))


def _write(path: Path, data: bytes) -> FileChange:
    return FileChange(path, "write", data, _expected(path))


def _expected(path: Path) -> str | None:
    """The hash of the local file the plan saw (None: absent)."""
    try:
        return file_sha256(path)
    except OSError as exc:
        raise EditRefused(f"cannot read {path}: {exc.strerror or exc}", path) from exc


def _notes(
    action: SnapshotAction, deletes: list[str], writes: dict[str, bytes], updated_at: str
) -> list[str]:
    notes: list[str] = []
    gone = [name for name in deletes if name not in writes]
    replaced = [name for name in deletes if name in writes]
    if gone:
        notes.append("deletes your local memories: " + ", ".join(gone))
    if replaced:
        notes.append("overwrites with the snapshot's version: " + ", ".join(replaced))
    copied = [name for name in writes if name != SYNCED_JSON]
    if copied:
        notes.append("copies from the snapshot: " + ", ".join(copied))
    if action == "mark-synced":
        notes.append("keeps your local memories; only records the snapshot as seen")
    notes.append(f"records {SYNCED_JSON} = syncedFrom {updated_at}")
    return notes
