"""Distil of Claude Code stores: the proposal fits with headroom and loses no line, toggles
are real, apply and undo are exact, a live lock and a changed file refuse, same tree same plan."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers import tree_state

from memtui.core.contents import Store
from memtui.core.demo.writers import (
    index_entry,
    write_big_store,
    write_file,
    write_index,
    write_memory,
)
from memtui.core.distil.model import GROUP_TITLES, DistilCancelled, meter_text, short_notes
from memtui.core.distil.plan import plan_distil
from memtui.core.model import Scope, StoreKind, StoreLocation
from memtui.core.parse.index_entries import parse_entries
from memtui.core.parse.link_targets import resolve_target
from memtui.core.parse.load_report import load_report
from memtui.core.scan.scanner import scan_store
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.lock import LOCK_NAME
from memtui.core.write.recovery import undo

pytestmark = pytest.mark.usefixtures("state_home")


def store_at(root: Path, kind: StoreKind = StoreKind.AUTO) -> Store:
    scope = Scope.USER if kind == StoreKind.AGENT else None
    return scan_store(StoreLocation(kind=kind, path=root, rule="test", scope=scope,
                                    agent="helper" if scope else None))


@pytest.fixture
def big(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    write_big_store(root)
    return root


def pointed_files(root: Path, text: str) -> list[Path]:
    return [root / resolve_target(e.target) for e in parse_entries(text)
            if e.target and (root / resolve_target(e.target)).is_file()]


def test_a_big_index_fits_with_headroom_and_loses_no_line(big: Path) -> None:
    old = (big / "MEMORY.md").read_text()
    assert len(old.split("\n")) >= 230
    plan = plan_distil(store_at(big), headroom=0.7)
    assert plan.before.lines > 200 and plan.before.dropped > 0
    kinds = {c.kind for c in plan.changes}
    assert {"drop-dangling", "add-orphan", "shorten-hook", "regroup"} <= kinds
    outcome = plan.outcome()
    assert outcome.after.fits and outcome.after.share <= 0.7
    assert outcome.proposal is not None
    apply(outcome.proposal, Journal.default())

    new = (big / "MEMORY.md").read_text()
    after = load_report("MEMORY.md", new, agent=False)
    assert after.dropped == [] and after.lines <= 140
    dropped = {c.lines[0] for c in plan.changes if c.kind == "drop-dangling"}
    assert len(dropped) == 6
    # every line of the old index: in the new index, or in a file the new index points to
    # (one level, or two through a moved section's file); dangling pointers were dropped
    reachable = new
    for path in pointed_files(big, new):
        text = path.read_text()
        reachable += "\n" + text
        if "distilled-from" in text:
            reachable += "".join("\n" + p.read_text() for p in pointed_files(big, text))
    found = set(reachable.split("\n"))
    shortened = {c.lines[0]: c.target for c in plan.changes if c.kind == "shorten-hook"}
    entries = {e.line: e for e in parse_entries(old)}
    for number, line in enumerate(old.split("\n"), 1):
        if not line.strip() or number in dropped:
            continue
        if line in found:
            continue
        assert number in shortened, (number, line)
        assert entries[number].hook in (big / str(shortened[number])).read_text()
    # every memory file is listed, directly or through a topic file distil wrote
    for memory in store_at(big).memories:
        if memory.rel_path != "MEMORY.md" and "distilled-from" not in memory.path.read_text():
            assert f"]({memory.rel_path})" in reachable, memory.rel_path


def test_the_meter_reads_as_the_issue_says(big: Path) -> None:
    plan = plan_distil(store_at(big))
    text = meter_text(plan.before, plan.outcome().after)
    report = load_report("MEMORY.md", (big / "MEMORY.md").read_text(), agent=False)
    assert (plan.before.lines, plan.before.units) == (report.lines, report.units) == (232, 20241)
    assert re.fullmatch(r"232 → \d+ lines, [\d,]+ → [\d,]+ units, 0 entries past the cut, "
                        r"\d+ % headroom", text), text


def test_a_disabled_change_leaves_its_lines_as_they_were(big: Path) -> None:
    plan = plan_distil(store_at(big))
    old_lines = plan.old_text.split("\n")
    everything = {c.id for c in plan.changes}
    assert plan.outcome(everything).index_text == plan.old_text
    assert plan.outcome(everything).proposal is None
    drop = next(c for c in plan.changes if c.kind == "drop-dangling")
    shorten = next(c for c in plan.changes if c.kind == "shorten-hook")
    hooks = {c.lines[0] for c in plan.changes if c.kind == "shorten-hook"}
    regroup = next(c for c in plan.changes if c.kind == "regroup" and c.lines[0] not in hooks)
    full = plan.outcome().index_text.split("\n")
    assert old_lines[drop.lines[0] - 1] not in full
    partial = plan.outcome({drop.id, shorten.id}).index_text.split("\n")
    assert old_lines[drop.lines[0] - 1] in partial
    assert old_lines[shorten.lines[0] - 1] in partial
    # only the regroup disabled: the entry stays where it was, in the preamble
    line = old_lines[regroup.lines[0] - 1]
    for disabled, place in (({regroup.id}, "preamble"), (set(), "## Feedback")):
        new = plan.outcome(disabled).index_text.split("\n")
        assert new.count(line) == 1
        headings = [h for h in new[: new.index(line)] if h.startswith("## ")]
        assert (headings[-1] if headings else "preamble") == place


def test_the_meter_after_is_recomputed_for_a_choice(big: Path) -> None:
    plan = plan_distil(store_at(big))
    moves = {c.id for c in plan.changes if c.group == "move-out"}
    assert moves
    without = plan.outcome(moves)
    assert without.after.lines > plan.outcome().after.lines
    assert not without.after.fits
    assert any(n.startswith("cannot fit:") for n in without.notes)
    assert without.cut  # what Claude Code would still cut


def test_the_short_notes_count_each_group_and_the_proposal_keeps_every_summary(
    big: Path,
) -> None:
    plan = plan_distil(store_at(big))
    outcome = plan.outcome()
    assert outcome.proposal is not None
    summaries = [c.summary for c in plan.changes]
    assert len(summaries) > 20
    assert outcome.proposal.notes[1 : 1 + len(summaries)] == summaries  # the CLI's preview
    groups = plan.groups()
    assert short_notes(plan, outcome) == [
        meter_text(plan.before, outcome.after),
        *(f"{GROUP_TITLES[group]} ({len(changes)})" for group, changes in groups.items()),
    ]
    moves = {c.id for c in groups["move-out"]}
    without = plan.outcome(moves)
    notes = short_notes(plan, without)
    assert not any(n.startswith(GROUP_TITLES["move-out"]) for n in notes)
    assert f"{len(moves)} change{'s' if len(moves) > 1 else ''} left out: their lines stay " \
           "as they are" in notes
    assert notes[-len(without.notes):] == without.notes  # cannot fit: ...
    assert any(n.startswith("cannot fit:") for n in notes)


def test_same_tree_same_plan(big: Path) -> None:
    one, two = plan_distil(store_at(big)), plan_distil(store_at(big))
    assert one.changes == two.changes
    assert one.outcome().index_text == two.outcome().index_text
    assert one.outcome().files == two.outcome().files
    assert one.before == two.before


def test_apply_then_undo_restores_every_byte(big: Path) -> None:
    before = tree_state(big)
    outcome = plan_distil(store_at(big)).outcome()
    assert outcome.proposal is not None
    journal = Journal.default()
    done = apply(outcome.proposal, journal)
    assert tree_state(big) != before
    assert sorted(outcome.files) == sorted(
        p.relative_to(big).as_posix() for p in done.files if p.name != "MEMORY.md")
    undo(journal, done.op_id)
    assert tree_state(big) == before


def test_a_live_lock_refuses(big: Path) -> None:
    write_file(big / LOCK_NAME, str(os.getpid()))
    plan = plan_distil(store_at(big))
    assert any(f"held by PID {os.getpid()}" in r for r in plan.refusals)
    assert plan.outcome().proposal is None
    (big / LOCK_NAME).unlink()
    outcome = plan_distil(store_at(big)).outcome()
    write_file(big / LOCK_NAME, str(os.getpid()))
    assert outcome.proposal is not None
    with pytest.raises(EditRefused, match="consolidating"):
        apply(outcome.proposal, Journal.default())


def test_a_memory_read_for_the_plan_and_changed_since_refuses(big: Path) -> None:
    """The orphan's entry came from its header: an edit there since the preview refuses."""
    outcome = plan_distil(store_at(big)).outcome()
    assert outcome.proposal is not None
    before = tree_state(big)
    orphan = big / "orphan-0.md"
    orphan.write_text(orphan.read_text().replace("never indexed", "now obsolete"))
    changed = tree_state(big)
    with pytest.raises(EditRefused, match=r"orphan-0\.md changed on disk since the preview"):
        apply(outcome.proposal, Journal.default())
    assert tree_state(big) == changed != before


