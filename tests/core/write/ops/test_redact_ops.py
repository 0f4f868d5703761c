"""The redact plan: each secret becomes ``[REDACTED:<rule-id>]``, every other byte stays; its
preview (and a delete's) shows secrets masked; apply, then undo, gives the file back exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import tree_state

from memtui.core.contents import Memory, Store
from memtui.core.demo.story import FAKE_AWS_KEY_ID, FAKE_GITHUB_PAT
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write import recovery
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.ops.memory import plan_delete_memory
from memtui.core.write.ops.redact import ROTATE_NOTE, NothingToRedact, plan_redact

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py

CRLF_TEXT = (
    "\ufeff---\r\nname: keys\r\n---\r\n"
    f"gh {FAKE_GITHUB_PAT}\r\n"
    "plain line ünïcode\r\n"
    f"aws {FAKE_AWS_KEY_ID} and again {FAKE_GITHUB_PAT}"  # no final newline
)


def store_with(tmp_path: Path, text: str, name: str = "keys.md") -> tuple[Path, Store]:
    root = tmp_path / "mem"
    root.mkdir(exist_ok=True)
    (root / name).write_bytes(text.encode("utf-8"))
    (root / "MEMORY.md").write_text(f"- [Keys]({name}) — deploy keys\n")
    store = scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"))
    return root, store


def memory_of(store: Store, name: str) -> Memory:
    return next(m for m in store.memories if m.rel_path == name)


def test_redaction_replaces_each_secret_and_keeps_every_other_byte(tmp_path: Path) -> None:
    _root, store = store_with(tmp_path, CRLF_TEXT)
    proposal = plan_redact(store, memory_of(store, "keys.md"))
    [change] = proposal.changes
    assert change.new_bytes == (
        CRLF_TEXT.replace(FAKE_GITHUB_PAT, "[REDACTED:github-pat]")
        .replace(FAKE_AWS_KEY_ID, "[REDACTED:aws-access-token]")
        .encode("utf-8")
    )
    assert proposal.notes[-1] == ROTATE_NOTE
    assert [n.split(":")[0] for n in proposal.notes[:-1]] == ["line 4", "line 6", "line 6"]


def test_the_preview_masks_each_secret(tmp_path: Path) -> None:
    _root, store = store_with(tmp_path, CRLF_TEXT)
    proposal = plan_redact(store, memory_of(store, "keys.md"))
    [diff] = proposal.diff()
    shown = "\n".join([diff.unified, diff.old_text or "", diff.new_text or "", *proposal.notes,
                       proposal.title])
    assert FAKE_GITHUB_PAT not in shown and FAKE_AWS_KEY_ID not in shown
    assert "-gh ghp_…defg\r\n" in diff.unified
    assert "+gh [REDACTED:github-pat]\r\n" in diff.unified


def test_a_delete_preview_masks_the_deleted_memory_secrets(tmp_path: Path) -> None:
    _root, store = store_with(tmp_path, CRLF_TEXT)
    diffs = plan_delete_memory(store, memory_of(store, "keys.md")).diff()
    deleted = next(d for d in diffs if d.status == "deleted")
    assert "ghp_…defg" in deleted.unified
    assert FAKE_GITHUB_PAT not in deleted.unified and FAKE_AWS_KEY_ID not in deleted.unified


def test_apply_then_undo_restores_the_identical_file(tmp_path: Path) -> None:
    root, store = store_with(tmp_path, CRLF_TEXT)
    before = tree_state(root)
    journal = Journal.default()
    done = apply(plan_redact(store, memory_of(store, "keys.md")), journal)
    assert FAKE_GITHUB_PAT not in (root / "keys.md").read_text()
    assert FAKE_GITHUB_PAT not in str(done.record.to_json())
    recovery.undo(journal, done.op_id)
    assert tree_state(root) == before


def test_a_file_changed_since_the_plan_is_not_written(tmp_path: Path) -> None:
    root, store = store_with(tmp_path, CRLF_TEXT)
    proposal = plan_redact(store, memory_of(store, "keys.md"))
    (root / "keys.md").write_text(f"new {FAKE_GITHUB_PAT}\n")
    with pytest.raises(EditRefused):
        apply(proposal, Journal.default())
    assert (root / "keys.md").read_text() == f"new {FAKE_GITHUB_PAT}\n"


def test_nothing_to_redact_binary_and_links_are_refused(tmp_path: Path) -> None:
    root, store = store_with(tmp_path, "no secret here\n")
    with pytest.raises(NothingToRedact):
        plan_redact(store, memory_of(store, "keys.md"))
    (root / "bin.md").write_bytes(b"\0" + FAKE_GITHUB_PAT.encode())
    (tmp_path / "outside.md").write_text(f"{FAKE_GITHUB_PAT}\n")
    (root / "link.md").symlink_to(tmp_path / "outside.md")
    store = scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"))
    for name in ("bin.md", "link.md"):
        with pytest.raises(EditRefused):
            plan_redact(store, memory_of(store, name))
    assert FAKE_GITHUB_PAT in (tmp_path / "outside.md").read_text()
