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
    return Redacted(_replaced(text, findings, lambda f: placeholder(f.rule))[0], tuple(findings))


def masked_text(text: str, *, path: str = "") -> str:
    """``text`` with each secret shown as its mask (``ghp_…9abc``): what a preview of a file
    shows (a diff, a detail pane), never the secret itself. The secrets every output masks
    (:func:`memtui.core.secrets.mask.output_findings`: one before ``.md`` in an index line
    too, ``gitleaks:allow`` unmasking nothing)."""
    from memtui.core.secrets.mask import output_findings, replace_findings

    findings = output_findings(text, path=path)
    return replace_findings(text, findings) if findings else text


def _masker(text: str) -> Callable[[SecretFinding], str]:
    """A finding's mask, followed by as many newlines as the secret spans (a private key's
    block): the masked text keeps the file's line numbers."""
    return lambda f: f.masked + "\n" * text.count("\n", f.start, f.end)


PREVIEW_CHARS = 60
"""Characters of a masked line kept on each side of the secret's mask in a preview."""


@dataclass(frozen=True)
class MaskedFile:
    """A file's text with every secret masked, and for each finding (in order) its line of
    that text: what a detail view shows."""

    text: str
    findings: tuple[SecretFinding, ...]
    lines: tuple[str, ...]


def masked_file(text: str, *, path: str = "") -> MaskedFile:
    """:func:`masked_text` with each finding's line as a preview (a long line cut to
    :data:`PREVIEW_CHARS` on each side of the mask, ``…`` where it was cut)."""
    findings = find_secrets(text, path=path)
    masked, starts = _replaced(text, findings, _masker(text))
    lines = []
    for finding, start in zip(findings, starts, strict=True):
        first = masked.rfind("\n", 0, start) + 1
        last = masked.find("\n", start)
        last = len(masked) if last < 0 else last
        end = start + len(finding.masked)
        left, right = max(first, start - PREVIEW_CHARS), min(last, end + PREVIEW_CHARS)
        preview = masked[left:right].rstrip("\r")
        lines.append(("…" if left > first else "") + preview + ("…" if right < last else ""))
    return MaskedFile(masked, tuple(findings), tuple(lines))


def _replaced(
    text: str, findings: list[SecretFinding], by: Callable[[SecretFinding], str]
) -> tuple[str, list[int]]:
    """``text`` with each finding replaced ``by`` its replacement, and where each finding's
    replacement starts in it (a finding inside one replaced already: that one's start)."""
    pieces: list[str] = []
    starts: list[int] = []
    position = out = last = 0
    for finding in findings:
        if finding.start < position:  # inside one already replaced
            starts.append(last)
            continue
        pieces.append(text[position : finding.start])
        out += finding.start - position
        last = out
        starts.append(out)
        replacement = by(finding)
        pieces.append(replacement)
        out += len(replacement)
        position = finding.end
    pieces.append(text[position:])
    return "".join(pieces), starts