def test_an_index_changed_since_the_preview_refuses(big: Path) -> None:
    outcome = plan_distil(store_at(big)).outcome()
    assert outcome.proposal is not None
    with (big / "MEMORY.md").open("a") as index:
        index.write("- [Late](late.md) — appended by Claude Code\n")
    with pytest.raises(EditRefused, match=r"MEMORY\.md changed on disk"):
        apply(outcome.proposal, Journal.default())


@pytest.mark.parametrize("where", ["late.md", "sub/late.md"])
def test_a_memory_added_since_the_preview_refuses(big: Path, where: str) -> None:
    """A memory written after the plan would be left out of the index distil rewrites: the
    apply lists every directory again and refuses, writing nothing."""
    (big / "sub").mkdir()
    write_memory(big, "sub/nested.md", name="nested", description="a nested memory",
                 type="project", body="Nested.\n")
    outcome = plan_distil(store_at(big)).outcome()
    assert outcome.proposal is not None
    write_memory(big, where, name="late", description="written by Claude Code meanwhile",
                 type="project", body="Late.\n")
    changed = tree_state(big)
    with pytest.raises(EditRefused, match=r"changed on disk since the preview \(added late\.md\)"):
        apply(outcome.proposal, Journal.default())
    assert tree_state(big) == changed


