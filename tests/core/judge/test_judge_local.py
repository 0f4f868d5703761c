"""The local judge and candidate finding on real files: what is paired, what is not, and the
verdict each pair gets."""

from __future__ import annotations

from pathlib import Path

import pytest
from core.judge.homes import Note, write_home

from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.items import claude_md_items, memory_items, paragraphs
from memtui.core.judge.local import judge_pair
from memtui.core.judge.verdicts import Candidate, Relation
from memtui.core.scan.scanner import scan
from memtui.core.stores.claudemd import load_chain

NOTES = [
    # a contradiction across stores: a user agent memory against the project's auto memory
    Note(
        "agent-user:reviewer",
        "test-db.md",
        "Test database: what tests run against",
        "Integration tests run against a real Postgres 16; never SQLite, never mocks.",
        40,
    ),
    Note(
        "auto",
        "test-db.md",
        "Test database: what tests run against",
        "Integration tests run against SQLite in memory so the suite stays fast.",
        2,
    ),
    # an exact duplicate in two stores
    Note(
        "auto",
        "deploy-freeze.md",
        "No deploys on Fridays",
        "No production deploys from Friday 15:00 to Monday 09:00 CET.",
        5,
    ),
    Note(
        "team",
        "deploy-freeze.md",
        "No deploys on Fridays",
        "No production deploys from Friday 15:00 to Monday 09:00 CET.",
        9,
    ),
    # a changed value: the newer note raised the timeout
    Note(
        "auto",
        "api-timeout.md",
        "Gateway timeout for the payments API",
        "The payments gateway timeout is 30 seconds; retries back off twice.",
        50,
    ),
    Note(
        "auto",
        "gateway-timeout.md",
        "Gateway timeout for the payments API",
        "The payments gateway timeout is 90 seconds; retries back off twice.",
        1,
    ),
    # parallel notes of one template about different subjects: not a conflict
    Note(
        "auto",
        "emails-runbook.md",
        "Emails runbook: first steps when alerts fire",
        "1. Check the Shop / Emails dashboard.\n2. Page #growth-oncall if errors stay above 2%.",
    ),
    Note(
        "auto",
        "refunds-runbook.md",
        "Refunds runbook: first steps when alerts fire",
        "1. Check the Shop / Refunds dashboard.\n2. Page #payments-oncall if errors stay above 2%.",
    ),
    # unrelated memories that share a filename prefix
    Note(
        "auto",
        "checkout-copy.md",
        "Checkout button wording",
        "The button says Place order, never Buy now; legal asked for it.",
    ),
    Note(
        "auto",
        "checkout-latency.md",
        "Checkout p95 latency budget",
        "Keep the p95 of POST /orders under 400 ms; Grafana panel Shop / Checkout.",
    ),
]

CLAUDE_MD = """# shop

- Run `make test` before proposing a diff.
- Money is always stored as integer cents, never floats.
"""


@pytest.fixture
def judged(tmp_path: Path) -> dict[frozenset[str], Candidate]:
    notes = [
        *NOTES,
        Note(
            "auto",
            "money.md",
            "How money is stored",
            "Money is always stored as integer cents, never floats.",
            3,
        ),
    ]
    ctx = write_home(tmp_path, notes, CLAUDE_MD)
    items = memory_items(scan(ctx)) + claude_md_items(load_chain(ctx, tmp_path / "no-managed"))
    return {
        frozenset((Path(c.a.file).name + ":" + c.a.kind, Path(c.b.file).name + ":" + c.b.kind)): c
        for c in find_candidates(items)
    }


def pair(judged: dict[frozenset[str], Candidate], a: str, b: str) -> Candidate:
    return judged[frozenset((a, b))]


def test_the_planted_pairs_are_found_and_unrelated_ones_are_not(judged: dict) -> None:
    for a, b in [
        ("test-db.md:agent", "test-db.md:auto"),
        ("deploy-freeze.md:auto", "deploy-freeze.md:team"),
        ("api-timeout.md:auto", "gateway-timeout.md:auto"),
        ("money.md:auto", "CLAUDE.md:claude-md"),
    ]:
        assert frozenset((a, b)) in judged, (a, b, list(judged))
    assert frozenset(("checkout-copy.md:auto", "checkout-latency.md:auto")) not in judged


