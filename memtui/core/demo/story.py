"""The demo's story: the shop project's curated memories, the generated bulk that overflows its
MEMORY.md, the awkward entries, the sessions, the other projects, the agents and the daily logs.
Data and the text built from it only; :mod:`memtui.core.demo.build` writes it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memtui.core.demo.writers import AgentScope, Layout, index_entry

# Clearly fake secrets, built by concatenation so the literals never sit in the source.
FAKE_GITHUB_PAT = "ghp_" + "DEMOfakeTOKENmemtui" + "0123456789abcdefg"
"""Matches gitleaks' github-pat rule ``ghp_[0-9a-zA-Z]{36}``; not a real token."""


DEMO_ORIGIN = "https://github.com/acme/shop.git"
"""The demo project's origin: its team memory syncs for acme/shop (nothing is ever sent)."""
FAKE_AWS_KEY_ID = "AKIA" + "DEMOFAKEKEY23456"
"""Matches gitleaks' aws-access-token rule; not a real key id."""


@dataclass(frozen=True)
class Topic:
    stem: str
    title: str
    hook: str
    type: str
    description: str
    body: str
    days: float
    layout: Layout = "flat"


def rule(rule: str, why: str, how: str) -> str:
    """A feedback/project body: the rule, then **Why:** and **How to apply:** lines."""
    return f"{rule}\n\n**Why:** {why}\n\n**How to apply:** {how}\n"


_STRIPE_HOOK = (
    "webhooks arrive out of order and can repeat for up to three days; dedupe on event.id in "
    "the stripe_event table, never trust the event payload amount, always re-fetch the "
    "PaymentIntent before changing order state (see the refund incident of 2026-11-20)"
)


