"""One decision settles a group (issue 22, item 3): keep one and archive the rest, merge all
into one, scoped, not a conflict: each ONE journaled operation, ONE undo undoes all of it,
and the ledger has the decision of every pair of the group (they do not come back; after the
undo they do)."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.group_homes import AUTO_NAMES, FACT, judged_pairs, the_group, write_group_home
from core.judge.homes import Note, store_dir, write_home
from helpers import tree_state

from memtui.core.judge.archive import Archive
from memtui.core.judge.group_resolve import (
    default_keep,
    finish_group,
    member_of,
    merge_many,
    plan_group_dismiss,
    plan_group_keep,
    plan_group_merge,
    plan_group_scoped,
    propose_group_merge,
    propose_group_notes,
    settle_pairs,
)
from memtui.core.judge.groups import group_pairs
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.verdicts import JudgeItem, Relation
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import EditRefused
from memtui.core.write.journal import Journal
from memtui.core.write.recovery import undo_operation


class Home:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.ctx: Context = write_group_home(root / "home")
        self.state = root / "state"
        self.journal = Journal(self.state / "journal", home=self.ctx.claude_home)
        self.ledger_path = self.state / "judge" / "ledger.json"
        self.archive = Archive(self.state / "archive")
        ledger = Ledger.load(self.ledger_path)
        self.group = the_group(self.ctx, ledger)
        assert ledger.save() is None
        self.before = tree_state(root / "home")

    def ledger(self) -> Ledger:
        return Ledger.load(self.ledger_path)

    def open_pairs(self) -> int:
        """Pairs needing a decision now (judged again from the ledger as memtui judge does)."""
        ledger = self.ledger()
        return sum(len(g.pairs) for g in group_pairs(judged_pairs(self.ctx, ledger)))

    def auto(self, name: str) -> Path:
        return store_dir(self.root / "home", "auto") / name


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def test_keep_one_archives_the_rest_in_one_operation_and_one_undo(home: Home) -> None:
    group = home.group
    assert len(group.members) == 4 and len(group.pairs) == 6 and home.open_pairs() == 6
    kept = member_of(group, "feedback_testing-postgres-3")
    assert default_keep(group).agent == "planner"  # the newest
    plan = plan_group_keep(scan(home.ctx), group, kept)
    assert len(plan.archived) == 3 and len(plan.decisions) == 6
    assert any("MEMORY.md" in n for n in plan.proposal.notes)  # their index lines go too
    done = apply(plan.proposal, home.journal)
    entries = finish_group(plan, done, home.archive, home.ledger())
    assert len(home.journal.list()) == 1 and len(entries) == 3
    assert {e.op_id for e in home.archive.entries()} == {done.op_id}
    assert home.auto(kept.rel_path).exists()
    assert not home.auto("feedback_testing-postgres.md").exists()
    index = home.auto("MEMORY.md").read_text()
    assert "postgres-3.md" in index and "postgres-2.md" not in index
    assert home.open_pairs() == 0
    undo_operation(home.journal, done.record)
    assert tree_state(home.root / "home") == home.before
    assert home.open_pairs() == 6  # the decisions went with the undo


def test_merge_all_writes_one_memory_archives_the_rest_and_one_undo(home: Home) -> None:
    group = home.group
    kept, kept_bytes, merged = propose_group_merge(scan(home.ctx), group)
    assert kept.agent == "planner"  # the newest memory
    others = [Path(m.file).read_bytes() for m in sorted(
        (m for m in group.members if m.key != kept.key), key=lambda m: -m.mtime)]
    assert merged == merge_many(kept_bytes, others)  # each other member folded in, newest first
    plan = plan_group_merge(scan(home.ctx), group, kept, merged)
    assert len(plan.archived) == 3 and plan.proposal.kind == "merge-memories"
    assert len(plan.proposal.roots()) == 2  # agent memory and auto memory: one operation
    done = apply(plan.proposal, home.journal)
    finish_group(plan, done, home.archive, home.ledger())
    assert Path(kept.file).read_bytes() == merged
    assert all(not home.auto(n).exists() for n in AUTO_NAMES)
    assert home.open_pairs() == 0
    undo_operation(home.journal, done.record)
    assert tree_state(home.root / "home") == home.before
    assert Path(kept.file).read_bytes() == kept_bytes
    assert home.open_pairs() == 6


def test_merge_many_folds_the_two_way_merge() -> None:
    kept = b"---\nname: a\n---\nOne.\n"
    merged = merge_many(kept, [b"---\nname: b\n---\nOne.\nTwo.\n", b"---\nname: c\n---\nThree.\n"])
    assert merged.decode().count("One.") == 1
    assert "Two." in merged.decode() and "Three." in merged.decode()
    assert merge_many(kept, []) == kept


def test_scoped_notes_every_member_and_decides_every_pair(home: Home) -> None:
    group = home.group
    proposed = propose_group_notes(group)
    assert set(proposed) == {m.key for m in group.members}
    notes = {m.key: f"in case {n}" for n, m in enumerate(group.members)}
    plan = plan_group_scoped(scan(home.ctx), group, notes)
    assert len(plan.proposal.changes) == 4 and len(plan.decisions) == 6
    done = apply(plan.proposal, home.journal)
    finish_group(plan, done, home.archive, home.ledger())
    for n, member in enumerate(group.members):
        assert f"_Applies when: in case {n}_" in Path(member.file).read_text()
    ledger = home.ledger()
    pairs = judged_pairs(home.ctx, ledger)
    assert [p.state for p in pairs] == ["decided"] * 6
    assert {p.verdict.relation for p in pairs if p.verdict} == {Relation.SCOPED}
    undo_operation(home.journal, done.record)
    assert tree_state(home.root / "home") == home.before
    assert home.open_pairs() == 6


def test_scoped_refuses_an_empty_note(home: Home) -> None:
    notes = dict.fromkeys((m.key for m in home.group.members), "x")
    notes[home.group.members[0].key] = "  "
    with pytest.raises(EditRefused, match="empty"):
        plan_group_scoped(scan(home.ctx), home.group, notes)


def test_not_a_conflict_changes_no_memory_and_one_undo_brings_the_pairs_back(
    home: Home,
) -> None:
    group = home.group
    plan = plan_group_dismiss(group, "not_conflict", home.ledger())
    [change] = plan.proposal.changes
    assert change.path.parent == home.state / "judge" / "dismissed"
    done = apply(plan.proposal, home.journal)
    finish_group(plan, done, home.archive, home.ledger())
    assert tree_state(home.root / "home") == home.before
    assert home.open_pairs() == 0
    ledger = home.ledger()
    pairs = judged_pairs(home.ctx, ledger)
    assert {p.verdict.relation for p in pairs if p.verdict} == {Relation.NOT_CONFLICT}
    undo_operation(home.journal, done.record)
    assert not change.path.exists()
    assert home.open_pairs() == 6


def test_settle_pairs_drops_the_archived_and_decides_the_rest(home: Home) -> None:
    pairs = list(home.group.pairs)
    kept = member_of(home.group, "3")
    plan = plan_group_keep(scan(home.ctx), home.group, kept)
    assert settle_pairs(plan, pairs) == []
    dismiss = plan_group_dismiss(home.group, "related", home.ledger())
    settled = settle_pairs(dismiss, list(home.group.pairs))
    assert [p.state for p in settled] == ["decided"] * 6


def test_member_of_refuses_an_ambiguous_name(home: Home) -> None:
    with pytest.raises(EditRefused, match="several members"):
        member_of(home.group, "feedback_testing-postgres.md")
    with pytest.raises(EditRefused, match="no member"):
        member_of(home.group, "nothing.md")


def test_keeping_a_memory_over_a_claude_md_rule_is_refused(tmp_path: Path) -> None:
    ctx = write_home(tmp_path, [
        Note("auto", "real-db.md", "Real Postgres", FACT, 10),
        Note("auto", "real-db-2.md", "Real Postgres", FACT + " Always.", 5),
    ], claude_md=f"# Rules\n\n- {FACT}\n")
    ledger = Ledger(tmp_path / "ledger.json")
    from memtui.core.judge.local import LocalJudge
    from memtui.core.judge.run import collect_items, judge_pairs, pair_up

    items, _problems = collect_items(ctx, scan(ctx), managed=Path("/nonexistent"))
    pairs = pair_up(items, ledger)
    judge_pairs(pairs, LocalJudge(), ledger)
    [group] = group_pairs(pairs)
    assert any(m.kind == "claude-md" for m in group.members)
    memory = member_of(group, "real-db")
    with pytest.raises(EditRefused, match=r"CLAUDE\.md rule"):
        plan_group_keep(scan(ctx), group, memory)
    assert default_keep(group).kind == "claude-md"
    plan = plan_group_keep(scan(ctx), group)  # keep the rule, archive both memories
    assert len(plan.archived) == 2
    merge = plan_group_merge(scan(ctx), group)  # the rule is left as it is
    assert len(merge.archived) == 1 and merge.skipped


def test_keeping_one_warns_of_wikilinks_to_the_archived_members(home: Home) -> None:
    """deploy.md names [[feedback_testing-postgres-2]]: archiving it leaves that link
    pointing at nothing, and the preview says so (as a pair's keep does)."""
    from memtui.core.demo.writers import write_memory

    write_memory(store_dir(home.root / "home", "auto"), "deploy.md", description="How we deploy",
                 type="project", body="Deploys go through the release train; tests: "
                 "[[feedback_testing-postgres-2]].\n")
    kept = member_of(home.group, "feedback_testing-postgres-3")
    plan = plan_group_keep(scan(home.ctx), home.group, kept)
    assert plan.proposal.notes[0].startswith(
        "warning: [[feedback_testing-postgres-2]] in deploy.md will point at nothing")
    merge = plan_group_merge(scan(home.ctx), home.group, kept)
    assert merge.proposal.notes[0] == plan.proposal.notes[0]


TIMEOUTS = [Note("auto", f"timeout-{n}.md", "Request timeout",
                 f"The request timeout is {seconds} seconds.\n", days)
            for n, (seconds, days) in enumerate([(30, 30), (60, 20), (90, 10)])]


def _timeout_members(tmp_path: Path) -> dict[str, tuple[JudgeItem, bytes]]:
    from memtui.core.judge.items import memory_items

    ctx = write_home(tmp_path / "home", TIMEOUTS)
    return {item.rel_path: (item, Path(item.file).read_bytes())
            for item in memory_items(scan(ctx)) if item.rel_path.startswith("timeout-")}


def test_a_group_merge_into_an_older_member_keeps_the_newest_value_and_says_what_it_dropped(
        tmp_path: Path) -> None:
    from memtui.core.judge.group_resolve import group_clash_notes, merge_in_time

    members = _timeout_members(tmp_path)
    (oldest, old_data), (middle, mid_data), (newest, new_data) = (
        members[f"timeout-{n}.md"] for n in range(3))
    # Kept: the oldest (its name and place stay); the others come newest first.
    merged = merge_in_time(oldest, old_data, [(newest, new_data), (middle, mid_data)])
    text = merged.decode()
    assert "90 seconds" in text and "30 seconds" not in text and "60 seconds" not in text
    notes = group_clash_notes([(oldest, old_data), (newest, new_data), (middle, mid_data)],
                              merged)
    assert any("drops the older «The request timeout is 30 seconds.»" in n
               and "«The request timeout is 90 seconds.»" in n for n in notes), notes
    assert any("drops the older «The request timeout is 60 seconds.»" in n for n in notes)
    # Kept the newest: the same as folding the others in, newest first.
    assert merge_in_time(newest, new_data, [(middle, mid_data), (oldest, old_data)]) == (
        merge_many(new_data, [mid_data, old_data]))


def test_a_group_merge_kept_in_the_oldest_member_writes_the_newest_value(tmp_path: Path) -> None:
    """The user keeps the oldest member's file (its name and place): the merge written there
    still says what the newest member says, and the preview says which lines it dropped."""
    ctx = write_home(tmp_path / "home", TIMEOUTS)
    [group] = group_pairs(judged_pairs(ctx, Ledger.load(tmp_path / "ledger.json")))
    oldest = member_of(group, "timeout-0")
    plan = plan_group_merge(scan(ctx), group, oldest)
    [written] = [c for c in plan.proposal.changes if c.action == "write"]
    text = (written.new_bytes or b"").decode()
    assert "90 seconds" in text and "30 seconds" not in text and "60 seconds" not in text
    assert any("drops the older «The request timeout is 30 seconds.»" in n
               for n in plan.proposal.notes), plan.proposal.notes
