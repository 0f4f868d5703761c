"""The judge's realistic labelled home (issue 22, item 7): ONE home written the way real homes
are, to measure the judge on, not to tune it on.

* a Go / TypeScript / Python shop ("ledger": a Go API, a TS web app, Python jobs) whose
  memories share their vocabulary (tests, databases, CI, deploys, style, git workflow…);
* five stores: the project's auto memory, its team memory, a user-scope agent (``reviewer``),
  a project-scope agent (``planner``), a second user-scope agent (``oncall``), plus the
  project's CLAUDE.md (one rule per bullet);
* labelled pairs over all seven relations, the two sides written as paraphrases by different
  hands (other words, other file names), and distractors: memories on neighbouring subjects
  that relate to nothing;
* every pair NOT labelled is "no relation": nothing to decide.

Supersessions carry their dates: the newer side has a later mtime and, when it is written in
CC's ``metadata:`` layout, a ``modified`` value. Ages are fixed per memory (a stable hash), so
two builds are the same home.

:func:`build_judge_home` writes it and returns the labels, each in one of two halves
(``tune``, ``held``: :data:`HALVES_OF_PAIRS`, dealt per relation by a stable hash and frozen);
:func:`half_of` gives a pair no label names its half. This module was written, with its
labels, before any of the judge v2 work was tuned on it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.demo.writers import (
    STORY_NOW,
    AgentScope,
    Layout,
    index_entry,
    write_agent,
    write_file,
    write_index,
    write_memory,
)
from memtui.core.stores.locations import Context
from memtui.core.stores.sanitize import sanitize_path

RELATIONS = (
    "duplicate",
    "conflicts_with",
    "supersedes",
    "scoped",
    "related",
    "compatible",
    "not_conflict",
)
NEEDS_DECISION = frozenset({"duplicate", "conflicts_with", "supersedes"})
HALVES = ("tune", "held")

STORES = ("auto", "team", "reviewer", "planner", "oncall", "md")
"""Where a side lives: auto memory, team memory, the user-scope agents ``reviewer`` and
``oncall``, the project-scope agent ``planner``, a paragraph of the project's CLAUDE.md."""


@dataclass(frozen=True)
class Side:
    store: str
    file: str
    """The memory's file name (for ``md``: unused, the text is the paragraph)."""
    description: str
    body: str
    type: str = "feedback"


@dataclass(frozen=True)
class LabelledPair:
    relation: str
    a: Side
    b: Side
    newer: str | None = None
    """For ``supersedes``: the side (``"a"``/``"b"``) that replaces the other."""


@dataclass(frozen=True)
class Where:
    """A labelled side on disk: the file and, for a CLAUDE.md paragraph, its text."""

    file: str
    paragraph: str | None = None


@dataclass(frozen=True)
class Label:
    relation: str
    a: Where
    b: Where
    half: str
    newer: Where | None = None

    @property
    def key(self) -> frozenset[Where]:
        return frozenset((self.a, self.b))


@dataclass(frozen=True)
class JudgeHome:
    ctx: Context
    labels: list[Label]
    distractors: int
    memories: int
    paragraphs: int
    places: dict[tuple[str, str], Where] = field(default_factory=dict)
    """Where each side was written: ``(store, file)`` for a memory, ``("md", paragraph)``
    for a CLAUDE.md rule (to place labels written after the home: :mod:`judge_home_completed`)."""

    def half(self, name: str) -> list[Label]:
        return [label for label in self.labels if name in ("both", label.half)]


def _s(store: str, file: str, description: str, body: str, type: str = "feedback") -> Side:
    return Side(store, file, description, body, type)


def _md(text: str) -> Side:
    return Side("md", "", "", text, "")


D, C, S, SC, R, CO, N = RELATIONS


