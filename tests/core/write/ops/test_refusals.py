"""The delete and redact refusals both shells share (``memtui.core.write.ops``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from memtui.core.contents import Memory, Store
from memtui.core.demo.story import FAKE_GITHUB_PAT
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write.ops.memory import delete_refusal
from memtui.core.write.ops.redact import redact_refusal


def store_at(tmp_path: Path, kind: StoreKind = StoreKind.AUTO) -> Store:
    root = tmp_path / kind.value
    root.mkdir()
    (root / "keys.md").write_text(f"---\nname: keys\n---\ngh {FAKE_GITHUB_PAT}\n")
    (root / "plain.md").write_text("---\nname: plain\n---\nnothing secret\n")
    (root / "MEMORY.md").write_text("- [Keys](keys.md) — keys\n- [Plain](plain.md) — plain\n")
    return scan_store(StoreLocation(kind=kind, path=root, rule="test"))


def named(store: Store, rel: str) -> Memory:
    return next(m for m in store.memories if m.rel_path == rel)


def test_delete_refusals(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    assert delete_refusal(store, named(store, "plain.md")) is None
    assert delete_refusal(store, None) == (
        "Select a memory file to delete (stores and folders are not deleted).")
    index = dataclasses.replace(named(store, "plain.md"), rel_path="MEMORY.md")
    assert delete_refusal(store, index) == (
        "MEMORY.md is the index; delete the memories it lists instead.")
    snapshot = store_at(tmp_path, StoreKind.SNAPSHOT)
    assert delete_refusal(snapshot, named(snapshot, "plain.md")) == (
        "Snapshots ship with the project; memtui does not edit them.")


def test_redact_refusals(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    assert redact_refusal(store, named(store, "keys.md")) is None
    assert redact_refusal(store, named(store, "plain.md")) == "No secret found in plain.md."
    assert redact_refusal(store, None) == (
        "Select a memory file that holds a secret (⚠ in its tree).")
    odd = dataclasses.replace(named(store, "plain.md"), rel_path="a\x1bb.md")
    assert redact_refusal(store, odd) == "No secret found in a\\x1bb.md."
    snapshot = store_at(tmp_path, StoreKind.SNAPSHOT)
    assert redact_refusal(snapshot, named(snapshot, "keys.md")) == (
        "Snapshots ship with the project; memtui does not edit them.")
