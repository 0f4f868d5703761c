"""The TUI's import rules, read from the source with ``ast`` (so imports under TYPE_CHECKING and
inside functions count too):

- nothing in ``memtui/tui`` imports ``memtui.tui.screens.main`` except ``memtui/tui/app.py``,
  the app's own wiring (it makes the main screen and hands it the app-level messages: an
  operation applied anywhere rescans it). Screens and dialogs get data and close with a result
  or post a message; they never hold the main screen.
- nothing in ``memtui/tui`` imports ``memtui.tui.app`` (the CLI does, to run it).
- a dialog imports no screen (``memtui.tui.screens``): dialogs are the leaves.

``memtui/tui/keymap.py`` imports every module by name at run time (``importlib``) to read their
``BINDINGS``: a registry walk, not a dependency, and not an import statement.
"""

from __future__ import annotations

import ast
from pathlib import Path

import memtui.tui

TUI = Path(memtui.tui.__file__).parent
MAIN_SCREEN = "memtui.tui.screens.main"
APP = "memtui.tui.app"
WIRING = {"memtui.tui.app", MAIN_SCREEN}
"""The modules that may import the main screen: the app, and the module itself."""


def module_name(path: Path) -> str:
    rel = path.relative_to(TUI.parent.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> set[str]:
    return imports_of(path.read_text(encoding="utf-8"), module_name(path),
                      is_package=path.name == "__init__.py")


def imports_of(source: str, name: str, *, is_package: bool = False) -> set[str]:
    """Every module the source of module ``name`` imports, absolute (``from . import x``
    resolved; ``from a import b`` counts as ``a`` and ``a.b``, since ``b`` may be a module)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def tui_modules() -> dict[str, set[str]]:
    return {module_name(path): imported(path) for path in sorted(TUI.rglob("*.py"))}


def test_the_walk_sees_every_kind_of_import() -> None:
    """The rule's own check: plain, from, relative, nested and TYPE_CHECKING imports."""
    assert "memtui.tui.widgets.diff_view" in imported(TUI / "dialogs" / "confirm.py")
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .main import MainScreen\n"
        "def f():\n    import memtui.tui.app\n"
        "from .. import screens\n"
    )
    found = imports_of(source, "memtui.tui.screens.snapshot_diff")
    assert {MAIN_SCREEN, f"{MAIN_SCREEN}.MainScreen", APP, "memtui.tui.screens"} <= found


def test_only_the_app_imports_the_main_screen() -> None:
    offenders = {
        name
        for name, imports in tui_modules().items()
        if name not in WIRING and any(i == MAIN_SCREEN or i.startswith(MAIN_SCREEN + ".")
                                      for i in imports)
    }
    assert offenders == set(), f"these import {MAIN_SCREEN}: {sorted(offenders)}"


def test_nothing_in_the_tui_imports_the_app() -> None:
    offenders = {
        name for name, imports in tui_modules().items() if name != APP and APP in imports
    }
    assert offenders == set()


def test_dialogs_import_no_screen() -> None:
    offenders = {
        name: sorted(i for i in imports if i.startswith("memtui.tui.screens"))
        for name, imports in tui_modules().items()
        if name.startswith("memtui.tui.dialogs")
    }
    assert {name: found for name, found in offenders.items() if found} == {}
