"""The verdict engine's rules one by one (issue 22, item 4), each on a pair of memories that
needs it: stems, what a negation denies, values of one kind, conditions, compatible rules,
supersession by the old way named and the dates."""

from __future__ import annotations

import pytest

from memtui.core.judge.engine import Vectors, is_journal, judge_pair, other_value, rule_like
from memtui.core.judge.items import digest
from memtui.core.judge.statements import old_ways, quantities, statement, statements_of, stem
from memtui.core.judge.verdicts import NEEDS_ACTION, Candidate, JudgeItem, Relation, Verdict


def item(name: str, body: str, description: str = "", modified: str | None = None,
         mtime: float = 1.0) -> JudgeItem:
    key = f"/memory/{name}"
    return JudgeItem(key=key, kind="auto", file=key, rel_path=name,
                     name=name.removesuffix(".md"), description=description, body=body,
                     mtime=mtime, digest=digest(f"{description}\n{body}"), modified=modified)


@pytest.fixture(scope="module")
def vectors() -> Vectors:
    return Vectors()


def verdict(a: JudgeItem, b: JudgeItem, vectors: Vectors) -> Verdict:
    return judge_pair(Candidate(a, b, 0.5, ()), vectors)


# -- statements -------------------------------------------------------------------------


def test_mocks_and_mock_are_one_stem() -> None:
    assert stem("mocks") == stem("mock") == stem("mocked")
    assert statement("never mocks").denied == statement("don't mock it").denied == {"mock"}


def test_a_negation_denies_its_first_word_not_the_whole_clause() -> None:
    st = statement("Use the real Postgres; don't mock the database.")
    assert st.denied == {"mock"}
    assert "databas" in st.negated and "databas" not in st.denied


def test_a_negation_with_until_is_a_condition_not_a_denial() -> None:
    st = statement("Do not merge until every required check passes.")
    assert st.denied == frozenset() and "merg" in st.asserted


def test_short_names_are_their_long_name() -> None:
    assert stem("db") == stem("database") and stem("DBs".lower()) == stem("databases")
    assert stem("prod") == stem("production") and stem("k8s") == stem("kubernetes")
    assert stem("repo") == stem("repositories") and stem("pg") == stem("postgresql")
    assert stem("database") in statement("the staging db is reset nightly").stems


def test_instead_of_and_rather_than_deny_the_alternative() -> None:
    st = statement("Render charts on the server instead of canvas")
    assert st.denied == {stem("canvas")} and stem("render") in st.asserted
    assert statement("Prefer composition rather than inheritance").denied == {stem("inherit")}
    # "instead" alone ("use it instead") denies nothing
    assert statement("Use the helper instead.").denied == frozenset()


def test_nothing_denies_no_word() -> None:
    assert statement("Nothing secret is checked in.").denied == frozenset()


def test_values_are_compared_by_kind_durations_in_seconds() -> None:
    assert quantities("entries expire after one hour") == quantities("kept for 60 minutes")
    assert quantities("We run one-week iterations") != quantities("Sprints are two weeks")
    # dates and clock times are when something happened, not values
    assert quantities("2026-03 at 09:12 the refund ran") == frozenset()
    six_minutes, version = statement("CI takes 6 minutes"), statement("Postgres 16 in CI")
    assert other_value(six_minutes, version) is None  # a duration is not a version
    assert other_value(statement("line length is 120"), statement("line length is 100"))


def test_the_old_way_is_what_a_supersession_phrase_names() -> None:
    assert "rabbitmq" in old_ways("RabbitMQ was decommissioned in the summer.")[0]
    replaced = old_ways("ruff check replaced flake8 and isort in jobs/")[0]
    assert {"flake8", "isort"} <= replaced and "ruff" not in replaced
    assert old_ways("We replaced Redux with zustand stores")[0] == {"redux"}
    assert "jira" in old_ways("Tickets live in Linear after the Jira export.")[0]
    assert old_ways("Prod was upgraded to Postgres 16; 13-only workarounds can go.")[1] == {"13"}
    assert old_ways("Search moved into Postgres full-text search.")[0] == frozenset()


