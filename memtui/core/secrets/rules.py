"""The secret rules (``rules.toml``, from gitleaks) compiled for Python's ``re``, each pattern
on its first use (a scan compiles only the rules whose keywords some memory holds).

gitleaks writes its patterns for Go's RE2; :func:`translate` turns one into a Python pattern
that matches the same text:

- a flag group in the middle of a pattern (``SG\\.(?i)[a-z]``), which Python refuses, becomes a
  scoped group running to the end of the enclosing group (``SG\\.(?i:[a-z]…)``);
- ``$`` and ``\\z`` (end of text in RE2 without the ``m`` flag) become ``\\Z`` (Python's ``$``
  also matches before a final newline);
- ``\\s`` becomes RE2's ASCII whitespace ``[\\t\\n\\f\\r ]`` (Python's has ``\\v`` too), and every
  pattern is compiled with ``re.ASCII`` so that ``\\w``, ``\\d`` and ``\\b`` are ASCII as in RE2.

``private-key`` is matched by :mod:`memtui.core.secrets.scanner` without its lazy
``[\\s\\S-]{64,}?`` (quadratic in Python's backtracking engine on a file of many headers and no
footer), with the same result.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cache, cached_property

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    AllowTarget: TypeAlias = Literal["secret", "match", "line"]

RULES_FILE = "rules.toml"


@dataclass(frozen=True)
class RuleAllowlist:
    """gitleaks' allowlist of one rule: a finding is allowed (not reported) when any regex
    matches its target (OR), or, with ``condition = "AND"``, when every kind of check given
    holds. ``paths`` match the file's path."""

    regexes: tuple[re.Pattern[str], ...] = ()
    paths: tuple[re.Pattern[str], ...] = ()
    stopwords: tuple[str, ...] = ()
    target: AllowTarget = "secret"
    condition: Literal["OR", "AND"] = "OR"


@dataclass(frozen=True)
class SecretRule:
    """One gitleaks rule, as memtui runs it."""

    id: str
    description: str
    source: str
    """The regex as gitleaks wrote it (RE2)."""
    keywords: tuple[str, ...]
    """Lower-cased; the rule runs only on text whose lower-cased form contains one."""
    entropy: float | None
    """Findings whose secret has a Shannon entropy at or below this are dropped."""
    allowlist_data: tuple[dict[str, Any], ...] = field(default=(), compare=False, hash=False)
    """The rule's allowlists as ``rules.toml`` gives them (compiled into :attr:`allowlists`)."""

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The regex translated for Python's ``re``, compiled when first looked at."""
        return compile_re2(self.source)

    @cached_property
    def allowlists(self) -> tuple[RuleAllowlist, ...]:
        return tuple(_allowlist(a) for a in self.allowlist_data)


