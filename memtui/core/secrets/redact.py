"""The one redaction every text that leaves the machine goes through.

:func:`redact` replaces each secret :func:`~memtui.core.secrets.scanner.find_secrets` finds with
``[REDACTED:<rule-id>]`` and returns the findings with it; overlapping findings of two rules are
replaced once, by the one that starts first. A feature that builds a request body (the judge,
recall) takes :class:`Redacted` values only: the type says the text went through here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memtui.core.secrets.scanner import SecretFinding, find_secrets


@dataclass(frozen=True)
class Redacted:
    """A text with every secret replaced, and what was replaced (masked)."""

    text: str
    findings: tuple[SecretFinding, ...]


def placeholder(rule: str) -> str:
    return f"[REDACTED:{rule}]"


def redact(text: str, *, path: str = "") -> Redacted:
    findings = find_secrets(text, path=path)
    return Redacted(_replaced(text, findings, lambda f: placeholder(f.rule)), tuple(findings))


def masked_text(text: str, *, path: str = "") -> str:
    """``text`` with each secret shown as its mask (``ghp_…9abc``): what a preview of a file
    shows (a diff, a detail pane), never the secret itself."""
    return _replaced(text, find_secrets(text, path=path), lambda f: f.masked)


def _replaced(
    text: str, findings: list[SecretFinding], by: Callable[[SecretFinding], str]
) -> str:
    pieces: list[str] = []
    position = 0
    for finding in findings:
        if finding.start < position:  # inside one already replaced
            continue
        pieces.append(text[position : finding.start])
        pieces.append(by(finding))
        position = finding.end
    pieces.append(text[position:])
    return "".join(pieces)