def test_rules_and_facts() -> None:
    assert rule_like(statements_of(item("a.md", "Every alert rule links its runbook.")))
    assert rule_like(statements_of(item("a.md", "Watch the error rate for 15 minutes.")))
    assert not rule_like(statements_of(item("a.md", "Prod Postgres is backed up nightly.")))


def test_a_dated_log_is_a_journal() -> None:
    assert is_journal(item("2026-11-26.md", "Tried SQLite."))
    assert not is_journal(item("test-db.md", "Tried SQLite."))


# -- verdicts ---------------------------------------------------------------------------


def test_jest_vs_vitest_is_another_value_of_one_kind(vectors: Vectors) -> None:
    got = verdict(item("a.md", "Unit tests in web/ run on jest.", "Web unit test runner"),
                  item("b.md", "Unit tests in web/ run on vitest.", "Web unit test runner"),
                  vectors)
    assert got.relation is Relation.CONFLICTS_WITH
    assert "“jest” vs “vitest”" in got.reason


def test_words_naming_the_subject_are_no_value(vectors: Vectors) -> None:
    got = verdict(item("frontend-tests.md", "Unit tests in the frontend run on jest.",
                       "Frontend tests"),
                  item("backend-tests.md", "Unit tests in the backend run on jest.",
                       "Backend tests"), vectors)
    assert got.relation is not Relation.CONFLICTS_WITH


def test_staging_vs_production_is_scoped(vectors: Vectors) -> None:
    got = verdict(item("deploy-approval.md",
                       "Deploys to production need an approval from the release captain.",
                       "Approvals for deploys"),
                  item("staging-deploys.md", "Anyone can deploy to staging without asking.",
                       "Deploying to staging"), vectors)
    assert got.relation is Relation.SCOPED
    assert got.relation not in NEEDS_ACTION


def test_an_agent_vs_the_main_session_is_scoped(vectors: Vectors) -> None:
    got = verdict(item("push.md", "The reviewer agent never pushes; it only comments on the PR.",
                       "Pushing"),
                  item("push-main.md", "The main session pushes the branch after the tests pass.",
                       "Pushing"), vectors)
    assert got.relation is Relation.SCOPED


def test_compatible_rules_are_said_so_and_not_listed(vectors: Vectors) -> None:
    got = verdict(item("alert-runbook-link.md",
                       "Every alert rule links its runbook in the annotation.",
                       "Alerts need runbooks"),
                  item("alert-owners.md", "Every alert rule has an owning team label.",
                       "Alert ownership"), vectors)
    assert got.relation is Relation.COMPATIBLE
    assert got.relation not in NEEDS_ACTION


def test_the_same_value_in_other_units_is_no_conflict(vectors: Vectors) -> None:
    got = verdict(item("a.md", "Catalog entries expire from Redis after one hour.",
                       "Catalog cache expiry"),
                  item("b.md", "The catalog cache keeps entries for 60 minutes.",
                       "Catalog cache"), vectors)
    assert got.relation is not Relation.CONFLICTS_WITH


def test_other_durations_on_one_subject_conflict_even_when_far(vectors: Vectors) -> None:
    got = verdict(item("cadence.md", "We run one-week iterations.", "Iteration length"),
                  item("sprint-length.md", "Sprints are two weeks long, planning on Monday.",
                       "Sprint cadence"), vectors)
    assert got.relation is Relation.CONFLICTS_WITH
    assert "“one” vs “two”" in got.reason


def test_a_short_never_x_vs_x_pair_is_a_conflict(vectors: Vectors) -> None:
    got = verdict(item("a.md", "real Postgres 16; never SQLite, never mocks."),
                  item("b.md", "SQLite in memory so the suite stays fast."), vectors)
    assert got.relation is Relation.CONFLICTS_WITH
    assert any("SQLite" in quote for quote in got.evidence)