def _scope_inline_flags(source: str) -> str:
    """``a(?i)b)`` → ``a(?i:b))``: a flag group after the start runs to the end of its group."""
    out: list[str] = []
    closers: list[int] = []  # per open group: how many scoped groups to close with it
    pending = 0  # scoped groups opened at the top level
    i, in_class = 0, False
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            out.append(source[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            if source.startswith("^]", i + 1) or source.startswith("]", i + 1):
                skip = 2 if source[i + 1] == "^" else 1
                out.append(source[i + 1 : i + 1 + skip])
                i += skip
            i += 1
            continue
        flag = re.match(r"\(\?([a-zA-Z]+)\)", source[i:])
        if flag and i > 0:
            out.append(f"(?{flag.group(1)}:")
            if closers:
                closers[-1] += 1
            else:
                pending += 1
            i += flag.end()
            continue
        if ch == "(":
            closers.append(0)
        elif ch == ")" and closers:
            out.append(")" * closers.pop())
        out.append(ch)
        i += 1
    return "".join(out) + ")" * pending


_RE2_WHITESPACE = "\\t\\n\\f\\r "


def _ascii_whitespace_and_ends(source: str) -> str:
    out: list[str] = []
    i, in_class = 0, False
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            pair = source[i : i + 2]
            if pair == "\\s":
                out.append(_RE2_WHITESPACE if in_class else f"[{_RE2_WHITESPACE}]")
            elif pair == "\\z":
                out.append("\\Z")
            else:
                out.append(pair)
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if source.startswith("^]", i + 1) or source.startswith("]", i + 1):
                skip = 2 if source[i + 1] == "^" else 1
                out.append(source[i : i + 1 + skip])
                i += 1 + skip
                continue
        elif ch == "$":
            out.append("\\Z")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def translate(source: str) -> str:
    """A gitleaks (RE2) pattern as a Python pattern with the same matches (with ``re.ASCII``)."""
    return _ascii_whitespace_and_ends(_scope_inline_flags(source))


def compile_re2(source: str) -> re.Pattern[str]:
    return re.compile(translate(source), re.ASCII)


def _allowlist(data: dict[str, Any]) -> RuleAllowlist:
    target = data.get("regexTarget", "secret")
    condition = str(data.get("condition", "OR")).upper()
    return RuleAllowlist(
        regexes=tuple(compile_re2(r) for r in data.get("regexes", [])),
        paths=tuple(compile_re2(p) for p in data.get("paths", [])),
        stopwords=tuple(w.lower() for w in data.get("stopwords", [])),
        target=target if target in ("secret", "match", "line") else "secret",
        condition="AND" if condition == "AND" else "OR",
    )


_TABLE = {"[[rules]]": False, "[[rules.allowlists]]": True}
_Q = "'" * 3  # a TOML literal string's quotes, as rules.toml writes its values
_KEY_VALUE = re.compile(r"([A-Za-z0-9_-]+) = (.+)")
_LITERAL = re.compile(f"{_Q}(.*?){_Q}")
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


def _value(text: str) -> Any:
    """A value as ``rules.toml`` writes them (one-line literal strings, quoted strings without
    escapes, numbers, one-line arrays of literal strings); None for anything else."""
    if text.startswith("["):
        items = _LITERAL.findall(text)
        return items if "[" + ", ".join(f"{_Q}{i}{_Q}" for i in items) + "]" == text else None
    if text.startswith(_Q):
        inner = text[3:-3]
        ok = len(text) >= 6 and text.endswith(_Q) and _Q not in inner
        return inner if ok and not inner.endswith("'") else None
    if text.startswith('"'):
        inner = text[1:-1]
        ok = len(text) >= 2 and text.endswith('"') and not set('"\\') & set(inner)
        return inner if ok else None
    number = _NUMBER.fullmatch(text)
    if number is not None:
        return float(text) if number.group(1) else int(text)
    return None


def read_rules_toml(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for the shapes ``rules.toml`` holds, without loading tomllib
    (it loads ``typing`` and ``datetime``: a tenth of a cold scan's imports); None for any
    line of another shape, which ``parse_rules`` then gives to tomllib."""
    rules: list[dict[str, Any]] = []
    table: dict[str, Any] | None = None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        nested = _TABLE.get(line)
        if nested is not None:
            if not nested:
                table = {}
                rules.append(table)
            elif rules:
                table = {}
                rules[-1].setdefault("allowlists", []).append(table)
            else:
                return None
            continue
        pair = _KEY_VALUE.fullmatch(line)
        if pair is None or table is None or pair.group(1) in table:
            return None
        value = _value(pair.group(2))
        if value is None:
            return None
        table[pair.group(1)] = value
    return {"rules": rules}


def parse_rules(text: str) -> tuple[SecretRule, ...]:
    data = read_rules_toml(text)
    if data is None:
        import tomllib

        data = tomllib.loads(text)
    return tuple(
        SecretRule(
            id=raw["id"],
            description=raw.get("description", ""),
            source=raw["regex"],
            keywords=tuple(k.lower() for k in raw.get("keywords", [])),
            entropy=float(raw["entropy"]) if "entropy" in raw else None,
            allowlist_data=tuple(raw.get("allowlists", [])),
        )
        for raw in data["rules"]
    )


@cache
def load_rules() -> tuple[SecretRule, ...]:
    """The packaged rules, read on first use (each pattern compiled on its first use). The
    file sits beside this module (read directly: ``importlib.resources`` costs a cold start
    more imports than the whole read)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), RULES_FILE)
    with open(path, encoding="utf-8") as handle:
        return parse_rules(handle.read())
