"""The shortcuts the secret scan takes on a cold start (issue 25, item 1): a rule's pattern is
compiled only when a text holds its keywords, a long text's keywords are looked for once per
distinct line, and ``scan --json`` renders a piece without gathering its strings when its JSON
text holds no keyword. Each gives what the long way gives."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO
from samples import SAMPLES, Sample

from memtui.core.plaintext import json_safe
from memtui.core.scan.json_text import dumps
from memtui.core.secrets.mask import KEYWORDS, mask_data
from memtui.core.secrets.rules import RULES_FILE, parse_rules, read_rules_toml
from memtui.core.secrets.scanner import DEDUPE_FROM, _Keywords, find_secrets

RULES_TEXT = (Path(__file__).resolve().parents[3] / "memtui" / "core" / "secrets"
              / RULES_FILE).read_text(encoding="utf-8")


def test_a_text_without_keywords_compiles_no_rule() -> None:
    rules = parse_rules(RULES_TEXT)
    assert find_secrets("nothing to see\nhere at all\n", rules=rules) == []
    assert not [r.id for r in rules if "pattern" in vars(r) or "allowlists" in vars(r)]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.rule)
def test_only_the_rules_a_text_names_are_compiled_and_they_find(sample: Sample) -> None:
    rules = parse_rules(RULES_TEXT)
    found = find_secrets(f"intro\n{sample.line}\n", rules=rules)
    assert sample.rule in {f.rule for f in found}
    lowered = sample.line.lower()
    compiled = {r.id for r in rules if "pattern" in vars(r)}
    named = {r.id for r in rules if any(k in lowered for k in r.keywords)}
    assert compiled <= named | {"private-key"} and sample.rule in compiled | {"private-key"}


def test_candidates_are_the_rules_whose_keywords_occur_in_rule_order() -> None:
    rules = parse_rules(RULES_TEXT)
    keywords = _Keywords(rules)
    for sample in SAMPLES:
        lowered = sample.line.lower()
        expected = [r for r in rules if not r.keywords or any(k in lowered for k in r.keywords)]
        assert keywords.candidates(lowered) == expected


@pytest.mark.parametrize("sample", SAMPLES[:6], ids=lambda s: s.rule)
def test_a_long_repetitive_text_finds_its_secret_on_its_line(sample: Sample) -> None:
    filler = "10.0.0.7 - - [20/Nov/2026:10:00:00 +0000] \"GET /api/cart HTTP/1.1\" 200 512\n"
    repeats = DEDUPE_FROM // len(filler) + 10
    text = filler * repeats + sample.line + "\n" + filler * repeats
    assert len(text) > DEDUPE_FROM
    alone = [(f.rule, f.masked) for f in find_secrets(sample.line)]
    found = [f for f in find_secrets(text) if f.line == repeats + 1]
    assert [(f.rule, f.masked) for f in found] == alone and sample.rule in {r for r, _ in alone}
    assert all(f.line == repeats + 1 for f in find_secrets(text))


def test_a_long_text_is_lowered_once_per_distinct_line() -> None:
    """The keywords of a long text are looked for in its distinct lines, lowered after
    deduplicating: the same keywords as in the whole text lowered (upper-case keywords, Greek
    final sigma at line ends, lines equal only once lowered)."""
    keywords = _Keywords(parse_rules(RULES_TEXT))
    rng = random.Random(5)
    pieces = [*(k.upper() for k in KEYWORDS), *KEYWORDS, "ΣΑΣ", "Σ", "İ", " ", "x", "\n"]
    for _ in range(30):
        unit = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))) + "\n"
        text = unit * (DEDUPE_FROM // len(unit) + 2) + unit.upper() + unit.lower()
        assert len(text) >= DEDUPE_FROM
        lowered = keywords.keyword_text(text)
        assert len(lowered) < len(text)  # deduplicated
        assert keywords.present(lowered) == keywords.present(text.lower())
        assert set(lowered.split("\n")) == set(text.lower().split("\n"))
    short = "AKIA x\nAKIA x\n"
    assert keywords.keyword_text(short) == short.lower()  # a short text: lowered whole


def test_no_keyword_holds_a_character_json_escapes() -> None:
    """What ``dumps``' shortcut rests on: a string's keyword is in its JSON text as it is."""
    for keyword in KEYWORDS:
        assert json.dumps(keyword, ensure_ascii=False) == f'"{keyword}"'
        assert "\n" not in keyword


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.rule)
def test_dumps_is_masking_then_json(sample: Sample) -> None:
    values = [
        {"name": sample.secret, "description": "ordinary", "size": 3, "mtime": 1.5},
        [{"path": f"{sample.secret}.md", "secrets": [{"rule": sample.rule, "line": 1}]}],
        {sample.line: None, "lines": ["a", "b\n", "\x1b[2J", "\u202e"]},
        {"plain": ["the task on disk", "café", "\x7f"], "n": [1, 2.25, None, True]},
    ]
    for value in values:
        assert dumps(value) == json_safe(json.dumps(mask_data(value), ensure_ascii=False))


def test_the_rules_file_is_read_as_tomllib_reads_it_without_loading_tomllib() -> None:
    import tomllib

    assert read_rules_toml(RULES_TEXT) == tomllib.loads(RULES_TEXT)
    script = ("import sys\nfrom memtui.core.secrets.scanner import find_secrets\n"
              f"assert find_secrets({SAMPLES[0].line!r})\n"
              "print(sorted({'tomllib', 'importlib.resources'} & set(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("text", [
    '[[rules]]\nid = "a\\\\b"\nregex = "x"\n',  # an escape in a basic string
    "[[rules]]\nid = 'x'\nregex = '''a''''\n",  # a quote right before the closing quotes
    "[[rules]]\nid = 'x'\nregex = 'y'\nkeywords = [\n  '''k''',\n]\n",  # a multi-line array
    "[[rules]]\nid = 'x' # a comment\nregex = 'y'\n",
])
def test_any_other_shape_is_left_to_tomllib(text: str) -> None:
    import tomllib

    assert read_rules_toml(text) is None
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        with pytest.raises(tomllib.TOMLDecodeError):
            parse_rules(text)
        return
    assert [r.source for r in parse_rules(text)] == [r["regex"] for r in expected["rules"]]
