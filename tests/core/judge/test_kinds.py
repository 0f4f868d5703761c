"""Values of one kind (memtui/core/judge/kinds.py): two memories naming other tools or settings
of one kind disagree, as two numbers of one kind do; plain English is no tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.judge.engine import judge_pair
from memtui.core.judge.items import normalize
from memtui.core.judge.kinds import kinds_of, other_kind
from memtui.core.judge.verdicts import Candidate, JudgeItem, Relation


@pytest.mark.parametrize(("text", "kind", "values"), [
    ("The frontend's tests run on jest (jest.config.ts in web/).", "JavaScript test runner",
     {"jest"}),
    ("Keep prod at debug level; the incident reviews need the detail.", "log level", {"debug"}),
    ("Production runs at log level info.", "log level", {"info"}),
    ("The API standardises on github.com/pkg/errors: errors.Wrap.", "Go error wrapping",
     {"pkg/errors"}),
    ("Wrap with fmt.Errorf and %w.", "Go error wrapping", {"fmt.errorf"}),
    ("Events go through RabbitMQ; Kafka is for analytics.", "message broker",
     {"rabbitmq", "kafka"}),
    ("Deploys are synced by ArgoCD.", "deploy tool", {"argo"}),
    ("Images are pushed to GHCR on every tag.", "container registry", {"ghcr"}),
    ("Dependency bumps come from Renovate, grouped weekly.", "dependency updater",
     {"renovate"}),
    ("Traces go to Jaeger.", "tracing backend", {"jaeger"}),
    ("Styles are written with Tailwind utility classes.", "CSS approach", {"tailwind"}),
    ("The Android app builds with Gradle.", "JVM build tool", {"gradle"}),
    ("Sessions live in Mongo; the audit log in DynamoDB.", "document database",
     {"mongodb", "dynamodb"}),
    ("Git hooks are installed by lefthook, not husky.", "git hooks manager",
     {"lefthook", "husky"}),
])
def test_a_text_names_values_of_a_kind(text: str, kind: str, values: set[str]) -> None:
    assert kinds_of(text)[kind] == values


@pytest.mark.parametrize("text", [
    "Log the error and return it.",  # "error" beside no level
    "During Black Friday week the checkout team owns every change.",  # not the formatter
    "The rest of the sprint absorbs on-call work.",  # not a REST API
    "At the moment the API runs on one pod.",  # not the date library
    "At the helm of every deploy is the release captain.",  # not the deploy tool
    "Refunds ship by express delivery.",  # not the Node web framework
    "The new tempo of releases is weekly.",  # no tracing backend named
    "The notion of done includes the docs.",  # not the wiki
    "The envoy from the partner team joins the planning.",  # not the proxy
])
def test_plain_english_names_no_value(text: str) -> None:
    assert kinds_of(text) == {}


def test_sides_with_a_value_in_common_do_not_disagree() -> None:
    assert other_kind("Postgres in production, SQLite in unit tests.",
                      "Integration tests use Postgres.") is None
    assert other_kind("web/ tests run on jest.", "web/ tests run on vitest.") == (
        "JavaScript test runner", frozenset({"jest"}), frozenset({"vitest"}))


def test_two_dependency_updaters_for_one_repository_are_a_contradiction() -> None:
    assert other_kind("Dependabot opens the dependency PRs.",
                      "Dependency update PRs come from Renovate.") == (
        "dependency updater", frozenset({"dependabot"}), frozenset({"renovate"}))


def item(name: str, body: str, description: str = "") -> JudgeItem:
    path = f"/home/memory/{name}.md"
    return JudgeItem(key=path, kind="auto", file=path, rel_path=f"{name}.md", name=name,
                     description=description or name, body=body, mtime=0.0,
                     digest=normalize(body))


def verdict(a: JudgeItem, b: JudgeItem) -> tuple[Relation, str]:
    v = judge_pair(Candidate(a, b, 0.5, ("similar text",)))
    return v.relation, v.reason


def test_two_test_runners_for_one_suite_are_a_contradiction() -> None:
    relation, reason = verdict(
        item("web-test-runner", "The web app's unit tests run on jest.", "Web test runner"),
        item("frontend-unit", "Unit tests of the web app use vitest.", "Frontend unit tests"))
    assert relation is Relation.CONFLICTS_WITH, reason
    assert "another JavaScript test runner" in reason and "jest" in reason


def test_other_values_each_under_its_own_condition_are_scoped() -> None:
    relation, reason = verdict(
        item("log-staging", "Staging services log at debug level.", "Log level"),
        item("log-prod", "Production services log at warn level.", "Log level"))
    assert relation is Relation.SCOPED, reason


def test_names_no_tool_of_a_kind_the_other_names_is_no_contradiction(tmp_path: Path) -> None:
    relation, reason = verdict(
        item("web-tests", "The web app's unit tests run on vitest.", "Web tests"),
        item("web-lint", "The web app is linted with eslint before every push.", "Web lint"))
    assert relation is not Relation.CONFLICTS_WITH, reason


def dated(name: str, body: str, days_ago: int, description: str = "") -> JudgeItem:
    base = item(name, body, description)
    return JudgeItem(key=base.key, kind=base.kind, file=base.file, rel_path=base.rel_path,
                     name=name, description=base.description, body=body,
                     mtime=1_780_000_000.0 - days_ago * 86_400, digest=base.digest)


@pytest.mark.parametrize("new_body", [
    "The API used to be deployed with Capistrano from a laptop; Argo CD syncs it.",
    "Previously the API was deployed with Capistrano; Argo CD syncs it.",
    "Capistrano was phased out for API deploys; Argo CD syncs them.",
])
def test_a_newer_memory_that_says_the_old_way_is_past_supersedes(new_body: str) -> None:
    old = dated("deploying", "The API is deployed with Capistrano from a laptop.", 200,
                "Deploying the API")
    new = dated("argo-deploys", new_body, 3, "How the API is deployed")
    v = judge_pair(Candidate(old, new, 0.5, ("similar text",)))
    assert v.relation is Relation.SUPERSEDES, v.reason
    assert v.winner == "b"


def test_a_file_said_gone_is_superseded_only_where_it_is_named() -> None:
    """"scripts/test.sh no longer exists" ends that file, not every memory about scripts/."""
    gone = dated("make-test", "Run every test with `make test`; scripts/test.sh no longer "
                 "exists.", 3, "Running the tests")
    other = dated("scripts", "Helper scripts for the tests live in scripts/ and are plain "
                  "bash.", 200, "Test scripts")
    v = judge_pair(Candidate(other, gone, 0.5, ("similar text",)))
    assert v.relation is not Relation.SUPERSEDES, v.reason
    named = dated("test-script", "Run the tests with scripts/test.sh before pushing.", 200,
                  "Running the tests")
    v = judge_pair(Candidate(named, gone, 0.5, ("similar text",)))
    assert v.relation is Relation.SUPERSEDES and v.winner == "b", v.reason


@pytest.mark.parametrize(("a", "b"), [
    # each side says how things are in its own folder of the repository
    ("There is no Node code in api/; it is Go only.", "Use Node 22 for web/; the build needs it."),
    # "never call X" denies X, not calling: both sides say the PSP is called
    ("Calls to the PSP use a 45 s timeout; shorter ones caused duplicate charges.",
     "Tests never call the real PSP; the psp-fake container answers instead."),
    # a CLI and server code are each a condition of their own
    ("Services log JSON through slog; no fmt.Println in server code.",
     "The CLI writes its results with fmt.Println to stdout; that is intended."),
])
def test_rules_for_other_parts_are_no_contradiction(a: str, b: str) -> None:
    relation, reason = verdict(item("one", a, "Notes"), item("two", b, "Notes"))
    assert relation is not Relation.CONFLICTS_WITH, reason


def test_two_rules_of_one_broad_area_are_related_not_compatible() -> None:
    """In a home where most memories are about tests, "Go tests are table-driven" and "web/
    tests run on vitest" share only the common word: two facts of one area (related), not two
    rules on one practice (compatible)."""
    from memtui.core.judge.local import LocalJudge

    filler = [item(f"note-{k}", f"The {what} tests {how}.", f"Tests {k}")
              for k, (what, how) in enumerate(
                  (w, h) for w in ("unit", "api", "integration", "e2e", "smoke", "load")
                  for h in ("run nightly", "need a ticket", "live beside the code",
                            "use fixtures", "must pass before merge"))]
    go = item("table-driven", "Write Go tests as table-driven tests with t.Run per case.",
              "Go test style")
    web = item("frontend-suite", "web/ tests run on vitest with React Testing Library; keep them "
               "next to the component.", "Testing the web app")
    [v] = LocalJudge().judge([Candidate(go, web, 0.5, ("similar text",))],
                             items=[go, web, *filler])
    assert v is not None and v.relation is Relation.RELATED, v


def test_no_value_is_under_two_kinds_unless_declared() -> None:
    """A value listed under two kinds was indexed under the later one alone, silently: each
    value (and each alias) is under one kind, or declared in ``SEVERAL_KINDS`` and then found
    under each."""
    from memtui.core.judge.kinds import ALIASES, KINDS, SEVERAL_KINDS

    under: dict[str, set[str]] = {}
    for kind, values in KINDS.items():
        for value in values:
            under.setdefault(value, set()).add(kind)
    several = {value: kinds for value, kinds in under.items() if len(kinds) > 1}
    assert several == {v: set(k) for v, k in SEVERAL_KINDS.items()}
    assert not set(ALIASES) & set(under), "an alias that is also a value"


def test_an_index_rejects_a_value_under_two_kinds_not_declared() -> None:
    from memtui.core.judge.kinds import index

    kinds = {"JavaScript runtime": ("node", "bun"), "JavaScript package manager": ("npm", "bun")}
    with pytest.raises(ValueError, match="bun"):
        index(kinds, {}, {})
    table = index(kinds, {"bunjs": "bun"},
                  {"bun": ("JavaScript runtime", "JavaScript package manager")})
    assert set(table[("bun",)]) == {("JavaScript runtime", "bun"),
                                    ("JavaScript package manager", "bun")}
    assert table[("bunjs",)] == table[("bun",)]