CURATED: tuple[tuple[str, tuple[Topic, ...]], ...] = (
    (
        "People & preferences",
        (
            Topic(
                "user-role",
                "Who I work with",
                "tech lead for checkout and payments, wants terse answers",
                "user",
                "The user leads checkout and payments and prefers terse answers",
                "The user is the tech lead for checkout and payments. Prefers terse answers that "
                "name the file and function; no preamble.\n",
                40,
            ),
            Topic(
                "user-editor",
                "Editor setup",
                "Neovim + tmux, paste commands ready to run",
                "user",
                "The user works in Neovim inside tmux",
                "Neovim in tmux, zsh. Give commands that can be pasted as-is; no GUI steps.\n",
                95,
                "metadata",
            ),
            Topic(
                "user-review-style",
                "Review preferences",
                "small PRs under 400 lines, conventional commits",
                "user",
                "How the user likes changes split and reviewed",
                "Prefers small PRs (under ~400 changed lines) and one concern per PR.\n",
                60,
            ),
            Topic(
                "user-languages",
                "Languages",
                "reads German and English, docs in English",
                "user",
                "Languages the user reads and writes",
                "Reads German and English. All docs and commit messages in English.\n",
                120,
            ),
        ),
    ),
    (
        "Working rules",
        (
            Topic(
                "commit-messages",
                "Commit messages",
                "conventional commits with a scope, e.g. fix(refunds)",
                "feedback",
                "Commit message format for the shop repo",
                rule(
                    "Use conventional commits with a scope: `fix(refunds): ...`.",
                    "release notes are generated from commit subjects.",
                    "pick the scope from the top-level package touched (refunds, cart, web).",
                ),
                30,
            ),
            Topic(
                "python-style",
                "Python style",
                "ruff + mypy strict in api/, no Any in new code",
                "feedback",
                "Python code rules for the api package",
                rule(
                    "`api/` is checked by ruff and mypy --strict; new code must not use `Any`.",
                    "a typed boundary caught three refund bugs in review last quarter.",
                    "run `make lint` before proposing a diff; annotate every function.",
                ),
                21,
                "metadata",
            ),
            Topic(
                "frontend-style",
                "Frontend style",
                "Next.js app router, server components by default, Tailwind",
                "feedback",
                "Frontend conventions for web/",
                rule(
                    "Use server components by default; client components only for interaction.",
                    "the storefront's TTFB budget is 300 ms.",
                    "add 'use client' only to leaf components; style with Tailwind classes.",
                ),
                45,
            ),
            Topic(
                "logging",
                "Logging",
                "structlog everywhere, never log card data or emails",
                "feedback",
                "What may and may not be logged",
                rule(
                    "Log with structlog key-value pairs; never log PAN, CVC or customer emails.",
                    "PCI scope: a leaked log line would pull the log stack into the audit.",
                    "use `log.bind(order_id=...)`; redact with `shop.logging.redact()`.",
                ),
                12,
            ),
            Topic(
                "pii",
                "PII handling",
                "PII encrypted with pgcrypto, exports redact emails",
                "feedback",
                "How personal data is stored and exported",
                rule(
                    "Personal data columns are encrypted with pgcrypto; CSV exports redact emails.",
                    "GDPR audit finding 2026-04.",
                    "use the `EncryptedText` field for new PII columns.",
                ),
                70,
                "metadata",
            ),
            Topic(
                "no-mocks-payments",
                "No PSP mocks",
                "use the stripe-mock container, never mock the PSP client",
                "feedback",
                "Integration tests talk to stripe-mock",
                rule(
                    "Never mock the PSP client in integration tests; use the stripe-mock "
                    "container.",
                    "mocks hid the 2026-03 currency bug for two weeks.",
                    "`docker compose up stripe-mock` and set STRIPE_API_BASE.",
                ),
                33,
            ),
            Topic(
                "migrations-expand-contract",
                "Migrations: expand/contract",
                "never drop a column in the release that stops using it",
                "feedback",
                "Schema changes must be backward compatible for one release",
                rule(
                    "Expand, deploy, contract: never drop or rename a column in the release "
                    "that stops reading it.",
                    "rollbacks redeploy the previous image against the new schema.",
                    "split the migration into two PRs, a release apart.",
                ),
                52,
            ),
        ),
    ),
    (
        "Payments & refunds",
        (
            Topic(
                "stripe-webhooks",
                "Stripe webhooks",
                _STRIPE_HOOK,
                "reference",
                "Stripe webhook endpoint, signing secret and idempotency",
                "Endpoint `/api/payments/stripe/webhook`. Signing secret in Vault at "
                "`shop/prod/stripe`. Every handler is idempotent on `event.id`.\n",
                8,
            ),
            Topic(
                "partial-refunds",
                "Partial refunds",
                "shipping fee is refunded only with the whole order",
                "feedback",
                "Partial refunds leave the shipping fee alone",
                rule(
                    "A partial refund never includes the shipping fee unless every line is "
                    "refunded.",
                    "finance reconciles shipping separately.",
                    "use `RefundPlan.for_lines()`; it handles the shipping rule.",
                ),
                14,
            ),
            Topic(
                "payment-retries",
                "Payment retries",
                "3 retries at 1/5/30 min, then payment_failed",
                "project",
                "How failed card payments are retried",
                rule(
                    "Card payments retry three times (1, 5, 30 minutes), then the order moves "
                    "to `payment_failed`.",
                    "PSP soft declines often clear within minutes.",
                    "change the schedule in `worker/payments/retry.py` only.",
                ),
                26,
                "metadata",
            ),
            Topic(
                "currency-rounding",
                "Money in cents",
                "integer cents via Money, never floats",
                "feedback",
                "Money is stored and computed as integer cents",
                rule(
                    "All amounts are integer cents wrapped in `Money`; never use float.",
                    "the 2026-03 rounding bug refunded 0.01 EUR too much on 4,812 orders.",
                    "construct with `Money.cents(...)`; format only at the edge.",
                ),
                88,
            ),
            Topic(
                "psp-sandbox",
                "PSP sandbox",
                "Stripe test keys in 1Password vault shop-dev",
                "reference",
                "Where the sandbox credentials live",
                "Stripe test-mode keys: 1Password vault `shop-dev`. The Adyen sandbox was "
                "retired in 2026-07.\n",
                110,
            ),
            Topic(
                "chargebacks",
                "Chargebacks",
                "finance owns disputes, webhooks post to #payments-alerts",
                "project",
                "Who handles chargebacks and how they surface",
                rule(
                    "Finance owns disputes; `charge.dispute.*` webhooks post to #payments-alerts.",
                    "engineering kept answering disputes by mistake.",
                    "do not change dispute state from code; link the Stripe dashboard.",
                ),
                64,
            ),
            Topic(
                "refund-approval",
                "Refund approval",
                "refunds over 500 EUR need a second approver",
                "feedback",
                "Large refunds need two people",
                rule(
                    "Refunds above 500 EUR need a second approver in the admin.",
                    "fraud ring in 2026-05 used a compromised support account.",
                    "the admin enforces it; never bypass with the shell.",
                ),
                19,
            ),
        ),
    ),
    (
        "Deploy, CI & ops",
        (
            Topic(
                "deploy-freeze",
                "Deploy freeze",
                "no prod deploys Fri 15:00 to Mon 09:00 CET, none Nov 20 - Dec 2",
                "project",
                "When production deploys are frozen",
                rule(
                    "No production deploys from Friday 15:00 to Monday 09:00 CET, and none at "
                    "all from November 20 to December 2 (Black Friday).",
                    "weekend and peak incidents cost the most.",
                    "hotfixes during a freeze need the on-call lead's OK in #deploys.",
                ),
                5,
            ),
            Topic(
                "ci-pipeline",
                "CI pipeline",
                "ci.yml lint/unit/integration, deploy.yml, e2e-safari quarantined",
                "reference",
                "The GitHub Actions workflows",
                "`ci.yml` runs lint, unit and integration; `deploy.yml` ships tags. "
                "`e2e-safari` is quarantined. Test DB policy: [[test-db-postgres]].\n",
                9,
            ),
            Topic(
                "ci-cache",
                "CI cache",
                "keep the pnpm cache key, install with --frozen-lockfile",
                "feedback",
                "How CI caches dependencies",
                rule(
                    "Never change the pnpm cache key by hand; install with `--frozen-lockfile`.",
                    "a busted key doubled CI time for a week.",
                    "bump the key only via `make ci-cache-bump`.",
                ),
                41,
            ),
            Topic(
                "release-process",
                "Releases",
                "tag vYYYY.MM.DD.N, changelog via make changelog",
                "reference",
                "How a release is cut",
                "Tag `vYYYY.MM.DD.N` on main; `make changelog` writes CHANGELOG.md.\n",
                55,
            ),
            Topic(
                "rollback",
                "Rollback",
                "make rollback ENV=prod redeploys the previous image",
                "reference",
                "How to roll production back",
                "`make rollback ENV=prod` redeploys the previous image tag. Migrations stay.\n",
                77,
                "metadata",
            ),
            Topic(
                "staging-env",
                "Staging",
                "staging.shop.internal, reseeded nightly from anonymised prod",
                "reference",
                "The staging environment",
                "https://staging.shop.internal, reseeded nightly at 03:00 UTC.\n",
                100,
            ),
            Topic(
                "feature-flags",
                "Feature flags",
                "Unleash; checkout_v2 at 25 percent",
                "project",
                "Feature flags in flight",
                rule(
                    "Flags live in Unleash; `checkout_v2` is at 25 percent.",
                    "checkout v2 is rolled out gradually after the 2026-10 incident.",
                    "read flags through `shop.flags.enabled()` only.",
                ),
                3,
            ),
        ),
    ),
    (
        "Testing",
        (
            Topic(
                "test-db-postgres",
                "Test database: real Postgres",
                "integration tests hit a real Postgres 16, never SQLite",
                "feedback",
                "Test database: integration tests run against a real Postgres",
                rule(
                    "Integration tests run against a real Postgres 16 (compose service `db`); "
                    "never SQLite, never mocks.",
                    "SQLite hid a JSONB query bug that broke refunds in production.",
                    "`docker compose up db` then `make test`. "
                    "CI does the same, see [[ci-pipeline]].",
                ),
                44,
            ),
            Topic(
                "test-db-sqlite",
                "Test database: SQLite in memory",
                "tests use SQLite in memory so the suite runs under a minute",
                "project",
                "Test database: tests use SQLite in memory for speed",
                rule(
                    "Tests use SQLite in memory (`DATABASE_URL=sqlite://:memory:`) so the suite "
                    "runs in under a minute.",
                    "developers skipped the 6-minute Postgres run.",
                    "set DATABASE_URL in `pytest.ini`; no docker needed.",
                ),
                6,
                "metadata",
            ),
            Topic(
                "test-factories",
                "Test factories",
                "factory_boy in tests/factories.py, no JSON fixtures",
                "feedback",
                "How test data is built",
                rule(
                    "Build test data with factory_boy (`tests/factories.py`).",
                    "JSON fixtures rotted with every migration.",
                    "add a factory next to the model's existing one.",
                ),
                58,
            ),
            Topic(
                "e2e-playwright",
                "End-to-end tests",
                "pnpm e2e runs Playwright on :3000 as demo@shop.test",
                "reference",
                "How the Playwright suite runs",
                "`pnpm e2e` runs Playwright against localhost:3000 as demo@shop.test.\n",
                36,
            ),
            Topic(
                "flaky-tests",
                "Flaky tests",
                "quarantine list tests/quarantine.txt, reviewed Mondays",
                "project",
                "How flaky tests are handled",
                rule(
                    "Flaky tests go to `tests/quarantine.txt`; the list is reviewed Mondays.",
                    "retries hid real races.",
                    "never add a retry decorator.",
                ),
                17,
            ),
        ),
    ),
    (
        "Reference",
        (
            Topic(
                "grafana-dashboards",
                "Grafana dashboards",
                "Shop / Checkout and Shop / Payments boards, SLO panels",
                "reference",
                "Where the Grafana dashboards are",
                "Dashboards: grafana.shop.internal, folder Shop.\n- Shop / Checkout: funnel "
                "and p95 latency\n- Shop / Payments: auth rate, refunds per hour\nSLO panels "
                "are on the top row.\n",
                90,
            ),
            Topic(
                "dashboards-grafana",
                "Dashboards (Grafana)",
                "checkout and payments boards in the Shop folder",
                "reference",
                "Grafana dashboards for the shop",
                "Dashboards: grafana.shop.internal, folder Shop.\n- Shop / Checkout: funnel "
                "and P95 latency\n-  Shop / Payments: auth rate, refunds per hour\nSLO panels "
                "are on the top row.\n",
                12,
                "metadata",
            ),
            Topic(
                "sentry",
                "Sentry",
                "projects shop-api and shop-web, release = deploy tag",
                "reference",
                "Sentry projects and release naming",
                "Sentry projects `shop-api`, `shop-web`; release names equal deploy tags.\n",
                67,
            ),
            Topic(
                "oncall",
                "On-call",
                "PagerDuty Shop Primary, escalates after 15 min",
                "reference",
                "The on-call rotation",
                "PagerDuty schedule 'Shop Primary'; escalation after 15 minutes.\n",
                48,
            ),
            Topic(
                "architecture",
                "Architecture",
                "api/ Django 5, web/ Next.js 15, worker/ Celery, infra/ Terraform",
                "project",
                "Monorepo layout",
                rule(
                    "Monorepo: `api/` (Django 5), `web/` (Next.js 15), `worker/` (Celery), "
                    "`infra/` (Terraform).",
                    "one repo keeps API and storefront releases in step.",
                    "put shared types in `packages/contracts`.",
                ),
                115,
            ),
            Topic(
                "search-index",
                "Search index",
                "Meilisearch reindex 02:00 UTC, full run 40 min",
                "project",
                "How the product search index is rebuilt",
                rule(
                    "Meilisearch reindexes nightly at 02:00 UTC; a full reindex takes 40 min.",
                    "catalog imports land at 01:00.",
                    "never trigger a full reindex by day.",
                ),
                73,
            ),
            Topic(
                "inventory-sync",
                "Inventory sync",
                "ERP sync every 10 min, reservations expire after 15 min",
                "project",
                "Stock sync with the ERP",
                rule(
                    "Stock syncs from the ERP every 10 minutes; cart reservations expire after "
                    "15 minutes.",
                    "oversells during drops.",
                    "reserve via `InventoryService.reserve()` only.",
                ),
                29,
            ),
            Topic(
                "tax-rules",
                "Tax rules",
                "VAT via TaxJar, B2B reverse charge",
                "reference",
                "Where VAT is computed",
                "TaxJar computes VAT; B2B orders use reverse charge.\n",
                99,
            ),
            Topic(
                "email-templates",
                "Email templates",
                "MJML in api/emails, preview at /admin/emails",
                "reference",
                "Transactional email templates",
                "MJML templates in `api/emails/`; preview at /admin/emails.\n",
                81,
            ),
            Topic(
                "shipping-carriers",
                "Shipping carriers",
                "DHL and UPS, labels kept 90 days",
                "reference",
                "Carriers and label storage",
                "DHL and UPS. Label PDFs are stored 90 days in the `labels` bucket.\n",
                105,
            ),
        ),
    ),
)