def test_a_journal_entry_is_no_far_contradiction(vectors: Vectors) -> None:
    got = verdict(item("2026-11-26.md", "Tried SQLite in memory: 48 s but the JSONB tests skip."),
                  item("b.md", "real Postgres 16; never SQLite, never mocks."), vectors)
    assert got.relation is not Relation.CONFLICTS_WITH


def test_a_negated_verb_is_not_a_negated_object(vectors: Vectors) -> None:
    # both say "real database, no mocks": no word one denies is one the other asserts
    got = verdict(item("real-db.md",
                       "Use the real Postgres in integration tests; don't mock the database.",
                       "Databases in tests"),
                  item("integration-db.md", "Integration tests hit a real database, never mocks.",
                       "Integration tests and the database"), vectors)
    assert got.relation is Relation.DUPLICATE


def test_supersession_names_the_old_way_and_the_dates(vectors: Vectors) -> None:
    new = item("sqs.md", "The job queue is SQS now; RabbitMQ was decommissioned in the summer.",
               "Job queue", modified="2026-11-12")
    old = item("queue.md", "Background work is queued in RabbitMQ.", "Background jobs queue",
               modified="2026-04-09")
    got = verdict(new, old, vectors)
    assert got.relation is Relation.SUPERSEDES and got.winner == "a"
    assert "rabbitmq" in got.reason and "2026-11-12" in got.reason and "2026-04-09" in got.reason
    # the side saying the way is over but dated before the other does not supersede it
    older = item("sqs.md", new.body, new.description, modified="2026-01-12")
    assert verdict(older, old, vectors).relation is not Relation.SUPERSEDES


def test_a_side_that_already_says_the_new_way_is_not_superseded(vectors: Vectors) -> None:
    got = verdict(item("search-pg.md",
                       "Search moved into Postgres full-text; the Elasticsearch cluster was shut "
                       "down.", "Where search runs now", modified="2026-11-19"),
                  item("search.md", "Invoice search uses Postgres full-text search with a GIN "
                       "index.", "Search", modified="2026-08-20"), vectors)
    assert got.relation is not Relation.SUPERSEDES


def test_a_shared_boilerplate_statement_makes_no_duplicate(vectors: Vectors) -> None:
    tail = "\n\n**Why:** agreed with the team.\n\n**How to apply:** apply it in every change."
    got = verdict(item("ignores.md", "ACME007 in migrations only." + tail,
                       "Lint ignores we accept"),
                  item("migration-order.md",
                       "Run 0142 before 0143; 0143 backfills in batches of 5000." + tail,
                       "Order of pending migrations"), vectors)
    assert got.relation is not Relation.DUPLICATE


def test_the_parts_of_a_hyphenated_word_are_words() -> None:
    st = statement("The webhook consumer is asyncio-based.")
    assert stem("asyncio") in st.asserted
    assert stem("asyncio") in statement("no asyncio there").denied


def test_a_developer_is_no_development_condition(vectors: Vectors) -> None:
    # conditions are compared as written: "developer tooling" is not "development"
    from memtui.core.judge.engine import scoped_by

    assert scoped_by(frozenset({"ci", "image"}), frozenset({"developer", "tooling"})) is None
    assert scoped_by(frozenset({"production"}), frozenset({"staging"})) == ("production",
                                                                             "staging")


def test_one_value_in_both_is_evidence_of_a_duplicate(vectors: Vectors) -> None:
    got = verdict(item("pager-escalation.md",
                       "If the primary does not ack a page within 15 minutes it escalates to "
                       "the secondary, then to the engineering manager.", "Escalation"),
                  item("on-call-rota.md", "Unacked pages go to the secondary on-call after 15 "
                       "min and to the EM after that.", "How paging escalates"), vectors)
    assert got.relation is Relation.DUPLICATE


