"""Tools and settings of one kind (issue 22, item 4): "jest" and "vitest" are both a JavaScript
test runner, "debug" and "warn" both a log level. Two memories on one subject that name other
values of one kind disagree ("web/ tests run on jest" / "web/ unit tests use vitest"), as two
numbers of one kind do.

The static embedding cannot tell it (jest / vitest are at a cosine of 0.11, debug / warn 0.17,
frontend / backend 0.35), so the kinds are a list: common choices a software team makes one of
(its test runner, package manager, formatter, CI, database, queue, search engine, deploy tool,
error tracker...), written from general knowledge of the ecosystem (the labelled home's held
half, which it was not written from, is the check: README, "How well it does").
A memory may name several values of a kind ("Postgres for data, SQLite in tests"); only sides
whose values of a kind have none in common disagree (:func:`other_kind`).

Words that are also plain English ("black", "linear", "rest", "echo", "render") are left out or
need a context (:data:`NOT_AFTER`, :data:`NEEDS`): a false "another tool" makes two memories a
conflict they are not.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memtui.core.judge.items import words

KINDS: dict[str, tuple[str, ...]] = {
    "JavaScript test runner": ("jest", "vitest", "mocha", "jasmine", "ava"),
    "browser test tool": ("playwright", "cypress", "selenium", "puppeteer", "webdriverio"),
    "Python test runner": ("pytest", "unittest", "nose2"),
    "JavaScript package manager": ("npm", "pnpm", "yarn", "bun"),
    "Python package manager": ("poetry", "pipenv", "uv", "pdm", "conda", "pip-tools"),
    "Python formatter": ("black", "yapf", "autopep8"),
    "Python linter": ("flake8", "pylint", "ruff", "pyflakes"),
    "Python type checker": ("mypy", "pyright", "pytype", "pyre"),
    "JavaScript linter": ("eslint", "tslint", "biome", "oxlint"),
    "JavaScript formatter": ("prettier", "dprint"),
    "bundler": ("webpack", "vite", "rollup", "esbuild", "parcel", "turbopack", "rspack"),
    "frontend framework": ("react", "vue", "angular", "svelte", "solidjs"),
    "CI service": ("github actions", "circleci", "gitlab ci", "jenkins", "travis", "buildkite",
                   "drone", "azure pipelines", "bitbucket pipelines", "teamcity"),
    "issue tracker": ("jira", "trello", "asana", "youtrack", "github issues"),
    "chat": ("slack", "discord", "mattermost", "zulip"),
    "relational database": ("postgres", "mysql", "mariadb", "sqlite", "mssql", "sql server",
                            "oracle", "cockroachdb"),
    "cache": ("redis", "memcached", "valkey"),
    "message broker": ("rabbitmq", "kafka", "sqs", "nats", "activemq", "pulsar", "kinesis",
                       "pub/sub"),
    "search engine": ("elasticsearch", "opensearch", "solr", "meilisearch", "typesense",
                      "algolia"),
    "container orchestrator": ("kubernetes", "nomad", "ecs", "docker swarm"),
    "deploy tool": ("argo", "flux", "spinnaker", "helm", "capistrano", "octopus"),
    "infrastructure as code": ("terraform", "pulumi", "cloudformation", "opentofu", "cdk"),
    "cloud": ("aws", "gcp", "azure", "google cloud", "digitalocean"),
    "metrics backend": ("prometheus", "datadog", "new relic", "graphite", "influxdb",
                        "victoriametrics"),
    "log store": ("loki", "splunk", "papertrail", "graylog", "elk"),
    "error tracker": ("sentry", "rollbar", "bugsnag", "honeybadger", "airbrake"),
    "pager": ("pagerduty", "opsgenie", "victorops"),
    "secret store": ("vault", "doppler", "sops", "1password", "secrets manager"),
    "feature flag service": ("launchdarkly", "unleash", "flagsmith", "growthbook",
                             "configcat"),
    "identity provider": ("keycloak", "auth0", "okta", "cognito"),
    "Go HTTP router": ("gin", "chi", "fiber", "gorilla", "net/http"),
    "Go error wrapping": ("pkg/errors", "fmt.errorf", "cockroachdb/errors", "xerrors"),
    "Go logger": ("zap", "zerolog", "logrus", "slog"),
    "Go database access": ("gorm", "sqlc", "sqlx", "ent"),
    "Python web framework": ("django", "flask", "fastapi"),
    "Node web framework": ("express", "fastify", "koa", "nestjs", "hono"),
    "JavaScript ORM": ("prisma", "typeorm", "sequelize", "drizzle", "knex"),
    "Python ORM": ("sqlalchemy", "peewee", "tortoise"),
    "migration tool": ("flyway", "liquibase", "goose", "golang-migrate", "alembic", "dbmate"),
    "state management": ("redux", "zustand", "mobx", "recoil", "jotai", "pinia"),
    "schema validation": ("zod", "yup", "joi", "valibot", "io-ts"),
    "Python data validation": ("pydantic", "marshmallow"),
    "task queue": ("celery", "rq", "dramatiq", "huey", "sidekiq", "bullmq", "resque"),
    "workflow scheduler": ("airflow", "dagster", "prefect"),
    "monorepo tool": ("nx", "turborepo", "lerna", "rush", "bazel", "pants"),
    "API style": ("rest api", "restful", "graphql", "grpc"),
    "date library": ("moment", "date-fns", "dayjs", "luxon"),
    "payment provider": ("stripe", "adyen", "braintree", "mollie", "paypal"),
    "email service": ("sendgrid", "mailgun", "postmark", "amazon ses"),
    "CDN": ("cloudflare", "fastly", "cloudfront", "akamai"),
    "hosting": ("vercel", "netlify", "heroku", "fly.io"),
    "product analytics": ("mixpanel", "posthog", "amplitude"),
    "module system": ("esm", "commonjs"),
    "branching model": ("trunk-based", "gitflow", "git flow"),
    "container base image": ("alpine", "distroless", "ubuntu", "debian"),
    "Node version manager": ("nvm", "volta", "fnm"),
    "log level": ("trace", "debug", "info", "warn", "error", "fatal"),
    "Go linter": ("golangci-lint", "staticcheck", "golint"),
    "container registry": ("ghcr", "ecr", "gcr", "docker hub", "quay", "artifact registry"),
    "CSS approach": ("tailwind", "css modules", "styled-components", "sass",
                     "vanilla-extract"),
    "JavaScript HTTP client": ("axios", "superagent"),
    "JavaScript runtime": ("deno", "node.js", "nodejs"),
    "dependency updater": ("dependabot", "renovate"),
    "docs site generator": ("docusaurus", "mkdocs", "sphinx", "vitepress"),
    "tracing backend": ("jaeger", "zipkin", "honeycomb", "lightstep"),
    "load testing tool": ("k6", "jmeter", "gatling", "vegeta"),
    "data fetching library": ("react-query", "tanstack query", "swr", "apollo client",
                              "rtk query"),
    "Python HTTP client": ("httpx", "aiohttp", "urllib3"),
    "dashboards": ("grafana", "kibana", "metabase"),
    "secret scanner": ("gitleaks", "trufflehog", "detect-secrets"),
    "Python version manager": ("pyenv", "asdf", "mise"),
    "container runtime": ("podman", "containerd", "cri-o"),
    "reverse proxy": ("nginx", "traefik", "caddy", "envoy", "haproxy"),
    "service mesh": ("istio", "linkerd", "consul connect"),
    "object storage": ("s3", "gcs", "minio", "azure blob"),
    "document database": ("mongodb", "dynamodb", "couchdb", "firestore", "cosmosdb"),
    "data warehouse": ("snowflake", "bigquery", "redshift", "clickhouse", "databricks"),
    "JVM build tool": ("maven", "gradle", "sbt"),
    "Java test framework": ("junit", "testng", "spock"),
    "Ruby test framework": ("rspec", "minitest"),
    "Go assertion library": ("testify", "gomega", "gotest.tools"),
    "code coverage service": ("codecov", "coveralls"),
    "release tool": ("semantic-release", "changesets", "release-please", "goreleaser"),
    "git hooks manager": ("husky", "lefthook", "pre-commit", "overcommit"),
    "UI component library": ("mui", "chakra", "antd", "shadcn", "mantine"),
    "i18n library": ("i18next", "formatjs", "lingui", "react-intl"),
    "form library": ("react-hook-form", "formik"),
    "mobile framework": ("react native", "flutter", "ionic", "xamarin"),
    "API gateway": ("kong", "apigee", "tyk"),
    "status page": ("statuspage", "instatus", "betteruptime"),
    "uptime monitor": ("pingdom", "uptimerobot", "checkly"),
    "wiki": ("confluence", "notion"),
}
"""Each kind's values, lower case; a value of two words is matched as a phrase."""

