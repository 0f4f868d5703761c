"""No code path that builds a request body can skip redaction.

A module *sends* when it imports ``anthropic`` or an HTTP / socket client (anywhere: in a
function, under ``TYPE_CHECKING``). Such a module must import
:func:`memtui.core.secrets.outbound.outbound`, and every argument of each of its send calls
(``….create(…)``, ``….stream(…)``, ``….post(…)``, ``urlopen(…)``, …) must be clean: a constant,
a call of ``outbound``, a parameter annotated ``Redacted``, an attribute or a container of clean
values, or a name every binding of which (in its function, else in the module) is clean. The
checker is tested on sample modules that break each rule, then run on every module of memtui.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import REPO

from memtui.core.demo.story import FAKE_GITHUB_PAT
from memtui.core.secrets.outbound import outbound

SENDER_MODULES = ("anthropic", "openai", "httpx", "requests", "aiohttp", "urllib.request",
                  "http.client", "socket")
SEND_CALLS = {"create", "stream", "count_tokens", "post", "put", "patch", "request", "send",
              "sendall", "sendto", "urlopen", "write"}
OUTBOUND_MODULE = "memtui.core.secrets.outbound"
CLEAN_TYPES = {"Redacted"}


def imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def sends(modules: set[str]) -> bool:
    return any(m == s or m.startswith(s + ".") for m in modules for s in SENDER_MODULES)


def callee_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


class Scope:
    """The bindings of one function (or of the module): name → every value bound to it
    (None: bound by something the checker cannot see through, e.g. a loop or a ``with``)."""

    def __init__(self, node: ast.AST, parent: Scope | None) -> None:
        self.parent = parent
        self.bindings: dict[str, list[ast.expr | None]] = {}
        self.clean_params: set[str] = set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                self.bindings.setdefault(arg.arg, []).append(None)
                if arg.annotation is not None and annotation_name(arg.annotation) in CLEAN_TYPES:
                    self.clean_params.add(arg.arg)
        for child in own_nodes(node):
            if isinstance(child, ast.Assign):
                for target in child.targets:
                    self.bind(target, child.value)
            elif isinstance(child, (ast.AnnAssign, ast.AugAssign)) and child.value is not None:
                self.bind(child.target, child.value if isinstance(child, ast.AnnAssign) else None)
            elif isinstance(child, ast.NamedExpr):
                self.bind(child.target, child.value)
            elif isinstance(child, (ast.For, ast.AsyncFor, ast.comprehension)):
                self.bind(child.target, None)
            elif isinstance(child, ast.withitem) and child.optional_vars is not None:
                self.bind(child.optional_vars, None)

    def bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, None)

    def lookup(self, name: str) -> tuple[Scope, list[ast.expr | None]] | None:
        if name in self.bindings:
            return self, self.bindings[name]
        return self.parent.lookup(name) if self.parent else None


def annotation_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.rsplit(".", 1)[-1]
    return None


def own_nodes(node: ast.AST) -> list[ast.AST]:
    """The nodes of ``node``'s body, not descending into nested functions or classes."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        out.append(child)
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda)):
            stack.extend(ast.iter_child_nodes(child))
    return out


