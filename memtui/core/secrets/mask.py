"""The one masking of what memtui shows: every secret in an output shown as its mask.

Names, descriptions, paths, index lines and bodies come from disk and may hold a secret (a
token Claude Code wrote into a memory, a file named after one). Every line the CLI prints goes
through :func:`mask_secrets`, every JSON document it prints (and every piece ``scan --json``
renders or caches) through :func:`mask_data`: each secret is shown as its mask
(``ghp_…9abc``, :func:`memtui.core.secrets.scanner.mask`), never itself.

What is masked is what :func:`~memtui.core.secrets.scanner.find_secrets` finds (the rules CC's
team push uses), found as an output needs it (:func:`output_findings`):

- ``gitleaks:allow`` allows nothing here: one line of output joins the values of many files;
- most rules want whitespace, a quote or ``;`` after a secret, and a file name puts ``.md``
  after it, a path ``/``, a markdown link ``)``: the text is searched a second time with such
  punctuation read as spaces (one character for one, so every span stays the same; a dot only
  where it starts a file's suffix or ends a sentence, as some secrets hold dots), and the two
  searches' findings are joined (overlapping spans merged).

Text holding none of the rules' keywords is returned at once, without loading the rules
(:func:`may_hold_secret`): a warm ``scan --json`` compiles no rule.
"""

from __future__ import annotations

import re
from functools import cache

from memtui.core.secrets.keywords import WordFinder, compiled

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from memtui.core.secrets.scanner import SecretFinding

    T = TypeVar("T")

KEYWORDS = (
    "-----begin", "a3t", "abia", "acca", "aiza", "akia", "asia", "atlasv1", "dapi", "doo_v1_",
    "dop_v1_", "eyjrijoi", "gho_", "ghp_", "ghr_", "ghs_", "ghu_", "github_pat_", "glc_",
    "gldt-", "glpat-", "glsa_", "hf_", "npm_", "pmak-", "pul-", "pypi-ageichlwas5vcmc", "q~",
    "rk_live", "rk_prod", "rk_test", "sg.", "shpat_", "shpss_", "sk", "sk-ant-admin01",
    "sk-ant-api03", "sk_live", "sk_prod", "sk_test", "sntrys_eyjpyxqio", "sntryu_", "t3blbkfj",
    "xapp", "xoxb", "xoxe-", "xoxp-",
)
"""Every keyword of the rules (``rules.toml``; ``tests/core/secrets/test_mask.py`` checks
that they are the same): a text holding none of them holds no secret the rules find."""

BY_PATTERN = {"sk": "SK[0-9a-fA-F]{32}"}
"""Keywords that ordinary words hold (``sk``: task, disk, ask), looked for by their rule's
whole pattern instead (the test checks it is the rule's)."""

PUNCTUATION = "/\\()[]<>{}|#,:!?*&@%^"
"""What a path or a line of markdown may put right after a secret, read as a space by the
second search (and a dot: :data:`SUFFIX_DOT`)."""
_AS_SPACES = str.maketrans(dict.fromkeys(PUNCTUATION, " "))
SUFFIX_DOT = r"\.(?=[A-Za-z0-9]{0,8}(?:[^A-Za-z0-9_\-]|\Z))"
"""A dot followed by at most 8 letters or digits and then no more of a token (``.md``, a
sentence's end): never one of the dots inside a secret (``SG.…``) but by chance."""


@cache
def _suffix_dot() -> re.Pattern[str]:
    return re.compile(SUFFIX_DOT)


_PLAIN = tuple(sorted(set(k for k in KEYWORDS if k not in BY_PATTERN)))


def _literal_prefix(pattern: str) -> str:
    """The letters and digits a pattern starts with (``SK`` of ``SK[0-9a-fA-F]{32}``): text
    without them cannot match it."""
    end = 0
    while end < len(pattern) and pattern[end].isascii() and pattern[end].isalnum():
        end += 1
    return pattern[:end]


_BY_PATTERN_PREFIXES = tuple((_literal_prefix(p), p) for p in BY_PATTERN.values())


@cache
def _plain_finder() -> WordFinder:
    return WordFinder(_PLAIN)


