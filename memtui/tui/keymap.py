"""The binding ids a user keymap (``[keymap]`` of memtui's config) may name.

Every ``Binding(..., id="pane.zoom")`` of memtui's app, screens and widgets is found by
importing the modules of ``memtui.tui`` and reading their classes' ``BINDINGS``; a keymap
entry naming any other id does nothing in Textual, so it is reported with the ids like it.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Iterable, Mapping

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

import memtui.tui


class KeymapApp(App[None]):
    """An app that keeps the keymap it gave Textual (``set_keymap``/``update_keymap``) in a
    public attribute, :attr:`keymap`: Textual keeps its own privately, and the help, the
    footer's width and the palette show the keys the keymap gives a binding."""

    def __init__(self) -> None:
        super().__init__()
        self.keymap: dict[str, str] = {}
        """Binding id → its keys (``"pane.zoom": "Z"``), as set; empty: every default."""

    def set_keymap(self, keymap: Mapping[str, str]) -> None:
        self.keymap = dict(keymap)
        super().set_keymap(dict(keymap))

    def update_keymap(self, keymap: Mapping[str, str]) -> None:
        self.keymap = {**self.keymap, **keymap}
        super().update_keymap(dict(keymap))


def binding_classes() -> list[type[DOMNode]]:
    """memtui's app, screens and widgets that declare ``BINDINGS`` of their own."""
    found: list[type[DOMNode]] = []
    for info in pkgutil.walk_packages(memtui.tui.__path__, memtui.tui.__name__ + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, DOMNode)
                and value.__module__ == module.__name__
                and "BINDINGS" in vars(value)
            ):
                found.append(value)
    return found


def binding_ids_of(cls: type[DOMNode]) -> list[str]:
    """The ids of the bindings ``cls`` declares itself, in order (repeats kept)."""
    return [
        binding.id
        for binding in vars(cls)["BINDINGS"]
        if isinstance(binding, Binding) and binding.id is not None
    ]


def default_keys() -> dict[str, str]:
    """Every binding id of memtui, sorted, with its keys before any keymap (``"z"``)."""
    keys: dict[str, str] = {}
    for cls in binding_classes():
        for binding in vars(cls)["BINDINGS"]:
            if isinstance(binding, Binding) and binding.id is not None:
                keys.setdefault(binding.id, binding.key)
    return dict(sorted(keys.items()))


def known_binding_ids() -> set[str]:
    return set(default_keys())


def unknown_binding_ids(keymap: Iterable[str], known: set[str] | None = None) -> list[str]:
    """One message for each id of ``keymap`` no binding has, with the ids most like it."""
    known = known_binding_ids() if known is None else known
    messages = []
    for binding_id in keymap:
        if binding_id in known:
            continue
        close = difflib.get_close_matches(binding_id, sorted(known), n=3, cutoff=0.5)
        section = binding_id.partition(".")[0]
        close += [k for k in sorted(known) if k.startswith(section + ".") and k not in close]
        hint = f"; did you mean {', '.join(close[:5])}?" if close else ""
        messages.append(f"keymap: no binding has the id {binding_id!r}{hint} "
                        "(memtui config lists the ids)")
    return messages


def own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings memtui itself declares on ``node``'s class and its memtui bases (the
    screen's and its dialog base's, not Textual's own), base classes first, in order."""
    found: list[Binding] = []
    for cls in reversed(type(node).__mro__):
        if cls.__module__.startswith("memtui.") and "BINDINGS" in vars(cls):
            found += [b for b in vars(cls)["BINDINGS"] if isinstance(b, Binding)]
    return found


def keys_of(node: DOMNode, binding: Binding) -> list[str]:
    """The keys that run ``binding`` now: the user keymap's when it names the binding's id,
    else the binding's own (``"left,h"`` → ``["left", "h"]``)."""
    app = node.app
    keymap: Mapping[str, str] = app.keymap if isinstance(app, KeymapApp) else {}
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [key.strip() for key in keys.split(",") if key.strip()]


def key_display(node: DOMNode, binding: Binding) -> str:
    """The keys of ``binding`` as the footer shows them (``← h``, ``?``, ``^r``)."""
    return " ".join(
        node.app.get_key_display(binding.with_key(key, key_display=None))
        for key in keys_of(node, binding)
    )


def meaning(binding: Binding) -> str:
    """What a binding does, in words: its ``tooltip`` (the long description memtui gives a
    binding whose short label is not enough), else its label."""
    return binding.tooltip or binding.description