ARCHIVE: tuple[Topic, ...] = (
    Topic(
        "refund-coupons",
        "Refund coupons",
        "recompute the coupon share per item line",
        "project",
        "Refunds recompute coupon discounts per line item",
        rule(
            "When refunding part of an order, recompute the coupon share per item line; "
            "never refund the order-level discount pro rata.",
            "pro-rata refunds paid out more than customers paid on mixed carts.",
            "use `CouponAllocator.per_line()`. Watch [[deploy-freeze]] before shipping; "
            "related: [[partial-refunds]] and [[payments-retry-policy]].",
        ),
        2,
    ),
    Topic(
        "black-friday",
        "Black Friday plan",
        "12 web pods, cache warmup at 05:00",
        "project",
        "Capacity plan for Black Friday",
        rule(
            "Scale to 12 web pods and run the cache warmup at 05:00 CET.",
            "2025 peak hit 9x normal traffic.",
            "`make bf-scale` on the 27th.",
        ),
        4,
    ),
    Topic(
        "gift-cards",
        "Gift cards",
        "balance lives in the ledger, not on the card row",
        "project",
        "How gift card balances are stored",
        rule(
            "Gift card balances are derived from the ledger.",
            "double spends on concurrent checkouts.",
            "query `GiftCardLedger.balance()`.",
        ),
        84,
    ),
)


