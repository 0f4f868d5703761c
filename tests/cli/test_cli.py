"""The CLI contract: subcommands, the documented JSON keys, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, home_args

from memtui.cli import main
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_index, write_memory

STORE_KEYS = {
    "kind", "scope", "agent", "session", "path", "exists", "enabled", "rule", "index",
    "snapshot", "memories",
}
MEMORY_KEYS = {"path", "name", "description", "type", "mtime", "size", "problems"}
REPORT_KEYS = {
    "path", "lines", "units", "bytes", "line_truncated", "byte_truncated", "binds", "cut_line",
    "dropped", "warning", "loaded", "health",
}


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan cache and the journal live in the test's temporary directory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("demo"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_scan_json_follows_the_documented_contract(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *home_args(demo), "scan", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["project"] == str(demo.project)
    assert data["claude_home"] == str(demo.claude_home)
    kinds = {s["kind"] for s in data["stores"]}
    assert kinds == {"auto", "team", "session", "agent", "snapshot", "agentmemory"}
    for store in data["stores"]:
        assert store.keys() >= STORE_KEYS
        assert store["scope"] in (None, "user", "project", "local")
        for memory in store["memories"]:
            assert memory.keys() >= MEMORY_KEYS
            assert not memory["path"].startswith("/")
        if store["index"] is not None:
            assert store["index"].keys() >= REPORT_KEYS
        if store["snapshot"] is not None:
            assert {"status", "updatedAt", "syncedFrom", "local"} <= store["snapshot"].keys()
            assert store["snapshot"]["status"] in ("none", "initialize", "prompt-update")
    auto = next(s for s in data["stores"] if s["kind"] == "auto")
    assert auto["index"]["binds"] == "lines" and auto["index"]["cut_line"] == 200
    assert {"dir", "path"} <= data["projects"][0].keys()


def test_scan_human_output_names_rules_and_problems(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *home_args(demo), "scan")
    assert code == 0
    assert "rule: default: git root" in out
    assert "binary file" in out and "symlink leaves the store" in out
    assert "Claude stops reading at line 200" in out
    assert "-home-dev-src-blog  →  /home/dev/src/blog" in out


def test_index_command_reports_the_exact_cut(
    demo: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "index", str(demo.auto_memory / "MEMORY.md"), "--json")
    assert code == 0
    report = json.loads(out)
    assert report.keys() >= REPORT_KEYS
    assert report["lines"] == 215 and report["binds"] == "lines" and report["cut_line"] == 200
    assert report["warning"] == (
        "> WARNING: MEMORY.md is 215 lines (limit: 200). Only part of it was loaded. Keep index "
        "entries to one line under ~200 chars; move detail into topic files."
    )
    assert report["loaded"].endswith(report["warning"])
    assert report["loaded"].count("\n") == 199 + 2 + report["warning"].count("\n")
    code, out, _ = run(capsys, "index", str(demo.auto_memory))
    assert "Claude Code shows:" in out and "entries past the cut" in out


def test_index_agent_mode_measures_the_raw_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = ["---", "name: x", "---", "<!-- note", "more -->"] + [f"- line {i}" for i in range(198)]
    write_index(tmp_path, lines)
    _, main_out, _ = run(capsys, "index", str(tmp_path / "MEMORY.md"), "--json")
    _, agent_out, _ = run(capsys, "index", str(tmp_path / "MEMORY.md"), "--agent", "--json")
    assert json.loads(main_out)["binds"] == "none"
    assert json.loads(agent_out)["binds"] == "lines"


def test_index_of_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "index", str(tmp_path / "nope.md"))
    assert code == 2 and "is not a file" in err


def test_snapshot_status(demo: DemoHome, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *home_args(demo), "snapshot", "status", "--json")
    assert code == 0
    statuses = {s["agent"]: s["status"] for s in json.loads(out)}
    assert statuses == {
        "reviewer": "prompt-update", "qa": "initialize", "planner": "none", "docs-writer": "none",
    }
    code, out, _ = run(capsys, *home_args(demo), "snapshot", "status")
    assert "Claude Code acts on this" in out and "not valid JSON" in out


def test_demo_command_writes_a_home(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", str(tmp_path / "d"))
    assert code == 0 and "demo home written" in out
    assert (tmp_path / "d" / "claude" / "projects").is_dir()
    assert (tmp_path / "d" / "project" / ".git").is_dir()


def test_bad_usage_exits_2() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["scan", "--no-such-flag"])
    assert exc.value.code == 2


def test_python_dash_m_and_env_vars(demo: DemoHome, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(demo.claude_home),
        "AGENT_MEMORY_DIR": str(demo.agent_memory_home),
        "PYTHONPATH": str(REPO),
    }
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "scan", "--json"],
        cwd=demo.project, env=env, capture_output=True, text=True, check=True,
    ).stdout
    data = json.loads(out)
    assert data["claude_home"] == str(demo.claude_home)
    assert data["project"] == str(demo.project)
    agentmemory = next(s for s in data["stores"] if s["kind"] == "agentmemory")
    assert agentmemory["path"] == str(demo.agent_memory_home) and agentmemory["exists"]


@pytest.mark.parametrize("beside", [True, False])
def test_index_of_another_file_reports_that_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], beside: bool
) -> None:
    """``memtui index DIR/other.md`` measures other.md, with or without a MEMORY.md beside it."""
    if beside:
        write_index(tmp_path, ["- [Real](real.md) — the real index"])
    write_memory(tmp_path, "real.md", description="a memory")
    other = tmp_path / "other.md"
    other.write_text("".join(f"- [T{i}](t{i}.md) — hook\n" for i in range(250)), encoding="utf-8")
    code, out, err = run(capsys, "index", str(other), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["path"] == str(other)
    assert report["lines"] == 250 and report["cut_line"] == 200 and report["entries"] == 250
    assert len(report["health"]["dangling"]) == 250
    assert report["health"]["orphans"] == ["real.md"]  # other.md is no orphan of itself
    code, out, _ = run(capsys, "index", str(other))
    assert code == 0
    assert out.startswith("other.md: 250 lines / 200") and "line 201: T200" in out


def test_index_text_lists_capped_json_lists_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A runaway index: the text shows 25 of each list and how many more; --json lists all."""
    from memtui.cli.read_commands import INDEX_LIST_LIMIT
    from memtui.core.demo.writers import huge_index_lines

    count = 2_000
    write_index(tmp_path, huge_index_lines(count))
    code, out, _ = run(capsys, "index", str(tmp_path / "MEMORY.md"))
    assert code == 0
    lines = out.splitlines()
    assert sum(line.startswith("dangling: ") for line in lines) == INDEX_LIST_LIMIT
    assert sum(line.startswith("long entry: ") for line in lines) == count // 100  # 20: all
    assert sum(line.startswith("  line ") for line in lines) == INDEX_LIST_LIMIT
    assert f"… and {count - INDEX_LIST_LIMIT:,} more (--json lists all)" in lines
    code, out, _ = run(capsys, "index", str(tmp_path / "MEMORY.md"), "--json")
    report = json.loads(out)
    assert len(report["health"]["dangling"]) == count
    # the comment line is stripped: 200 lines load up to raw line 202, entries start on line 4
    assert len(report["dropped"]) == count - 199
    assert f"  … and {len(report['dropped']) - INDEX_LIST_LIMIT:,} more (--json lists all)" in lines


