"""No code path that builds a request body can skip redaction.

Two rules, checked on every module of memtui (the checker itself is tested first on sample
modules that break each rule):

- A module that *sends* (it imports ``anthropic``, ``openai`` or an HTTP / socket client,
  anywhere: in a function, under ``TYPE_CHECKING``) imports a redaction entry point:
  :func:`memtui.core.secrets.outbound.outbound` (or the
  :func:`memtui.core.secrets.redact.redact` it wraps).
- A function that *builds a request body* (in any module a dict with a ``"messages"`` key; in
  a module that sends also one with a ``"prompt"`` key, or a call passing ``messages=`` /
  ``prompt=`` / ``system=``) reaches redaction:
  it calls a redaction entry point, or a function or method of its module that does (followed
  to any depth), or takes a parameter annotated ``Redacted`` (the type says the text went
  through redaction).
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
REDACTORS = {("memtui.core.secrets.outbound", "outbound"), ("memtui.core.secrets.redact", "redact")}
OUTBOUND_MODULE = "memtui.core.secrets.outbound"
BODY_KEYS = {"messages"}
SENDER_BODY_KEYS = {"messages", "prompt"}
BODY_KEYWORDS = {"messages", "prompt", "system"}
CLEAN_TYPES = {"Redacted"}
Function = ast.FunctionDef | ast.AsyncFunctionDef


def imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def sends(modules: set[str]) -> bool:
    return any(m == s or m.startswith(s + ".") for m in modules for s in SENDER_MODULES)


def redactor_names(tree: ast.AST) -> set[str]:
    """The names a module calls redaction by (``from … import outbound as x`` gives ``x``)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if (node.module, alias.name) in REDACTORS
    }


def called_name(call: ast.Call) -> str | None:
    """``f(…)`` → f, ``x.f(…)`` / ``self.f(…)`` → f."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def own_nodes(node: ast.AST) -> list[ast.AST]:
    """The nodes of ``node``'s body, not descending into nested functions or classes."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        out.append(child)
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(child))
    return out


def annotation_name(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.rsplit(".", 1)[-1]
    return None


def builds_body(function: ast.AST, sender: bool) -> int | None:
    """The line of the first request body ``function`` builds itself, or None (``sender``:
    its module sends; an agent definition's ``prompt=`` elsewhere is no request)."""
    keys = SENDER_BODY_KEYS if sender else BODY_KEYS
    for node in own_nodes(function):
        if isinstance(node, ast.Dict) and any(
            isinstance(k, ast.Constant) and k.value in keys for k in node.keys
        ):
            return node.lineno
        if sender and isinstance(node, ast.Call) and any(
            k.arg in BODY_KEYWORDS for k in node.keywords
        ):
            return node.lineno
    return None


def violations(source: str, name: str = "<sample>") -> list[str]:
    """Why a module could put text in a request that did not go through redaction."""
    tree = ast.parse(source)
    redactors = redactor_names(tree)
    problems: list[str] = []
    sender = sends(imported_modules(tree))
    if sender and not redactors:
        problems.append(f"{name}: sends but imports no redaction ({OUTBOUND_MODULE}.outbound)")
    functions: dict[str, list[Function]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
    calls = {
        id(f): {called_name(c) for c in own_nodes(f) if isinstance(c, ast.Call)} - {None}
        for group in functions.values() for f in group
    }
    reaching: set[int] = set()
    for group in functions.values():
        for f in group:
            args = [*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs]
            if calls[id(f)] & redactors or any(
                annotation_name(a.annotation) in CLEAN_TYPES for a in args
            ):
                reaching.add(id(f))
    changed = True
    while changed:  # a function calling one that reaches redaction reaches it too
        changed = False
        for group in functions.values():
            for f in group:
                if id(f) in reaching:
                    continue
                if any(id(g) in reaching for c in calls[id(f)] for g in functions.get(c, [])):
                    reaching.add(id(f))
                    changed = True
    for group in functions.values():
        for f in group:
            line = builds_body(f, sender)
            if line is not None and id(f) not in reaching:
                problems.append(f"{name}:{line}: {f.name}() builds a request body without "
                                "reaching redaction")
    line = builds_body(tree, sender)
    if line is not None:
        problems.append(f"{name}:{line}: a request body built at module level")
    return problems


COMPLIANT = '''
import anthropic
from memtui.core.secrets.outbound import Redacted, outbound

MODEL = "claude-haiku-4-5"

def side(item) -> Redacted:
    return outbound(item.body, path=item.path)

class Judge:
    def plan(self, items):
        parts = [self.tag(side(item)) for item in items]
        return {"model": MODEL, "messages": [{"role": "user", "content": "".join(parts)}]}

    def tag(self, text: Redacted) -> str:
        return f"<a>{text.text}</a>"

    def send(self, params):
        return anthropic.Anthropic().messages.create(max_tokens=10, **params)

def direct(redacted: Redacted) -> None:
    anthropic.Anthropic().messages.create(model=MODEL, messages=[{"content": redacted.text}])
'''

BREAKING = {
    "a sender without redaction": '''
import anthropic

def send(params):
    anthropic.Anthropic().messages.create(**params)
''',
    "redaction imported inside a function only counts when called": '''
import httpx
from memtui.core.secrets.outbound import outbound

def body(text: str):
    return {"prompt": text}
''',
    "a body built beside redaction, not through it": '''
from anthropic import Anthropic
from memtui.core.secrets.redact import redact

def other(text):
    return redact(text)

def plan(text: str):
    return {"messages": [{"role": "user", "content": text}]}
''',
    "a body built in a module that sends nothing": '''
def plan(memory_text):
    return {"model": "m", "messages": [{"content": memory_text}]}
''',
    "a send call given the text": '''
def ask(text):
    import openai
    from memtui.core.secrets.outbound import outbound
    openai.OpenAI().responses.create(model="m", prompt=text)
''',
    "a body at module level": '''
import json
from memtui.core.secrets.outbound import outbound
BODY = json.dumps({"messages": [open("MEMORY.md").read()]})
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
