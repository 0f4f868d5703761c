"""No import cycles in memtui (issue 21).

The graph is built from every module's source with ``ast``: every import statement counts,
at module level, inside functions and under ``TYPE_CHECKING`` (a cycle hidden in a function or
behind ``TYPE_CHECKING`` is still a cycle: the two modules cannot be understood apart). An
edge goes to the module an import names: ``from a import b`` gives ``a.b`` when that is a
module, else ``a``. Packages' ``__init__.py`` files count like any module.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import REPO

PACKAGE = REPO / "memtui"

KNOWN_ELSEWHERE: set[frozenset[str]] = set()
"""Cycles (as the set of their modules) another branch removes; nothing else may be here."""


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(path: Path, module: str, known: set[str]) -> set[str]:
    """The memtui modules ``path``'s import statements name."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            subs = {f"{base}.{alias.name}" for alias in node.names} & known
            found |= subs if len(subs) == len(node.names) else subs | {base}
    return (found & known) - {module}


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(path, name, known) for name, path in mods.items()}


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def a_cycle(edges: dict[str, set[str]], component: list[str]) -> list[str]:
    """One cycle through the component's first module, as the modules on its way."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges[node] & members):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    return component


def test_no_import_cycles() -> None:
    edges = graph()
    assert "memtui.core.scan.scanner" in edges and edges["memtui.cli"], "the walk sees memtui"
    cycles = [c for c in strongly_connected(edges) if frozenset(c) not in KNOWN_ELSEWHERE]
    assert not cycles, "import cycles:\n" + "\n".join(
        " → ".join(a_cycle(edges, c)) + (f"  (component: {', '.join(c)})" if len(c) > 2 else "")
        for c in cycles)


def test_a_cycle_is_found(tmp_path: Path) -> None:
    """The checker itself: a cycle through a function-level import is reported."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(edges) == [["a", "b", "c"]]
    assert a_cycle(edges, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    source = tmp_path / "x.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import y\n"
                      "def f():\n    from .z import g\n", encoding="utf-8")
    assert imports_of(source, "p.x", {"p.x", "p.y", "p.z"}) == {"p.y", "p.z"}
