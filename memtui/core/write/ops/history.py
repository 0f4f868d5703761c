"""Plans of history: restoring a version of a file (a deleted memory with its MEMORY.md lines)
and installing or removing the Claude Code hook that records versions. Each is a
:class:`~memtui.core.write.proposal.Proposal` applied through :func:`memtui.core.write.apply.apply`
(preview, revision check, journal, undo)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from memtui.core.history.files import is_stub, stub_fields
from memtui.core.history.hook import SettingsProblem, reformats, with_hook, without_hook
from memtui.core.history.paths import HistoryError
from memtui.core.history.timeline import History
from memtui.core.model import StoreKind
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.link_targets import resolve_target
from memtui.core.secrets.redact import masked_text
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.ops.memory import INDEX_NAME, lock_dir_of
from memtui.core.write.proposal import FileChange, Proposal, read_regular, sha256_hex

__all__ = ["plan_hook", "plan_restore"]

INDEX_KINDS = ("auto", "team", "agent")


def _current(path: Path) -> bytes | None:
    try:
        data, _st = read_regular(path)
    except OSError as exc:
        raise EditRefused(f"cannot read {path}: {exc.strerror or exc}", path) from exc
    return data


def plan_restore(
    history: History, path: Path, rev: str, *, index_lines: bool = True
) -> Proposal:
    """Put ``path`` back as version ``rev`` held it. A file that is gone also gets back the
    lines of its store's ``MEMORY.md`` that linked to it in that version and are missing now
    (``index_lines``). Refused: a file in no recorded store, a version without the file, a
    version kept only as a stub (a large or binary file: its hash, not its bytes), a snapshot
    (it ships with the project), a file that already holds those bytes."""
    try:
        found = history.store_of(path)
        if found is None or not found[1]:
            raise EditRefused(f"{path} is no file of a store the history records", path)
        ref, rel = found
        full = history.resolve(rev)
        data = history.content(full, ref.key, rel)
        old_index = (history.content(full, ref.key, INDEX_NAME)
                     if index_lines and ref.kind in INDEX_KINDS and rel != INDEX_NAME else None)
    except HistoryError as exc:
        raise EditRefused(str(exc), path) from exc
    if ref.kind == StoreKind.SNAPSHOT.value:
        raise EditRefused(f"{path} is in a snapshot: snapshots ship with the project; "
                          "memtui does not edit them", path)
    if data is None:
        raise EditRefused(f"version {full[:12]} does not hold {rel} (the version before a "
                          "deletion does)", path)
    if is_stub(data):
        fields = stub_fields(data)
        raise EditRefused(f"version {full[:12]} kept only the hash of {rel} "
                          f"({fields.get('reason', 'a stub')}, sha256 {fields.get('sha256')}): "
                          "there are no bytes to restore", path)
    current = _current(ref.path / rel)
    if current == data:
        raise EditRefused(f"{rel} already holds version {full[:12]}; nothing to restore", path)
    target = ref.path / rel
    changes = [FileChange(target, "write", data, None if current is None else sha256_hex(current))]
    notes = [f"{'restores' if current is None else 'puts back'} {rel} as of version {full[:12]}"]
    if current is None and old_index is not None:
        index_change = _index_lines_back(ref.path / INDEX_NAME, old_index, rel)
        if index_change is not None:
            change, lines = index_change
            changes.append(change)
            notes += [f"adds back to {INDEX_NAME}: {line}" for line in lines]
    return Proposal(
        kind="history-restore",
        title=f"restore {rel} of {ref.key} as of version {full[:12]}",
        root=ref.path,
        lock_dir=lock_dir_of(StoreKind(ref.kind), ref.path),
        changes=changes,
        notes=notes,
        shown=masked_text,
    )


def _index_lines_back(index: Path, old: bytes, rel: str) -> tuple[FileChange, list[str]] | None:
    """The index with the old index's lines linking to ``rel`` that it lacks, appended."""
    old_text = old.decode("utf-8", "replace")
    linking = [e.raw for e in parse_entries(old_text)
               if e.target and rel in (resolve_target(e.target), resolve_target(unquote(e.target)))]
    current = _current(index)
    now = (current or b"").decode("utf-8", "replace")
    missing = [line for line in dict.fromkeys(linking) if line not in now.splitlines()]
    if not missing:
        return None
    base = current or b""
    if base and not base.endswith(b"\n"):
        base += b"\n"
    new = base + "".join(line + "\n" for line in missing).encode("utf-8")
    expected = None if current is None else sha256_hex(current)
    return FileChange(index, "write", new, expected), missing


def plan_hook(settings_path: Path, command: str, *, install: bool) -> Proposal:
    """Add memtui's recording hook to a Claude Code settings file (``install``) or take it out.
    Refused (the file untouched): not valid JSON, an unexpected shape, nothing to do."""
    current = _current(settings_path)
    try:
        new = with_hook(current, command) if install else without_hook(current)
        reformat = reformats(current)
    except SettingsProblem as exc:
        raise EditRefused(f"{settings_path}: {exc}", settings_path) from exc
    if new is None:
        state = "already installed" if install else "not installed"
        raise EditRefused(f"the history hook is {state} in {settings_path}; nothing to do",
                          settings_path)
    notes = [f"{'adds' if install else 'removes'} the PostToolUse hook on Write|Edit|MultiEdit"
             f" running: {command}" if install else
             f"removes memtui's PostToolUse hook from {settings_path.name}"]
    if reformat:
        notes.append("the file is written back with its indent, one key per line: "
                     "its other keys keep their values and order, not their spacing")
    return Proposal(
        kind="history-hook-install" if install else "history-hook-remove",
        title=f"{'install' if install else 'remove'} the history hook in {settings_path.name}",
        root=settings_path.parent,
        lock_dir=None,
        changes=[FileChange(settings_path, "write", new,
                            None if current is None else sha256_hex(current))],
        notes=notes,
    )
