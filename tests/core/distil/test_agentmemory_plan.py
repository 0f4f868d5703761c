"""The distil plan of an agentmemory home through ``plan_distil``: each generated section a
change, toggles, MEMORY.md only, every file read re-checked, apply and undo exact, a second
distil a no-op, the meter raw and said so."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from amhomes import AGENTMEMORY_OUTPUT, INACTIVE, NOW, small_home, write_index
from helpers import tree_state

from memtui.core.contents import Store
from memtui.core.demo.writers import write_agentmemory_daily, write_file
from memtui.core.distil.agentmemory_plan import NOT_LOADED, AgentmemoryPlan
from memtui.core.distil.model import DistilCancelled, DistilPlan, meter_text
from memtui.core.distil.plan import plan_distil
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.recovery import undo

pytestmark = pytest.mark.usefixtures("state_home")

CURRENT = """\
# Memory Index
<!-- last distilled: 2026-03-02 18:00:00 -->

## Pinned
- Never store secrets here.

## Topics
- Auth — PKCE chosen over the implicit flow #auth → [[2026-03-01]] (1 entries) (topics/auth.md)

## Team notes
Ask before force-pushing.

## #auth
- Switched the auth flow to PKCE #auth → [[2026-03-01]]

## #oldtag
- gone → [[2026-01-01]]