ALIASES: dict[str, str] = {
    "postgresql": "postgres", "pg": "postgres", "k8s": "kubernetes", "argocd": "argo",
    "fluxcd": "flux", "rabbit": "rabbitmq", "jest.config": "jest",
    "vitest.config": "vitest", "warning": "warn", "pub-sub": "pub/sub", "pubsub": "pub/sub",
    "cjs": "commonjs", "mongo": "mongodb", "dynamo": "dynamodb", "material-ui": "mui",
    "ant-design": "antd", "shadcn/ui": "shadcn", "chakra-ui": "chakra",
}
"""Other names of a value."""

NOT_AFTER: dict[str, frozenset[str]] = {
    "vault": frozenset(("bank",)),
    "moment": frozenset(("the", "a", "this", "that", "any", "one")),
    "helm": frozenset(("the",)),
    "drone": frozenset(("a", "the")),
    "notion": frozenset(("the", "a", "no", "any", "this", "that")),
    "envoy": frozenset(("the", "an", "a")),
}
"""A value read as plain English when the word before it is one of these ("at the moment",
"at the helm")."""
NOT_BEFORE: dict[str, frozenset[str]] = {
    "black": frozenset(("friday", "box", "list", "hole")),
    "oracle": frozenset(("of",)),
    "rush": frozenset(("hour", "job", "order")),
    "rollup": frozenset(("of",)),
    "flux": frozenset(("capacitor",)),
    "express": frozenset(("train", "lane", "delivery", "shipping", "checkout")),
    "parcel": frozenset(("delivery", "service", "tracking", "label", "labels")),
}
"""A value read as plain English when the word after it is one of these ("Black Friday")."""
LEVEL_WORDS = frozenset(("level", "levels", "verbosity", "loglevel"))
"""A log level is one only beside one of these ("at debug level", "log level info"): "log
the error" names no level."""
LEVEL_REACH = 3
NEEDS: dict[str, frozenset[str]] = {
    "deploy tool": frozenset(("deploy", "deploys", "deployed", "deploying", "deployment",
                              "deployments", "release", "releases", "rollout", "sync",
                              "gitops", "chart", "charts", "cluster")),
    "cloud": frozenset(("cloud", "hosted", "hosting", "region", "regions", "runs", "account",
                        "accounts", "infrastructure", "infra")),
    "Python package manager": frozenset(("install", "dependencies", "dependency", "lock",
                                         "lockfile", "packages", "package", "env",
                                         "environment", "venv", "virtualenv")),
    "container base image": frozenset(("image", "images", "base", "docker", "dockerfile",
                                       "container", "containers")),
    "Go database access": frozenset(("query", "queries", "database", "db", "sql", "orm",
                                     "models")),
    "frontend framework": frozenset(("component", "components", "frontend", "ui", "app",
                                     "framework", "web")),
    "Go HTTP router": frozenset(("router", "routes", "routing", "handlers", "handler", "http",
                                 "middleware", "server")),
    "task queue": frozenset(("queue", "queues", "task", "tasks", "worker", "workers", "jobs",
                             "job", "background")),
}
"""Kinds whose values are also common words ("base", "app", "jobs"): named only in a text that
also says what they are about."""