def run_with_modules(*args: str) -> tuple[str, set[str]]:
    """``memtui ARGS`` in a fresh interpreter (no scan cache): its output and the modules it
    imported."""
    script = (
        "import sys\n"
        "from memtui.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
        "raise SystemExit(code)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "MEMTUI_NO_CACHE": "1"}
    done = subprocess.run([sys.executable, "-c", script, *args],
                          env=env, capture_output=True, text=True, check=True)
    return done.stdout, set(done.stderr.split())


def test_index_imports_only_what_it_needs(tmp_path: Path) -> None:
    """``memtui index`` runs without the locations (settings, agents, git), the projects, the
    JSON encoder (text output), hashlib or typing: imports were most of its time."""
    write_index(tmp_path, ["- [A](a.md) — a", "- [B](b.md) — b"])
    write_memory(tmp_path, "a.md", description="a memory")
    out, modules = run_with_modules("index", str(tmp_path / "MEMORY.md"))
    assert out.startswith("MEMORY.md: 2 lines / 200") and "dangling: line 2" in out
    assert {"memtui.core.parse.load_report", "memtui.core.scan.scanner"} <= modules
    unneeded = {
        "memtui.core.stores.locations", "memtui.core.stores.cc_settings",
        "memtui.core.stores.agents",
        "memtui.core.stores.gitroot", "memtui.core.stores.projects", "memtui.core.scan.serialize",
        "memtui.core.write.journal", "memtui.core.write.apply", "git", "hashlib", "json", "typing",
    }
    assert not unneeded & modules


HEAVY_MODULES = {
    "textual", "rich", "ruamel", "ruamel.yaml", "anthropic", "httpx", "git", "watchdog",
    "memtui.tui", "memtui.core.judge", "memtui.core.secrets.rules", "memtui.core.write.apply",
    "memtui.core.stores.locations", "typing", "hashlib", "tomllib",
}  # fmt: skip


@pytest.mark.parametrize("options", [[], ["--json"]], ids=["text", "json"])
def test_index_of_a_runaway_index_imports_no_heavy_module(
    tmp_path: Path, options: list[str]
) -> None:
    """``memtui index`` on a 2,000-entry index beside memories: none of the UI, YAML, judge,
    git, watcher or write modules is imported (their imports would cost more than the report),
    and the report comes out (the JSON one lists every entry past the cut)."""
    from memtui.core.demo.writers import huge_index_lines

    write_index(tmp_path, huge_index_lines(2_000))
    write_memory(tmp_path, "note-1.md", description="a memory")
    write_memory(tmp_path, "topics/note-2.md", description="another")
    out, modules = run_with_modules("index", *options, str(tmp_path / "MEMORY.md"))
    if options:
        assert len(json.loads(out)["dropped"]) == 2_000 - 199
    else:
        assert "1,801 entries are never loaded" in out
    assert "memtui.core.parse.load_report" in modules
    assert not {m for m in modules if m.split(".")[0] in HEAVY_MODULES or m in HEAVY_MODULES}
    assert not {m for m in modules if any(m.startswith(f"{h}.") for h in HEAVY_MODULES)}
