"""The one masking of output (issue 25, item 5): every rule's secret masked wherever an output
puts it (a line, a file name, a path, a markdown link, a JSON value or key), and the prefilter
that skips the rules on text holding none of their keywords."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import SAMPLES, Sample

from memtui.core.secrets.mask import (
    BY_PATTERN,
    KEYWORDS,
    mask_data,
    mask_secrets,
    may_hold_secret,
    output_findings,
)
from memtui.core.secrets.outbound import outbound
from memtui.core.secrets.rules import load_rules

PLACES = {
    "line": "{line}",
    "file name": "{secret}.md",
    "path": "/home/u/.claude/projects/-p/memory/{secret}/notes.md",
    "index line": "- [Deploy]({secret}.md) — how to deploy\n",
    "allowed line": "{line} gitleaks:allow",
    "frontmatter": "---\nname: {secret}\ndescription: [{secret}]\n---\n",
}


def test_the_keywords_are_the_rules() -> None:
    rules = load_rules()
    assert sorted(KEYWORDS) == sorted({k for rule in rules for k in rule.keywords})
    for keyword, pattern in BY_PATTERN.items():
        (rule,) = [r for r in rules if keyword in r.keywords]
        assert rule.keywords == (keyword,) and rule.source == pattern


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.rule)
@pytest.mark.parametrize("place", sorted(PLACES))
def test_every_rule_is_masked_wherever_output_puts_it(sample: Sample, place: str) -> None:
    text = PLACES[place].format(line=sample.line, secret=sample.secret)
    assert may_hold_secret(text)
    shown = mask_secrets(text)
    assert sample.secret not in shown, shown
    assert {f.rule for f in output_findings(text)} >= {sample.rule}
    sent = outbound(text).text
    assert sample.secret not in sent or place == "allowed line"
    assert f"[REDACTED:{sample.rule}]" in sent or place == "allowed line"


def test_a_masked_text_keeps_its_lines_and_the_rest() -> None:
    key = next(s for s in SAMPLES if s.rule == "private-key").secret
    pat = next(s for s in SAMPLES if s.rule == "github-pat").secret
    text = f"a\n{key}\nb {pat}.md c\n"
    shown = mask_secrets(text)
    assert shown.count("\n") == text.count("\n")
    assert shown.startswith("a\n-----BEGIN") and shown.endswith(f" {pat[:4]}…{pat[-4:]}.md c\n")


def test_ordinary_text_skips_the_rules() -> None:
    for text in ("the task on disk", "/home/u/.claude/projects/-home-u-proj/memory/MEMORY.md",
                 "user_prefers_tabs_over_spaces.md", ""):
        assert not may_hold_secret(text)
        assert mask_secrets(text) is text


def test_mask_data_masks_every_string_keys_too() -> None:
    pat = next(s for s in SAMPLES if s.rule == "github-pat").secret
    data = {"path": f"{pat}.md", "n": 3, "list": [None, True, {pat: [f"x {pat}"]}], "t": (pat,)}
    shown = mask_data(data)
    assert pat not in repr(shown)
    assert shown["n"] == 3 and shown["list"][:2] == [None, True]
    clean = {"path": "notes.md", "list": [1, "task"]}
    assert mask_data(clean) is clean


BEFORE = (" ", "\n", "(", "[", "/", '"', "`", ": ")
AFTER = (" ", "\n", ".md\n", ".md)", ".md ", ")", "/", "]", '"', ". ", ",")


@settings(max_examples=150, deadline=None)
@given(left=st.text(max_size=40), right=st.text(max_size=40),
       sample=st.sampled_from(SAMPLES), before=st.sampled_from(BEFORE),
       after=st.sampled_from(AFTER))
def test_a_secret_between_any_texts_is_masked(
    left: str, right: str, sample: Sample, before: str, after: str
) -> None:
    """Hostile text on either side (any characters, control ones too) never unmasks a
    secret that a separator keeps apart from it, and masking only ever shortens a text."""
    text = left + before + sample.secret + after + right
    shown = mask_secrets(text)
    assert sample.secret not in shown
    assert len(shown) <= len(text) and mask_secrets(shown) == shown


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200))
def test_text_without_a_secret_is_never_changed(text: str) -> None:
    assert mask_secrets(text) == text or output_findings(text)
    assert mask_data({"k": [text]}) == {"k": [mask_secrets(text)]}
