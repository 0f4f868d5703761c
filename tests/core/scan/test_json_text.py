"""``memtui scan --json`` from stored store fragments: byte for byte what a full scan prints,
after every kind of change, and a warm run reads nothing it does not need."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import REPO, demo_context
from hostile import HOSTILE, OSC_FILE, build_hostile_home, raw_controls

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_memory
from memtui.core.plaintext import json_safe
from memtui.core.scan.json_text import ScanText, scan_json_text
from memtui.core.scan.scanner import scan
from memtui.core.scan.serialize import scan_json
from memtui.core.stores.locations import Context

LATER = RACY_SECONDS + 5


@pytest.fixture(autouse=True)
def settled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A private cache whose clock runs a little ahead: the files just written count as
    settled (the racy window has its own tests in test_cache.py)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(ScanCache, "clock", staticmethod(lambda: time.time() + LATER))


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path / "demo")


def context(home: DemoHome, **env: str) -> Context:
    return demo_context(home, XDG_CACHE_HOME=os.environ["XDG_CACHE_HOME"], **env)


def checked(ctx: Context) -> ScanText:
    """``scan_json_text``, asserted equal to rendering a full scan with ``json.dumps`` (and
    ``json_safe``: no raw control character left)."""
    fast = scan_json_text(ctx)
    assert fast.text == json_safe(json.dumps(scan_json(scan(ctx)), ensure_ascii=False))
    return fast


def test_cold_then_warm_equals_a_full_scan(home: DemoHome) -> None:
    ctx = context(home)
    cold = checked(ctx)
    existing = sum(1 for store in json.loads(cold.text)["stores"] if store["exists"])
    assert cold.rescanned == existing > 10
    warm = checked(ctx)
    assert warm.rescanned == 0 and warm.stores == cold.stores


def test_hostile_names_cold_and_warm_hold_no_raw_control(tmp_path: Path) -> None:
    home = build_hostile_home(tmp_path / "hostile")
    ctx = context(home)
    for _ in range(2):  # rendered, then from the stored fragments
        text = checked(ctx).text
        assert raw_controls(text) == []
        auto = json.loads(text)["stores"][0]
        assert {m["path"]: m["description"] for m in auto["memories"]}[OSC_FILE] == HOSTILE


def test_without_the_cache_every_store_is_read(home: DemoHome) -> None:
    ctx = context(home, MEMTUI_NO_CACHE="1")
    first, second = checked(ctx), checked(ctx)
    assert first.rescanned == second.rescanned > 10
    assert not (Path(os.environ["XDG_CACHE_HOME"]) / "memtui").exists()


def auto_file(home: DemoHome, name: str = "staging-env.md") -> Path:
    return home.auto_memory / name


def edit_description(home: DemoHome) -> None:
    path = auto_file(home)
    path.write_text(path.read_text().replace("description:", "description: edited,", 1))


def same_size_rewrite(home: DemoHome) -> None:
    path = auto_file(home)
    data = path.read_bytes()
    at = data.index(b"description:") + len(b"description: ")
    path.write_bytes(data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1 :])
    os.utime(path, ns=(1, 1))  # even an mtime put back would not hide it: ctime moves


def grow_index(home: DemoHome) -> None:
    with (home.auto_memory / "MEMORY.md").open("a") as handle:
        handle.write("- [Late entry](late.md) — added after the first scan\n")


def add_memory(home: DemoHome) -> None:
    write_memory(home.auto_memory, "late.md", name="late", description="new", type="user",
                 body="x")


def add_memory_in_new_subdir(home: DemoHome) -> None:
    write_memory(home.auto_memory / "deep" / "er", "nested.md", name="nested",
                 description="nested", type="project", body="x")


def delete_memory(home: DemoHome) -> None:
    auto_file(home).unlink()


def rename_memory(home: DemoHome) -> None:
    auto_file(home).rename(home.auto_memory / "renamed.md")


def replace_by_rename(home: DemoHome) -> None:
    temp = home.auto_memory / ".tmp-write"
    temp.write_text("---\nname: staging\ndescription: replaced atomically\ntype: user\n---\n")
    os.replace(temp, auto_file(home))


def symlink_memory(home: DemoHome) -> None:
    target = home.auto_memory / "infra-gotchas.md"
    link = home.auto_memory / "linked.md"
    link.symlink_to(target.name)


def session_dir(home: DemoHome) -> Path:
    return home.claude_home / "projects" / auto_project_dir(home) / home.session_ids[0]


def auto_project_dir(home: DemoHome) -> str:
    return home.auto_memory.parent.name


def retitle_session(home: DemoHome) -> None:
    summary = session_dir(home) / "session-memory" / "summary.md"
    text = summary.read_text()
    summary.write_text(text.replace("# Session Title\n", "# Session Title\nA new title\n", 1))


def rewrite_transcript(home: DemoHome) -> None:
    transcript = session_dir(home).with_suffix(".jsonl")
    record = {"type": "user", "cwd": "/somewhere/else", "timestamp": "2026-01-02T03:04:05Z",
              "gitBranch": "other"}
    transcript.write_text(json.dumps(record) + "\n")


def custom_template(home: DemoHome) -> None:
    config = home.claude_home / "session-memory" / "config"
    config.mkdir(parents=True)
    (config / "template.md").write_text("# Session Title\n_the title_\n")


def sync_snapshot(home: DemoHome) -> None:
    snapshots = home.project / ".claude" / "agent-memory-snapshots"
    for snapshot in snapshots.iterdir():
        try:
            data = json.loads((snapshot / "snapshot.json").read_text())
        except ValueError:
            continue  # the demo ships a broken one
        local = home.claude_home / "agent-memory" / snapshot.name
        local.mkdir(parents=True, exist_ok=True)
        (local / ".snapshot-synced.json").write_text(
            json.dumps({"syncedFrom": data.get("updatedAt")})
        )


def session_without_memory(home: DemoHome) -> None:
    other = session_dir(home).parent / "0b5e55ed-0000-4000-8000-000000000000"
    (other / "subagents").mkdir(parents=True)
    (other / "session-memory").write_text("a file, not a directory")


def rescope_agent(home: DemoHome) -> None:
    definition = home.project / ".claude" / "agents" / "qa.md"
    definition.write_text(definition.read_text().replace("memory: user", "memory: local", 1))


def add_non_markdown(home: DemoHome) -> None:
    (home.auto_memory / "notes.txt").write_text("not a memory")


def team_dir_appears(home: DemoHome) -> None:
    write_memory(home.auto_memory / "team", "shared.md", name="shared", description="team",
                 type="project", body="x")


CHANGES: dict[str, Callable[[DemoHome], None]] = {
    "edit a description": edit_description,
    "same-size rewrite": same_size_rewrite,
    "grow MEMORY.md": grow_index,
    "add a memory": add_memory,
    "add a memory in a new subdirectory": add_memory_in_new_subdir,
    "delete a memory": delete_memory,
    "rename a memory": rename_memory,
    "replace a memory by rename": replace_by_rename,
    "symlink a memory": symlink_memory,
    "retitle a session": retitle_session,
    "rewrite a transcript": rewrite_transcript,
    "custom session template": custom_template,
    "sync the snapshots": sync_snapshot,
    "add a non-markdown file": add_non_markdown,
    "an agent's memory scope changes": rescope_agent,
    "a session directory without session memory": session_without_memory,
    "team memory grows": team_dir_appears,
}

STORES_READ_AGAIN = {
    "add a non-markdown file": 0,  # the directory changed, its memories did not
    "a session directory without session memory": 0,  # no store: nothing to read
    "an agent's memory scope changes": 0,  # read fresh; its local dir does not exist
    "rewrite a transcript": 0,  # session facts from the transcript are never stored
    "sync the snapshots": 1,  # status is worked out on every run; qa's user dir is new
    "custom session template": 3,  # every session's "empty" depends on it
}


UNSEEN_IN_OUTPUT = {"add a non-markdown file", "a session directory without session memory"}


@pytest.mark.parametrize("change", CHANGES)
def test_every_change_is_seen(home: DemoHome, change: str) -> None:
    ctx = context(home)
    checked(ctx)
    assert checked(ctx).rescanned == 0
    before = scan_json_text(ctx).text
    CHANGES[change](home)
    after = checked(ctx)
    assert after.text != before or change in UNSEEN_IN_OUTPUT
    assert after.rescanned == STORES_READ_AGAIN.get(change, 1)
    again = checked(ctx)  # and the new state is what is stored now
    assert again.text == after.text
    assert again.rescanned == 0


def test_env_and_settings_are_read_fresh(home: DemoHome) -> None:
    checked(context(home))
    off = json.loads(checked(context(home, CLAUDE_CODE_DISABLE_AUTO_MEMORY="1")).text)
    assert not off["stores"][0]["enabled"]
    settings = home.project / ".claude" / "settings.local.json"
    settings.write_text(json.dumps({"autoMemoryDirectory": str(home.root / "elsewhere")}))
    moved = json.loads(checked(context(home)).text)
    assert moved["stores"][0]["path"] == str(home.root / "elsewhere")


def test_a_corrupt_cache_is_ignored(home: DemoHome) -> None:
    ctx = context(home)
    checked(ctx)
    for cache_file in (Path(os.environ["XDG_CACHE_HOME"]) / "memtui").iterdir():
        cache_file.write_bytes(b"\x00garbage")
    assert checked(ctx).rescanned > 10


WARM_SCRIPT = (  # runs the CLI as if later, then lists the modules it imported
    "import sys, time\n"
    "from memtui.core.cache import ScanCache\n"
    f"ScanCache.clock = staticmethod(lambda: time.time() + {LATER})\n"
    "from memtui.cli import main\n"
    "main(sys.argv[1:])\n"
    "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
)


def test_a_warm_run_imports_no_reader(home: DemoHome, tmp_path: Path) -> None:
    """The lean path: with every store unchanged, ``scan --json`` never imports the
    per-file scanner, the MEMORY.md parser, ruamel or the secret rules (nor tomllib, which
    reads them); nor, cold or warm, memtui's config (whose file is there): scan uses none of
    it."""
    config = home.root / ".config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('theme = "memtui-paper"\n[journal]\nmax_mb = 5\n', encoding="utf-8")
    # a broken header only ruamel explains (the demo's own bad-yaml.md no longer needs it)
    (home.auto_memory / "odd-yaml.md").write_text("---\nname: [a, b\ntype: user\n---\nx\n")
    args = ["--claude-home", str(home.claude_home), "--project", str(home.project),
            "--agent-memory-home", str(home.agent_memory_home), "scan", "--json"]
    env = {**os.environ, "HOME": str(home.root),
           "PYTHONPATH": str(REPO)}

    def run() -> tuple[dict[str, object], set[str]]:
        done = subprocess.run([sys.executable, "-c", WARM_SCRIPT, *args], env=env,
                              capture_output=True, text=True, check=True)
        return json.loads(done.stdout), set(done.stderr.split())

    cold, cold_modules = run()
    warm, warm_modules = run()
    assert warm == cold
    readers = {
        "memtui.core.scan.scanner", "memtui.core.contents", "memtui.core.parse.load_report",
        "ruamel.yaml",
    }
    assert readers <= cold_modules
    assert not readers & warm_modules
    assert cold["git_branch"] == "main"
    assert "git" not in cold_modules | warm_modules  # HEAD is readable: no GitPython
    assert "anthropic" not in cold_modules | warm_modules  # no judge runs in a scan
    assert "memtui.core.config" not in cold_modules | warm_modules
    assert "memtui.core.secrets.rules" in cold_modules  # the cold run scans for secrets
    assert not {"memtui.core.secrets.rules", "tomllib"} & warm_modules


@pytest.mark.parametrize(
    ("head", "branch"),
    [(None, None), ("ref: refs/remotes/origin/main\n", "origin/main")],
    ids=["no HEAD", "HEAD outside refs/heads"],
)
def test_the_gitpython_fallback_is_cached(
    home: DemoHome, tmp_path: Path, head: str | None, branch: str | None
) -> None:
    """Without a readable HEAD git cannot tell the branch: GitPython (whose import runs
    ``git version``) is never imported. A HEAD it must interpret is asked once: the warm run
    takes the answer from the cache, runs no git and imports no GitPython."""
    dot_git = home.project / ".git"
    if head is None:
        (dot_git / "HEAD").unlink()
    else:
        (dot_git / "HEAD").write_text(head, encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "git-calls.log"
    real_git = shutil.which("git")
    assert real_git is not None
    fake = bin_dir / "git"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real_git} "$@"\n')
    fake.chmod(0o755)
    args = ["--claude-home", str(home.claude_home), "--project", str(home.project),
            "--agent-memory-home", str(home.agent_memory_home), "scan", "--json"]
    env = {**os.environ, "HOME": str(home.root), "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "GIT_PYTHON_GIT_EXECUTABLE": str(fake),
           "PYTHONPATH": str(REPO)}

    def run() -> tuple[dict[str, object], set[str], str]:
        done = subprocess.run([sys.executable, "-c", WARM_SCRIPT, *args], env=env,
                              capture_output=True, text=True, check=True)
        calls = log.read_text() if log.exists() else ""
        log.unlink(missing_ok=True)
        return json.loads(done.stdout), set(done.stderr.split()), calls

    cold, cold_modules, cold_calls = run()
    warm, warm_modules, warm_calls = run()
    assert warm == cold and cold["git_branch"] == branch
    cold_imports = head is not None
    assert ("git" in cold_modules) is cold_imports
    assert ("version" in cold_calls) is cold_imports
    assert "git" not in warm_modules
    assert warm_calls == ""


def test_a_secret_in_a_store_path_or_session_is_masked_as_scan_json_masks_it(
    home: DemoHome, tmp_path: Path
) -> None:
    """The store's and session's own fields are looked for keywords once for all of them
    (issue 25): a secret in one of them is masked all the same, and the text is a scan's."""
    from memtui.core.demo.story import FAKE_GITHUB_PAT
    from memtui.core.stores.locations import Context, sessions_dir

    agent_home = home.root / f"agentmemory-{FAKE_GITHUB_PAT}"
    home.agent_memory_home.rename(agent_home)
    sessions = sessions_dir(context(home))[0]
    session = next(p for p in sorted(sessions.iterdir()) if (p / "session-memory").is_dir())
    session.rename(session.with_name(f"s-{FAKE_GITHUB_PAT}"))
    ctx = Context.create(project=home.project, claude_home=home.claude_home,
                         agent_memory_home=agent_home,
                         env={"HOME": str(home.root), "XDG_CACHE_HOME": str(tmp_path / "c")})
    for _ in range(2):  # cold, then from the stored fragments
        text = checked(ctx).text
        assert FAKE_GITHUB_PAT not in text
        stores = json.loads(text)["stores"]
        masked = f"{FAKE_GITHUB_PAT[:4]}…{FAKE_GITHUB_PAT[-4:]}"
        assert any(masked in s["path"] for s in stores if s["kind"] == "agentmemory")
        assert any(masked in (s["session"] or "") for s in stores if s["kind"] == "session")