def clean(expr: ast.expr | None, scope: Scope, outbound_names: set[str],
          seen: frozenset[str] = frozenset()) -> bool:
    if expr is None:
        return False
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Call):
        return callee_name(expr) in outbound_names
    if isinstance(expr, ast.Attribute):
        return clean(expr.value, scope, outbound_names, seen)
    if isinstance(expr, ast.Starred):
        return clean(expr.value, scope, outbound_names, seen)
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return all(clean(e, scope, outbound_names, seen) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return all(clean(e, scope, outbound_names, seen)
                   for e in [*expr.keys, *expr.values] if e is not None)
    if isinstance(expr, ast.Name):
        if expr.id in seen:
            return False
        found = scope.lookup(expr.id)
        if found is None:
            return False
        owner, values = found
        if expr.id in owner.clean_params and all(v is None for v in values[:1]):
            values = values[1:]
            if not values:
                return True
        return all(clean(v, owner, outbound_names, seen | {expr.id}) for v in values)
    return False  # f-strings, operators, subscripts, other calls: text of unknown origin


def violations(source: str, name: str = "<sample>") -> list[str]:
    """Why a module's requests could carry text that did not go through ``outbound``."""
    tree = ast.parse(source)
    modules = imported_modules(tree)
    if not sends(modules):
        return []
    problems: list[str] = []
    outbound_names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == OUTBOUND_MODULE
        for alias in node.names
        if alias.name == "outbound"
    }
    if not outbound_names:
        problems.append(f"{name}: sends but does not import outbound from {OUTBOUND_MODULE}")

    def visit(node: ast.AST, scope: Scope) -> None:
        for child in own_nodes(node):
            if isinstance(child, ast.Call) and callee_name(child) in SEND_CALLS:
                values = [*child.args, *(k.value for k in child.keywords)]
                for value in values:
                    if not clean(value, scope, outbound_names):
                        problems.append(f"{name}:{child.lineno}: {ast.unparse(value)} reaches "
                                        f"{callee_name(child)}() without outbound()")
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                visit(child, Scope(child, scope))

    visit(tree, Scope(tree, None))
    return problems


COMPLIANT = '''
import anthropic
from memtui.core.secrets.outbound import Redacted, outbound

MODEL = "claude-haiku-4-5"

def judge(memory_text: str, path: str) -> None:
    client = anthropic.Anthropic()
    body = outbound(memory_text, path=path)
    client.messages.create(model=MODEL, max_tokens=100,
                           messages=[{"role": "user", "content": body.text}])

def again(redacted: Redacted) -> None:
    anthropic.Anthropic().messages.create(model=MODEL, messages=[{"content": redacted.text}])
'''

BREAKING = {
    "no outbound import": '''
import anthropic

def judge(text: str) -> None:
    anthropic.Anthropic().messages.create(model="m", messages=[{"content": "constant"}])
''',
    "a raw parameter": '''
import anthropic
from memtui.core.secrets.outbound import outbound

def judge(text: str) -> None:
    anthropic.Anthropic().messages.create(model="m", messages=[{"content": text}])
''',
    "a name bound to raw text": '''
from anthropic import Anthropic
from memtui.core.secrets.outbound import outbound

def judge(path) -> None:
    body = path.read_text()
    Anthropic().messages.create(model="m", messages=[{"content": body}])
''',
    "redacted once, raw once": '''
import httpx
from memtui.core.secrets.outbound import outbound

def send(text: str) -> None:
    body = outbound(text)
    if len(text) > 10:
        body = text
    httpx.post("https://example.invalid", json={"text": body})
''',
    "an f-string around redacted text": '''
def send(text):
    import requests
    from memtui.core.secrets.outbound import outbound
    requests.post("https://example.invalid", data=f"{outbound(text).text} {text}")
''',
    "kwargs of unknown origin": '''
import anthropic
from memtui.core.secrets.outbound import outbound

def judge(**kwargs) -> None:
    anthropic.Anthropic().messages.create(**kwargs)
''',
}


def test_a_compliant_sender_passes() -> None:
    assert violations(COMPLIANT) == []


@pytest.mark.parametrize("case", sorted(BREAKING))
def test_the_checker_catches_a_sender_that_skips_outbound(case: str) -> None:
    assert violations(BREAKING[case]), case


def test_no_module_of_memtui_sends_text_that_skipped_outbound() -> None:
    problems: list[str] = []
    checked = 0
    for path in sorted((REPO / "memtui").rglob("*.py")):
        problems += violations(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
        checked += 1
    assert checked > 50  # the walk found the package
    assert problems == []


def test_outbound_text_holds_no_secret() -> None:
    sent = outbound(f"deploy with {FAKE_GITHUB_PAT}\n", path="notes.md")
    assert FAKE_GITHUB_PAT not in sent.text
    assert sent.text == "deploy with [REDACTED:github-pat]\n"
    assert [f.rule for f in sent.findings] == ["github-pat"]
    assert FAKE_GITHUB_PAT not in repr(sent.findings)


def test_the_outbound_module_is_where_the_checker_looks() -> None:
    assert (REPO / Path(*OUTBOUND_MODULE.split("."))).with_suffix(".py").is_file()
