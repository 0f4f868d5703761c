"""The secret scanner: every rule finds its secret and passes its near miss, gitleaks' entropy
and allowlist conditions hold, nothing shown is ever the secret, and no input takes it long."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from samples import ALNUM, SAMPLES, Sample, chars, j

from memtui.core.demo.build import build_demo_home
from memtui.core.demo.story import FAKE_GITHUB_PAT
from memtui.core.secrets.redact import placeholder, redact
from memtui.core.secrets.rules import compile_re2, load_rules, translate
from memtui.core.secrets.scanner import find_secrets, mask, shannon_entropy

RULE_IDS = [
    "aws-access-token", "gcp-api-key", "azure-ad-client-secret", "digitalocean-pat",
    "digitalocean-access-token", "anthropic-api-key", "anthropic-admin-api-key",
    "openai-api-key", "huggingface-access-token", "github-pat", "github-fine-grained-pat",
    "github-app-token", "github-oauth", "github-refresh-token", "gitlab-pat",
    "gitlab-deploy-token", "slack-bot-token", "slack-user-token", "slack-app-token",
    "twilio-api-key", "sendgrid-api-token", "npm-access-token", "pypi-upload-token",
    "databricks-api-token", "hashicorp-tf-api-token", "pulumi-api-token", "postman-api-token",
    "grafana-api-key", "grafana-cloud-api-token", "grafana-service-account-token",
    "sentry-user-token", "sentry-org-token", "stripe-access-token", "shopify-access-token",
    "shopify-shared-secret", "private-key",
]  # the spec's list (docs/claude-code-rules.md#secrets-in-memory), in its order


def test_the_packaged_rules_are_exactly_the_spec_ids() -> None:
    assert [rule.id for rule in load_rules()] == RULE_IDS
    assert {s.rule for s in SAMPLES} == set(RULE_IDS)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.rule)
def test_each_rule_finds_its_secret(sample: Sample) -> None:
    text = f"# Deploy notes\n\nThe staging {sample.line}more prose\n"
    ours = [f for f in find_secrets(text) if f.rule == sample.rule]
    assert [f.secret(text) for f in ours] == [sample.secret]
    assert ours[0].line == 3
    assert sample.secret not in ours[0].masked


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.rule)
def test_each_rule_passes_its_near_miss(sample: Sample) -> None:
    text = f"# Deploy notes\n\nThe staging {sample.near_miss}more prose\n"
    assert [f.rule for f in find_secrets(text) if f.rule == sample.rule] == []


def test_low_entropy_is_no_secret() -> None:
    """github-pat's threshold is 3 bits: a token of one repeated character is dropped."""
    low = j("gh", "p_", "a" * 36)
    assert shannon_entropy(low) < 3
    assert find_secrets(f"token {low}\n") == []


def test_rule_allowlist_aws_example_keys() -> None:
    example = j("AK", "IA", "IOSFODNN7", "EXAMPLE")  # AWS's documented example key
    assert find_secrets(f"aws {example}\n") == []


def test_the_path_allowlist_of_a_rule_skips_the_file() -> None:
    token = j("gh", "p_", chars(ALNUM, 36))
    assert find_secrets(token, path="node_modules/@octokit/auth-token/README.md") == []
    assert [f.rule for f in find_secrets(token, path="notes.md")] == ["github-pat"]


def test_gitleaks_allow_on_the_line_skips_it() -> None:
    token = j("gh", "p_", chars(ALNUM, 36))
    assert find_secrets(f"{token} # gitleaks:allow\n") == []


def test_keywords_prefilter_is_case_insensitive_like_gitleaks() -> None:
    """The prefilter looks at the lower-cased text; the pattern itself stays case-sensitive."""
    key = j("sk", "_LIVE_", chars(ALNUM, 24))  # keyword sk_live matches, the regex does not
    assert find_secrets(key) == []