def test_progress_per_file_and_cancel(big: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    plan_distil(store_at(big), progress=lambda *step: seen.append(step))
    total = seen[-1][2]
    assert total > 200 and seen[-1][1] == total
    assert [done for _step, done, _total in seen] == list(range(total + 1))
    calls = 0

    def cancelled() -> bool:
        nonlocal calls
        calls += 1
        return calls > 10

    with pytest.raises(DistilCancelled):
        plan_distil(store_at(big), cancelled=cancelled)


def agent_store(root: Path) -> list[str]:
    lines = ["---", "title: reviewer notes", "---", "<!-- the reviewer agent's index -->"]
    for i in range(6):
        write_memory(root, f"note-{i}.md", description=f"note {i}", type="feedback",
                     mtime_days_ago=i)
        lines.append(index_entry(f"Note {i}", f"note-{i}.md", f"note {i}"))
    write_index(root, lines)
    return lines


def test_an_agent_store_is_measured_raw(tmp_path: Path) -> None:
    root = tmp_path / "agent-memory" / "helper"
    agent_store(root)
    write_memory(root, "note-new.md", description="note new", type="feedback")  # an orphan
    raw = (root / "MEMORY.md").read_text()
    plan = plan_distil(store_at(root, StoreKind.AGENT))
    assert plan.agent
    raw_report = load_report("MEMORY.md", raw, agent=True)
    main_report = load_report("MEMORY.md", raw, agent=False)
    assert raw_report.lines != main_report.lines
    assert (plan.before.lines, plan.before.units) == (raw_report.lines, raw_report.units)
    outcome = plan.outcome()
    assert outcome.index_text.startswith("---\ntitle: reviewer notes\n---\n<!-- the reviewer")
    after = load_report("MEMORY.md", outcome.index_text, agent=True)
    assert (outcome.after.lines, outcome.after.units) == (after.lines, after.units)
    assert "## Feedback\n- [note-new](note-new.md) — note new\n" in outcome.index_text


def test_a_korean_index_binds_on_units_before_lines(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    lines = ["# 메모리 색인", ""]
    for i in range(120):
        hook = f"결제 규칙 {i}: " + "환불은 항상 두 번째 승인자가 확인한 뒤에만 처리하고 " * 6
        write_memory(root, f"rule-{i}.md", name=f"규칙 {i}", description=hook.strip(),
                     type="project", mtime_days_ago=i)
        lines.append(index_entry(f"규칙 {i}", f"rule-{i}.md", hook.strip()))
    write_index(root, lines)
    plan = plan_distil(store_at(root))
    assert plan.before.lines < 200 and plan.before.units > 25_000
    assert plan.before.limit == "units" and plan.before.dropped > 0
    outcome = plan.outcome()
    assert outcome.after.fits and outcome.after.limit == "units"
    assert outcome.after.units <= 0.7 * 25_000
    assert load_report("MEMORY.md", outcome.index_text, agent=False).dropped == []


def test_a_team_store_says_which_file_the_push_would_refuse(tmp_path: Path) -> None:
    team = tmp_path / "memory" / "team"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    write_memory(team, "deploy.md", description="deploy with the bot token " + token,
                 type="reference")
    write_index(team, ["# Team"])
    plan = plan_distil(store_at(team, StoreKind.TEAM))
    outcome = plan.outcome()
    assert any(r.startswith("MEMORY.md: refused: secret (github-pat)")
               for r in outcome.team_refused), outcome.team_refused
    assert any("team push would refuse MEMORY.md" in note for note in outcome.notes)
    assert plan.lock_dir == tmp_path / "memory"


def test_an_index_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    write_memory(root, "a.md", description="a", type="user")
    write_file(root / "MEMORY.md", b"- [A](a.md) \xff\n")
    plan = plan_distil(store_at(root))
    assert plan.refusals and "not valid UTF-8" in plan.refusals[0]
    assert plan.outcome().proposal is None


def test_no_index_yet_gets_one_listing_every_memory(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    write_memory(root, "a.md", description="alpha", type="user", mtime_days_ago=2)
    write_memory(root, "b.md", description="beta", type="feedback", mtime_days_ago=1)
    plan = plan_distil(store_at(root))
    assert plan.old_text == ""
    assert plan.outcome().index_text == (
        "## User\n- [a](a.md) — alpha\n\n## Feedback\n- [b](b.md) — beta\n\n"
    )


def test_a_distilled_index_distils_to_itself(big: Path) -> None:
    outcome = plan_distil(store_at(big)).outcome()
    assert outcome.proposal is not None
    apply(outcome.proposal, Journal.default())
    again = plan_distil(store_at(big))
    assert again.changes == []
    assert again.outcome().proposal is None
    assert again.before == outcome.after
    assert "\n\n\n" not in again.old_text


def test_a_crlf_index_keeps_its_line_ends(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    write_memory(root, "a.md", description="alpha", type="user")
    write_memory(root, "b.md", name="B\n  split", description="beta", type="feedback")
    old = "# Index\r\n- [A](a.md) — alpha\r\n\r\n## Notes\r\nby hand\r\n"
    write_file(root / "MEMORY.md", old)
    plan = plan_distil(store_at(root))
    assert plan.outcome({c.id for c in plan.changes}).index_text == old
    # it fits: A stays where it is (issue 25), the orphan B is added with CRLF line ends
    assert plan.outcome().index_text == (
        "# Index\r\n- [A](a.md) — alpha\r\n\r\n## Feedback\r\n"
        "- [B split](b.md) — beta\r\n\r\n## Notes\r\nby hand\r\n"
    )