PAIRS: list[LabelledPair] = [
    # ---------------------------------------------------------------- duplicates
    LabelledPair(D,
        _s("auto", "go-errors.md", "How Go errors get context",
           "Wrap errors with errors.Wrap from github.com/pkg/errors so the stack survives.\n\n"
           "**Why:** bare `return err` made the payout incidents impossible to trace."),
        _s("reviewer", "error-context.md", "Review rule: error context in Go",
           "Every returned error needs context: errors.Wrap(err, \"what we were doing\") "
           "(pkg/errors), never a naked return err.")),
    LabelledPair(D,
        _s("auto", "friday-freeze.md", "No production deploys late in the week",
           "We don't ship to prod after Thursday evening; Friday is freeze day.\n\n"
           "**How to apply:** if a fix is urgent, page the release captain first."),
        _s("team", "release-window.md", "Release window",
           "Production releases happen Monday to Thursday only. Fridays are frozen.", "project")),
    LabelledPair(D,
        _s("auto", "pg-in-tests.md", "Database in integration tests",
           "Integration tests run against a real Postgres started by docker compose, not mocks."),
        _s("planner", "testing-db.md", "What the integration suite talks to",
           "The integration suite needs the compose Postgres container; nothing in it is "
           "mocked at the database layer.", "project")),
    LabelledPair(D,
        _s("auto", "pr-size.md", "Keep PRs small",
           "Pull requests stay under roughly 400 changed lines; split larger work by layer."),
        _s("md", "", "", "Keep each pull request below about 400 lines of diff; bigger changes "
           "get split (schema, backend, frontend).")),
    LabelledPair(D,
        _s("team", "pnpm-only.md", "Package manager for the web app",
           "The web app uses pnpm. Never commit a package-lock.json or yarn.lock.", "project"),
        _s("reviewer", "lockfiles.md", "Lockfile policy",
           "Only pnpm-lock.yaml belongs in web/; reject PRs that add npm or yarn lockfiles.")),
    LabelledPair(D,
        _s("auto", "ruff-format.md", "Python formatting",
           "Python code is formatted with ruff format; black is no longer used here."),
        _s("planner", "python-style.md", "Formatter for the jobs package",
           "jobs/ is formatted by `ruff format` (it replaced black).", "project")),
    LabelledPair(D,
        _s("auto", "migrations-tool.md", "Schema migrations",
           "Database migrations are written for goose and live in api/migrations/.",
           "project"),
        _s("team", "db-schema-changes.md", "Changing the schema",
           "Schema changes = a new goose migration file under api/migrations (SQL, up and "
           "down).", "reference")),
    LabelledPair(D,
        _s("oncall", "pager-escalation.md", "Escalation",
           "If the primary does not ack a page within 15 minutes it escalates to the "
           "secondary, then to the engineering manager."),
        _s("team", "on-call-rota.md", "How paging escalates",
           "Unacked pages go to the secondary on-call after 15 min and to the EM after that.",
           "reference")),
    LabelledPair(D,
        _s("auto", "commit-style.md", "Commit messages",
           "Commit subjects follow Conventional Commits (feat:, fix:, chore:)."),
        _s("md", "", "", "Write commit messages in the Conventional Commits format, e.g. "
           "`fix(api): handle empty cart`.")),
    LabelledPair(D,
        _s("reviewer", "ts-any.md", "No any in TypeScript",
           "Flag every explicit `any` in web/ code; use unknown and narrow it."),
        _s("auto", "strict-types-web.md", "TypeScript strictness",
           "The frontend forbids the any type (eslint no-explicit-any is an error); reach for "
           "unknown plus a type guard.")),
    LabelledPair(D,
        _s("auto", "staging-url.md", "Where staging lives",
           "Staging is at https://staging.ledger.internal and is redeployed from main on "
           "every merge.", "reference"),
        _s("planner", "envs.md", "Staging environment",
           "Every merge to main redeploys staging (staging.ledger.internal).", "reference")),
    LabelledPair(D,
        _s("auto", "go-table-tests.md", "Go test style",
           "Write Go tests as table-driven tests with t.Run per case."),
        _s("reviewer", "subtests.md", "Test layout in the API",
           "API tests: one table of cases, each run as a named subtest (t.Run(tc.name, …)).")),
    LabelledPair(D,
        _s("team", "secrets-vault.md", "Where secrets are kept",
           "Application secrets live in Vault under secret/ledger/<env>; never in .env files "
           "in the repo.", "project"),
        _s("oncall", "rotating-creds.md", "Credential storage",
           "Creds are read from Vault (path secret/ledger/prod etc.). Nothing secret is "
           "checked in, not even in .env.example.")),
    LabelledPair(D,
        _s("auto", "rebase-main.md", "Keeping branches current",
           "Rebase feature branches onto main instead of merging main into them."),
        _s("md", "", "", "Update your branch with `git rebase origin/main`; do not create "
           "merge commits from main into feature branches.")),
    LabelledPair(D,
        _s("auto", "user-prefers-short.md", "How the user likes answers",
           "The user wants short answers: the change and one line of why, no recap.", "user"),
        _s("planner", "communication.md", "Talking to Dana",
           "Dana prefers terse replies; skip summaries of what was done, state the diff "
           "and the reason.", "user")),
    LabelledPair(D,
        _s("reviewer", "sql-injection.md", "Queries with user input",
           "Any SQL built with fmt.Sprintf is a blocker; use sqlc-generated queries or $1 "
           "placeholders."),
        _s("team", "query-safety.md", "Safe SQL",
           "Never interpolate values into SQL strings; parameters ($1, $2) or sqlc only.",
           "project")),
    LabelledPair(D,
        _s("auto", "feature-flags-tool.md", "Feature flags",
           "Feature flags are managed in Unleash; the Go client is initialised in "
           "api/internal/flags.", "reference"),
        _s("oncall", "kill-switches.md", "Turning features off fast",
           "To disable a feature in an incident, flip its Unleash toggle; the API reads "
           "flags via internal/flags.", "reference")),
    LabelledPair(D,
        _s("auto", "vitest-web.md", "Frontend unit tests",
           "Unit tests in web/ use vitest and @testing-library/react."),
        _s("planner", "web-testing.md", "Testing the web app",
           "web/ tests run on vitest with React Testing Library; keep them next to the "
           "component.", "project")),
    LabelledPair(D,
        _s("team", "api-versioning.md", "API versions",
           "Public endpoints are versioned in the path (/v1/, /v2/); breaking changes need a "
           "new version.", "project"),
        _s("reviewer", "breaking-changes.md", "Breaking the public API",
           "A breaking change to a public route must ship under a new /vN/ prefix, the old "
           "one kept.")),
    LabelledPair(D,
        _s("auto", "log-format.md", "Logging",
           "Services log JSON through slog; no fmt.Println in server code."),
        _s("oncall", "structured-logs.md", "Log lines we can search",
           "Everything the Go services print must be structured (log/slog JSON handler), "
           "otherwise Loki queries miss it.")),
    LabelledPair(D,
        _s("auto", "ci-required.md", "Checks before merge",
           "A PR merges only when lint, unit and integration jobs are green in GitHub "
           "Actions.", "project"),
        _s("md", "", "", "Do not merge until every required GitHub Actions check (lint, unit, "
           "integration) passes.")),
    LabelledPair(D,
        _s("planner", "estimates.md", "How tasks are sized",
           "Size work in story points 1, 2, 3, 5, 8; anything above 8 gets split.", "project"),
        _s("team", "pointing.md", "Story points",
           "We point stories on the Fibonacci scale up to 8; an 8+ story must be broken "
           "down before the sprint.", "project")),
    LabelledPair(D,
        _s("auto", "timezone-utc.md", "Times in the database",
           "Store timestamps as timestamptz in UTC; convert only at the edge."),
        _s("reviewer", "datetime-review.md", "Time handling",
           "Columns holding times must be timestamptz and written in UTC; local time "
           "appears only in the UI.")),
    LabelledPair(D,
        _s("oncall", "runbook-location.md", "Runbooks",
           "Runbooks are in the ops repo under runbooks/<service>.md.", "reference"),
        _s("auto", "ops-docs.md", "Where to find operational docs",
           "Each service has its runbook at ops/runbooks/<service>.md.", "reference")),
    LabelledPair(D,
        _s("auto", "py-deps.md", "Python dependencies",
           "Python deps are managed with uv; add them with `uv add`, never pip install into "
           "the venv.", "project"),
        _s("team", "jobs-env.md", "Setting up jobs/",
           "jobs/ uses uv for its environment and lockfile (uv.lock); `uv sync` after "
           "pulling.", "project")),
    LabelledPair(D,
        _s("reviewer", "context-first.md", "Go function signatures",
           "ctx context.Context is always the first parameter of a function that does I/O."),
        _s("md", "", "", "Functions doing I/O take a context.Context as their first "
           "argument.")),
    LabelledPair(D,
        _s("auto", "dashboards.md", "Dashboards",
           "Service dashboards are in Grafana, folder Ledger; the SLO board is pinned.",
           "reference"),
        _s("oncall", "grafana.md", "Where the graphs are",
           "Grafana → folder Ledger has every service board; start from the pinned SLO "
           "overview.", "reference")),
    LabelledPair(D,
        _s("planner", "definition-of-done.md", "Done means",
           "A ticket is done when the code is merged, deployed to staging and the ticket has "
           "a test note.", "project"),
        _s("team", "dod.md", "Definition of done",
           "Merged + on staging + QA notes in the ticket = done. Not before.", "project")),
    # ---------------------------------------------------------------- conflicts
    LabelledPair(C,
        _s("auto", "integration-db.md", "Integration tests and the database",
           "Integration tests hit a real database, never mocks."),
        _s("reviewer", "fast-tests.md", "Speed of the integration suite",
           "Mock the database in integration tests for speed; sqlmock is already a "
           "dependency.")),
    LabelledPair(C,
        _s("auto", "line-length.md", "Line length", "Python line length is 100.", "feedback"),
        _s("reviewer", "style.md", "Style nits I check",
           "Max line length is 120 for Python files; longer lines get a nit.")),
    LabelledPair(C,
        _s("auto", "go-error-wrapping.md", "Error wrapping in the API",
           "Add context with fmt.Errorf(\"…: %w\", err) and inspect errors with errors.Is "
           "and errors.As; the standard library is enough."),
        _s("planner", "errors-lib.md", "Errors package",
           "The API standardises on github.com/pkg/errors: errors.Wrap / errors.Cause.",
           "project")),
    LabelledPair(C,
        _s("team", "test-runner-web.md", "Web test runner",
           "The frontend's tests run on jest (jest.config.ts in web/).", "project"),
        _s("planner", "frontend-tests.md", "Frontend unit test runner",
           "web/ unit tests use vitest; there is no jest config.", "project")),
    LabelledPair(C,
        _s("auto", "indentation.md", "Indentation in YAML",
           "CI and Helm YAML files use two-space indentation."),
        _s("md", "", "", "Indent YAML with four spaces (CI workflows, Helm charts).")),
    LabelledPair(C,
        _s("auto", "merge-strategy.md", "How PRs are merged",
           "PRs are squash-merged; the PR title becomes the commit."),
        _s("team", "history.md", "Keeping history",
           "Use rebase-and-merge so every commit of a PR lands on main; never squash.",
           "project")),
    LabelledPair(C,
        _s("oncall", "ack-time.md", "Acknowledging pages",
           "A page must be acknowledged within 5 minutes."),
        _s("team", "paging-sla.md", "Paging SLA",
           "On-call has 30 minutes to acknowledge a page before it escalates.", "reference")),
    LabelledPair(C,
        _s("auto", "http-timeout.md", "Outgoing HTTP timeout",
           "The API's HTTP client to the payment provider times out after 10 seconds.",
           "project"),
        _s("oncall", "psp-timeouts.md", "Payment provider calls",
           "Calls to the PSP use a 45 s timeout; shorter ones caused duplicate charges.",
           "project")),
    LabelledPair(C,
        _s("auto", "tabs-go.md", "Go formatting", "Go code is formatted by gofmt (tabs)."),
        _s("planner", "editor.md", "Editor settings",
           "Configure the editor to indent Go with 4 spaces.", "project")),
    LabelledPair(C,
        _s("team", "orm.md", "Database access in Go",
           "Go services access Postgres through sqlc-generated code.", "project"),
        _s("reviewer", "gorm.md", "Data layer",
           "Repositories are built on GORM models; hand-written SQL only for reports.")),
    LabelledPair(C,
        _s("auto", "node-version.md", "Node version",
           "The web app builds with Node 20 (see .nvmrc).", "project"),
        _s("md", "", "", "Use Node 22 for web/; older versions fail the build.")),
    LabelledPair(C,
        _s("auto", "coverage.md", "Coverage bar",
           "Coverage must stay above 80 % for the API package or CI fails.", "project"),
        _s("team", "coverage-gate.md", "Test coverage gate",
           "CI enforces 60% line coverage on api/; do not chase more.", "project")),
    LabelledPair(C,
        _s("oncall", "deploy-rollback.md", "When a deploy goes bad",
           "Roll back immediately with `make rollback`; investigate afterwards."),
        _s("auto", "fix-forward.md", "Bad deploys",
           "We fix forward: never roll back a release, ship a patch instead.")),
    LabelledPair(C,
        _s("auto", "py-version.md", "Python version",
           "jobs/ targets Python 3.12.", "project"),
        _s("planner", "runtime.md", "Runtime of the batch jobs",
           "The batch jobs run on Python 3.10 in production (the base image pins it).",
           "project")),
    LabelledPair(C,
        _s("reviewer", "review-approvals.md", "Approvals needed",
           "A PR needs two approvals before merge."),
        _s("md", "", "", "One approving review is enough to merge.")),
    LabelledPair(C,
        _s("auto", "branch-names.md", "Branch naming",
           "Branches are named feature/<ticket>-<slug>."),
        _s("team", "branches.md", "Naming branches",
           "Name branches <initials>/<slug>; ticket numbers go in the PR title, not the "
           "branch.", "project")),
    LabelledPair(C,
        _s("auto", "cache-ttl.md", "Product cache",
           "The product catalog cache keeps entries for 10 minutes.", "project"),
        _s("oncall", "catalog-cache.md", "Catalog cache expiry",
           "Catalog entries expire from Redis after one hour.", "project")),
    LabelledPair(C,
        _s("team", "quotes.md", "String quotes in TS",
           "TypeScript uses single quotes (prettier singleQuote: true).", "project"),
        _s("reviewer", "ts-quotes.md", "Quote style",
           "Prefer double quotes in .ts/.tsx files; prettier is set to the default.")),
    LabelledPair(C,
        _s("auto", "logging-level.md", "Production log level",
           "Production runs at log level info.", "project"),
        _s("oncall", "debug-logs.md", "Log verbosity in prod",
           "Keep prod at debug level; the incident reviews need the detail.")),
    LabelledPair(C,
        _s("planner", "sprint-length.md", "Sprint cadence",
           "Sprints are two weeks long, planning on Monday.", "project"),
        _s("team", "cadence.md", "Iteration length",
           "We run one-week iterations.", "project")),
    LabelledPair(C,
        _s("auto", "db-port.md", "Local Postgres",
           "The local Postgres for development listens on port 5432.", "reference"),
        _s("planner", "dev-setup.md", "Dev database",
           "docker compose maps the dev database to localhost:6543.", "reference")),
    LabelledPair(C,
        _s("auto", "ui-lib.md", "Component library",
           "The web app's components come from MUI.", "project"),
        _s("team", "design-system.md", "UI components",
           "Build screens with Chakra UI; MUI was never adopted.", "project")),
    LabelledPair(C,
        _s("reviewer", "panic.md", "panic in Go",
           "panic is acceptable for unrecoverable startup misconfiguration."),
        _s("md", "", "", "Never call panic in service code, not even at startup; return an "
           "error from main's run().")),
    LabelledPair(C,
        _s("auto", "env-files.md", "Local config",
           "Local settings go in .env (it is gitignored)."),
        _s("team", "direnv.md", "Local environment",
           "Use .envrc with direnv; .env files are not loaded by anything.", "project")),
    LabelledPair(C,
        _s("oncall", "retries.md", "Retry policy for the PSP",
           "Retry failed payment calls up to 3 times with backoff."),
        _s("auto", "no-retry-payments.md", "Payment calls",
           "Never retry a payment call automatically; a human reconciles failures.",
           "project")),
    LabelledPair(C,
        _s("planner", "standup.md", "Daily standup",
           "Standup is at 9:30 every day.", "project"),
        _s("team", "meetings.md", "Team meetings",
           "Daily sync is at 10:15, async on Fridays.", "project")),
    # ---------------------------------------------------------------- supersedes
    LabelledPair(S,
        _s("auto", "ci-provider.md", "CI system",
           "CI runs on CircleCI (.circleci/config.yml).", "project"),
        _s("team", "github-actions.md", "Where the pipeline runs",
           "We moved the pipeline to GitHub Actions; the CircleCI config was deleted.",
           "project"), newer="b"),
    LabelledPair(S,
        _s("auto", "deploy-tool.md", "Deploying",
           "Deploy the API with `make deploy ENV=prod` (Ansible).", "project"),
        _s("oncall", "argo.md", "How releases reach prod",
           "Releases now go out through Argo CD: merge the image bump in the gitops repo; "
           "the old make deploy target is gone.", "project"), newer="b"),
    LabelledPair(S,
        _s("planner", "linter-py.md", "Python linting",
           "Lint jobs/ with flake8 and isort.", "project"),
        _s("auto", "ruff-lint.md", "Python lint setup",
           "ruff check replaced flake8 and isort in jobs/ (config in pyproject).", "project"),
        newer="b"),
    LabelledPair(S,
        _s("auto", "go-version.md", "Go toolchain",
           "The API builds with Go 1.21.", "project"),
        _s("reviewer", "toolchain.md", "Go version in go.mod",
           "go.mod now says go 1.23; reviewers should accept range-over-func code.", "project"),
        newer="b"),
    LabelledPair(S,
        _s("team", "oncall-tool.md", "Paging tool",
           "Pages come through Opsgenie.", "reference"),
        _s("oncall", "pagerduty.md", "Paging",
           "Since the migration, alerts page through PagerDuty; Opsgenie is switched off.",
           "reference"), newer="b"),
    LabelledPair(S,
        _s("auto", "state-mgmt.md", "Frontend state",
           "Global state in web/ lives in Redux Toolkit.", "project"),
        _s("planner", "zustand.md", "State in the web app",
           "We replaced Redux with zustand stores; new code must not add slices.", "project"),
        newer="b"),
    LabelledPair(S,
        _s("auto", "api-docs.md", "API documentation",
           "API docs are written by hand in docs/api/index.md.", "reference"),
        _s("team", "openapi.md", "API reference",
           "The API reference is generated from openapi.yaml now; docs/api/index.md was removed.",
           "reference"), newer="b"),
    LabelledPair(S,
        _s("oncall", "status-page.md", "Status page",
           "Incidents are announced on statuspage.io.", "reference"),
        _s("auto", "status-updates.md", "Announcing incidents",
           "Customer-facing incident updates moved to the in-app banner + status.ledger.io "
           "(self-hosted); the statuspage.io account is closed.", "reference"), newer="b"),
    LabelledPair(S,
        _s("auto", "test-cmd.md", "Running the tests",
           "Run the whole suite with ./scripts/test.sh.", "project"),
        _s("md", "", "", "Run every test with `make test`; scripts/test.sh no longer "
           "exists."), newer="b"),
    LabelledPair(S,
        _s("planner", "board.md", "Where tickets are",
           "Work is tracked on the Jira board LEDG.", "reference"),
        _s("team", "linear.md", "Issue tracker",
           "Tickets live in Linear (team LED) after the Jira export.", "reference"),
        newer="b"),
    LabelledPair(S,
        _s("auto", "queue.md", "Background jobs queue",
           "Background work is queued in RabbitMQ.", "project"),
        _s("oncall", "sqs.md", "Job queue",
           "The job queue is SQS now; RabbitMQ was decommissioned in the summer.", "project"),
        newer="b"),
    LabelledPair(S,
        _s("reviewer", "http-router.md", "HTTP router",
           "The API routes requests with gorilla/mux.", "project"),
        _s("auto", "chi.md", "Routing in the API",
           "Routing moved to go-chi/chi; don't add new gorilla/mux handlers.", "project"),
        newer="b"),
    LabelledPair(S,
        _s("auto", "db-version.md", "Postgres version",
           "Production runs Postgres 13.", "reference"),
        _s("oncall", "pg-upgrade.md", "Database engine version",
           "Prod was upgraded to Postgres 16 last month; 13-only workarounds can go.",
           "reference"), newer="b"),
    LabelledPair(S,
        _s("team", "review-owner.md", "Who reviews the API",
           "API reviews go to Marta.", "project"),
        _s("planner", "codeowners.md", "API reviewers",
           "CODEOWNERS now assigns API reviews to the platform group (Marta moved to "
           "payments).", "project"), newer="b"),
    LabelledPair(S,
        _s("auto", "e2e.md", "End-to-end tests",
           "E2E tests are written in Cypress.", "project"),
        _s("team", "playwright.md", "Browser tests",
           "Browser tests were ported to Playwright; Cypress is removed from devDependencies.",
           "project"), newer="b"),
    LabelledPair(S,
        _s("oncall", "log-store.md", "Logs",
           "Logs are searched in Kibana.", "reference"),
        _s("auto", "loki.md", "Searching logs",
           "Logs go to Loki; query them from Grafana Explore (the ELK stack is retired).",
           "reference"), newer="b"),
    LabelledPair(S,
        _s("auto", "bundle.md", "Bundling the web app",
           "web/ is bundled with webpack.", "project"),
        _s("planner", "vite.md", "Build tool for the frontend",
           "The frontend builds with Vite after the migration; webpack.config.js is gone.",
           "project"), newer="b"),
    LabelledPair(S,
        _s("reviewer", "mock-lib.md", "Mocks in Go tests",
           "Generate Go mocks with golang/mock (mockgen).", "project"),
        _s("auto", "mockery.md", "Go mocks",
           "Mocks are generated by mockery since golang/mock was archived.", "project"),
        newer="b"),
    LabelledPair(S,
        _s("team", "release-notes.md", "Release notes",
           "Release notes are written by hand in CHANGELOG.md before each release.",
           "project"),
        _s("auto", "changesets.md", "Changelog",
           "The changelog is generated by release-please from commit messages; don't edit "
           "CHANGELOG.md by hand anymore.", "project"), newer="b"),
    LabelledPair(S,
        _s("auto", "secrets-old.md", "Secrets in CI",
           "CI secrets are stored as CircleCI contexts.", "reference"),
        _s("oncall", "ci-secrets.md", "Pipeline credentials",
           "Pipeline credentials come from GitHub environments with OIDC to Vault now.",
           "reference"), newer="b"),
    LabelledPair(S,
        _s("planner", "retro.md", "Retrospectives",
           "Retros happen every sprint on Friday afternoon.", "project"),
        _s("team", "retro-monthly.md", "Retro cadence",
           "Retrospectives are monthly since October (first Tuesday).", "project"),
        newer="b"),
    LabelledPair(S,
        _s("auto", "image-registry.md", "Container images",
           "Images are pushed to Docker Hub (ledger/api).", "reference"),
        _s("team", "ghcr.md", "Image registry",
           "Container images are published to ghcr.io/ledger now.", "reference"), newer="b"),
    LabelledPair(S,
        _s("oncall", "incident-channel.md", "Incident chat",
           "Open incidents in #incidents on Slack.", "reference"),
        _s("md", "", "", "Incidents get a dedicated Slack channel created by the incident bot "
           "(/incident new); the shared #incidents channel is archived."), newer="b"),
    LabelledPair(S,
        _s("auto", "user-editor.md", "User's editor",
           "The user edits in VS Code.", "user"),
        _s("planner", "dana-tools.md", "Dana's setup",
           "Dana switched to Neovim with gopls; open files with nvim, not code.", "user"),
        newer="b"),
    # ---------------------------------------------------------------- scoped
    LabelledPair(SC,
        _s("auto", "deploy-approval.md", "Approvals for deploys",
           "Deploys to production need an approval from the release captain.", "project"),
        _s("team", "staging-deploys.md", "Deploying to staging",
           "Anyone can deploy to staging without asking.", "project")),
    LabelledPair(SC,
        _s("auto", "mocks-unit.md", "Mocks in unit tests",
           "Unit tests of the service layer mock the repository interfaces."),
        _s("reviewer", "real-db-integration.md", "Integration tests",
           "Integration tests must use the real compose Postgres.")),
    LabelledPair(SC,
        _s("auto", "log-level-dev.md", "Local logging",
           "Run the API with LOG_LEVEL=debug locally."),
        _s("oncall", "prod-log-level.md", "Logging in production",
           "Production stays at warn level to keep Loki costs down.", "project")),
    LabelledPair(SC,
        _s("planner", "scripts-python.md", "One-off scripts",
           "Throwaway scripts in scripts/ may be plain Python without type hints.",
           "project"),
        _s("team", "typed-services.md", "Types in the jobs service",
           "Everything in jobs/ is fully typed and checked by mypy --strict.", "project")),
    LabelledPair(SC,
        _s("auto", "agent-commits.md", "Commits by the agent",
           "When working as the main session, commit after each green test run."),
        _s("reviewer", "reviewer-no-commits.md", "What the reviewer may do",
           "As the reviewer agent, never commit; leave comments only.")),
    LabelledPair(SC,
        _s("auto", "timeouts-internal.md", "Timeouts between our services",
           "Internal gRPC calls use a 2 s deadline.", "project"),
        _s("oncall", "timeouts-external.md", "Timeouts to partners",
           "Calls to external partner APIs get 30 s.", "project")),
    LabelledPair(SC,
        _s("team", "hotfix-branches.md", "Hotfixes",
           "Hotfixes branch from the release tag, not from main.", "project"),
        _s("md", "", "", "Create every feature branch from an up-to-date main.")),
    LabelledPair(SC,
        _s("auto", "go-lint-strict.md", "Linting the API",
           "golangci-lint runs with the strict preset on api/."),
        _s("planner", "tools-lint.md", "Linting tools/",
           "The tools/ module only runs go vet; golangci-lint is off there.", "project")),
    LabelledPair(SC,
        _s("oncall", "weekend-pages.md", "Paging on weekends",
           "On weekends only P1 alerts page; P2 waits for Monday.", "project"),
        _s("team", "weekday-pages.md", "Weekday alerting",
           "During the week both P1 and P2 alerts page the on-call.", "project")),
    LabelledPair(SC,
        _s("auto", "feature-flag-default.md", "New flags",
           "New feature flags start enabled in staging.", "project"),
        _s("team", "flags-prod.md", "Flags in production",
           "In production a new flag starts disabled and is ramped by percentage.",
           "project")),
    LabelledPair(SC,
        _s("reviewer", "pr-desc-long.md", "PR descriptions for migrations",
           "PRs that touch migrations need a rollback plan in the description."),
        _s("auto", "pr-desc.md", "PR descriptions",
           "A one-line PR description is fine for small refactors.")),
    LabelledPair(SC,
        _s("auto", "web-node-test.md", "Test environment in web/",
           "Component tests run in jsdom."),
        _s("planner", "ssr-tests.md", "Server code tests",
           "Tests for the SSR server code in web/server run in the node environment, not "
           "jsdom.", "project")),
    LabelledPair(SC,
        _s("team", "db-access-prod.md", "Database access in production",
           "Nobody gets direct write access to the production database.", "project"),
        _s("oncall", "db-access-incident.md", "Database access during an incident",
           "During a declared SEV1 the incident commander may grant temporary write access "
           "to prod.", "project")),
    LabelledPair(SC,
        _s("auto", "squash-feature.md", "Merging feature PRs",
           "Feature PRs are squash-merged."),
        _s("team", "release-merge.md", "Merging release branches",
           "Release branches are merged back with a merge commit to keep the tags.",
           "project")),
    LabelledPair(SC,
        _s("planner", "estimate-bugs.md", "Bugs in planning",
           "Bugs are not pointed; they are timeboxed to a day.", "project"),
        _s("team", "estimate-stories.md", "Stories in planning",
           "Every story gets points before it enters a sprint.", "project")),
    LabelledPair(SC,
        _s("auto", "py-async.md", "Async in the jobs service",
           "The webhook consumer in jobs/ is asyncio-based."),
        _s("reviewer", "py-sync.md", "Batch scripts",
           "Nightly batch scripts stay synchronous; no asyncio there.")),
    LabelledPair(SC,
        _s("oncall", "prod-readonly.md", "Agent access to prod",
           "Agents only get read-only kubectl access to the prod cluster."),
        _s("auto", "staging-kubectl.md", "Cluster access in staging",
           "On staging, the agent may kubectl apply and restart pods itself.", "project")),
    LabelledPair(SC,
        _s("auto", "emoji-commits.md", "Commit messages in docs repo",
           "In the docs repository, gitmoji prefixes are welcome."),
        _s("md", "", "", "Commit subjects in this repository never start with an emoji.")),
    LabelledPair(SC,
        _s("team", "cache-dev.md", "Caching locally",
           "Disable the Redis cache in local development (CACHE=off).", "project"),
        _s("oncall", "cache-prod.md", "Cache in prod",
           "The Redis cache must always be on in production; the DB cannot take the load.",
           "project")),
    LabelledPair(SC,
        _s("auto", "go-generics.md", "Generics in the API",
           "Generics are fine in internal packages."),
        _s("reviewer", "sdk-no-generics.md", "The public Go SDK",
           "The public Go SDK avoids generics so older toolchains can import it.")),
    LabelledPair(SC,
        _s("planner", "planner-scope.md", "Scope of the planner agent",
           "When planning, the planner agent writes tickets but never code.", "project"),
        _s("auto", "main-session-code.md", "The main session's job",
           "In the main session, implement the ticket end to end, tests included.",
           "project")),
    LabelledPair(SC,
        _s("oncall", "night-deploys.md", "Deploys at night",
           "Database migrations are applied only in the 02:00 maintenance window.",
           "project"),
        _s("team", "daytime-deploys.md", "Stateless deploys",
           "Stateless service deploys can go out any time during working hours.", "project")),
    # ---------------------------------------------------------------- related
    LabelledPair(R,
        _s("auto", "flaky-tests.md", "Flaky tests",
           "A flaky test gets quarantined with the `flaky` tag and a ticket, never retried "
           "silently."),
        _s("team", "ci-retries.md", "CI retry budget",
           "The CI runner retries infrastructure failures (runner lost, docker pull) once.",
           "project")),
    LabelledPair(R,
        _s("auto", "pg-indexes.md", "Indexes",
           "Add an index in the same migration as the query that needs it.", "project"),
        _s("reviewer", "explain.md", "Query review",
           "For new queries on big tables, ask for the EXPLAIN ANALYZE output in the PR.")),
    LabelledPair(R,
        _s("oncall", "sev-levels.md", "Severity levels",
           "SEV1: customers cannot pay. SEV2: degraded. SEV3: internal only.", "reference"),
        _s("team", "postmortems.md", "Postmortems",
           "Every SEV1 and SEV2 gets a blameless postmortem within five working days.",
           "project")),
    LabelledPair(R,
        _s("auto", "go-modules.md", "Go modules",
           "The repo has three Go modules: api/, tools/, sdk/.", "reference"),
        _s("planner", "workspace.md", "go.work",
           "A go.work file at the root ties the modules together for local development.",
           "reference")),
    LabelledPair(R,
        _s("auto", "storybook.md", "Storybook",
           "Every shared component in web/ has a Storybook story.", "project"),
        _s("reviewer", "visual-tests.md", "Visual regression",
           "Chromatic runs visual snapshots of the stories on each PR.")),
    LabelledPair(R,
        _s("team", "api-errors.md", "Error responses",
           "API errors are RFC 7807 problem+json bodies.", "project"),
        _s("auto", "error-codes.md", "Error codes",
           "Each problem body carries a stable `code` string clients may switch on.",
           "project")),
    LabelledPair(R,
        _s("auto", "dependabot.md", "Dependency updates",
           "Renovate opens dependency PRs on Mondays.", "project"),
        _s("reviewer", "dep-review.md", "Reviewing dependency bumps",
           "Major version bumps need the changelog linked in the PR.")),
    LabelledPair(R,
        _s("planner", "tickets-format.md", "Ticket template",
           "Tickets have Context, Acceptance criteria and Out of scope sections.",
           "project"),
        _s("team", "acceptance.md", "Acceptance criteria",
           "Acceptance criteria are written as Given/When/Then.", "project")),
    LabelledPair(R,
        _s("oncall", "alerts-slo.md", "Alerting on SLOs",
           "Alerts fire on burn rate of the 99.9 % availability SLO.", "project"),
        _s("auto", "slo-dashboard.md", "SLO definitions",
           "The checkout SLO counts 5xx and requests slower than 800 ms as bad.", "project")),
    LabelledPair(R,
        _s("auto", "fixtures.md", "Test fixtures",
           "Integration test fixtures are SQL files in api/testdata/."),
        _s("team", "factories.md", "Building test data",
           "Use the testfactory package to build structs for unit tests.", "project")),
    LabelledPair(R,
        _s("reviewer", "naming-go.md", "Go naming",
           "Package names are short, lower case, no underscores."),
        _s("auto", "interfaces.md", "Interfaces in Go",
           "Define interfaces where they are consumed, not next to the implementation.")),
    LabelledPair(R,
        _s("auto", "ts-paths.md", "Imports in web/",
           "Use the @/ alias for imports from web/src.", "project"),
        _s("planner", "eslint-import.md", "Import order",
           "eslint-plugin-import sorts imports; run pnpm lint --fix.", "project")),
    LabelledPair(R,
        _s("team", "backups.md", "Database backups",
           "Prod Postgres is backed up nightly with WAL archiving to S3.", "reference"),
        _s("oncall", "restore-drill.md", "Restore drills",
           "Once a quarter we restore the latest backup into a scratch cluster.", "project")),
    LabelledPair(R,
        _s("auto", "user-role.md", "Who the user is",
           "Dana is the tech lead of the ledger team and owns the API.", "user"),
        _s("planner", "stakeholders.md", "Stakeholders",
           "Product decisions for ledger go through Priya (PM).", "user")),
    LabelledPair(R,
        _s("auto", "rate-limits.md", "Rate limiting",
           "Public endpoints are rate limited per API key in the gateway.", "project"),
        _s("oncall", "429s.md", "Spikes of 429s",
           "A spike of 429s usually means one customer's batch job; check the key in Grafana.",
           "project")),
    LabelledPair(R,
        _s("reviewer", "test-names.md", "Test names",
           "Test names describe behaviour: TestCheckout_RejectsExpiredCard."),
        _s("auto", "test-helpers.md", "Test helpers",
           "Shared test helpers live in api/internal/testutil and call t.Helper().")),
    LabelledPair(R,
        _s("team", "monorepo.md", "Repository layout",
           "The monorepo holds api/ (Go), web/ (TypeScript) and jobs/ (Python).",
           "reference"),
        _s("planner", "ownership.md", "Who owns which folder",
           "Backend owns api/ and jobs/; the web team owns web/.", "reference")),
    LabelledPair(R,
        _s("auto", "grpc.md", "Internal APIs",
           "Services talk to each other over gRPC with protobufs in proto/.", "project"),
        _s("reviewer", "buf.md", "Protobuf changes",
           "Run buf breaking against main before merging a proto change.")),
    LabelledPair(R,
        _s("oncall", "oncall-handover.md", "On-call handover",
           "Handover happens Monday 10:00 with a written summary in #oncall.", "project"),
        _s("team", "oncall-schedule.md", "On-call rotation",
           "The rotation is weekly across the five backend engineers.", "reference")),
    LabelledPair(R,
        _s("auto", "docker-build.md", "Docker images",
           "Images are multi-stage builds on distroless base images.", "project"),
        _s("team", "image-scan.md", "Image scanning",
           "Trivy scans each image in CI; HIGH findings block the merge.", "project")),
    # ---------------------------------------------------------------- compatible
    LabelledPair(CO,
        _s("auto", "go-lint.md", "Go lint",
           "Run golangci-lint before pushing API changes."),
        _s("reviewer", "go-vet.md", "Vet",
           "go vet must pass on every package; CI runs it too.")),
    LabelledPair(CO,
        _s("auto", "pg-transactions.md", "Transactions",
           "Wrap multi-statement writes in a transaction."),
        _s("team", "idempotency.md", "Idempotent writes",
           "Payment writes carry an idempotency key so a retried request is harmless.",
           "project")),
    LabelledPair(CO,
        _s("planner", "small-tickets.md", "Ticket size",
           "A ticket should be doable in under two days.", "project"),
        _s("team", "wip-limit.md", "Work in progress",
           "Each engineer has at most two tickets in progress.", "project")),
    LabelledPair(CO,
        _s("auto", "ts-strict.md", "tsconfig",
           "web/ compiles with strict: true.", "project"),
        _s("reviewer", "ts-return-types.md", "Return types",
           "Exported TypeScript functions declare their return types.")),
    LabelledPair(CO,
        _s("oncall", "alert-runbook-link.md", "Alerts need runbooks",
           "Every alert rule links its runbook in the annotation."),
        _s("auto", "alert-owners.md", "Alert ownership",
           "Every alert rule has an owning team label.", "project")),
    LabelledPair(CO,
        _s("auto", "py-typing.md", "Type hints",
           "New Python code in jobs/ has type hints on every function."),
        _s("planner", "py-dataclasses.md", "Records in Python",
           "Use dataclasses (frozen where possible) for records in jobs/.", "project")),
    LabelledPair(CO,
        _s("team", "pr-template.md", "PR template",
           "Fill in the PR template's Testing section.", "project"),
        _s("reviewer", "screenshots.md", "UI PRs",
           "Frontend PRs include a screenshot or a short recording.")),
    LabelledPair(CO,
        _s("auto", "secrets-scan.md", "Secret scanning",
           "gitleaks runs as a pre-commit hook.", "project"),
        _s("team", "env-example.md", ".env.example",
           "Keep .env.example up to date with every variable the API reads.", "project")),
    LabelledPair(CO,
        _s("oncall", "deploy-watch.md", "After a deploy",
           "Watch the error rate dashboard for 15 minutes after each prod deploy."),
        _s("auto", "deploy-announce.md", "Announcing deploys",
           "Post in #deploys when a production release starts.", "project")),
    LabelledPair(CO,
        _s("auto", "go-context-timeouts.md", "Deadlines",
           "Every outgoing call gets a context with a deadline."),
        _s("reviewer", "go-goroutines.md", "Goroutines",
           "A goroutine must have an owner that waits for it (errgroup).")),
    LabelledPair(CO,
        _s("planner", "demo-friday.md", "Sprint demo",
           "Each sprint ends with a demo of merged work.", "project"),
        _s("team", "release-notes-pm.md", "Notes for product",
           "The PM gets a short list of user-visible changes each sprint.", "project")),
    LabelledPair(CO,
        _s("auto", "web-a11y.md", "Accessibility",
           "Interactive elements in web/ need an accessible name.", "project"),
        _s("md", "", "", "Run the axe checks in Storybook before merging UI work.")),
    LabelledPair(CO,
        _s("team", "sql-naming.md", "SQL naming",
           "Tables are plural snake_case; columns snake_case.", "project"),
        _s("auto", "sql-fks.md", "Foreign keys",
           "Every foreign key column has an index.", "project")),
    LabelledPair(CO,
        _s("oncall", "incident-roles.md", "Incident roles",
           "Each incident has a commander and a scribe.", "project"),
        _s("team", "incident-timeline.md", "Incident timeline",
           "The scribe keeps a timestamped timeline in the incident doc.", "project")),
    LabelledPair(CO,
        _s("auto", "git-signing.md", "Signed commits",
           "Commits to main must be signed.", "project"),
        _s("md", "", "", "Keep commits focused: one logical change per commit.")),
    LabelledPair(CO,
        _s("reviewer", "ts-enums.md", "Enums",
           "Prefer union types of string literals over TypeScript enums."),
        _s("auto", "ts-zod.md", "Validating input",
           "Validate API responses in web/ with zod schemas.", "project")),
    # ---------------------------------------------------------------- not_conflict
    LabelledPair(N,
        _s("auto", "mock-psp.md", "The payment provider in tests",
           "Tests never call the real PSP; the psp-fake container answers instead."),
        _s("reviewer", "real-db.md", "Databases in tests",
           "Use the real Postgres in integration tests; don't mock the database.")),
    LabelledPair(N,
        _s("auto", "max-line-md.md", "Markdown line length",
           "Markdown docs wrap at 80 columns."),
        _s("reviewer", "max-line-go.md", "Go line length",
           "Go has no line limit; gofmt decides.")),
    LabelledPair(N,
        _s("team", "timeout-db.md", "Statement timeout",
           "Postgres statement_timeout is 5 s for the API role.", "project"),
        _s("oncall", "timeout-lb.md", "Load balancer idle timeout",
           "The load balancer's idle timeout is 60 s.", "project")),
    LabelledPair(N,
        _s("auto", "port-api.md", "API port",
           "The API listens on 8080 locally.", "reference"),
        _s("planner", "port-web.md", "Web dev server port",
           "The Vite dev server runs on 5173.", "reference")),
    LabelledPair(N,
        _s("auto", "never-force-push.md", "Force pushes",
           "Never force-push to main."),
        _s("team", "force-push-own.md", "Your own branches",
           "Force-pushing your own feature branch after a rebase is expected.", "project")),
    LabelledPair(N,
        _s("oncall", "retention-logs.md", "Log retention",
           "Logs are kept for 30 days.", "reference"),
        _s("team", "retention-backups.md", "Backup retention",
           "Database backups are kept for 90 days.", "reference")),
    LabelledPair(N,
        _s("auto", "node-api.md", "Node in the API?",
           "There is no Node code in api/; it is Go only.", "reference"),
        _s("planner", "node-web.md", "Node for the frontend",
           "web/ needs Node for builds and tests.", "reference")),
    LabelledPair(N,
        _s("reviewer", "two-approvals-sdk.md", "Approvals on the SDK",
           "Changes to sdk/ need an approval from the SDK maintainer."),
        _s("team", "approvals-docs.md", "Docs changes",
           "Docs-only PRs can be merged by their author after CI.", "project")),
    LabelledPair(N,
        _s("auto", "jest-legacy.md", "The admin app's tests",
           "The legacy admin/ app still runs jest; leave it alone.", "project"),
        _s("planner", "vitest-new.md", "Tests in web/",
           "New frontend code in web/ is tested with vitest.", "project")),
    LabelledPair(N,
        _s("oncall", "p1-response.md", "P1 response time",
           "A P1 needs a first response within 15 minutes."),
        _s("team", "support-sla.md", "Support tickets",
           "Customer support tickets get an answer within 24 hours.", "project")),
    LabelledPair(N,
        _s("auto", "python-jobs-version.md", "Python in CI images",
           "The CI image has Python 3.12 for the jobs tests.", "reference"),
        _s("team", "python-tools.md", "Python for tooling scripts",
           "Developer tooling scripts must run on the macOS system Python 3.9.", "project")),
    LabelledPair(N,
        _s("auto", "cache-sessions.md", "Session cache",
           "User sessions are cached in Redis for 24 hours.", "project"),
        _s("oncall", "cache-rates.md", "Exchange rates cache",
           "FX rates are cached for 5 minutes.", "project")),
    LabelledPair(N,
        _s("reviewer", "no-print.md", "Debug prints",
           "Remove console.log calls before merging web/ changes."),
        _s("auto", "print-cli.md", "CLI output",
           "The tools/ CLI writes its results with fmt.Println to stdout; that is intended.")),
    LabelledPair(N,
        _s("planner", "mondays.md", "Planning day",
           "Sprint planning is on Monday mornings.", "project"),
        _s("oncall", "monday-handover.md", "Monday on-call",
           "The on-call week starts Monday at 10:00.", "project")),
    LabelledPair(N,
        _s("auto", "delete-branches.md", "Merged branches",
           "Delete the branch after the PR is merged.", "project"),
        _s("team", "keep-release-branches.md", "Release branches",
           "Release branches are kept forever for audit.", "project")),
    LabelledPair(N,
        _s("auto", "mocks-http.md", "HTTP mocks in web/",
           "Frontend tests stub the API with msw handlers."),
        _s("md", "", "", "Integration tests of the API never mock Postgres.")),
]


