"""The plan that redacts the secrets of one memory: each finding replaced with
``[REDACTED:<rule-id>]`` (:func:`memtui.core.secrets.redact.redact`), every other byte kept.

Redacting does not make a leaked secret safe: it stays valid wherever it was used, so the plan
says to rotate it anyway. Its preview masks each secret (``ghp_…9abc``): the old text of the
diff never shows one.
"""

from __future__ import annotations

from memtui.core.contents import Memory, Store
from memtui.core.model import StoreKind
from memtui.core.plaintext import counted, escape_controls
from memtui.core.secrets.redact import masked_text, placeholder, redact
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.ops.memory import SNAPSHOT_REFUSAL, lock_dir_for
from memtui.core.write.proposal import FileChange, Proposal, read_regular, sha256_hex

__all__ = ["ROTATE_NOTE", "NothingToRedact", "plan_redact", "redact_refusal"]

ROTATE_NOTE = (
    "redacting does not revoke a secret: it stays valid wherever it was used, "
    "so rotate it anyway"
)


class NothingToRedact(EditRefused):
    """The file holds no secret (any more): there is nothing to write."""


def plan_redact(store: Store, memory: Memory) -> Proposal:
    """Replace every secret of ``memory``'s file with ``[REDACTED:<rule-id>]``, in one
    operation planned against the bytes read now. Refused (``EditRefused``) for a file outside
    the store, a link, a binary or non-UTF-8 file (rewriting it would change other bytes) and
    a file without a secret."""
    root = store.path
    path = memory.path
    if not path.is_relative_to(root) or path == root:
        raise EditRefused(f"{path} is not in the store {root}", path)
    try:
        data, _st = read_regular(path)
    except OSError as exc:
        raise EditRefused(f"cannot read {path}: {exc.strerror or exc}", path) from exc
    if data is None:
        raise EditRefused(f"{path} does not exist", path)
    if b"\0" in data:
        raise EditRefused(f"{path} is a binary file; memtui does not rewrite it", path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EditRefused(
            f"{path} is not valid UTF-8 (byte {exc.start}); memtui does not rewrite it", path
        ) from exc
    redacted = redact(text, path=memory.rel_path)
    if not redacted.findings:
        raise NothingToRedact(f"no secret found in {memory.rel_path}: nothing to redact", path)
    notes = [
        f"line {f.line}: {f.rule} secret {f.masked} becomes {placeholder(f.rule)}"
        for f in redacted.findings
    ]
    notes.append(ROTATE_NOTE)
    change = FileChange(path, "write", redacted.text.encode("utf-8"), sha256_hex(data))
    return Proposal(
        kind="redact-secrets",
        title=f"redact {counted(len(redacted.findings), 'secret')} in {memory.rel_path} "
        f"of {store.title}",
        root=root,
        lock_dir=lock_dir_for(store),
        changes=[change],
        notes=notes,
        shown=lambda shown_text: masked_text(shown_text, path=memory.rel_path),
    )


def redact_refusal(store: Store, memory: Memory | None) -> str | None:
    """Why ``memory`` of ``store`` is not offered for redacting (None: it may be), in words a
    shell shows as they are (the path's control characters escaped)."""
    if memory is None:
        return "Select a memory file that holds a secret (⚠ in its tree)."
    if store.kind == StoreKind.SNAPSHOT:
        return SNAPSHOT_REFUSAL
    if not memory.secrets:
        return f"No secret found in {escape_controls(str(memory.rel_path))}."
    return None
