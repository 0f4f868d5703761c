"""The test suite's own layout (docs/architecture.md#the-tests): folders mirror the packages,
and no test module imports another (shared code lives in helpers.py, pilots.py, hostile.py)."""

from __future__ import annotations

import ast
import tomllib

from helpers import REPO

TESTS = REPO / "tests"
CORE = REPO / "memtui" / "core"


def test_no_test_module_imports_another() -> None:
    wrong = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                if any(part.startswith("test_") for part in name.split(".")):
                    wrong.append(f"{path.relative_to(REPO)}:{node.lineno} imports {name}")
    assert wrong == []


def test_every_core_package_has_its_test_folder() -> None:
    packages = sorted(p.parent.relative_to(CORE) for p in CORE.rglob("__init__.py")
                      if p.parent != CORE)
    missing = [str(p) for p in packages if not any((TESTS / "core" / p).glob("test_*.py"))]
    assert missing == [], f"no tests/core/<package>/test_*.py for: {missing}"
    assert (TESTS / "cli").is_dir() and (TESTS / "tui").is_dir()


def test_addopts_leave_the_summary_line_to_the_command_line() -> None:
    """``-q`` in addopts plus ``pytest -q`` is ``-qq``, which hides the ``N passed`` line."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = config["tool"]["pytest"]["ini_options"]["addopts"].split()
    assert not [opt for opt in addopts if opt.startswith("-q") or opt == "--quiet"]