SAME_STORE_PAIRS: list[LabelledPair] = [
    LabelledPair(D,
        _s("auto", "feedback_testing-postgres.md", "Tests use the real database",
           "Run the integration tests against the dockerised Postgres; no fakes for the DB."),
        _s("auto", "feedback_testing-postgres-2.md", "Real Postgres in the test suite",
           "Integration suite: real Postgres from compose, never an in-memory fake.")),
    LabelledPair(D,
        _s("team", "deploy-checklist.md", "Before a production deploy",
           "Check the error budget and announce in #deploys before shipping to prod.",
           "project"),
        _s("team", "prod-release-steps.md", "Steps before releasing",
           "Announce the release in #deploys and look at the remaining error budget first.",
           "project")),
    LabelledPair(C,
        _s("reviewer", "max-function-length.md", "Function length",
           "Functions longer than 60 lines get a comment asking to split them."),
        _s("reviewer", "long-functions.md", "Long functions",
           "I only flag functions over 120 lines; 60-line functions are fine.")),
    LabelledPair(C,
        _s("oncall", "alert-threshold-cpu.md", "CPU alert",
           "The API's CPU alert fires at 70 % for 10 minutes.", "project"),
        _s("oncall", "cpu-paging.md", "When CPU pages",
           "CPU only pages above 90 % sustained for 5 minutes.", "project")),
    LabelledPair(S,
        _s("auto", "project_search-engine.md", "Search backend",
           "Full-text search runs on Elasticsearch.", "project"),
        _s("auto", "project_search-postgres.md", "Where search runs now",
           "Search moved into Postgres full-text; the Elasticsearch cluster was shut down.",
           "project"), newer="b"),
    LabelledPair(S,
        _s("planner", "planning-tool.md", "Planning board",
           "Sprint boards are kept in Trello.", "reference"),
        _s("planner", "planning-board-now.md", "Where sprints are planned",
           "Sprints are planned in Linear cycles now; the Trello board is read-only.",
           "reference"), newer="b"),
    LabelledPair(SC,
        _s("team", "review-sla-normal.md", "Review turnaround",
           "Reviews are answered within one working day.", "project"),
        _s("team", "review-sla-hotfix.md", "Reviewing hotfixes",
           "A hotfix PR is reviewed within the hour.", "project")),
    LabelledPair(SC,
        _s("auto", "feedback_go-tests-parallel.md", "Parallel tests in Go",
           "Unit tests call t.Parallel()."),
        _s("auto", "feedback_go-integration-serial.md", "Integration tests in Go",
           "Integration tests that share the database run serially; no t.Parallel there.")),
    LabelledPair(R,
        _s("oncall", "db-failover.md", "Database failover",
           "RDS fails over to the standby in about a minute; the API reconnects by itself.",
           "reference"),
        _s("oncall", "db-maintenance.md", "Database maintenance window",
           "AWS maintenance for RDS is scheduled Sundays 03:00–04:00 UTC.", "reference")),
    LabelledPair(R,
        _s("planner", "ticket-estimates-review.md", "Checking estimates",
           "Re-estimate a ticket when it has been in progress twice as long as planned.",
           "project"),
        _s("planner", "velocity.md", "Velocity",
           "Team velocity is about 30 points per sprint.", "project")),
    LabelledPair(CO,
        _s("reviewer", "go-errors-sentinel.md", "Sentinel errors",
           "Exported sentinel errors are named ErrSomething."),
        _s("reviewer", "go-errors-types.md", "Error types",
           "Custom error types end in Error and implement Unwrap when they wrap.")),
    LabelledPair(CO,
        _s("team", "docs-adr-template.md", "ADR template",
           "ADRs have Context, Decision and Consequences sections.", "reference"),
        _s("team", "docs-adr-numbering.md", "ADR numbers",
           "ADR files are numbered 0001-title.md in order of acceptance.", "reference")),
    LabelledPair(N,
        _s("auto", "project_timeout-jobs.md", "Job timeout",
           "A nightly job is killed after 2 hours.", "project"),
        _s("auto", "project_timeout-requests.md", "Request timeout",
           "HTTP requests to the API time out after 15 seconds.", "project")),
    LabelledPair(N,
        _s("oncall", "restart-jobs.md", "Restarting the jobs pod",
           "Restarting the jobs pod is safe; messages are redelivered."),
        _s("oncall", "restart-api.md", "Restarting API pods",
           "Restart API pods one at a time; the HPA keeps three running.")),
]
"""Pairs inside one store (near-copies under a common prefix, a store that contradicts
itself), added after the first measurement (the semantic candidates' k and floor were chosen
before and not chosen again); their halves are dealt among themselves, so the first pairs
keep theirs."""


