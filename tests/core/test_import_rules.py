"""The import rules of docs/architecture.md, checked on every module's source.

``memtui.core`` never imports the UI (textual, rich) or memtui's own shells (``memtui.tui``,
``memtui.cli``); each core package imports only the layers below it, so the write path never
depends on a feature and a parser never on the scan. Every import statement counts, including
those inside functions and under ``TYPE_CHECKING``: a cycle hidden in a function is still one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

CORE = REPO / "memtui" / "core"

KERNEL = "kernel"  # the modules directly in memtui/core: the model and shared helpers
ALLOWED: dict[str, set[str]] = {
    KERNEL: {KERNEL},
    "parse": {KERNEL, "parse"},
    "stores": {KERNEL, "parse", "stores"},
    "secrets": {KERNEL, "secrets"},
    "team": {KERNEL, "parse", "stores", "secrets", "team"},
    "scan": {KERNEL, "parse", "stores", "secrets", "scan"},
    "write": {KERNEL, "write"},
    "write.ops": {KERNEL, "parse", "stores", "secrets", "write", "write.ops", "history"},
    "demo": {KERNEL, "parse", "stores", "demo"},
    "judge": {KERNEL, "parse", "stores", "secrets", "scan", "write", "write.ops", "judge"},
    "distil": {KERNEL, "parse", "stores", "secrets", "team", "scan", "write", "write.ops",
               "distil"},
    "recall": {KERNEL, "parse", "stores", "secrets", "scan", "judge", "recall"},
    "history": {KERNEL, "stores", "write", "history"},
}
"""Which layers each layer may import. A new package must be added here, deciding its rules."""


def layer_of(module: str) -> str:
    """``memtui.core.write.ops.memory`` → ``write.ops``; ``memtui.core.model`` → kernel."""
    parts = module.split(".")[2:]
    if len(parts) <= 1:
        return KERNEL
    if parts[:2] == ["write", "ops"]:
        return "write.ops"
    return parts[0]


def core_modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(CORE.rglob("*.py")):
        parts = path.relative_to(CORE.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def imports_of(path: Path, module: str) -> list[tuple[int, str]]:
    """Every module an import statement of ``path`` names (``from a import b`` gives ``a.b``
    when ``a.b`` is a module, else ``a``), with its line."""
    found: list[tuple[int, str]] = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


MODULES = core_modules()


def test_the_walk_sees_every_package() -> None:
    """The rules below are only meaningful if they look at the real modules."""
    layers = {layer_of(name) for name in MODULES}
    assert layers == set(ALLOWED), f"a new package needs its rules in ALLOWED: {layers}"
    assert {"memtui.core.scan.scanner", "memtui.core.write.journal",
            "memtui.core.parse.load_report"} <= set(MODULES)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_core_layers(module: str) -> None:
    layer = layer_of(module)
    wrong = []
    for line, target in imports_of(MODULES[module], module):
        if target.split(".")[0] in ("textual", "rich"):
            wrong.append(f"line {line}: {target} (the core never imports the UI)")
        elif target.split(".")[:2] in (["memtui", "tui"], ["memtui", "cli"]):
            wrong.append(f"line {line}: {target} (the core never imports memtui's shells)")
        elif target in MODULES and layer_of(target) not in ALLOWED[layer]:
            wrong.append(f"line {line}: {target} ({layer} may not import {layer_of(target)})")
    assert not wrong, f"{module}:\n" + "\n".join(wrong)


def test_journal_does_not_import_the_applier() -> None:
    """The journal stores operations; recovery and undo (which write) import it, not the reverse."""
    journal = "memtui.core.write.journal"
    targets = {target for _, target in imports_of(MODULES[journal], journal)}
    assert not targets & {"memtui.core.write.apply", "memtui.core.write.recovery"}


def test_importing_all_of_core_loads_no_ui_module() -> None:
    """At run time too: every core module imported, and no textual or rich among sys.modules."""
    code = (
        "import sys, importlib\n"
        f"names = {sorted(MODULES)!r}\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))\n"
        "print(len(names), ','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(len(MODULES))], f"memtui.core pulled in UI modules: {out[1:]}"


@pytest.mark.parametrize("bad", ["import textual.app", "from memtui.tui import app",
                                 "from memtui.core.scan.scanner import scan"])
def test_a_forbidden_import_is_caught(tmp_path: Path, bad: str) -> None:
    """The checker itself: a parse module importing the UI, a shell, or the scan is reported."""
    source = tmp_path / "x.py"
    source.write_text(f"def f():\n    {bad}\n", encoding="utf-8")
    targets = [t for _, t in imports_of(source, "memtui.core.parse.x")]
    assert any(t.startswith(("textual", "memtui.tui")) or
               (t in MODULES and layer_of(t) not in ALLOWED["parse"]) for t in targets)
