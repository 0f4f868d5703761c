"""The footer: Textual's, but in a small terminal (compact) the help and quit keys come first,
and only the keys that fit whole are shown (the help, ``?``, lists every key): a narrow footer
never ends in a cut key ("… d De"), and never loses help and quit.

It is laid out again only when what it shows changes: Textual's footer recomposes (new
widgets, styled anew) on every focus move and every binding refresh, even when the keys are
the same, and that was most of the time a move from pane to pane took. When only keys' enabled
state changes (the conflicts screen's decisions while a row is a group, or while it pairs), the
key widgets on show are updated in place (``-disabled``): a recompose took about 57 ms."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from memtui.tui.keymap import key_display, own_bindings

FIRST_KEYS = ("question_mark", "q")
PALETTE_CELLS = 12
"""The command palette's key at the right end (``▏^p palette`` and its padding)."""
LEFT_OUT_FIRST = ("zoom", "snapshot_review", "projects", "judge", "distil", "search")
"""The actions a compact footer leaves out first when its keys do not all fit (then the
rightmost others; never help and quit)."""


def compact_cells(key: FooterKey) -> int:
    """The columns a compact key takes: its key, a space, its label (keys are one column
    apart)."""
    return len(key.key_display) + 1 + len(key.description)


def fitting(widgets: list[Widget], width: int) -> list[Widget]:
    """``widgets`` without the keys that do not fit in ``width`` columns: those of
    :data:`LEFT_OUT_FIRST` first, then the rightmost; help and quit stay."""
    keys = [w for w in widgets if isinstance(w, FooterKey)]

    def cells() -> int:
        return sum(compact_cells(k) for k in keys) + max(0, len(keys) - 1)

    while keys and cells() > width:
        optional = [k for k in keys if k.key not in FIRST_KEYS]
        if not optional:
            break
        named = [k for k in optional if k.action in LEFT_OUT_FIRST]
        named.sort(key=lambda k: LEFT_OUT_FIRST.index(k.action))
        keys.remove(named[0] if named else optional[-1])
    kept = set(map(id, keys))
    return [w for w in widgets if not isinstance(w, FooterKey) or id(w) in kept]


class KeyFooter(Footer):
    fit_width: int | None = None
    """The width :meth:`fit` was given (None: not fitted yet: every key is shown)."""
    composed_for: Hashable = None
    """The :meth:`layout_key` the keys on show were composed for."""

    def layout_key(self) -> Hashable:
        """What the composed keys depend on: the active bindings with their state, and the
        footer's own settings. None before the screen's bindings are ready."""
        if not self._bindings_ready:
            return None
        shown = tuple(
            (key, binding, enabled, tooltip)
            for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == self.app.COMMAND_PALETTE_BINDING
        )
        return (shown, self.compact, self.show_command_palette, self.fit_width)

    async def recompose(self) -> None:
        """Compose the keys again, unless they would come out as they are, or differ from
        them only in which keys are enabled (:meth:`enable_in_place`)."""
        if not self.is_attached:
            return
        key = self.layout_key()
        if key is not None and key == self.composed_for:
            return
        if key is not None and self.enable_in_place(key):
            self.composed_for = key
            return
        self.composed_for = key
        await super().recompose()

    def enable_in_place(self, key: Hashable) -> bool:
        """When ``key`` (a :meth:`layout_key`) differs from the composed one in the keys'
        enabled state alone, give the key widgets on show their new state, as composing them
        anew would (``-disabled``, and what a click does); True: done, nothing to compose."""
        if not isinstance(key, tuple) or not isinstance(self.composed_for, tuple):
            return False
        shown, *settings = key
        composed, *composed_settings = self.composed_for
        if settings != composed_settings or len(shown) != len(composed):
            return False
        if any((k, b, t) != (ck, cb, ct)
               for (k, b, _e, t), (ck, cb, _ce, ct) in zip(shown, composed, strict=True)):
            return False
        enabled = {k: e for k, _b, e, _t in shown}
        for widget in self.query(FooterKey):
            if widget.key not in enabled:
                return False  # not composed from these bindings: compose anew
        for widget in self.query(FooterKey):
            disabled = not enabled[widget.key]
            if widget._disabled != disabled:
                widget._disabled = disabled
                widget.set_class(disabled, "-disabled")
        return True

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        if self.compact:
            first = [w for w in widgets if isinstance(w, FooterKey) and w.key in FIRST_KEYS]
            first.sort(key=lambda w: FIRST_KEYS.index(w.key))
            widgets = first + [w for w in widgets if w not in first]
            if self.fit_width is not None:
                widgets = fitting(widgets, self.fit_width)
        yield from widgets

    def watch_compact(self, compact: bool) -> None:
        """Lay the keys out again in their order for the new width."""
        if self.is_mounted:
            self.refresh(recompose=True)

    def natural_width(self) -> int:
        """The columns the keys need laid out in full (`` key label `` each, one per action),
        the palette's key included: from the bindings the app and the screen declare with
        ``show``, not from the active ones (those depend on focus and timing, and the footer
        must not come out compact or not by chance). Keys a node says are never shown
        together (``FOOTER_EITHER``: sets of actions, one set at a time) count as the widest
        set."""
        actions: dict[str, int] = {}
        for node in (self.app, self.screen):
            for binding in own_bindings(node):
                if binding.show and binding.action not in actions:
                    actions[binding.action] = (len(key_display(node, binding))
                                               + len(binding.description) + 3)
        cells = PALETTE_CELLS + sum(actions.values())
        for node in (self.app, self.screen):  # keys never shown together: the widest set
            for either in getattr(node, "FOOTER_EITHER", ()):
                widths = [sum(actions.get(a, 0) for a in keys) for keys in either]
                cells -= sum(widths) - max(widths, default=0)
        return cells

    def fit(self, width: int, compact_below: int) -> None:
        """Compact (``?`` and ``q`` first, no ``^p``) under ``compact_below`` columns, and
        wherever the keys laid out in full would not fit: a key added to a screen never pushes
        help and quit off its right end."""
        compact = width < compact_below or width < self.natural_width()
        resized = width != self.fit_width
        self.fit_width = width
        if compact and self.compact and resized and self.is_mounted:
            self.refresh(recompose=True)  # the keys that fit the new width
        self.compact = compact
        self.show_command_palette = not compact