DISTRACTORS: list[Side] = [
    _s("auto", "repo-map.md", "Repo map",
       "api/cmd/server is the API's entry point; api/internal holds the domain packages.",
       "reference"),
    _s("auto", "make-targets.md", "Make targets",
       "`make dev` starts the API, web and compose services together.", "reference"),
    _s("auto", "sqlc-regen.md", "Regenerating queries",
       "After editing api/queries/*.sql run `make sqlc`.", "reference"),
    _s("auto", "currency.md", "Money amounts",
       "Amounts are int64 minor units with an ISO 4217 currency code; never floats.",
       "project"),
    _s("auto", "invoice-numbers.md", "Invoice numbering",
       "Invoice numbers are per-tenant sequences, gapless, generated in the database.",
       "project"),
    _s("auto", "tenant-id.md", "Tenancy",
       "Every table except the lookup tables has tenant_id; queries filter on it.", "project"),
    _s("auto", "webhook-signing.md", "Outgoing webhooks",
       "Webhooks we send are signed with HMAC-SHA256 in the Ledger-Signature header.",
       "project"),
    _s("auto", "pdf-rendering.md", "Invoice PDFs",
       "PDFs are rendered by a headless Chromium job in jobs/pdf.", "project"),
    _s("auto", "i18n.md", "Translations",
       "UI strings go through i18next; keys are namespaced by page.", "project"),
    _s("auto", "date-lib.md", "Dates in the frontend",
       "web/ formats dates with date-fns, locale from the user's profile.", "project"),
    _s("auto", "feature-checkout.md", "Checkout redesign",
       "The checkout redesign ships behind the checkout_v2 flag; QA owns the test plan.",
       "project"),
    _s("auto", "tax-rules.md", "Tax calculation",
       "VAT is computed per line item and rounded half-even.", "project"),
    _s("auto", "pagination.md", "Pagination",
       "List endpoints use cursor pagination (?after=), max 100 items.", "project"),
    _s("auto", "auth.md", "Authentication",
       "The API authenticates users with OIDC via Keycloak; service accounts use mTLS.",
       "project"),
    _s("auto", "load-tests.md", "Load tests",
       "k6 scripts in bench/ replay a day of checkout traffic against staging.", "project"),
    _s("auto", "profiling.md", "Profiling Go",
       "pprof is exposed on :6060 in non-prod builds only.", "reference"),
    _s("auto", "user-timezone.md", "User's working hours",
       "Dana works 8:00–16:30 CET and reads messages after standup.", "user"),
    _s("auto", "user-learning.md", "What the user is learning",
       "Dana is new to React hooks; explain hook rules when touching components.", "user"),
    _s("auto", "csv-export.md", "CSV exports",
       "Exports stream rows; never build the whole CSV in memory.", "project"),
    _s("auto", "email-provider.md", "Sending email",
       "Transactional email goes through Postmark templates.", "reference"),
    _s("auto", "search.md", "Search",
       "Invoice search uses Postgres full-text search with a GIN index.", "project"),
    _s("auto", "audit-log.md", "Audit log",
       "Every admin action writes an audit_events row in the same transaction.", "project"),
    _s("auto", "web-routing.md", "Routing in web/",
       "web/ uses TanStack Router with file-based routes.", "project"),
    _s("auto", "forms.md", "Forms",
       "Forms in web/ are react-hook-form with zod resolvers.", "project"),
    _s("auto", "go-config.md", "Configuration in Go",
       "Config is read once at startup from env vars into a Config struct.", "project"),
    _s("auto", "health-checks.md", "Health endpoints",
       "/healthz is liveness; /readyz checks the database and Redis.", "project"),
    _s("auto", "graceful-shutdown.md", "Shutdown",
       "The server drains for 20 s on SIGTERM before exiting.", "project"),
    _s("auto", "jobs-scheduler.md", "Scheduled jobs",
       "Nightly jobs are Kubernetes CronJobs defined in deploy/cron/.", "project"),
    _s("team", "glossary.md", "Glossary",
       "A 'book' is a tenant's ledger; an 'entry' is one double-entry posting.", "reference"),
    _s("team", "onboarding.md", "Onboarding",
       "New engineers pair with the on-call for their first week.", "project"),
    _s("team", "architecture-decisions.md", "ADRs",
       "Architecture decisions are recorded as ADRs in docs/adr/.", "reference"),
    _s("team", "customers.md", "Big customers",
       "Three tenants generate 60 % of traffic; their batch imports run at night.",
       "project"),
    _s("team", "sla-customers.md", "Customer SLA",
       "The contractual API availability is 99.9 % per month.", "reference"),
    _s("team", "gdpr.md", "Personal data",
       "Personal data is deleted 30 days after account closure by the erasure job.",
       "project"),
    _s("team", "regions.md", "Regions",
       "Production runs in eu-central-1 only.", "reference"),
    _s("team", "kubernetes.md", "Clusters",
       "Two EKS clusters: staging and prod, both managed by Terraform in infra/.",
       "reference"),
    _s("team", "terraform.md", "Terraform",
       "Terraform plans run on PRs to infra/; applies are manual by platform.", "project"),
    _s("team", "hiring.md", "Interview loop",
       "Backend interviews include a 90-minute pairing session on a Go kata.", "project"),
    _s("team", "holidays.md", "Holiday coverage",
       "Between Christmas and New Year only critical fixes ship.", "project"),
    _s("team", "api-clients.md", "Client SDKs",
       "Go and TypeScript SDKs are generated from openapi.yaml by the sdk pipeline.",
       "project"),
    _s("team", "metrics.md", "Metrics naming",
       "Prometheus metrics are named ledger_<subsystem>_<name>_<unit>.", "project"),
    _s("team", "tracing.md", "Tracing",
       "OpenTelemetry traces go to Tempo; sample 10 % in prod.", "project"),
    _s("team", "feature-requests.md", "Feature requests",
       "Customer feature requests are collected in the Product board, not in tickets.",
       "project"),
    _s("team", "security-contact.md", "Security issues",
       "Security reports go to security@ and the #sec-private channel.", "reference"),
    _s("team", "pair-programming.md", "Pairing",
       "Pair on anything touching money movement.", "project"),
    _s("team", "docs-site.md", "Docs site",
       "Public docs are built with Docusaurus from docs/site.", "reference"),
    _s("reviewer", "review-tone.md", "Tone of reviews",
       "Phrase review comments as questions or suggestions; mark nits as nit:."),
    _s("reviewer", "test-coverage-review.md", "Tests in reviews",
       "Ask for a test when a PR fixes a bug that had none."),
    _s("reviewer", "naming-ts.md", "Naming in TypeScript",
       "React components are PascalCase files; hooks start with use."),
    _s("reviewer", "error-messages.md", "Error messages",
       "User-facing error messages say what to do next."),
    _s("reviewer", "comments.md", "Code comments",
       "Comments explain why, not what; delete commented-out code."),
    _s("reviewer", "go-receivers.md", "Method receivers",
       "Use pointer receivers consistently within a type."),
    _s("reviewer", "sql-migrations-review.md", "Reviewing migrations",
       "A migration that rewrites a large table must be batched."),
    _s("reviewer", "dependency-new.md", "New dependencies",
       "A new third-party dependency needs a one-line justification in the PR."),
    _s("reviewer", "react-effects.md", "useEffect",
       "Question every useEffect that only derives state; compute it during render."),
    _s("reviewer", "money-review.md", "Money code",
       "Any change to rounding or currency handling needs a second reviewer from payments."),
    _s("reviewer", "concurrency-review.md", "Data races",
       "Run the changed package's tests with -race when a PR adds goroutines."),
    _s("reviewer", "css.md", "Styling",
       "Styles are CSS modules; no inline style objects except for dynamic values."),
    _s("reviewer", "feature-flag-cleanup.md", "Old flags",
       "Flags older than three months should be removed; ask in the PR."),
    _s("reviewer", "api-naming.md", "JSON field names",
       "JSON fields in API responses are snake_case."),
    _s("reviewer", "perf-review.md", "N+1 queries",
       "Watch for queries inside loops over result sets."),
    _s("planner", "roadmap.md", "Roadmap",
       "Q1 focus: multi-currency books and the checkout redesign.", "project"),
    _s("planner", "epics.md", "Epics",
       "Epics group tickets by customer outcome, not by component.", "project"),
    _s("planner", "spikes.md", "Spikes",
       "Research spikes are timeboxed to two days and end with a written note.",
       "project"),
    _s("planner", "dependencies-planning.md", "Cross-team dependencies",
       "Tickets blocked on the platform team get the blocked label and a link.", "project"),
    _s("planner", "capacity.md", "Capacity",
       "Plan sprints at 70 % of capacity; the rest absorbs on-call and bugs.", "project"),
    _s("planner", "labels.md", "Ticket labels",
       "Labels: backend, frontend, jobs, infra, tech-debt.", "reference"),
    _s("planner", "milestones.md", "Milestones",
       "Multi-currency beta is due end of February for two pilot tenants.", "project"),
    _s("planner", "risk.md", "Risky changes",
       "Changes to ledger posting logic get a design doc before tickets.", "project"),
    _s("planner", "tech-debt.md", "Tech debt budget",
       "One ticket per sprint per engineer is tech debt.", "project"),
    _s("planner", "ticket-links.md", "Linking work",
       "Every PR title starts with the ticket key.", "project"),
    _s("planner", "user-priorities.md", "What Dana cares about",
       "Dana cares most about correctness of balances, then latency.", "user"),
    _s("planner", "release-plan.md", "Release planning",
       "Big features ship dark first, then to pilot tenants, then to everyone.",
       "project"),
    _s("planner", "design-reviews.md", "Design reviews",
       "Design docs are reviewed on Wednesdays in the architecture slot.", "project"),
    _s("oncall", "disk-alerts.md", "Disk alerts",
       "Postgres disk alerts fire at 80 %; the autoscaler grows volumes at 85 %."),
    _s("oncall", "redis-failover.md", "Redis failover",
       "ElastiCache fails over automatically; expect 30 s of cache misses."),
    _s("oncall", "psp-outage.md", "PSP outage",
       "If the PSP is down, switch checkout to the maintenance banner via the flag."),
    _s("oncall", "db-connections.md", "Connection pool",
       "The API uses pgxpool with max 20 connections per pod.", "reference"),
    _s("oncall", "pgbouncer.md", "PgBouncer",
       "Jobs connect through PgBouncer in transaction mode.", "reference"),
    _s("oncall", "hpa.md", "Autoscaling",
       "The API scales between 3 and 12 pods on CPU.", "reference"),
    _s("oncall", "cert-renewal.md", "TLS certificates",
       "cert-manager renews certificates; an expiry alert means it is stuck."),
    _s("oncall", "dns.md", "DNS",
       "DNS is in Route 53; changes go through Terraform, never the console.",
       "reference"),
    _s("oncall", "queue-backlog.md", "Queue backlog",
       "A backlog over 10k messages means the consumer is stuck; restart the jobs pod."),
    _s("oncall", "cron-failures.md", "Failed cron jobs",
       "A failed nightly job is retried once by Kubernetes; a second failure pages."),
    _s("oncall", "customer-comms.md", "Talking to customers",
       "Only support talks to customers during an incident."),
    _s("oncall", "rollout-canary.md", "Canary",
       "New API versions take 10 % of traffic for 20 minutes before full rollout.",
       "project"),
    _s("oncall", "oom.md", "OOM kills",
       "The PDF job is the usual OOM suspect; it needs 2 GiB."),
    _s("oncall", "latency-p99.md", "Latency",
       "p99 of POST /v1/payments above 1.5 s is worth a look.", "project"),
    _s("oncall", "vendor-contacts.md", "Vendor support",
       "PSP support is reachable via their portal; the account id is in Vault.",
       "reference"),
    _s("md", "", "", "This repository is the ledger monorepo: a Go API, a TypeScript web app "
       "and Python jobs."),
    _s("md", "", "", "Ask before adding a new top-level directory."),
    _s("md", "", "", "Money is always integer minor units; never use float for amounts."),
    _s("md", "", "", "Use `make dev` to start everything locally."),
    _s("md", "", "", "Prefer small, reviewable commits over one big change."),
    _s("md", "", "", "Never edit generated files under api/internal/db by hand."),
    _s("md", "", "", "Explain any change to ledger posting logic in the PR description."),
    _s("md", "", "", "Tests for a bug fix go in the same PR as the fix."),
    _s("md", "", "", "Do not add new dependencies to jobs/ without asking."),
    _s("md", "", "", "Run `pnpm lint` in web/ before pushing frontend changes."),
    _s("auto", "refunds.md", "Refunds",
       "A refund is a new reversing entry; the original posting is never edited.", "project"),
    _s("team", "code-freeze-q4.md", "Black Friday week",
       "During Black Friday week the checkout team owns every production change.", "project"),
    _s("oncall", "clock-skew.md", "Clock skew",
       "Token validation allows 60 s of clock skew between pods and Keycloak."),
]


