"""The demo home keeps every promise it makes, checked with plain file reads."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import re
import stat
import sys
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from helpers import REPO
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.story import FAKE_AWS_KEY_ID, FAKE_GITHUB_PAT, SNAPSHOT_UPDATED
from memtui.core.demo.writers import (
    DAY,
    add_worktree,
    fill_session_template,
    make_git_repo,
    write_file,
    write_index,
    write_memory,
    write_session,
    write_transcript,
    yaml_scalar,
)
from memtui.core.stores.sanitize import sanitize_path
from memtui.core.stores.sessions import DEFAULT_SESSION_TEMPLATE as SESSION_TEMPLATE
from memtui.core.stores.sessions import SESSION_SECTIONS

NOW = 1_800_000_000.0  # far from the real clock: a file left un-aged would stand out
ENTRY = re.compile(r"^- \[([^\]]*)\]\(([^)]+)\)")
WIKILINK = re.compile(r"\[\[([^\]]+)\]\]")
GITHUB_PAT = re.compile(r"ghp_[0-9a-zA-Z]{36}")
AWS_KEY = re.compile(r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b")
CC_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
# sha256 of Claude Code's DEFAULT_SESSION_MEMORY_TEMPLATE
# (v2.1.88; docs/claude-code-rules.md#session-memory)
CC_TEMPLATE_SHA256 = "d8ceb45fb0685ba25b6a41b46b5aacae2828a63804156c664af4afe2db9713e4"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("demo") / "home", now=NOW)


def load_yaml(text: str) -> object:
    return YAML(typ="safe").load(text)


def frontmatter_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return text[4 : text.index("\n---\n", 3) + 1]


def cc_retry_quote(raw: str) -> str:
    """CC's quoteProblematicValues: double-quote simple ``key: value`` lines with special chars."""
    out = []
    for line in raw.split("\n"):
        match = re.fullmatch(r"([a-zA-Z_-]+):\s+(.+)", line)
        value = match.group(2) if match else ""
        quoted = value[:1] in "\"'" and value[-1:] == value[:1]
        if match and not quoted and CC_SPECIAL.search(value):
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{match.group(1)}: "{escaped}"'
        out.append(line)
    return "\n".join(out)


def index_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").strip().split("\n")


def entry_targets(lines: list[str]) -> list[tuple[int, str]]:
    return [(n, m.group(2)) for n, line in enumerate(lines, 1) if (m := ENTRY.match(line))]


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def age_days(path: Path, now: float = NOW) -> float:
    return (now - path.stat().st_mtime) / DAY


# --------------------------------------------------------------------------- the whole home