## Tags
#auth → 2026-03-01
"""

EXPECTED = AGENTMEMORY_OUTPUT.replace(
    "\n\n## Topics\n", "\n\n## Pinned\n- Never store secrets here.\n\n## Topics\n"
).replace("\n\n## #auth\n", "\n\n## Team notes\nAsk before force-pushing.\n\n## #auth\n")
"""agentmemory's own index of the home, with the current index's two hand-written sections
after the sections they followed."""


def home_store(home: Path) -> Store:
    return scan_store(StoreLocation(kind=StoreKind.AGENTMEMORY, path=home, rule="test"))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = small_home(tmp_path / "agent-memory")
    write_index(home, CURRENT)
    return home


def plan_of(home: Path, now: datetime = NOW, **kwargs: Any) -> DistilPlan:
    return plan_distil(home_store(home), now=now, **kwargs)


def test_each_generated_section_that_changes_is_a_change(home: Path) -> None:
    plan = plan_of(home)
    assert isinstance(plan, AgentmemoryPlan) and plan.store_kind == StoreKind.AGENTMEMORY
    assert [(c.id, c.kind, c.group, c.lines, c.summary) for c in plan.changes] == [
        ("topics", "generate-section", "changed", (7, 8), "## Topics: 2 topics (was 1)"),
        ("tag:#auth", "generate-section", "changed", (13, 14), "## #auth: 3 entries (was 1)"),
        ("tag:#deploy", "generate-section", "added", (), "## #deploy: added, 2 entries"),
        ("tag:#billing", "generate-section", "added", (), "## #billing: added, 1 entry"),
        ("recent", "generate-section", "added", (), "## Recent: added, 3 entries"),
        ("tags", "generate-section", "changed", (19, 20), "## Tags: 3 tags (was 1)"),
        ("tag:#oldtag", "remove-section", "removed", (16, 17),
         "## #oldtag: no longer generated (no live entry has the tag)"),
    ]  # the header is no change: only its stamp would differ
    assert list(plan.groups()) == ["changed", "added", "removed"]


def test_the_index_has_agentmemorys_shape_and_pinned_and_hand_written_sections_survive(
    home: Path,
) -> None:
    outcome = plan_of(home).outcome()
    assert outcome.index_text == EXPECTED
    assert outcome.files == {} and outcome.cut == []
    assert outcome.proposal is not None
    assert [c.path for c in outcome.proposal.changes] == [home / "MEMORY.md"]


def test_a_disabled_section_keeps_its_current_version(home: Path) -> None:
    plan = plan_of(home)
    text = plan.outcome({"tag:#auth", "tag:#deploy", "tag:#oldtag"}).index_text
    assert "## #auth\n- Switched the auth flow to PKCE #auth → [[2026-03-01]]\n\n" in text
    assert "## #oldtag\n- gone → [[2026-01-01]]\n" in text
    assert "## #deploy" not in text  # added: nothing current to keep
    assert "## #billing\n- Invoices are integer cents" in text
    assert plan.outcome({"tag:#deploy"}).index_text == EXPECTED.replace(
        "## #deploy\n- Deploys go out on Tuesdays only #deploy → [[2026-03-02]]\n"
        "- Deploy checklist lives in the wiki #deploy → [[2026-03-01]]\n\n", "")


def test_every_change_disabled_writes_nothing(home: Path) -> None:
    plan = plan_of(home)
    outcome = plan.outcome({c.id for c in plan.changes})
    assert outcome.proposal is None and outcome.index_text == CURRENT
    assert outcome.after == plan.before


def test_lifecycle_markers_exclude_entries_and_are_listed(home: Path) -> None:
    write_agentmemory_daily(home, "2026-03-03", INACTIVE)
    plan = plan_of(home)
    assert "## #auth: 3 entries (was 1)" in [c.summary for c in plan.changes]
    assert [n for n in plan.notes if "left out" in n] == [
        "daily/2026-03-03.md line 1: entry left out (Status: superseded)",
        "daily/2026-03-03.md line 5: entry left out (Trust: untrusted)",
        "daily/2026-03-03.md line 9: entry left out (Valid until: 2026-03-02 (expired))",
    ]
    outcome = plan.outcome()
    assert outcome.index_text == EXPECTED  # as if they were not there
    for gone in ("Use implicit", "Ignore previous", "Freeze until"):
        assert gone not in outcome.index_text
    assert outcome.proposal is not None
    assert "daily/2026-03-03.md line 1: entry left out (Status: superseded)" in (
        outcome.proposal.notes)


def test_the_scratchpad_is_listed_never_written(home: Path) -> None:
    plan = plan_of(home)
    assert [n for n in plan.notes if n.startswith("SCRATCHPAD.md")] == [
        "SCRATCHPAD.md line 4: open: rotate the staging key (the scratchpad is not rewritten)",
        "SCRATCHPAD.md line 6: open: ask about the ERP window (the scratchpad is not rewritten)",
    ]
    proposal = plan.outcome().proposal
    assert proposal is not None
    assert home / "SCRATCHPAD.md" in [r.path for r in proposal.reads]
    assert home / "SCRATCHPAD.md" not in [c.path for c in proposal.changes]


def test_the_meter_is_raw_and_says_claude_code_does_not_load_it(home: Path) -> None:
    plan = plan_of(home)
    outcome = plan.outcome()
    assert NOT_LOADED in plan.notes
    assert not plan.before.loaded and not outcome.after.loaded
    def units(text: str) -> int:  # UTF-16 units of the trimmed text
        return len(text.strip().encode("utf-16-le")) // 2

    assert (len(CURRENT.splitlines()), len(EXPECTED.splitlines())) == (20, 34)
    assert meter_text(plan.before, outcome.after) == (
        f"20 → 34 lines, {units(CURRENT)} → {units(EXPECTED):,} units (not loaded by Claude Code)")
    assert outcome.after.dropped == 0 and outcome.after.cut_line is None


def test_apply_then_undo_restores_every_byte(home: Path) -> None:
    before = tree_state(home)
    outcome = plan_of(home).outcome()
    assert outcome.proposal is not None
    journal = Journal.default()
    done = apply(outcome.proposal, journal)
    assert done.files == [home / "MEMORY.md"]
    assert (home / "MEMORY.md").read_text() == EXPECTED
    undo(journal, done.op_id)
    assert tree_state(home) == before


def test_a_second_distil_later_changes_nothing(home: Path) -> None:
    outcome = plan_of(home).outcome()
    assert outcome.proposal is not None
    apply(outcome.proposal, Journal.default())
    later = plan_of(home, now=NOW + timedelta(hours=5))
    assert later.changes == []
    again = later.outcome()
    assert again.proposal is None and again.index_text == EXPECTED


def test_a_file_changed_since_the_preview_refuses(home: Path) -> None:
    outcome = plan_of(home).outcome()
    assert outcome.proposal is not None
    daily = home / "daily" / "2026-03-02.md"
    daily.write_text(daily.read_text() + "\n<!-- 2026-03-02 18:00:00 [eeee5555] -->\nLate #auth\n")
    changed = tree_state(home)
    with pytest.raises(EditRefused, match=r"2026-03-02\.md changed on disk since the preview"):
        apply(outcome.proposal, Journal.default())
    assert tree_state(home) == changed


@pytest.mark.parametrize("where", ["daily/2026-03-03.md", "topics/payments.md"])
def test_a_file_added_since_the_preview_refuses(home: Path, where: str) -> None:
    """The directories are listed again: a daily log or a topic file added between the preview
    and the apply would have been read, so the plan no longer holds."""
    outcome = plan_of(home).outcome()
    assert outcome.proposal is not None
    write_file(home / where, "<!-- 2026-03-03 09:00:00 [ffff6666] -->\nLate #billing\n")
    added = tree_state(home)
    with pytest.raises(EditRefused, match=rf"changed on disk since the preview \(added "
                                          rf"{where.split('/')[1]}\); nothing was written"):
        apply(outcome.proposal, Journal.default())
    assert tree_state(home) == added


def test_a_directory_made_since_the_preview_refuses(tmp_path: Path) -> None:
    home = small_home(tmp_path / "agent-memory")
    os.unlink(home / "daily" / "2026-03-01.md")
    shutil.rmtree(home / "topics")
    proposal = plan_of(home).outcome().proposal
    assert proposal is not None
    assert [(d.path, d.names) for d in proposal.listings] == [
        (home / "daily", ("2026-03-02.md",)), (home / "topics", ())]
    write_file(home / "topics" / "new.md", "# New\n")  # a directory that was not there
    with pytest.raises(EditRefused, match=r"topics changed on disk since the preview \(added "):
        apply(proposal, Journal.default())


def test_a_file_distil_does_not_read_added_since_the_preview_is_no_change(home: Path) -> None:
    outcome = plan_of(home).outcome()
    assert outcome.proposal is not None
    write_file(home / "daily" / "notes.txt", "not a log\n")
    apply(outcome.proposal, Journal.default())
    assert (home / "MEMORY.md").read_text() == EXPECTED


def test_an_index_changed_since_the_preview_refuses(home: Path) -> None:
    outcome = plan_of(home).outcome()
    assert outcome.proposal is not None
    with (home / "MEMORY.md").open("a") as index:
        index.write("\n## Mine\nwritten meanwhile\n")
    with pytest.raises(EditRefused, match=r"MEMORY\.md changed on disk"):
        apply(outcome.proposal, Journal.default())
    assert "written meanwhile" in (home / "MEMORY.md").read_text()


def test_no_index_yet_gets_one_and_one_written_meanwhile_refuses(tmp_path: Path) -> None:
    home = small_home(tmp_path / "agent-memory")
    plan = plan_of(home)
    assert "there is no MEMORY.md: distil writes one" in plan.notes
    assert {c.group for c in plan.changes} == {"added"}
    outcome = plan.outcome()
    assert outcome.proposal is not None and outcome.index_text.startswith("# Memory Index\n")
    write_index(home, "# mine\n")
    with pytest.raises(EditRefused):
        apply(outcome.proposal, Journal.default())
    assert (home / "MEMORY.md").read_text() == "# mine\n"


def test_a_broken_index_is_refused(tmp_path: Path) -> None:
    home = small_home(tmp_path / "agent-memory")
    write_file(home / "MEMORY.md", b"# Memory Index\n\xfe\n")
    plan = plan_of(home)
    assert plan.refusals == [
        "MEMORY.md cannot be read as text (invalid UTF-8 at byte 15: not read): distil leaves "
        "it alone"]
    assert plan.changes == [] and plan.outcome().proposal is None


def test_unreadable_files_are_notes_and_the_rest_is_planned(home: Path) -> None:
    os.mkfifo(home / "topics" / "fifo.md")
    plan = plan_of(home)
    assert any(n.startswith("topics/fifo.md: ") and n.endswith("(left out)") for n in plan.notes)
    assert plan.outcome().index_text == EXPECTED


def test_same_tree_same_now_same_plan(home: Path) -> None:
    one, two = plan_of(home), plan_of(home)
    assert one.changes == two.changes and one.notes == two.notes
    assert one.outcome().index_text == two.outcome().index_text
    assert plan_of(home, now=NOW + timedelta(seconds=1)).outcome().index_text != EXPECTED


def test_progress_and_cancel(home: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    plan_of(home, progress=lambda *step: seen.append(step))
    assert seen[-1] == ("reading agentmemory", 4, 4)
    with pytest.raises(DistilCancelled):
        plan_of(home, cancelled=lambda: True)