ORPHANS: tuple[Topic, ...] = (
    Topic(
        "legacy-coupons",
        "Legacy coupons",
        "",
        "project",
        "Old coupon codes from the Magento shop still validate",
        rule(
            "Magento-era coupon codes (prefix `MG-`) still validate until 2027-01.",
            "printed vouchers are still out there.",
            "keep `LegacyCouponValidator`.",
        ),
        118,
    ),
    Topic(
        "user-timezone",
        "Time zone",
        "",
        "user",
        "The user works in CET",
        "Works in CET; avoid proposing meetings before 10:00.\n",
        7,
        "metadata",
    ),
)


AREAS: tuple[tuple[str, str, str, str], ...] = (
    ("cart", "Cart", "api/cart", "checkout"),
    ("checkout", "Checkout", "api/checkout", "checkout"),
    ("payments", "Payments", "api/payments", "payments"),
    ("refunds", "Refunds", "api/refunds", "payments"),
    ("catalog", "Catalog", "api/catalog", "catalog"),
    ("search", "Search", "api/search", "catalog"),
    ("inventory", "Inventory", "worker/inventory", "fulfilment"),
    ("shipping", "Shipping", "api/shipping", "fulfilment"),
    ("tax", "Tax", "api/tax", "payments"),
    ("promotions", "Promotions", "api/promotions", "growth"),
    ("accounts", "Accounts", "api/accounts", "identity"),
    ("auth", "Auth", "api/auth", "identity"),
    ("admin", "Admin", "api/admin", "backoffice"),
    ("emails", "Emails", "api/emails", "growth"),
    ("analytics", "Analytics", "worker/analytics", "data"),
    ("storefront", "Storefront", "web/app", "web"),
    ("images", "Images", "worker/images", "web"),
    ("reviews", "Reviews", "api/reviews", "catalog"),
    ("wishlist", "Wishlist", "api/wishlist", "growth"),
    ("infra", "Infra", "infra", "platform"),
)


