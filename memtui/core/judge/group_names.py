"""Names of a group (and a pair) that stay readable in a narrow list: the part every member's
file name shares is written once, the part that tells them apart is kept.

    feedback_testing-{postgres, postgres-2, policy}
    real-db / pg-in-tests / integration-db / … +2
    feature-flags ×2

Pure functions of the file names (no I/O): the CLI's text output and the TUI's conflicts
screen show them."""

from __future__ import annotations

from collections.abc import Sequence

from memtui.core.judge.items import CLAUDE_MD
from memtui.core.judge.verdicts import JudgeItem

NAME_WIDTH = 60
"""The default width of a name (characters)."""
SEPARATORS = "-_. /:"
"""Where a folded prefix may end: after one of these (so the parts kept are whole words)."""
MIN_PREFIX = 3
"""A shorter common prefix is not folded."""


def short_name(item: JudgeItem) -> str:
    """The file name without its folder and ``.md``; a CLAUDE.md rule is ``CLAUDE.md:LINE``."""
    name = item.rel_path.rsplit("/", 1)[-1]
    if item.kind == CLAUDE_MD:
        return f"{name}:{item.line}" if item.line else name
    return name[:-3] if name.lower().endswith(".md") and len(name) > 3 else name


def common_prefix(names: Sequence[str]) -> str:
    """The prefix every name shares, cut back to just after a separator (``-``, ``_``, ``.``,
    a space…) so no name is split inside a word; "" when shorter than :data:`MIN_PREFIX` or
    when it would leave a name empty."""
    if len(names) < 2:
        return ""
    prefix = _raw_prefix(names)
    cut = max(prefix.rfind(sep) for sep in SEPARATORS) + 1
    prefix = prefix[:cut]
    if len(prefix) < MIN_PREFIX or any(len(n) == len(prefix) for n in names):
        return ""
    return prefix


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def fold_names(names: Sequence[str], width: int = NAME_WIDTH) -> str:
    """``names`` as one readable name of at most ``width`` characters (see the module's
    doc): a name repeated is ``name ×N``; a shared prefix is written once and the
    distinct parts are listed in braces (``feedback_testing-{policy, postgres}``; when they
    do not all fit, the whole shared prefix and the rest tight, as a shell's brace expansion
    writes them: ``feedback_testing-postgres{,-2,-3}``); else the names joined by `` / ``.
    Parts that do not fit are counted (``… +3``)."""
    unique = list(dict.fromkeys(names))
    if not unique:
        return ""
    if len(unique) == 1:
        counted = _times(len(names))
        return _cut(unique[0], width - len(counted)) + counted
    prefix = common_prefix(unique)
    folded = _folded(unique, prefix, width, {n: names.count(n) for n in unique})
    if "… +" in folded:  # brace expansion on the whole shared prefix may show them all
        whole = _raw_prefix(unique)
        if len(whole) > len(prefix):
            tight = whole + "{" + ",".join(n[len(whole):] for n in unique) + "}"
            if len(tight) <= width:
                return tight
    return folded


def _raw_prefix(names: Sequence[str]) -> str:
    first, last = min(names), max(names)
    size = next((i for i, (x, y) in enumerate(zip(first, last, strict=False)) if x != y),
                min(len(first), len(last)))
    return first[:size]


def _times(count: int) -> str:
    return f" ×{count}" if count > 1 else ""


def _folded(unique: list[str], prefix: str, width: int, times: dict[str, int]) -> str:
    parts = [n[len(prefix):] + _times(times[n]) for n in unique]
    opening, joiner, closing = (prefix + "{", ", ", "}") if prefix else ("", " / ", "")
    if len(opening) + 8 > width:  # a huge prefix: cut it, keep room for the parts
        opening = _cut(prefix, width // 2) + "{"
    shown: list[str] = []
    for index, part in enumerate(parts):
        left = len(parts) - index - 1
        more = f"{joiner}… +{left}" if left else ""
        text = opening + joiner.join([*shown, part]) + more + closing
        if len(text) > width and shown:
            rest = len(parts) - len(shown)
            return opening + joiner.join(shown) + f"{joiner}… +{rest}" + closing
        if len(text) > width:  # not even the first part fits: cut it
            room = width - len(opening) - len(more) - len(closing)
            return opening + _cut(part, max(1, room)) + more + closing
        shown.append(part)
    return opening + joiner.join(shown) + closing


def group_name(members: Sequence[JudgeItem], width: int = NAME_WIDTH) -> str:
    """A group's readable name: its members' file names folded (:func:`fold_names`)."""
    return fold_names([short_name(m) for m in members], width)


def file_name(item: JudgeItem) -> str:
    """The file name without its folder (a CLAUDE.md rule with ``:LINE``)."""
    name = item.rel_path.rsplit("/", 1)[-1]
    return f"{name}:{item.line}" if item.kind == CLAUDE_MD and item.line else name


def pair_name(a: JudgeItem, b: JudgeItem, width: int = NAME_WIDTH) -> str:
    """A pair's two names: ``real-db.md ↔ pg-in-tests.md`` when both fit ``width``; else
    without ``.md`` and the shared prefix written once, ``feedback_testing-{policy ↔
    policy-2}``; else each cut to half the width."""
    whole = f"{file_name(a)} ↔ {file_name(b)}"
    if len(whole) <= width:
        return whole
    left, right = short_name(a), short_name(b)
    if left == right:
        return _cut(f"{left} ↔ {right}", width)
    prefix = common_prefix([left, right])
    if prefix:
        text = f"{prefix}{{{left[len(prefix):]} ↔ {right[len(prefix):]}}}"
        if len(text) <= width:
            return text
    half = max(4, (width - 3) // 2)
    return f"{_cut(left, half)} ↔ {_cut(right, half)}"
