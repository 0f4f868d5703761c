"""Where stores live: every location rule of docs/claude-code-rules.md (its sections from
"Project directory names" to "Agent memory")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import make_git_repo, write_file
from memtui.core.model import Scope, StoreKind
from memtui.core.stores.locations import Context, locate
from memtui.core.stores.sanitize import find_project_dir, sanitize_path, sanitized_prefix


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("demo"))


def ctx_for(home: DemoHome, project: Path | None = None, **env: str) -> Context:
    base_env = {"HOME": str(home.root), "MEMTUI_POLICY_SETTINGS": str(home.root / "no-policy.json")}
    base_env.update(env)
    return Context.create(
        project=project or home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env=base_env,
    )


# sanitizePath (docs/claude-code-rules.md#project-directory-names) ---------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/Users/foo/my-project", "-Users-foo-my-project"),
        ("C:\\Users\\foo\\my.project", "C--Users-foo-my-project"),
        ("/home/u/日本語/😀x", "-home-u-------x"),
        ("/a_b c:d", "-a-b-c-d"),
    ],
)
def test_sanitize_path_vectors(path: str, expected: str) -> None:
    assert sanitize_path(path) == expected


def test_long_names_are_found_by_their_200_unit_prefix(tmp_path: Path) -> None:
    long_path = "/" + "x" * 250
    prefix = sanitized_prefix(long_path)
    assert prefix is not None and len(prefix) == 201 and prefix.endswith("-")
    assert sanitized_prefix("/short") is None
    projects = tmp_path / "projects"
    (projects / (prefix + "k3j2h1")).mkdir(parents=True)
    (projects / ("-" + "x" * 199 + "y-other")).mkdir()
    found, rule = find_project_dir(projects, long_path)
    assert found == projects / (prefix + "k3j2h1")
    assert "200-unit prefix" in rule


def test_emoji_counts_two_units_toward_the_200_limit() -> None:
    path = "/" + "😀" * 100  # 1 + 200 units
    assert len(sanitize_path(path)) == 201
    assert sanitized_prefix(path) == sanitize_path(path)[:200] + "-"


# auto memory directory (docs/claude-code-rules.md#auto-memory-directory) ---------------


def test_default_auto_memory_is_under_projects_of_the_git_root(demo: DemoHome) -> None:
    loc = locate(ctx_for(demo))
    expected = demo.claude_home / "projects" / sanitize_path(str(demo.project)) / "memory"
    assert loc.auto.path == expected
    assert loc.team.path == expected / "team"
    assert loc.auto.rule.startswith("default: git root")


def test_worktree_shares_the_main_checkouts_memory_dir(demo: DemoHome) -> None:
    main = locate(ctx_for(demo))
    worktree = locate(ctx_for(demo, demo.worktree))
    assert worktree.auto.path == main.auto.path
    assert "canonical git root of the worktree" in worktree.auto.rule
    # ...but session memory is keyed on the cwd, not the git root
    assert {s.session for s in worktree.sessions}.isdisjoint({s.session for s in main.sessions})
    assert all(
        sanitize_path(str(demo.worktree)) in str(s.path) for s in worktree.sessions
    ) and worktree.sessions


def test_subdirectory_of_the_repo_uses_the_repo_root(demo: DemoHome) -> None:
    sub = demo.project / ".claude"
    assert locate(ctx_for(demo, sub)).auto.path == locate(ctx_for(demo)).auto.path


def test_checked_in_project_settings_are_ignored(demo: DemoHome) -> None:
    settings = json.loads((demo.project / ".claude" / "settings.json").read_text())
    assert "autoMemoryDirectory" in settings
    loc = locate(ctx_for(demo))
    assert "evil" not in str(loc.auto.path)
    assert "checked-in .claude/settings.json is ignored" in loc.auto.rule


def project_with_settings(tmp_path: Path, **files: dict[str, object]) -> Path:
    project = tmp_path / "proj"
    make_git_repo(project)
    for name, data in files.items():
        write_file(project / ".claude" / f"{name}.json", json.dumps(data))
    return project


def plain_ctx(tmp_path: Path, project: Path, **env: str) -> Context:
    claude = tmp_path / "claude"
    claude.mkdir(exist_ok=True)
    base = {"HOME": str(tmp_path), "MEMTUI_POLICY_SETTINGS": str(tmp_path / "policy.json")}
    base.update(env)
    return Context.create(project=project, claude_home=claude, env=base)


def test_local_settings_are_honoured_and_tilde_expanded(tmp_path: Path) -> None:
    project = project_with_settings(
        tmp_path,
        **{"settings.local": {"autoMemoryDirectory": "~/mem-local"}},
        settings={"autoMemoryDirectory": "~/evil"},
    )
    loc = locate(plain_ctx(tmp_path, project))
    assert loc.auto.path == tmp_path / "mem-local"
    assert "local settings" in loc.auto.rule


def test_user_settings_are_honoured(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path)
    write_file(tmp_path / "claude" / "settings.json", json.dumps({"autoMemoryDirectory": "/m/u"}))
    assert locate(plain_ctx(tmp_path, project)).auto.path == Path("/m/u")


def test_policy_beats_local_beats_user(tmp_path: Path) -> None:
    project = project_with_settings(
        tmp_path, **{"settings.local": {"autoMemoryDirectory": "/m/local"}}
    )
    write_file(tmp_path / "claude" / "settings.json", json.dumps({"autoMemoryDirectory": "/m/u"}))
    assert locate(plain_ctx(tmp_path, project)).auto.path == Path("/m/local")
    write_file(tmp_path / "policy.json", json.dumps({"autoMemoryDirectory": "/m/policy"}))
    loc = locate(plain_ctx(tmp_path, project))
    assert loc.auto.path == Path("/m/policy")
    assert "policy settings" in loc.auto.rule


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("~", "home directory itself"),
        ("~/..", "home directory itself"),
        ("~/.", "home directory itself"),
        ("relative/dir", "relative"),
        ("C:", "bare drive"),
        ("//server/share", "UNC"),
        ("\\\\server\\share", "UNC"),
        ("/a\0b", "NUL"),
        ("/a", "shorter than 3"),
    ],
)
def test_rejected_setting_paths_fall_back_to_the_default(
    tmp_path: Path, value: str, why: str
) -> None:
    project = project_with_settings(tmp_path, **{"settings.local": {"autoMemoryDirectory": value}})
    loc = locate(plain_ctx(tmp_path, project))
    assert loc.auto.rule.startswith("default:")
    assert why in loc.auto.rule
    assert loc.auto.path.name == "memory"


def test_cowork_override_wins_and_does_not_expand_tilde(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, **{"settings.local": {"autoMemoryDirectory": "/m/l"}})
    loc = locate(plain_ctx(tmp_path, project, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE="/m/cowork"))
    assert loc.auto.path == Path("/m/cowork")
    loc = locate(plain_ctx(tmp_path, project, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE="~/cowork"))
    assert loc.auto.path == Path("/m/l")
    assert "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE ignored: it is relative" in loc.auto.rule


def test_claude_config_dir_sets_the_cc_home(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path)
    ctx = Context.create(
        project=project, env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}
    )
    assert ctx.claude_home == tmp_path / "cc"
    assert locate(ctx).auto.path.parent.parent == tmp_path / "cc" / "projects"


def test_remote_memory_dir_moves_auto_and_user_agents_but_not_sessions(demo: DemoHome) -> None:
    remote = demo.root / "remote"
    loc = locate(ctx_for(demo, CLAUDE_CODE_REMOTE_MEMORY_DIR=str(remote)))
    name = sanitize_path(str(demo.project))
    assert loc.auto.path == remote / "projects" / name / "memory"
    assert "$CLAUDE_CODE_REMOTE_MEMORY_DIR" in loc.auto.rule
    agents = {(a.agent, a.scope): a.path for a in loc.agents}
    assert agents[("reviewer", Scope.USER)] == remote / "agent-memory" / "reviewer"
    assert agents[("migrator", Scope.LOCAL)] == (
        remote / "projects" / name / "agent-memory-local" / "migrator"
    )
    assert agents[("docs-writer", Scope.PROJECT)] == (
        demo.project / ".claude" / "agent-memory" / "docs-writer"
    )
    assert loc.sessions and all(s.path.is_relative_to(demo.claude_home) for s in loc.sessions)


# enabled / disabled ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "settings", "enabled", "why"),
    [
        ({}, None, True, "default"),
        ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}, None, False, "DISABLE_AUTO_MEMORY"),
        ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "true"}, None, False, "DISABLE_AUTO_MEMORY"),
        ({"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}, False, True, "false value"),
        ({"CLAUDE_CODE_SIMPLE": "1"}, None, False, "CLAUDE_CODE_SIMPLE"),
        ({"CLAUDE_CODE_REMOTE": "1"}, None, False, "without $CLAUDE_CODE_REMOTE_MEMORY_DIR"),
        ({"CLAUDE_CODE_REMOTE": "1", "CLAUDE_CODE_REMOTE_MEMORY_DIR": "/r/m"}, None, True,
         "default"),
        ({}, False, False, "autoMemoryEnabled: false in project settings"),
    ],
)
def test_auto_memory_enabled_rules(
    tmp_path: Path, env: dict[str, str], settings: bool | None, enabled: bool, why: str
) -> None:
    files = {} if settings is None else {"settings": {"autoMemoryEnabled": settings}}
    project = project_with_settings(tmp_path, **files)
    loc = locate(plain_ctx(tmp_path, project, **env))
    assert loc.auto.enabled is enabled
    assert why in loc.auto.enabled_rule


def test_broken_settings_file_is_reported_not_fatal(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path)
    write_file(project / ".claude" / "settings.local.json", "{not json")
    loc = locate(plain_ctx(tmp_path, project))
    assert any("not valid JSON" in p for p in loc.problems)
    assert loc.auto.path.name == "memory"


# agents (docs/claude-code-rules.md#agent-memory) ----------------------------------------


def test_agents_defined_and_found_on_disk(demo: DemoHome) -> None:
    loc = locate(ctx_for(demo))
    found = {(a.agent, a.scope) for a in loc.agents}
    assert ("reviewer", Scope.USER) in found
    assert ("docs-writer", Scope.PROJECT) in found
    assert ("migrator", Scope.LOCAL) in found
    assert ("qa", Scope.USER) in found  # defined, no directory yet
    assert ("old-helper", Scope.USER) in found  # directory without a definition
    assert ("acme-lint", Scope.USER) in found  # plugin agent acme:lint, ':' became '-'
    by_key = {(a.agent, a.scope): a for a in loc.agents}
    assert "found on disk" in by_key[("old-helper", Scope.USER)].rule
    assert "memory: user" in by_key[("reviewer", Scope.USER)].rule
    assert all(a.kind == StoreKind.AGENT for a in loc.agents)


def test_snapshots_keep_the_colon_in_the_agent_type(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path)
    write_file(
        project / ".claude" / "agent-memory-snapshots" / "acme:lint" / "snapshot.json",
        '{"updatedAt": "2026-11-01"}',
    )
    loc = locate(plain_ctx(tmp_path, project))
    assert [s.agent for s in loc.snapshots] == ["acme:lint"]


# a project opened by its directory under the CC home ---------------------------------------


def test_a_project_opened_by_its_cc_home_dir_reads_no_source_tree(tmp_path: Path) -> None:
    """An orphaned project (its source path unknown) opens by ``<CC home>/projects/<name>``:
    auto memory, team and sessions there; user-scope agents; no git (even with the CC home in
    a dotfiles repo), no project agents, snapshots or project-scope agent memory, and an
    agent defined with ``memory: project`` is no error."""
    home = tmp_path / "home"
    claude = home / ".claude"
    project_dir = claude / "projects" / "-home-dev-gone"
    write_file(project_dir / "memory" / "MEMORY.md", "- [A](a.md) — x\n")
    write_file(project_dir / "memory" / "a.md", "a\n")
    write_file(project_dir / "s-1" / "session-memory" / "summary.md", "s\n")
    write_file(claude / "agent-memory" / "helper" / "MEMORY.md", "h\n")
    write_file(claude / "agents" / "proj.md", "---\nname: proj\nmemory: project\n---\nbody\n")
    make_git_repo(home)  # the dotfiles repo
    ctx = Context.create(
        claude_home=claude, project_dir=project_dir, env={"HOME": str(home)}, home=home
    )
    assert ctx.project == project_dir and ctx.project_dir == project_dir
    assert ctx.project_note == "source path unknown: showing its stores under the CC home only"
    found = locate(ctx)
    assert found.git is None
    assert found.auto.path == project_dir / "memory"
    assert "opened by its directory" in found.auto.rule
    assert found.team.path == project_dir / "memory" / "team"
    assert [s.path for s in found.sessions] == [project_dir / "s-1" / "session-memory"]
    assert [(a.agent, a.scope) for a in found.agents] == [("helper", Scope.USER)]
    assert found.snapshots == []

    gone = ctx.opened_by_dir(project_dir, "/home/dev/gone")
    assert gone.project_note == (
        "source path /home/dev/gone missing on disk: showing its stores under the CC home only")
    back = gone.opened_at(home)
    assert back.project_dir is None and back.project_note is None and back.project == home


def trust(tmp_path: Path, path: Path, accepted: bool = True) -> None:
    """Claude Code's answer to its trust dialog for ``path``, where it keeps it (the CC home
    here is not ``~/.claude``, so ``<CC home>/.claude.json``)."""
    config = {"projects": {str(path): {"hasTrustDialogAccepted": accepted, "history": []}}}
    write_file(tmp_path / "claude" / ".claude.json", json.dumps(config))


def test_project_settings_count_in_a_trusted_workspace(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, settings={"autoMemoryDirectory": "~/team-mem"})
    write_file(tmp_path / "claude" / "settings.json", json.dumps({"autoMemoryDirectory": "/m/u"}))
    untrusted = locate(plain_ctx(tmp_path, project))
    assert untrusted.auto.path == Path("/m/u")  # the user's setting, the project's refused
    trust(tmp_path, project)
    loc = locate(plain_ctx(tmp_path, project))
    assert loc.auto.path == tmp_path / "team-mem"  # project settings beat user settings
    assert "autoMemoryDirectory in project settings" in loc.auto.rule


def test_an_untrusted_workspace_says_why_its_setting_is_ignored(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, settings={"autoMemoryDirectory": "~/team-mem"})
    loc = locate(plain_ctx(tmp_path, project))
    assert loc.auto.rule.startswith("default:")
    assert "only in a trusted workspace (no .claude.json records a trust answer)" in loc.auto.rule
    trust(tmp_path, project, accepted=False)
    loc = locate(plain_ctx(tmp_path, project))
    assert "the workspace is not trusted in .claude.json" in loc.auto.rule


def test_trusting_a_parent_directory_trusts_the_project(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, settings={"autoMemoryDirectory": "~/team-mem"})
    trust(tmp_path, tmp_path)
    assert locate(plain_ctx(tmp_path, project)).auto.path == tmp_path / "team-mem"


def test_local_settings_beat_project_settings(tmp_path: Path) -> None:
    project = project_with_settings(
        tmp_path, settings={"autoMemoryDirectory": "~/team-mem"},
        **{"settings.local": {"autoMemoryDirectory": "~/mine"}})
    trust(tmp_path, project)
    assert locate(plain_ctx(tmp_path, project)).auto.path == tmp_path / "mine"


def test_claude_code_2_1_88_ignores_project_settings_even_when_trusted(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, settings={"autoMemoryDirectory": "~/team-mem"})
    trust(tmp_path, project)
    ctx = Context.create(project=project, claude_home=tmp_path / "claude",
                         env={"HOME": str(tmp_path),
                              "MEMTUI_POLICY_SETTINGS": str(tmp_path / "policy.json")},
                         claude_code_version="2.1.88")
    loc = locate(ctx)
    assert loc.auto.rule.startswith("default:")
    assert "only after 2.1.88; Claude Code 2.1.88 (--claude-code-version)" in loc.auto.rule


def test_a_broken_global_config_trusts_nothing(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, settings={"autoMemoryDirectory": "~/team-mem"})
    write_file(tmp_path / "claude" / ".claude.json", "{not json")
    loc = locate(plain_ctx(tmp_path, project))
    assert loc.auto.rule.startswith("default:")
    assert ".claude.json is no JSON object" in loc.auto.rule


def test_the_default_cc_home_keeps_trust_in_the_home_directory(tmp_path: Path) -> None:
    from memtui.core.stores.trust import global_config_path

    assert global_config_path(tmp_path / ".claude", tmp_path) == tmp_path / ".claude.json"
    assert global_config_path(tmp_path / "cfg", tmp_path) == tmp_path / "cfg" / ".claude.json"