def test_a_near_pair_where_one_side_adds_a_value_is_compatible_not_a_duplicate(
        vectors: Vectors) -> None:
    """Only one side gives a value (a version, a duration): it adds a detail the other does
    not state, so both hold; neither is one fact written twice (judge fifth round)."""
    cases = [
        (item("jobs-python.md", "Run the jobs service on Python 3.12; older interpreters miss "
              "the typing syntax it uses.", "Python for jobs"),
         item("python-jobs.md", "The jobs service needs Python for its workers and its tests.",
              "Jobs runtime")),
        (item("redis-cache.md", "The session cache lives in Redis with a TTL of 30 minutes.",
              "Session cache"),
         item("sessions-redis.md", "Sessions are cached in Redis.", "Where sessions live")),
    ]
    for a, b in cases:
        got = verdict(a, b, vectors)
        assert got.relation is Relation.COMPATIBLE, got.reason
        assert "adds a value" in got.reason
    # the same fact with no value on either side is still one fact twice
    same = verdict(item("review-approvals.md",
                        "Every PR needs an approval from a code owner before merging.",
                        "Approvals"),
                   item("codeowners.md",
                        "A code owner approves each pull request before it is merged.",
                        "Code owners"), vectors)
    assert same.relation is Relation.DUPLICATE


# -- generalizing rules (issue 22, item 4: the held half) ---------------------------------


def test_a_contradiction_whose_newer_side_says_it_changed_supersedes(vectors: Vectors) -> None:
    old = item("pool.md", "The database pool holds 20 connections.", mtime=1.0)
    new = item("db-pool.md", "Since the migration the pool holds 50 connections.", mtime=2.0)
    given = verdict(old, new, vectors)
    assert given.relation is Relation.SUPERSEDES and given.winner == "b"
    assert "Since the migration" in given.reason
    # the side that says "since the migration" is the older one: no supersession, a conflict
    older = item("db-pool.md", new.body, mtime=0.5)
    assert verdict(old, older, vectors).relation is Relation.CONFLICTS_WITH


def test_a_close_pair_no_rule_pins_is_listed_for_review_when_mutual_nearest(
        vectors: Vectors) -> None:
    a = item("flags.md", "Feature flags are read from LaunchDarkly at startup.")
    b = item("launchdarkly.md", "Flags come from LaunchDarkly, loaded once when the service "
             "boots.", mtime=2.0)
    pair = Candidate(a, b, 0.5, ())
    assert judge_pair(pair, vectors).relation is Relation.RELATED
    review = judge_pair(pair, vectors, nearest=True)
    assert review.relation is Relation.DUPLICATE and review.relation in NEEDS_ACTION
    assert review.confidence <= 0.45 and review.reason.startswith("for review")


def test_mutual_nearest_is_each_side_the_others_nearest() -> None:
    from memtui.core.judge.neighbours import mutual_nearest

    a = item("flags.md", "Feature flags are read from LaunchDarkly at startup.")
    b = item("launchdarkly.md", "Flags come from LaunchDarkly, loaded once at boot.")
    c = item("lunch.md", "The team lunch is on Fridays at the Thai place.")
    # (a, b) each other's best; c's best is a, a's is b: not mutual
    assert mutual_nearest([a, b, c], [0, 0, 1], [1, 2, 2], [0.8, 0.4, 0.3]) == [
        True, False, False]
    # a copy of a's text is not a's nearest other memory: (a, b) stay mutual
    copy = item("flags.md", a.body)
    assert mutual_nearest([a, b, copy], [0, 0, 1], [1, 2, 2], [0.8, 1.0, 0.8]) == [
        True, False, True]
    assert mutual_nearest([a], [], [], []) == []


def test_a_plural_condition_word_is_the_same_condition(vectors: Vectors) -> None:
    from memtui.core.judge.engine import scoped_by, singular

    assert [singular(w) for w in ("webhooks", "hotfixes", "stories", "ci", "class")] == [
        "webhook", "hotfix", "story", "ci", "class"]
    assert scoped_by(frozenset(("webhooks",)), frozenset(("webhook",))) is None
    assert scoped_by(frozenset(("staging",)), frozenset(("production",))) is not None
    a = item("retries.md", "Payment webhooks are retried 3 times.")
    b = item("webhook-retries.md", "Webhook deliveries are retried 5 times with backoff.")
    assert verdict(a, b, vectors).relation is Relation.CONFLICTS_WITH