SEVERAL_KINDS: dict[str, tuple[str, ...]] = {}
"""Values that are of several kinds, each kind named (a value under two kinds of
:data:`KINDS` and not here is an error: it was indexed under the later kind alone)."""

Index = dict[tuple[str, ...], tuple[tuple[str, str], ...]]


def index(kinds: dict[str, tuple[str, ...]], aliases: dict[str, str],
          several: dict[str, tuple[str, ...]]) -> Index:
    """The words of each value (and of each alias) → its ``(kind, value)``s: one, or one per
    kind ``several`` declares for it. A value under two kinds that ``several`` does not
    declare raises :class:`ValueError`, naming it."""
    under: dict[str, list[str]] = {}
    for kind, values in kinds.items():
        for value in values:
            under.setdefault(value, []).append(kind)
    for value, found in under.items():
        if len(found) > 1 and sorted(several.get(value, ())) != sorted(found):
            raise ValueError(f"{value!r} is under {len(found)} kinds ({', '.join(found)}): "
                             "declare them in SEVERAL_KINDS or keep one")
    table: Index = {}
    for value, found in under.items():
        table[tuple(re.split(r"[\s]+", value))] = tuple((kind, value) for kind in found)
    for alias, value in aliases.items():
        if value in under:
            table.setdefault((alias,), tuple((kind, value) for kind in under[value]))
    return table