_ASPECTS: tuple[tuple[str, str, str], ...] = (
    ("runbook", "reference", "first steps when its alerts fire"),
    ("gotchas", "feedback", "traps that already bit us"),
    ("owners", "reference", "who owns it and where to ask"),
    ("flags", "project", "feature flags currently live"),
    ("fixtures", "feedback", "test data and factories to use"),
    ("metrics", "reference", "dashboards and SLOs to watch"),
    ("backlog", "project", "known bugs and open decisions"),
    ("conventions", "feedback", "naming and layout rules"),
)


def _generated_body(area: tuple[str, str, str, str], aspect: str, rng: random.Random) -> str:
    slug, title, path, team = area
    if aspect == "runbook":
        return (
            f"1. Check the Shop / {title} dashboard.\n2. Tail `{path}` logs in Grafana Loki.\n"
            f"3. Page #{team}-oncall if errors stay above 2% for 10 minutes.\n"
        )
    if aspect == "owners":
        return f"{title} is owned by the {team} team; ask in #{team}. Code: `{path}/`.\n"
    if aspect == "metrics":
        return (
            f"SLO: {rng.choice(['99.5', '99.9', '99.95'])}% of {slug} requests under "
            f"{rng.choice([200, 300, 500])} ms. Board: Shop / {title}.\n"
        )
    rules = {
        "gotchas": (
            f"{title}: timestamps in `{path}` are UTC; never compare with local time.",
            "a DST switch once doubled a batch run.",
            "use `shop.time.utcnow()`.",
        ),
        "flags": (
            f"{title} flags: `{slug}_v2` at {rng.choice([5, 10, 25, 50])} percent.",
            "gradual rollout after the October incident.",
            f"clean the flag up once it reaches 100 percent in `{path}/flags.py`.",
        ),
        "fixtures": (
            f"Use `{slug.capitalize()}Factory` from `tests/factories.py` for {slug}.",
            "shared factories keep migrations cheap.",
            "extend it, do not copy it.",
        ),
        "backlog": (
            f"Open: {slug} pagination returns duplicates on concurrent writes.",
            "cursor is not stable.",
            f"fix with a keyset cursor in `{path}`.",
        ),
        "conventions": (
            f"Modules in `{path}` are named by noun; services end in `Service`.",
            "consistent names keep grep useful.",
            "follow the existing files.",
        ),
    }
    return rule(*rules[aspect])


