"""What a run loads (issue 25, "cold start"): ``memtui --help`` and ``memtui scan --json`` import
no command module but their own and nothing the fast path does not use. Not timed: each run
lists the modules it imported (``sys.modules`` at exit, in a fresh interpreter)."""

from __future__ import annotations

import gettext
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

from memtui.cli import build_parser
from memtui.core.cache import RACY_SECONDS
from memtui.core.demo.build import DemoHome, build_demo_home

SETTLED = (  # the scan cache's clock ahead: the demo's files just written count as settled
    "import time\n"
    "from memtui.core.cache import ScanCache\n"
    f"ScanCache.clock = staticmethod(lambda: time.time() + {RACY_SECONDS + 5})\n"
)
SCRIPT = (  # runs the CLI, then lists the modules it imported
    "import sys\n"
    "from memtui.cli import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "except SystemExit as exit:\n"
    "    code = exit.code\n"
    "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)

COMMAND_MODULES = {
    f"memtui.cli.{name}_commands"
    for name in ("config", "context", "distil", "edit", "history", "judge", "read", "recall",
                 "team", "undo")
}
NEVER_IN_A_SCAN = {
    "textual", "rich", "numpy", "git", "anthropic", "httpx", "watchdog", "memtui.tui",
    "memtui.core.judge", "memtui.core.write.journal", "memtui.core.write.apply",
    "memtui.core.history", "memtui.core.config", "tomllib",
    "memtui.core.parse.frontmatter_edit",  # a scan edits nothing
}
WARM_NEVER = {
    "ruamel", "ruamel.yaml", "memtui.core.parse.frontmatter", "memtui.core.parse.jsdate",
    "memtui.core.scan.scanner", "memtui.core.contents", "memtui.core.parse.load_report",
    "memtui.core.secrets.rules", "memtui.core.secrets.scanner",
}  # (``secrets.keywords`` is the output masking's prefilter too: a warm run looks for keywords)


def run(args: list[str], env: dict[str, str], *, settled: bool = True) -> tuple[int, str, set[str]]:
    script = SETTLED + SCRIPT if settled else SCRIPT
    done = subprocess.run([sys.executable, "-c", script, *args], env=env,
                          capture_output=True, text=True)
    *_, modules = done.stderr.rstrip("\n").rpartition("\n")
    return done.returncode, done.stdout, set(modules.split())


def loaded(modules: set[str], names: set[str]) -> set[str]:
    """Those of ``names`` (packages stand for their submodules) among ``modules``."""
    return {m for m in modules if m in names or m.split(".")[0] in names
            or any(m.startswith(n + ".") for n in names)}


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path / "demo")


def environment(home: DemoHome, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(home.root),
            "XDG_CACHE_HOME": str(home.root / "cache"), **extra}


def scan_args(home: DemoHome) -> list[str]:
    return ["--claude-home", str(home.claude_home), "--project", str(home.project),
            "--agent-memory-home", str(home.agent_memory_home), "scan", "--json"]


def test_help_imports_no_command_module(home: DemoHome) -> None:
    code, out, modules = run(["--help"], environment(home), settled=False)
    assert code == 0 and out.startswith("usage: memtui")
    assert "options of every command" not in out  # no subcommand's parser was set up
    own = {m for m in modules if m.startswith("memtui")}
    assert own == {"memtui", "memtui.cli", "memtui.cli.parser"}, sorted(own)
    assert not loaded(modules, {"pathlib", "dataclasses", "json", "ruamel", "textual", "rich",
                                "contextlib"})
    if not os.path.isdir(gettext._default_localedir):  # type: ignore[attr-defined]
        assert "locale" not in modules  # no translation to look up (gettext imports it to)


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_scan_json_imports_only_what_it_uses(home: DemoHome, cache: str) -> None:
    """Cold (``MEMTUI_NO_CACHE=1``) and warm (every store unchanged since the last run):
    no other command's module, no judge, TUI, git, numpy or config; warm, no reader of
    memory files either (no parser, no ruamel, no secret rules, no JS date parser)."""
    env = environment(home, MEMTUI_NO_CACHE="1" if cache == "cold" else "0")
    if cache == "warm":
        first_code, first, _ = run(scan_args(home), env)
        assert first_code == 0
    code, out, modules = run(scan_args(home), env)
    assert code == 0
    data = json.loads(out)
    assert data["stores"] and any(s["snapshot"] for s in data["stores"])
    if cache == "warm":
        assert data == json.loads(first)
    assert loaded(modules, COMMAND_MODULES) == {"memtui.cli.read_commands"}
    assert not loaded(modules, NEVER_IN_A_SCAN)
    if cache == "warm":
        assert not loaded(modules, WARM_NEVER)


def test_a_cold_scan_of_the_demo_never_imports_ruamel(home: DemoHome) -> None:
    """ruamel is loaded only for a header neither the fast path nor the explainer of common
    breakage (:mod:`memtui.core.parse.frontmatter_errors`) reads: the demo's hand-broken
    ``bad-yaml.md`` gets ruamel's message without it; another broken header needs it."""
    env = environment(home, MEMTUI_NO_CACHE="1")
    code, out, modules = run(scan_args(home), env)
    assert code == 0 and json.loads(out)["stores"]
    assert "bad YAML in frontmatter: expected ',' or ']', but got ':' (line 3)" in out
    assert not loaded(modules, {"ruamel"})
    assert "memtui.core.scan.scanner" in modules  # the memories were read (and parsed)
    (home.auto_memory / "odd-yaml.md").write_text("---\nname: [a, b\ntype: user\n---\nx\n")
    code, out, modules = run(scan_args(home), env)
    assert code == 0 and "ruamel.yaml" in modules
    assert "bad YAML in frontmatter: expected ',' or ']', but got ':' (line 3)" in out


def test_a_subcommand_parser_is_set_up_when_looked_at() -> None:
    """A subcommand's parser is set up on first use, whatever looks at it first."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    judge = sub.choices["judge"]
    assert {"--max-pairs", "--claude-home", "-h"} <= set(judge._option_string_actions)
    resolve = next(a for a in judge._actions if a.dest == "judge_command").choices["resolve"]
    assert "options of every command (also before it)" in resolve.format_help()
    args = parser.parse_args(["judge", "resolve", "p1", "a", "--project-dir", "x"])
    assert (args.command, args.judge_command, args.decision, args.project_dir) == (
        "judge", "resolve", "a", "x")