def may_hold_secret(text: str) -> bool:
    """Whether ``text`` holds a keyword of the rules (else no rule can find a secret in it),
    looked for as the scanner does, in the lower-cased text, each where its rarest character
    occurs (:class:`~memtui.core.secrets.keywords.WordFinder`: on a store's JSON of 3,000
    memories half the time of looking for each keyword with ``in``). A keyword that ordinary
    words hold is looked for by its rule's pattern, compiled only for a text holding the
    letters the pattern starts with."""
    if _plain_finder().any_in(text.lower()):
        return True
    for prefix, pattern in _BY_PATTERN_PREFIXES:
        if prefix in text and compiled(pattern).search(text) is not None:
            return True
    return False


def output_findings(
    text: str, *, path: str = "", allow_signature: bool = False
) -> list[SecretFinding]:
    """Every secret of ``text`` as an output masks it (see the module's doc), in order, their
    spans never overlapping, each with its mask."""
    if not may_hold_secret(text):
        return []
    from dataclasses import replace

    from memtui.core.secrets.scanner import find_secrets, mask

    found = find_secrets(text, path=path, allow_signature=allow_signature)
    spaced = _suffix_dot().sub(" ", text.translate(_AS_SPACES))
    if spaced != text:
        found += find_secrets(spaced, path=path, allow_signature=allow_signature)
    found.sort(key=lambda f: (f.start, -f.end, f.rule))
    merged: list[SecretFinding] = []
    for finding in found:
        if merged and finding.start < merged[-1].end:
            if finding.end > merged[-1].end:
                merged[-1] = replace(merged[-1], end=finding.end)
            continue
        merged.append(finding)
    return [replace(f, masked=mask(text[f.start : f.end], f.rule)) for f in merged]


def replace_findings(text: str, findings: list[SecretFinding], by: str | None = None) -> str:
    """``text`` with each of ``findings`` (spans in order, not overlapping) replaced by its
    mask (a secret over several lines keeps them: line numbers stay), or by ``by`` with
    ``{rule}`` filled in."""
    pieces: list[str] = []
    position = 0
    for finding in findings:
        pieces.append(text[position : finding.start])
        if by is None:
            pieces.append(finding.masked + "\n" * text.count("\n", finding.start, finding.end))
        else:
            pieces.append(by.format(rule=finding.rule))
        position = finding.end
    pieces.append(text[position:])
    return "".join(pieces)


def mask_secrets(text: str) -> str:
    """``text`` with every secret shown as its mask: what any output of memtui shows."""
    findings = output_findings(text)
    return replace_findings(text, findings) if findings else text


def _unique_strings(value: Any, seen: dict[str, None]) -> dict[str, None]:
    """Every string of a JSON value (keys too), each once, in the order first met."""
    stack = [value]
    while stack:
        top = stack.pop()
        if isinstance(top, str):
            seen[top] = None
        elif isinstance(top, dict):
            for key, item in top.items():
                if isinstance(key, str):
                    seen[key] = None
                if not isinstance(item, (int, float, bool)) and item is not None:
                    stack.append(item)
        elif isinstance(top, (list, tuple)):
            stack.extend(top)
    return seen


def _masked(value: Any, masks: dict[str, str]) -> Any:
    if isinstance(value, str):
        return masks.get(value, value)
    if isinstance(value, dict):
        return {_masked(key, masks): _masked(item, masks) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(item, masks) for item in value]
    return value


def mask_data(value: T) -> T:
    """A JSON value (dicts, lists, strings, numbers) with every string in it, keys too, passed
    through :func:`mask_secrets`; the value itself when none holds a secret. Each distinct
    string is searched once, on its own (a judge's JSON names each memory in many pairs: 42 MB
    of strings, 5 MB of them distinct, on a home of 4,500 memories), and no text joining them
    is built."""
    masks: dict[str, str] = {}
    for text in _unique_strings(value, {}):
        findings = output_findings(text)
        if findings:
            masks[text] = replace_findings(text, findings)
    if not masks:
        return value
    masked: T = _masked(value, masks)
    return masked