def test_the_translation_keeps_re2_semantics() -> None:
    assert translate(r"\b(SG\.(?i)[a-z]{3})x") == r"\b(SG\.(?i:[a-z]{3}))x"
    assert translate(r"a(?i)b") == r"a(?i:b)"
    assert translate(r"[\s;]|$") == r"[\t\n\f\r ;]|\Z"
    assert compile_re2(r"x$").search("x\n") is None  # RE2: $ is the end of the text
    assert compile_re2(r"\w+").fullmatch("é") is None  # RE2: \w is ASCII


def test_masks_never_show_the_secret() -> None:
    for sample in SAMPLES:
        shown = mask(sample.secret, sample.rule)
        assert sample.secret not in shown
        assert len(shown) < len(sample.secret) / 2 or sample.rule == "private-key"
    assert mask(j("gh", "p_", "x" * 32, "9abc"), "github-pat") == "ghp_…9abc"


def test_redact_replaces_every_secret_and_names_the_rule() -> None:
    text = "\n".join(f"- {s.line}" for s in SAMPLES)
    result = redact(text)
    for sample in SAMPLES:
        assert sample.secret not in result.text
    assert {f.rule for f in result.findings} >= set(RULE_IDS)
    assert placeholder("github-pat") in result.text
    assert redact(result.text).findings == ()  # nothing left to find


def test_overlapping_findings_are_replaced_once() -> None:
    twilio_inside = j("S", "K", chars("0123456789abcdef", 32))
    text = f"x {twilio_inside} y"
    assert redact(text).text == f"x {placeholder('twilio-api-key')} y"


@pytest.mark.parametrize("rule", RULE_IDS)
def test_no_rule_is_slow_on_a_hostile_megabyte(rule: str) -> None:
    """Near matches repeated over a 1 MB line, the rule's keywords alone, and for private-key
    headers without a footer (quadratic for a backtracking engine): each in bounded time."""
    sample = next(s for s in SAMPLES if s.rule == rule)
    keyword = next(r for r in load_rules() if r.id == rule).keywords[0]
    near = sample.secret[:-1] + "#"
    inputs = [
        (near * (1_000_000 // len(near) + 1))[:1_000_000],
        (keyword * (1_000_000 // len(keyword) + 1))[:1_000_000],
        ((keyword + "A" * 997) * 1000)[:1_000_000],
    ]
    if rule == "private-key":
        header = sample.secret.split("\n", 1)[0] + "\n"
        inputs.append(header * (1_000_000 // len(header)))
    for text in inputs:
        start = time.process_time()  # CPU time: a loaded machine stretches the wall clock only
        find_secrets(text)
        assert time.process_time() - start < 3.0, f"{rule} took too long"


def test_binary_and_broken_text_scan_without_error() -> None:
    token = j("gh", "p_", chars(ALNUM, 36))
    broken = b"\xff\xfe\x00\x00" + token.encode() + b"\x80\xc3\x28"
    text = broken.decode("utf-8", "replace")
    assert [f.rule for f in find_secrets(text)] == ["github-pat"]
    assert find_secrets("\ud800 lone surrogate " + token)[0].rule == "github-pat"


def test_a_ten_megabyte_memory_scans_in_bounded_time() -> None:
    token = j("gh", "p_", chars(ALNUM, 36))
    text = ("plain prose about the checkout flow, nothing secret here\n" * 180_000) + token
    start = time.process_time()  # CPU time: a loaded machine stretches the wall clock only
    found = find_secrets(text)
    assert time.process_time() - start < 5.0
    assert [f.line for f in found] == [180_001]


def test_the_demo_team_memory_holds_findable_secrets(tmp_path: Path) -> None:
    """The demo's fake secrets are what the scanner finds in its team memory, and only there."""
    home = build_demo_home(tmp_path / "demo")
    found = {}
    for path in sorted(home.root.rglob("*.md")):
        if ".git" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        hits = find_secrets(text, path=path.name)
        if hits:
            found[path.relative_to(home.root).as_posix()] = sorted(f.rule for f in hits)
    assert found, "the demo should ship secrets to find"
    assert all("/team/" in rel for rel in found), found
    rules = {rule for found_rules in found.values() for rule in found_rules}
    assert rules == {"aws-access-token", "github-pat"}
    assert FAKE_GITHUB_PAT not in repr(find_secrets(FAKE_GITHUB_PAT))