_BY_WORDS = index(KINDS, ALIASES, SEVERAL_KINDS)
_PARTS = re.compile(r"[./@:]")
MAX_TEXT_CHARS = 4_000


@lru_cache(maxsize=32_768)
def kinds_of(text: str) -> dict[str, frozenset[str]]:
    """The values of each kind ``text`` names (its first :data:`MAX_TEXT_CHARS` characters):
    ``{"JavaScript test runner": {"jest"}}``."""
    tokens = words(text[:MAX_TEXT_CHARS])
    said = frozenset(tokens)
    found: dict[str, set[str]] = {}

    def add(key: tuple[str, ...], after: str, at: int) -> None:
        for kind, value in _BY_WORDS.get(key, ()):
            if after in NOT_BEFORE.get(value, frozenset()):
                continue
            needs = NEEDS.get(kind)
            if needs is not None and not needs & said:
                continue
            if kind == "log level" and not LEVEL_WORDS.intersection(
                    tokens[max(0, at - LEVEL_REACH):at + LEVEL_REACH + 1]):
                continue
            found.setdefault(kind, set()).add(value)

    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        before = tokens[i - 1] if i else ""
        if token in NOT_AFTER and before in NOT_AFTER[token]:
            continue
        add((token,), after, i)
        if after:
            add((token, after), tokens[i + 2] if i + 2 < len(tokens) else "", i)
            # "pkg/errors", "net/http": words() splits a path of two words
            add((f"{token}/{after}",), tokens[i + 2] if i + 2 < len(tokens) else "", i)
        if _PARTS.search(token):  # "jest.config.ts", "fly.io", "@testing-library/react"
            parts = [p for p in _PARTS.split(token) if p]
            add((".".join(parts[:2]),), after, i)
            if parts and parts[0] != token:
                add((parts[0],), after, i)
    return {kind: frozenset(values) for kind, values in found.items()}


def other_kind(a: str, b: str) -> tuple[str, frozenset[str], frozenset[str]] | None:
    """A kind both texts name values of, with none in common: ``(kind, a's, b's)``; None
    when there is none (the first such kind, by name, when there are several)."""
    ka, kb = kinds_of(a), kinds_of(b)
    for kind in sorted(ka.keys() & kb.keys()):
        if not ka[kind] & kb[kind]:
            return kind, ka[kind], kb[kind]
    return None
