"""A Claude Code version and the versions memtui's rules change at
([the rule](../../docs/claude-code-rules.md#the-claude-code-version)): the model the scan
result carries; finding the user's version is :mod:`memtui.core.stores.cc_version`'s job."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    import re

Version = tuple[int, int, int]
NEWEST_KNOWN: Version = (2, 1, 240)
"""The newest Claude Code version whose rules memtui implements (its CHANGELOG was read up to
it): an unknown or newer version gets these."""


@cache
def _version_pattern() -> re.Pattern[str]:
    """Compiled when a version is first read (not on a run that reads none)."""
    import re

    return re.compile(r"(\d{1,4})\.(\d{1,4})\.(\d{1,6})")


# The versions the rules memtui follows changed at (docs/claude-code-rules.md).
MODIFIED_TIMESTAMPS: Version = (2, 1, 75)
INDEX_BYTE_CAP: Version = (2, 1, 83)
SAFE_MODE: Version = (2, 1, 169)
PROJECT_DIR_NAME: Version = (2, 1, 234)
PROJECT_MEMORY_DIRECTORY: Version = (2, 1, 89)
"""``autoMemoryDirectory`` from project settings, for a trusted workspace: 2.1.88's code
ignores it, the memory docs now take it from every scope; the first version that does is not
in the CHANGELOG, so memtui takes it from every version after 2.1.88."""


def parse_version(text: str) -> Version | None:
    """``2.1.88`` (also inside ``2.1.88 (Claude Code)``) as a tuple, or None."""
    match = _version_pattern().search(text)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def version_text(version: Version) -> str:
    return ".".join(str(part) for part in version)


@dataclass(frozen=True)
class ClaudeCodeVersion:
    """The version whose rules apply, and how memtui knows it."""

    version: Version | None
    source: str
    """``--claude-code-version``, ``transcript <path>``, ``claude --version``, or ``unknown``."""

    @property
    def rules(self) -> Version:
        """The version whose rules memtui applies: the known one, capped at the newest memtui
        implements; the newest when unknown."""
        if self.version is None:
            return NEWEST_KNOWN
        return min(self.version, NEWEST_KNOWN)

    def at_least(self, version: Version) -> bool:
        return self.rules >= version

    def to_json(self) -> dict[str, str | None]:
        """``scan --json``'s ``claude_code_version``: the version found (None: unknown), the
        version whose rules memtui followed, and where it learnt the version."""
        return {
            "version": version_text(self.version) if self.version is not None else None,
            "rules": version_text(self.rules),
            "source": self.source,
        }

    def short(self) -> str:
        """The header's words: ``CC 2.1.88``, or ``CC ? (2.1.240 rules)`` when unknown."""
        rules = version_text(self.rules)
        if self.version is None:
            return f"CC version unknown ({rules} rules)"
        known = version_text(self.version)
        return f"CC {known}" if known == rules else f"CC {known} ({rules} rules)"

    def describe(self) -> str:
        rules = version_text(self.rules)
        if self.version is None:
            return f"Claude Code version unknown: following {rules}'s rules"
        known = version_text(self.version)
        newer = ("" if self.version <= NEWEST_KNOWN
                 else f" (newer than memtui knows: {rules}'s rules)")
        return f"Claude Code {known} ({self.source}){newer}"