def generated_topics(count: int, rng: random.Random) -> list[Topic]:
    topics: list[Topic] = []
    for i in range(count):
        area = AREAS[i % len(AREAS)]
        aspect, kind, hook = _ASPECTS[(i // len(AREAS)) % len(_ASPECTS)]
        slug, title = area[0], area[1]
        topics.append(
            Topic(
                stem=f"{slug}-{aspect}",
                title=f"{title} {aspect}",
                hook=f"{title.lower()}: {hook}",
                type=kind,
                description=f"{title} {aspect}: {hook}",
                body=_generated_body(area, aspect, rng),
                days=rng.randint(1, 120),
                layout="metadata" if i % 3 == 0 else "flat",
            )
        )
    return topics


_AWKWARD_ENTRIES: tuple[tuple[str, str, str], ...] = (
    ("Screenshot paste", "binary.md", "bytes pasted from a screenshot by mistake"),
    ("Café supplier", "latin1.md", "imported from the old wiki in Latin-1"),
    ("Broken frontmatter", "bad-yaml.md", "hand-edited, YAML does not parse"),
    ("Locked notes", "unreadable.md", "mode 000 after a bad rsync"),
    ("Access log dump", "huge.md", "3 MB of access log that should not be here"),
    ("Ops secrets", "escape.md", "symlink to a file outside the memory dir"),
    ("Incident 2026-11-20", "logs/2026/11/2026-11-20.md", "double refund on a retried webhook"),
)


MAIN_LINES_TARGET = 215


_CUT_LINE = 200


def _curated_sections(dangling: str) -> list[str]:
    lines = [
        "# Shop: project memory",
        "",
        "What I know about the shop monorepo. One line per memory; details live in the files.",
        "Keep entries short; move anything long into a topic file.",
    ]
    for heading, topics in CURATED:
        lines += ["", f"## {heading}"]
        lines += [index_entry(t.title, f"{t.stem}.md", t.hook) for t in topics]
        if heading == "Payments & refunds":
            lines.append(dangling)
    lines += ["", "## Imported and odd files"]
    lines += [index_entry(*entry) for entry in _AWKWARD_ENTRIES]
    return lines


def main_index(generated: list[Topic]) -> list[str]:
    """The overflowing MEMORY.md: curated sections, the generated bulk, then the archive."""
    lines = _curated_sections(
        index_entry("Klarna pay-later", "klarna.md", "pilot in Austria only, ends 2026-12")
    )
    lines += ["", "## Area notes", "Short notes per area; the files hold the detail."]
    lines += [index_entry(t.title, f"{t.stem}.md", t.hook) for t in generated]
    lines += ["", "## Archive"]
    lines += [index_entry(t.title, f"{t.stem}.md", t.hook) for t in ARCHIVE]
    lines.append(index_entry("Checkout v1", "checkout-v1.md", "old flow, removed in 2026-06"))
    return lines


def fixed_main_lines() -> int:
    return len(main_index([]))


SESSION_MAIN_FILLED = "9f3c2a71-4d8e-4b6a-9c1f-2e7d5b8a6c40"


SESSION_MAIN_CI = "ab12cd34-5e6f-4a7b-8c9d-0e1f2a3b4c5d"


SESSION_MAIN_EMPTY = "3e8d1f20-7a6b-4c5d-9e0f-1a2b3c4d5e6f"


SESSION_WORKTREE = "c0ffee00-1234-4abc-8def-0123456789ab"


OTHER_PROJECTS: tuple[tuple[str, str, float], ...] = (
    ("/home/dev/src/blog", "Static blog: Hugo, deploys on push to main", 12),
    ("/home/dev/src/infra_tools", "Terraform helpers; state in the ops bucket", 37),
    ("/home/dev/work/api.gateway", "Envoy config; rate limits per client id", 66),
)


SNAPSHOT_UPDATED = {
    "reviewer": "2026-11-25T09:00:00.000Z",
    "planner": "2026-11-01T12:00:00.000Z",
    "qa": "2026-11-20T08:00:00.000Z",
}


REVIEWER_SYNCED_FROM = "2026-10-01T09:00:00.000Z"


AGENTS: tuple[tuple[str, str, AgentScope, str], ...] = (
    ("reviewer", "Reviews diffs touching payments and refunds before merge", "user", "user"),
    ("planner", "Breaks epics into sprint-sized stories", "user", "user"),
    ("docs-writer", "Writes and updates the developer docs", "project", "user"),
    ("migrator", "Plans and writes zero-downtime schema migrations", "local", "project"),
    ("qa", "Writes end-to-end tests and keeps the test matrix", "user", "project"),
)


DAILY: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "2026-11-25",
        (
            (
                "09:14:02",
                "ab12cd34",
                "Refund double-charge traced to webhook retries #payments "
                "#incident. See [[payments]].",
            ),
            ("16:40:11", "ab12cd34", "Deploy freeze starts Friday #deploy."),
        ),
    ),
    (
        "2026-11-26",
        (
            ("10:02:45", "77e1f0aa", "CI takes 6 minutes on Postgres #ci #testing."),
            ("11:30:00", "77e1f0aa", "Tried SQLite in memory: 48 s but JSONB tests skip #testing."),
        ),
    ),
    (
        "2026-11-27",
        (
            (
                "08:55:19",
                "9f3c2a71",
                "Coupon share must be recomputed per line #payments [[payments]].",
            ),
            ("14:12:07", "9f3c2a71", "Black Friday scale plan agreed #deploy [[deploy]]."),
            ("17:48:30", "9f3c2a71", "Remember to rotate the staging key."),
        ),
    ),
)