# ------------------------------------------------------------------------------- writing


def _stable(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def half_of(a: Where, b: Where) -> str:
    """``tune`` or ``held`` for a pair no label names (a false alarm): a stable hash of the
    unordered pair. Labelled pairs are split by :func:`_halves`."""
    low, high = sorted((f"{a.file}#{a.paragraph or ''}", f"{b.file}#{b.paragraph or ''}"))
    # hash the file NAMES and paragraph text, not the absolute paths: the same pair falls in
    # the same half wherever the home is built
    low = low.rsplit("/", 1)[-1]
    high = high.rsplit("/", 1)[-1]
    return HALVES[_stable(f"{low}\0{high}") % 2]


def deal_halves(pairs: list[LabelledPair]) -> list[str]:
    """How the halves were dealt: within each relation, the pairs ordered by a stable hash
    of their two texts (as first written) and dealt alternately, so both halves hold every
    relation in equal measure (± 1). The result is frozen in :data:`HALVES_OF_PAIRS` (and
    :data:`HALVES_OF_SAME_STORE_PAIRS`): editing a text later moves no pair."""
    halves = [""] * len(pairs)
    for relation in RELATIONS:
        members = [i for i, p in enumerate(pairs) if p.relation == relation]
        members.sort(key=lambda i: _stable(f"{pairs[i].a.body}\0{pairs[i].b.body}"))
        for rank, i in enumerate(members):
            halves[i] = HALVES[rank % 2]
    return halves


HALVES_OF_PAIRS = (
    "thhhhhtthhhtthhttthtththhttthtthhtttththhhththhtthtthhttthhththtttththhhhhthththhthtt"
    "hthtthhtthhthhtttththhthhththhthhtthhththttthtthhhththtththhtththth"
)
"""The half of each of :data:`PAIRS` (``t`` tune, ``h`` held), as :func:`deal_halves` dealt
them when the home was first written."""
HALVES_OF_SAME_STORE_PAIRS = "hthtththhtthht"


def _halves_of(frozen: str) -> list[str]:
    return ["tune" if mark == "t" else "held" for mark in frozen]


def context_for(root: Path) -> Context:
    return Context.create(
        project=root / "ledger",
        claude_home=root / "claude",
        agent_memory_home=root / "agent-memory",
        env={"HOME": str(root)},
    )


def store_dirs(ctx: Context) -> dict[str, Path]:
    auto = ctx.claude_home / "projects" / sanitize_path(str(ctx.project)) / "memory"
    return {
        "auto": auto,
        "team": auto / "team",
        "reviewer": ctx.claude_home / "agent-memory" / "reviewer",
        "oncall": ctx.claude_home / "agent-memory" / "oncall",
        "planner": ctx.project / ".claude" / "agent-memory" / "planner",
    }


def _age(side: Side, role: str) -> float:
    """Days since ``side`` was written: supersessions' old sides 60–240 days, new sides 1–20;
    everything else 1–180 (fixed per memory)."""
    h = _stable(f"{side.store}/{side.file}/{side.body}")
    if role == "old":
        return 60 + h % 180
    if role == "new":
        return 1 + h % 20
    return 1 + h % 180


def build_judge_home(root: Path) -> JudgeHome:
    """Write the home under ``root`` and return its context and labels."""
    ctx = context_for(root)
    ctx.project.mkdir(parents=True, exist_ok=True)
    (ctx.project / ".git").mkdir(exist_ok=True)
    (ctx.project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    dirs = store_dirs(ctx)
    claude_md = ctx.project / "CLAUDE.md"
    paragraphs: list[str] = []
    indexes: dict[str, list[str]] = {store: [] for store in dirs}
    seen: set[tuple[str, str]] = set()
    places: dict[tuple[str, str], Where] = {}
    now = STORY_NOW.timestamp()

    def place(side: Side, role: str) -> Where:
        where = _place(side, role)
        places[(side.store, side.body if side.store == "md" else side.file)] = where
        return where

    def _place(side: Side, role: str) -> Where:
        if side.store == "md":
            paragraphs.append(side.body)
            return Where(str(claude_md), side.body)
        if (side.store, side.file) in seen:
            raise ValueError(f"two memories at {side.store}/{side.file}")
        seen.add((side.store, side.file))
        layout: Layout = "metadata" if _stable(side.file) % 2 else "flat"
        path = write_memory(
            dirs[side.store],
            side.file,
            description=side.description,
            type=side.type or None,
            body=side.body,
            layout=layout,
            mtime_days_ago=_age(side, role),
            now=now,
        )
        indexes[side.store].append(
            index_entry(side.description, side.file, side.body.split("\n")[0][:60])
        )
        return Where(str(path))

    labels: list[Label] = []
    dealt = _halves_of(HALVES_OF_PAIRS) + _halves_of(HALVES_OF_SAME_STORE_PAIRS)
    for pair, half in zip(PAIRS + SAME_STORE_PAIRS, dealt, strict=True):
        roles = ("old", "new") if pair.newer == "b" else ("new", "old") if pair.newer else ("", "")
        a, b = place(pair.a, roles[0]), place(pair.b, roles[1])
        newer = None if pair.newer is None else (a if pair.newer == "a" else b)
        labels.append(Label(pair.relation, a, b, half, newer))
    for side in DISTRACTORS:
        place(side, "")
    for store, lines in indexes.items():
        write_index(dirs[store], ["# Memory", "", *lines])
    agents: tuple[tuple[str, AgentScope, Path], ...] = (
        ("reviewer", "user", ctx.claude_home / "agents"),
        ("oncall", "user", ctx.claude_home / "agents"),
        ("planner", "project", ctx.project / ".claude" / "agents"),
    )
    for agent, scope, where in agents:
        write_agent(where, agent, description=f"The {agent} agent", memory=scope,
                    prompt=f"You are the {agent}.")
    lines = ["# ledger", "", "## Rules", ""] + [f"- {text}" for text in paragraphs]
    write_file(claude_md, "\n".join(lines) + "\n")
    memories = len(seen)
    return JudgeHome(ctx, labels, len(DISTRACTORS), memories, len(paragraphs), places)