def test_a_port_is_a_value_of_its_own_kind() -> None:
    assert quantities("maps the dev database to localhost:6543") == {("6543", "port")}
    assert quantities("Postgres listens on port 5432") == {("5432", "port")}
    assert quantities("standup at 10:30") == frozenset()  # a clock time is no port


def test_another_port_on_one_subject_conflicts_though_no_rare_word_is_shared(
        vectors: Vectors) -> None:
    a = item("db-port.md", "The local Postgres for development listens on port 5432.",
             "Local Postgres")
    b = item("dev-setup.md", "docker compose maps the dev database to localhost:6543.",
             "Dev database")
    given = verdict(a, b, vectors)
    # "dev" is development: no condition of its own on either side, so not scoped
    assert given.relation is Relation.CONFLICTS_WITH and "5432" in given.reason


def test_short_and_long_names_are_one_condition() -> None:
    from memtui.core.judge.engine import own_conditions, scoped_by

    assert scoped_by(frozenset(("prod",)), frozenset(("production",))) is None
    assert own_conditions(frozenset(("dev", "tests")), frozenset(("development",))) is None


def test_a_negated_light_verb_denies_its_object_not_itself() -> None:
    """"Tests never call the real PSP" does not contradict "Calls to the PSP use a 45 s
    timeout": what is denied is the object (the real PSP), not calling."""
    assert statement("Never call panic in service code").denied == {"panic"}
    assert statement("Do not add mocks").denied == {"mock"}
    assert statement("Don't merge broken code").denied == {stem("merge")}


def test_other_values_of_one_kind_on_other_subjects_are_not_a_conflict(
        vectors: Vectors) -> None:
    """Two near memories that each give a value of one kind (a timeout each) and contradict
    nothing: parallel values on other subjects (not_conflict), not merely related."""
    a = item("redis-timeout.md", "Redis commands from the API time out after 2 seconds.",
             "Redis timeout")
    b = item("upload-timeout.md", "Uploads to the S3 bucket are cut off after 30 seconds.",
             "Upload timeout")
    given = verdict(a, b, vectors)
    assert given.relation is Relation.NOT_CONFLICT and "“2” vs “30”" in given.reason
    assert given.relation not in NEEDS_ACTION
    # no value on one side: nothing differs by design
    c = item("upload-retries.md", "Uploads to the S3 bucket are retried by the client.",
             "Upload retries")
    assert verdict(a, c, vectors).relation is not Relation.NOT_CONFLICT


def _local(a: JudgeItem, b: JudgeItem, vectors: Vectors) -> Verdict:
    from memtui.core.judge.local import judge_pair as local_pair

    return local_pair(Candidate(a, b, 0.5, ()), vectors)


def test_parallel_notes_with_nothing_to_compare_are_related(vectors: Vectors) -> None:
    """Names of one pattern (``changelog-api`` / ``changelog-web``) whose texts give no
    values that differ, no denial on one side and share no template: two facts of one area
    (related), not parallel values (not_conflict)."""
    a = item("changelog-api.md",
             "The API changelog lives in api/CHANGELOG.md and lists breaking changes first.",
             "API changelog")
    b = item("changelog-web.md",
             "The web changelog is generated from conventional commit messages.",
             "Web changelog")
    given = _local(a, b, vectors)
    assert given.relation is Relation.RELATED and "parallel notes" in given.reason


def test_parallel_notes_from_one_template_differ_by_design(vectors: Vectors) -> None:
    """The same sentence with the subject and its value swapped ("owned by the payments
    squad" / "owned by the discovery squad"): values that differ by design."""
    a = item("owner-billing.md", "Billing is owned by the payments squad; ask in #payments.",
             "Billing owner")
    b = item("owner-search.md", "Search is owned by the discovery squad; ask in #discovery.",
             "Search owner")
    assert _local(a, b, vectors).relation is Relation.NOT_CONFLICT


