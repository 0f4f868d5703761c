"""Regexes compiled on first use: a module that is imported on every run but matches only on
some pays for its patterns only when it needs them."""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any


class LazyPattern:
    """Stands in for ``re.compile(translate(source), flags)`` until first used."""

    def __init__(
        self, source: str, flags: int = 0, translate: Callable[[str], str] | None = None
    ) -> None:
        self._source = source
        self._flags = flags
        self._translate = translate
        self._pattern: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._pattern is None:
            source = self._translate(self._source) if self._translate else self._source
            self._pattern = re.compile(source, self._flags)
        value = getattr(self._pattern, name)
        setattr(self, name, value)  # later lookups find it without __getattr__
        return value


def lazy_re(
    source: str, flags: int = 0, translate: Callable[[str], str] | None = None
) -> re.Pattern[str]:
    """A pattern compiled the first time one of its methods is looked up."""
    return LazyPattern(source, flags, translate)  # type: ignore[return-value]