def test_build_is_fast_and_resolves_the_root(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    started = time.process_time()  # CPU time: a loaded machine stretches the wall clock only
    home = build_demo_home(tmp_path / "link")
    assert time.process_time() - started < 2.0
    assert home.root == real.resolve()
    assert home.claude_home == home.root / "claude"
    assert home.project == home.root / "project"
    assert home.worktree == home.root / "project-worktree"
    assert home.agent_memory_home == home.root / "agent-memory"


def test_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        build_demo_home(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_every_file_is_aged_relative_to_now(demo: DemoHome) -> None:
    for dirpath, dirnames, filenames in os.walk(demo.root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            if name == ".git":
                continue
            age = age_days(path)
            assert 0 <= age <= 121, f"{path} is {age:.1f} days old"


def test_ages_are_exact(demo: DemoHome) -> None:
    assert age_days(demo.auto_memory / "deploy-freeze.md") == pytest.approx(5)
    assert age_days(demo.auto_memory / "user-languages.md") == pytest.approx(120)
    ages = {
        round(age_days(p))
        for p in demo.auto_memory.glob("*.md")
        if not p.is_symlink() and p.name != "unreadable.md"
    }
    assert min(ages) <= 1 and max(ages) >= 119 and len(ages) > 40


def test_default_now_is_the_real_clock(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path / "h")
    age = age_days(home.auto_memory / "deploy-freeze.md", time.time())
    assert age == pytest.approx(5, abs=0.01)


# --------------------------------------------------------------------------- git and settings


def test_project_is_a_git_repo_with_a_linked_worktree(demo: DemoHome) -> None:
    assert (demo.project / ".git").is_dir()
    assert (demo.project / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    git_file = (demo.worktree / ".git").read_text()
    assert git_file.startswith("gitdir: ")
    gitdir = Path(git_file.removeprefix("gitdir: ").strip())
    assert gitdir.parent == demo.project / ".git" / "worktrees"
    assert (gitdir / "commondir").read_text().strip() in ("../..", str(demo.project / ".git"))
    assert Path((gitdir / "gitdir").read_text().strip()) == demo.worktree / ".git"
    assert (gitdir / "HEAD").read_text() == "ref: refs/heads/hotfix\n"
    assert (demo.worktree / ".claude" / "settings.json").is_file()
    assert not (demo.worktree / ".claude" / "agent-memory-local").exists()  # gitignored


def test_settings_put_the_override_only_where_cc_ignores_it(demo: DemoHome) -> None:
    project_settings = json.loads((demo.project / ".claude" / "settings.json").read_text())
    assert project_settings["autoMemoryDirectory"] == "~/evil-memory"
    user_settings = json.loads((demo.claude_home / "settings.json").read_text())
    assert "autoMemoryDirectory" not in user_settings
    assert not (demo.project / ".claude" / "settings.local.json").exists()
    assert not (demo.claude_home / "session-memory" / "config").exists()


def test_auto_memory_is_where_cc_puts_it(demo: DemoHome) -> None:
    expected = demo.claude_home / "projects" / sanitize_path(str(demo.project)) / "memory"
    assert demo.auto_memory == expected
    assert (expected / "MEMORY.md").is_file()
    assert demo.team_memory == expected / "team"


def test_git_helpers_work_without_global_config(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write_file(repo / "a.txt", "a\n")
    make_git_repo(repo)
    add_worktree(repo, tmp_path / "wt", "feature")
    assert (tmp_path / "wt" / "a.txt").read_text() == "a\n"
    assert (repo / ".git" / "worktrees" / "wt" / "HEAD").read_text() == "ref: refs/heads/feature\n"


# --------------------------------------------------------------------------- the main index


def test_main_index_overflows_by_lines_only(demo: DemoHome) -> None:
    text = (demo.auto_memory / "MEMORY.md").read_text(encoding="utf-8")
    assert not text.startswith("---")
    lines = text.strip().split("\n")
    assert 205 <= len(lines) <= 225
    assert len(text.strip()) < 25_000  # ASCII apart from em dashes: chars == UTF-16 units
    assert sum(1 for line in lines if line.startswith("## ")) >= 5
    assert len(entry_targets(lines)) >= 180


def test_main_index_health_facts(demo: DemoHome) -> None:
    lines = index_lines(demo.auto_memory / "MEMORY.md")
    targets = entry_targets(lines)
    dangling = [(n, t) for n, t in targets if not os.path.lexists(demo.auto_memory / t)]
    assert len(dangling) == 2
    assert dangling[0][0] <= 200 < dangling[1][0]  # one loaded, one past the cut
    assert sum(1 for line in lines if ENTRY.match(line) and len(line) > 200) == 1
    indexed = {t for _, t in targets}
    files = {
        p.relative_to(demo.auto_memory).as_posix()
        for p in demo.auto_memory.rglob("*.md")
        if p.name != "MEMORY.md" and "team" not in p.relative_to(demo.auto_memory).parts
    }
    assert sorted(files - indexed) == ["legacy-coupons.md", "user-timezone.md"]
    assert "logs/2026/11/2026-11-20.md" in indexed
    past_cut = {t for n, t in targets if n > 200}
    assert "refund-coupons.md" in past_cut and (demo.auto_memory / "refund-coupons.md").is_file()


def test_topic_files_cover_layouts_and_types(demo: DemoHome) -> None:
    layouts, types = Counter[str](), Counter[str]()
    for path in demo.auto_memory.glob("*.md"):
        if path.name in {
            "MEMORY.md",
            "binary.md",
            "latin1.md",
            "bad-yaml.md",
            "unreadable.md",
            "huge.md",
            "escape.md",
        }:
            continue
        raw = frontmatter_text(path)
        data = load_yaml(raw)
        assert isinstance(data, dict), path
        if "metadata" in data:
            layouts["metadata"] += 1
            assert "\nmetadata: \n" in "\n" + raw  # trailing space, as newer CC writes it
            kind = data["metadata"]["type"]
            assert data["metadata"]["node_type"] == "memory"
            assert re.search(r"\n  modified: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n", raw)
        else:
            layouts["flat"] += 1
            kind = data["type"]
        types[kind] += 1
        assert data["name"] == path.stem
        body = path.read_text(encoding="utf-8")
        if kind in ("feedback", "project"):
            assert "\n**Why:** " in body and "\n**How to apply:** " in body, path
    assert layouts["flat"] > 20 and layouts["metadata"] > 20
    assert set(types) == {"user", "feedback", "project", "reference"}


def test_wikilinks_resolve_except_one(demo: DemoHome) -> None:
    stems = {p.stem for p in demo.auto_memory.rglob("*.md")}
    links = [
        link
        for path in demo.auto_memory.glob("*.md")
        if path.is_file()
        and os.access(path, os.R_OK)
        and path.name not in {"binary.md", "latin1.md"}
        for link in WIKILINK.findall(path.read_text(encoding="utf-8"))
    ]
    assert len(links) >= 3
    assert [link for link in links if link not in stems] == ["payments-retry-policy"]


def test_conflicting_and_duplicate_memories(demo: DemoHome) -> None:
    postgres = (demo.auto_memory / "test-db-postgres.md").read_text()
    sqlite = (demo.auto_memory / "test-db-sqlite.md").read_text()
    assert "Test database" in postgres and "Test database" in sqlite
    assert "real Postgres" in postgres and "never SQLite" in postgres
    assert "SQLite in memory" in sqlite

    def normalized_body(path: Path) -> str:
        text = path.read_text()
        body = text[text.index("\n---\n", 3) + 5 :]
        return " ".join(body.lower().split())

    assert normalized_body(demo.auto_memory / "grafana-dashboards.md") == normalized_body(
        demo.auto_memory / "dashboards-grafana.md"
    )
    reviewer = demo.claude_home / "agent-memory" / "reviewer" / "deploy-freeze.md"
    assert normalized_body(reviewer) == normalized_body(demo.auto_memory / "deploy-freeze.md")


# --------------------------------------------------------------------------- awkward files


def test_awkward_files(demo: DemoHome) -> None:
    auto = demo.auto_memory
    assert b"\x00" in (auto / "binary.md").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        (auto / "latin1.md").read_bytes().decode("utf-8")
    assert stat.S_IMODE((auto / "unreadable.md").stat().st_mode) == 0
    huge = auto / "huge.md"
    assert huge.stat().st_size == 3_000_000
    data = huge.read_bytes()
    assert b"\x00" not in data and data.endswith(b"\n")
    assert isinstance(load_yaml(frontmatter_text(huge)), dict)
    escape = auto / "escape.md"
    assert escape.is_symlink()
    target = Path(os.path.realpath(escape))
    assert target == demo.outside_file and target.is_file()
    assert not target.is_relative_to(auto)
    logs = auto / "logs" / "2026" / "11" / "2026-11-20.md"
    assert logs.read_text().startswith("# 2026-11-20")


def test_bad_yaml_fails_even_after_cc_retry(demo: DemoHome) -> None:
    raw = frontmatter_text(demo.auto_memory / "bad-yaml.md")
    retried = cc_retry_quote(raw)
    assert retried != raw
    for text in (raw, retried):
        with pytest.raises(YAMLError):
            load_yaml(text)


def test_cc_retry_replica_fixes_what_it_should() -> None:
    assert load_yaml(cc_retry_quote("description: use src/*.{ts,tsx}\n")) == {
        "description": "use src/*.{ts,tsx}"
    }


def test_consolidate_lock_is_stale(demo: DemoHome) -> None:
    lock = demo.auto_memory / ".consolidate-lock"
    assert lock.read_text().isdigit()
    assert age_days(lock) == pytest.approx(2)


# --------------------------------------------------------------------------- team memory


def test_team_memory_with_fake_secrets(demo: DemoHome) -> None:
    team = demo.team_memory
    assert sorted(p.name for p in team.iterdir()) == [
        "MEMORY.md",
        "aws-staging.md",
        "ci-tokens.md",
        "code-review.md",
    ]
    assert {t for _, t in entry_targets(index_lines(team / "MEMORY.md"))} == {
        "aws-staging.md",
        "ci-tokens.md",
        "code-review.md",
    }
    pat = GITHUB_PAT.findall((team / "ci-tokens.md").read_text())
    aws = AWS_KEY.findall((team / "aws-staging.md").read_text())
    assert pat == [FAKE_GITHUB_PAT] and aws == [FAKE_AWS_KEY_ID]
    assert entropy(FAKE_GITHUB_PAT) > 3 and entropy(FAKE_AWS_KEY_ID) > 3  # gitleaks' threshold
    assert not FAKE_AWS_KEY_ID.endswith("EXAMPLE")  # gitleaks allowlists AWS's example key
    assert not GITHUB_PAT.search((team / "code-review.md").read_text())


# --------------------------------------------------------------------------- sessions


def test_session_template_is_ccs_default() -> None:
    assert hashlib.sha256(SESSION_TEMPLATE.encode()).hexdigest() == CC_TEMPLATE_SHA256
    lines = SESSION_TEMPLATE.strip().split("\n")
    headings = [line for line in lines if line.startswith("# ")]
    assert [h[2:] for h in headings] == [title for title, _ in SESSION_SECTIONS]
    assert headings[0] == "# Session Title" and headings[-1] == "# Worklog"
    for i, line in enumerate(lines):
        if line.startswith("# "):
            assert lines[i + 1].startswith("_") and lines[i + 1].endswith("_")


def session_dir(demo: DemoHome, cwd: Path) -> Path:
    return demo.claude_home / "projects" / sanitize_path(str(cwd))


def test_sessions_modes_and_contents(demo: DemoHome) -> None:
    main = session_dir(demo, demo.project)
    summaries = sorted(main.glob("*/session-memory/summary.md"))
    assert len(summaries) == 3
    empty = [s for s in summaries if s.read_text().strip() == SESSION_TEMPLATE.strip()]
    assert len(empty) == 1
    for summary in summaries:
        assert stat.S_IMODE(summary.stat().st_mode) == 0o600
        assert stat.S_IMODE(summary.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(summary.parent.parent.stat().st_mode) == 0o700
        transcript = main / f"{summary.parent.parent.name}.jsonl"
        assert stat.S_IMODE(transcript.stat().st_mode) == 0o600
    filled = next(s for s in summaries if s not in empty).read_text()
    assert all(f"# {title}\n_{hint}_\n" in filled for title, hint in SESSION_SECTIONS)


def read_records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_transcripts_reveal_cwd_in_their_first_lines(demo: DemoHome) -> None:
    main = session_dir(demo, demo.project)
    transcripts = sorted(main.glob("*.jsonl"))
    assert {t.stem for t in transcripts} == set(demo.session_ids[:3])
    for transcript in transcripts:
        records = read_records(transcript)
        cwd = next(r["cwd"] for r in records[:5] if "cwd" in r)
        assert cwd == str(demo.project)
        assert all(r["sessionId"] == transcript.stem for r in records if "cwd" in r)
    with_summary = [t for t in transcripts if read_records(t)[0]["type"] == "summary"]
    assert with_summary and "cwd" not in read_records(with_summary[0])[0]


def test_worktree_session_is_keyed_on_the_worktree(demo: DemoHome) -> None:
    wt = session_dir(demo, demo.worktree)
    sid = demo.session_ids[3]
    assert (wt / sid / "session-memory" / "summary.md").is_file()
    records = read_records(wt / f"{sid}.jsonl")
    assert {r["gitBranch"] for r in records if "cwd" in r} == {"hotfix"}
    assert {r["cwd"] for r in records if "cwd" in r} == {str(demo.worktree)}
    assert not (wt / "memory").exists()  # worktrees share the repo's auto memory


def test_other_projects(demo: DemoHome) -> None:
    projects = demo.claude_home / "projects"
    own = {sanitize_path(str(demo.project)), sanitize_path(str(demo.worktree))}
    others = sorted(p for p in projects.iterdir() if p.name not in own)
    assert len(others) == 4
    cwds = {}
    for project in others:
        assert (project / "memory" / "MEMORY.md").is_file()
        for transcript in project.glob("*.jsonl"):
            cwds[project.name] = next(r["cwd"] for r in read_records(transcript) if "cwd" in r)
    assert cwds["-home-dev-src-infra-tools"] == "/home/dev/src/infra_tools"
    assert len(cwds) == 3
    assert all(sanitize_path(str(cwd)) == name for name, cwd in cwds.items())


# --------------------------------------------------------------------------- agents


def agent_frontmatter(path: Path) -> dict[str, str]:
    data = load_yaml(frontmatter_text(path))
    assert isinstance(data, dict)
    return data


def test_agent_definitions(demo: DemoHome) -> None:
    user = {p.stem: agent_frontmatter(p)["memory"] for p in (demo.claude_home / "agents").glob("*")}
    assert user == {"reviewer": "user", "planner": "user", "docs-writer": "project"}
    project = {
        p.stem: agent_frontmatter(p)["memory"]
        for p in (demo.project / ".claude" / "agents").glob("*.md")
    }
    assert project == {"migrator": "local", "qa": "user"}


def test_agent_memory_dirs(demo: DemoHome) -> None:
    user_root = demo.claude_home / "agent-memory"
    assert sorted(p.name for p in user_root.iterdir()) == [
        "acme-lint",
        "old-helper",
        "planner",
        "reviewer",
    ]
    dirs = [
        *user_root.iterdir(),
        demo.project / ".claude" / "agent-memory" / "docs-writer",
        demo.project / ".claude" / "agent-memory-local" / "migrator",
    ]
    for directory in dirs:
        topics = [p for p in directory.glob("*.md") if p.name != "MEMORY.md"]
        assert (directory / "MEMORY.md").is_file() and 2 <= len(topics) <= 5, directory


def test_agent_index_truncation_cases(demo: DemoHome) -> None:
    planner = index_lines(demo.claude_home / "agent-memory" / "planner" / "MEMORY.md")
    assert 200 < len(planner) <= 210
    reviewer_text = (demo.claude_home / "agent-memory" / "reviewer" / "MEMORY.md").read_text()
    assert reviewer_text.startswith("---\n") and "<!--" in reviewer_text
    raw_lines = reviewer_text.strip().split("\n")
    body = reviewer_text[reviewer_text.index("\n---\n", 3) + 5 :]
    stripped = re.sub(r"(?ms)^<!--.*?-->\n?", "", body).strip().split("\n")
    assert len(raw_lines) > 200 >= len(stripped)  # truncated as agent memory, not as main


# --------------------------------------------------------------------------- snapshots


def snapshot_dir(demo: DemoHome, agent: str) -> Path:
    return demo.project / ".claude" / "agent-memory-snapshots" / agent


def test_snapshot_json_per_agent(demo: DemoHome) -> None:
    root = demo.project / ".claude" / "agent-memory-snapshots"
    assert sorted(p.name for p in root.iterdir()) == ["docs-writer", "planner", "qa", "reviewer"]
    for agent in ("reviewer", "planner", "qa"):
        data = json.loads((snapshot_dir(demo, agent) / "snapshot.json").read_text())
        assert data["updatedAt"] == SNAPSHOT_UPDATED[agent]
    with pytest.raises(json.JSONDecodeError):
        json.loads((snapshot_dir(demo, "docs-writer") / "snapshot.json").read_text())
    for agent in ("reviewer", "planner", "qa", "docs-writer"):
        entries = list(snapshot_dir(demo, agent).iterdir())
        assert any(p.is_dir() for p in entries), agent
        assert any(p.is_file() and p.suffix not in (".md", ".json") for p in entries), agent
        assert any(p.suffix == ".md" for p in entries), agent


def test_snapshot_sync_states(demo: DemoHome) -> None:
    agents = demo.claude_home / "agent-memory"
    reviewer_synced = (agents / "reviewer" / ".snapshot-synced.json").read_text()
    assert reviewer_synced == '{"syncedFrom":"2026-10-01T09:00:00.000Z"}'
    assert json.loads(reviewer_synced)["syncedFrom"] < SNAPSHOT_UPDATED["reviewer"]
    assert list((agents / "reviewer").glob("*.md"))
    planner_synced = json.loads((agents / "planner" / ".snapshot-synced.json").read_text())
    assert planner_synced == {"syncedFrom": SNAPSHOT_UPDATED["planner"]}
    assert not list((agents / "qa").glob("*.md"))  # missing dir → initialize


# --------------------------------------------------------------------------- agentmemory


def test_agentmemory_home(demo: DemoHome) -> None:
    home = demo.agent_memory_home
    stamp = re.compile(r"^<!-- \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \[[0-9a-f]{8}\] -->$", re.M)
    daily = sorted(p.name for p in (home / "daily").iterdir())
    assert daily == ["2026-11-25.md", "2026-11-26.md", "2026-11-27.md"]
    for name in daily:
        text = (home / "daily" / name).read_text()
        assert stamp.search(text) and re.search(r"(?:^|\s)#([a-zA-Z][\w-]*)", text)
    assert "[[payments]]" in (home / "daily" / "2026-11-27.md").read_text()
    for topic in (home / "topics").iterdir():
        text = topic.read_text()
        assert text.startswith("# Topic: ") and re.search(r"Daily: \[\[\d{4}-\d{2}-\d{2}\]\]", text)
    scratch = (home / "SCRATCHPAD.md").read_text()
    assert "- [ ] " in scratch and "- [x] " in scratch and stamp.search(scratch)
    index = (home / "MEMORY.md").read_text()
    assert index.startswith("# Memory Index\n") and "## Pinned\n" in index


# --------------------------------------------------------------------------- helpers


def test_write_memory_layouts_round_trip(tmp_path: Path) -> None:
    flat = write_memory(
        tmp_path,
        "a.md",
        description="x: y",
        type="feedback",
        body="B\n",
        origin_session="s1",
        mtime_days_ago=3,
        now=NOW,
    )
    meta = write_memory(
        tmp_path,
        "sub/b.md",
        description="d",
        type="user",
        layout="metadata",
        mtime_days_ago=1,
        now=NOW,
    )
    assert load_yaml(frontmatter_text(flat)) == {
        "name": "a",
        "description": "x: y",
        "type": "feedback",
        "originSessionId": "s1",
    }
    data = load_yaml(frontmatter_text(meta))
    assert isinstance(data, dict) and data["metadata"]["type"] == "user"
    assert "metadata: \n  node_type: memory\n" in meta.read_text()
    assert age_days(flat) == pytest.approx(3) and age_days(meta) == pytest.approx(1)
    assert flat.read_text().endswith("---\nB\n")


def test_write_index_and_session_helpers(tmp_path: Path) -> None:
    index = write_index(tmp_path, ["# I", "- [A](a.md) — a"])
    assert index.read_text() == "# I\n- [A](a.md) — a\n"
    summary = write_session(tmp_path, "/w/x", "sid-1")
    assert summary == tmp_path / "projects" / "-w-x" / "sid-1" / "session-memory" / "summary.md"
    assert summary.read_text() == SESSION_TEMPLATE
    filled = fill_session_template({"Learnings": "Use the allocator."})
    assert "_\n\nUse the allocator.\n\n# Key results" in filled
    assert filled.replace("\n\nUse the allocator.", "") == SESSION_TEMPLATE


def test_sparse_transcript(tmp_path: Path) -> None:
    path = write_transcript(
        tmp_path / "t.jsonl", "/w", "sid", size=50_000_000, summary="s", prompts=["a", "b"]
    )
    st_ = path.stat()
    assert st_.st_size == 50_000_000 and st_.st_blocks * 512 < 1_000_000
    with path.open("rb") as handle:
        first = [json.loads(handle.readline()) for _ in range(5)]
    assert first[0]["type"] == "summary" and first[1]["cwd"] == "/w"


@given(st.text(max_size=40))
def test_yaml_scalar_reads_back(value: str) -> None:
    assert load_yaml(f"key: {yaml_scalar(value)}\n") == {"key": value}


# --------------------------------------------------------------------------- the bench generator


def load_bench() -> ModuleType:
    path = REPO / "bench" / "generate_home.py"
    spec = importlib.util.spec_from_file_location("generate_home", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_home"] = module
    spec.loader.exec_module(module)
    return module


def test_bench_generator_small_run(tmp_path: Path) -> None:
    bench = load_bench()
    tally = bench.generate(
        tmp_path / "a", projects=6, memories=400, transcript_bytes=40_000_000, seed=3
    )
    claude = tmp_path / "a" / "claude"
    assert len(list((claude / "projects").iterdir())) == 6
    assert sum(tally.memories.values()) == 400
    assert tally.transcript_bytes >= 40_000_000 and tally.transcript_disk < 5_000_000
    own = claude / "projects" / sanitize_path(str(tmp_path / "a" / "project")) / "memory"
    assert len([p for p in own.rglob("*.md") if p.name != "MEMORY.md"]) == 60 + 10
    assert (tmp_path / "a" / "project" / ".git").is_dir()
    bench.generate(tmp_path / "b", projects=6, memories=400, transcript_bytes=40_000_000, seed=3)
    assert md_fingerprint(tmp_path / "a") == md_fingerprint(tmp_path / "b")  # same seed, same home


def md_fingerprint(root: Path) -> dict[str, str]:
    """Every .md file's path (the root-dependent project dir name masked) and content hash."""
    own = sanitize_path(str(root / "project"))
    return {
        p.relative_to(root).as_posix().replace(own, "BENCH"): hashlib.sha256(
            p.read_bytes()
        ).hexdigest()
        for p in root.rglob("*.md")
        if ".git" not in p.parts
    }