def test_a_repeat_whose_newer_side_says_it_changed_supersedes(vectors: Vectors) -> None:
    """The same fact twice, the newer side saying something is so "now" that the older does
    not say: the newer one replaces the older (supersedes, the newer kept), not a plain
    duplicate; the older side already saying it, or saying "now" itself, is a duplicate."""
    old = item("invoices-pdf.md", "Invoice PDFs are rendered by the billing service.",
               "Invoice PDFs", modified="2026-03-01")
    new = item("pdf-rendering.md",
               "Invoice PDFs are rendered by the billing service. Fonts are embedded now.",
               "PDF rendering", modified="2026-10-01")
    given = verdict(old, new, vectors)
    assert given.relation is Relation.SUPERSEDES and given.winner == "b"
    assert "“now”" in given.reason and "2026-10-01" in given.reason
    said_already = item("invoices-pdf.md",
                        "Invoice PDFs are rendered by the billing service with embedded fonts.",
                        "Invoice PDFs", modified="2026-03-01")
    assert verdict(said_already, new, vectors).relation is Relation.DUPLICATE
    newer_old = item("invoices-pdf.md", "Invoice PDFs are rendered by the billing service.",
                     "Invoice PDFs", modified="2026-11-01")
    assert verdict(newer_old, new, vectors).relation is Relation.DUPLICATE


@pytest.mark.parametrize(("a", "b"), [
    ("The team still reviews every schema migration by hand.",
     "The team now reviews every schema migration by hand."),
    ("The cache is always warmed before a release goes out.",
     "The cache is now warmed before a release goes out."),
    ("Design docs live in the team wiki today.", "Design docs now live in the team wiki."),
    ("Currently the linter runs on every push to a branch.",
     "The linter now runs on every push to a branch."),
])
def test_now_against_another_word_of_time_is_no_other_value(a: str, b: str,
                                                            vectors: Vectors) -> None:
    """Two sides that differ only by "now" and another word of when ("still", "always",
    "today", "currently") say one thing: "now" is no value swapped for the other word (it
    was read as "another value of the same kind", a contradiction)."""
    one, two = item("one.md", a, "Notes"), item("two.md", b, "Notes")
    given = verdict(one, two, vectors)
    assert given.relation is not Relation.CONFLICTS_WITH, given.reason
    assert "now" not in given.reason.split("vs")[-1], given.reason


def test_nearest_memories_with_near_subject_words_are_listed_for_review() -> None:
    """Two memories each the other's nearest, written in other words ("Store timestamps in
    UTC..." / "Dates are saved as UTC..."): their whole texts are not near enough for the
    review rule, their words weighted by rarity are. Two facts that share a word ("dates")
    but not their subject are not listed."""
    filler = [item(f"note-{k}.md", f"The {what} tests {how}.", f"Tests {k}")
              for k, (what, how) in enumerate(
                  (w, h) for w in ("unit", "api", "integration", "e2e", "smoke", "load")
                  for h in ("run nightly", "need a ticket", "live beside the code",
                            "use fixtures", "must pass before merge"))]
    a = item("tz.md", "Store timestamps in UTC and convert to the user's timezone only in "
             "the UI.", "Time zones")
    b = item("dates-display.md", "Dates are saved as UTC; the frontend renders them in local "
             "time.", "Dates")
    other = item("release-dates.md", "Release dates are agreed with the PM and shown on "
                 "the roadmap.", "Release dates")
    vectors = Vectors(items=[*filler, a, b, other])
    given = judge_pair(Candidate(a, b, 0.5, ()), vectors, nearest=True)
    assert given.relation is Relation.DUPLICATE and "for review" in given.reason
    assert judge_pair(Candidate(a, b, 0.5, ()), vectors).relation is Relation.RELATED
    area = judge_pair(Candidate(b, other, 0.5, ()), vectors, nearest=True)
    assert area.relation not in NEEDS_ACTION, area.reason
