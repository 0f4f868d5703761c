"""Readable names of groups and pairs (issue 22, item 3): the shared prefix written once, the
part that tells the members apart kept, never ``feedback_testing-po… ↔ feedback_testing-po…``."""

from __future__ import annotations

from memtui.core.judge.group_names import (
    common_prefix,
    fold_names,
    group_name,
    pair_name,
    short_name,
)
from memtui.core.judge.verdicts import JudgeItem


def item(rel: str, kind: str = "auto", line: int | None = None) -> JudgeItem:
    return JudgeItem(key=rel + str(line), kind=kind, file="/x/" + rel, rel_path=rel, name=rel,
                     description="", body="", mtime=0.0, digest="", line=line)


def test_the_shared_prefix_is_folded_at_a_word_and_the_distinct_parts_kept() -> None:
    names = ["feedback_testing-policy", "feedback_testing-policy-2", "feedback_testing-postgres"]
    assert common_prefix(names) == "feedback_testing-"
    assert fold_names(names) == "feedback_testing-{policy, policy-2, postgres}"


def test_names_without_a_prefix_are_joined_and_what_does_not_fit_is_counted() -> None:
    names = ["real-db", "pg-in-tests", "integration-db", "testing-db", "fast-tests"]
    assert fold_names(names, 200) == (
        "real-db / pg-in-tests / integration-db / testing-db / fast-tests")
    short = fold_names(names, 30)
    assert short == "real-db / pg-in-tests / … +3" and len(short) <= 30


def test_names_that_do_not_fit_are_folded_tight_like_a_brace_expansion() -> None:
    names = ["feedback_testing-postgres", "feedback_testing-postgres-2",
             "feedback_testing-postgres-3"]
    assert fold_names(names, 80) == "feedback_testing-{postgres, postgres-2, postgres-3}"
    assert fold_names(names, 40) == "feedback_testing-postgres{,-2,-3}"


def test_many_copies_fold_into_one_short_name() -> None:
    names = [f"feedback_testing-policy-{n}" for n in range(8)]
    text = fold_names(names, 40)
    assert text == "feedback_testing-policy-{0, 1, 2, … +5}" and len(text) <= 40


def test_the_same_name_in_several_stores_is_counted() -> None:
    assert fold_names(["feature-flags", "feature-flags", "feature-flags"]) == "feature-flags ×3"
    assert fold_names(["feature-flags", "checkout-flags", "feature-flags"]) == (
        "feature-flags ×2 / checkout-flags")


def test_a_name_that_is_the_prefix_itself_is_not_emptied() -> None:
    assert common_prefix(["deploy", "deploy-2"]) == ""
    assert fold_names(["deploy", "deploy-2"]) == "deploy / deploy-2"


def test_a_huge_name_is_cut_to_the_width() -> None:
    names = ["x" * 90 + "-a", "x" * 90 + "-b"]
    text = fold_names(names, 40)
    assert len(text) <= 40 and text.endswith("{a, b}")


def test_member_names_drop_the_folder_and_md_and_a_rule_names_its_line() -> None:
    members = [item("notes/feedback_testing-postgres.md"), item("feedback_testing-postgres-2.md"),
               item("CLAUDE.md", "claude-md", 12)]
    assert [short_name(m) for m in members] == [
        "feedback_testing-postgres", "feedback_testing-postgres-2", "CLAUDE.md:12"]
    assert group_name(members[:2]) == "feedback_testing-{postgres, postgres-2}"


def test_a_pair_name_keeps_both_distinct_parts() -> None:
    a, b = item("feedback_testing-policy.md"), item("feedback_testing-postgres.md")
    assert pair_name(a, b, 80) == "feedback_testing-policy.md ↔ feedback_testing-postgres.md"
    assert pair_name(a, b, 40) == "feedback_testing-{policy ↔ postgres}"
    assert pair_name(item("real-db.md"), item("pg-in-tests.md")) == "real-db.md ↔ pg-in-tests.md"
    long = pair_name(item("a" * 50 + ".md"), item("b" * 50 + ".md"), 30)
    assert len(long) <= 30 and " ↔ " in long
