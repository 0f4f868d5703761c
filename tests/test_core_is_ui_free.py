"""memtui.core must never import textual or rich: the CLI and other tools rely on it."""

import subprocess
import sys


def test_importing_core_loads_no_ui_module() -> None:
    code = (
        "import sys, pkgutil, importlib, memtui.core\n"
        "for m in pkgutil.iter_modules(memtui.core.__path__):\n"
        "    importlib.import_module('memtui.core.' + m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"memtui.core pulled in UI modules: {out}"


def test_core_imports_every_module() -> None:
    """The check above is only meaningful if it imports real modules."""
    import pkgutil

    import memtui.core

    names = {m.name for m in pkgutil.iter_modules(memtui.core.__path__)}
    assert {"scan", "locations", "index", "frontmatter", "snapshot"} <= names
