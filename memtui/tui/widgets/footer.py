"""The footer: Textual's, but in a small terminal (compact) the help and quit keys come first,
so the keys a narrow footer cuts off at its right end are never those two."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST_KEYS = ("question_mark", "q")


class KeyFooter(Footer):
    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        if self.compact:
            first = [w for w in widgets if isinstance(w, FooterKey) and w.key in FIRST_KEYS]
            first.sort(key=lambda w: FIRST_KEYS.index(w.key))
            widgets = first + [w for w in widgets if w not in first]
        yield from widgets

    def watch_compact(self, compact: bool) -> None:
        """Lay the keys out again in their order for the new width."""
        if self.is_mounted:
            self.refresh(recompose=True)
