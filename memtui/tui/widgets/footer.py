"""The footer: Textual's, but in a small terminal (compact) the help and quit keys come first,
so the keys a narrow footer cuts off at its right end are never those two."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from memtui.tui.keymap import key_display, own_bindings

FIRST_KEYS = ("question_mark", "q")
PALETTE_CELLS = 12
"""The command palette's key at the right end (``▏^p palette`` and its padding)."""


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

    def natural_width(self) -> int:
        """The columns the keys need laid out in full (`` key label `` each, one per action),
        the palette's key included: from the bindings the app and the screen declare with
        ``show``, not from the active ones (those depend on focus and timing, and the footer
        must not come out compact or not by chance)."""
        actions: set[str] = set()
        cells = PALETTE_CELLS
        for node in (self.app, self.screen):
            for binding in own_bindings(node):
                if binding.show and binding.action not in actions:
                    actions.add(binding.action)
                    cells += len(key_display(node, binding)) + len(binding.description) + 3
        return cells

    def fit(self, width: int, compact_below: int) -> None:
        """Compact (``?`` and ``q`` first, no ``^p``) under ``compact_below`` columns, and
        wherever the keys laid out in full would not fit: a key added to a screen never pushes
        help and quit off its right end."""
        compact = width < compact_below or width < self.natural_width()
        self.compact = compact
        self.show_command_palette = not compact