def test_a_contradiction_across_stores_is_a_conflict_with_its_evidence(judged: dict) -> None:
    verdict = judge_pair(pair(judged, "test-db.md:agent", "test-db.md:auto"))
    assert verdict.relation is Relation.CONFLICTS_WITH
    assert "sqlite" in verdict.reason.casefold()
    assert any("SQLite" in quote for quote in verdict.evidence)
    candidate = pair(judged, "test-db.md:agent", "test-db.md:auto")
    keep = candidate.a if verdict.winner == "a" else candidate.b
    assert keep.kind == "auto"  # the newer side (2 days old against 40)


def test_exact_duplicates_across_stores(judged: dict) -> None:
    candidate = pair(judged, "deploy-freeze.md:auto", "deploy-freeze.md:team")
    assert "same content" in candidate.reasons
    verdict = judge_pair(candidate)
    assert (verdict.relation, verdict.confidence) == (Relation.DUPLICATE, 1.0)


def test_a_changed_number_is_a_conflict_and_the_newer_side_is_kept(judged: dict) -> None:
    candidate = pair(judged, "api-timeout.md:auto", "gateway-timeout.md:auto")
    verdict = judge_pair(candidate)
    assert verdict.relation is Relation.CONFLICTS_WITH
    assert "“30” vs “90”" in verdict.reason
    keep = candidate.a if verdict.winner == "a" else candidate.b
    assert Path(keep.file).name == "gateway-timeout.md"


def test_parallel_notes_about_different_subjects_are_not_conflicts(judged: dict) -> None:
    verdict = judge_pair(pair(judged, "emails-runbook.md:auto", "refunds-runbook.md:auto"))
    # not a conflict, said so (issue 22: "compatible and not_conflict are never right"),
    # and not listed
    assert verdict.relation is Relation.NOT_CONFLICT
    assert "parallel notes" in verdict.reason


def test_a_memory_repeating_a_claude_md_rule_is_a_duplicate_and_the_rule_stays(
    judged: dict,
) -> None:
    candidate = pair(judged, "money.md:auto", "CLAUDE.md:claude-md")
    verdict = judge_pair(candidate)
    assert verdict.relation is Relation.DUPLICATE
    keep = candidate.a if verdict.winner == "a" else candidate.b
    assert keep.kind == "claude-md"


def test_claude_md_paragraphs_skip_headings_code_and_short_lines() -> None:
    text = (
        "# Title\n\n- Use pnpm for every install here.\n- ok\n\n```\nnot a rule at all here\n```\n"
        "Prose that goes\non two lines.\n"
    )
    assert paragraphs(text) == [
        (3, "Use pnpm for every install here."),
        (9, "Prose that goes on two lines."),
    ]


def test_a_memory_that_says_a_claude_md_rule_again_with_more_is_a_duplicate(
    tmp_path: Path,
) -> None:
    ctx = write_home(tmp_path, [
        Note("auto", "money.md", "How amounts are kept",
             "Money is integer cents everywhere; never floats, not even in reports.", 3),
        Note("auto", "floats.md", "Amounts in reports",
             "Money is not integer cents in reports: they use floats.", 3),
    ], "# shop\n\n- Money is integer cents.\n")
    items = memory_items(scan(ctx)) + claude_md_items(load_chain(ctx, tmp_path / "none"))
    by_name = {frozenset((Path(c.a.file).name, Path(c.b.file).name)): c
               for c in find_candidates(items)}
    repeated = judge_pair(by_name[frozenset(("money.md", "CLAUDE.md"))])
    assert repeated.relation is Relation.DUPLICATE
    assert repeated.reason.startswith("repeats a CLAUDE.md rule")
    negated = judge_pair(by_name[frozenset(("floats.md", "CLAUDE.md"))])
    assert negated.relation is Relation.CONFLICTS_WITH  # "not integer cents" is no repeat
