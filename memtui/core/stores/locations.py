"""Where every memory store of a project lives, by Claude Code's rules, and why."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from memtui.core.cache import ScanCache
from memtui.core.claude_version import (
    INDEX_BYTE_CAP,
    PROJECT_DIR_NAME,
    PROJECT_MEMORY_DIRECTORY,
    SAFE_MODE,
    ClaudeCodeVersion,
)
from memtui.core.model import Scope, StoreKind, StoreLocation
from memtui.core.parse.lazyre import lazy_re
from memtui.core.stores.agents import AgentDefinition, agent_dir_name, load_agent_definitions
from memtui.core.stores.cc_settings import (
    POLICY_SETTINGS,
    SettingsSet,
    env_defined_falsy,
    env_truthy,
)
from memtui.core.stores.cc_version import detect_version
from memtui.core.stores.gitroot import GitRoot, canonical_git_root
from memtui.core.stores.paths import tilde
from memtui.core.stores.sanitize import find_project_dir

SNAPSHOTS_DIR = Path(".claude") / "agent-memory-snapshots"


@dataclass
class Context:
    """The inputs of every location rule: the project, the homes, the environment."""

    project: Path
    claude_home: Path
    claude_home_rule: str
    agent_memory_home: Path
    agent_memory_rule: str
    env: Mapping[str, str]
    home: Path
    policy_settings: Path = POLICY_SETTINGS
    project_dir: Path | None = None
    """The project's directory under the CC home (``<CC home>/projects/<sanitized>``) when the
    project is opened by it, its source path being unknown or gone: ``project`` is then that
    directory, and only the stores under the CC home are found (auto memory, its team folder,
    the sessions; user-scope agents and agentmemory as always); nothing is read from a source
    tree (no git, no project settings, project agents or snapshots)."""
    project_source: str | None = None
    """With ``project_dir``: the source path a transcript recorded (gone), or None (unknown)."""
    claude_code_version: str | None = None
    """``--claude-code-version``: the Claude Code version whose rules apply (None: found from
    the project's newest transcript or ``claude --version``)."""

    @classmethod
    def create(
        cls,
        *,
        project: Path | None = None,
        claude_home: Path | None = None,
        agent_memory_home: Path | None = None,
        env: Mapping[str, str] | None = None,
        home: Path | None = None,
        project_dir: Path | None = None,
        project_source: str | None = None,
        claude_code_version: str | None = None,
    ) -> Context:
        """``project_dir``: open the project by its directory under the CC home (see the
        field); ``project`` is then ignored."""
        env = dict(os.environ if env is None else env)
        home = home or Path(env.get("HOME") or Path.home())
        if claude_home is not None:
            cc_home, cc_rule = claude_home, "from --claude-home"
        elif env.get("CLAUDE_CONFIG_DIR"):
            cc_home, cc_rule = Path(env["CLAUDE_CONFIG_DIR"]), "from $CLAUDE_CONFIG_DIR"
        else:
            cc_home, cc_rule = home / ".claude", "default ~/.claude"
        if agent_memory_home is not None:
            am_home, am_rule = agent_memory_home, "from --agent-memory-home"
        elif env.get("AGENT_MEMORY_DIR"):
            am_home, am_rule = Path(env["AGENT_MEMORY_DIR"]), "from $AGENT_MEMORY_DIR"
        else:
            am_home, am_rule = home / ".agent-memory", "default ~/.agent-memory"
        policy = Path(env.get("MEMTUI_POLICY_SETTINGS") or POLICY_SETTINGS)
        if project_dir is not None:
            project_dir = Path(os.path.abspath(project_dir))
            project = project_dir
        real_project = Path(os.path.realpath(project or Path.cwd()))
        return cls(
            project=real_project,
            claude_home=Path(os.path.abspath(cc_home)),
            claude_home_rule=cc_rule,
            agent_memory_home=Path(os.path.abspath(am_home)),
            agent_memory_rule=am_rule,
            env=env,
            home=home,
            policy_settings=policy,
            project_dir=project_dir,
            project_source=project_source if project_dir is not None else None,
            claude_code_version=claude_code_version,
        )

    def opened_by_dir(self, project_dir: Path, source: str | None) -> Context:
        """This context for the project whose directory under the CC home is ``project_dir``
        (``source``: its recorded source path, gone, or None when unknown)."""
        return replace(self, project=Path(os.path.realpath(project_dir)),
                       project_dir=Path(os.path.abspath(project_dir)), project_source=source)

    def opened_at(self, project: Path) -> Context:
        """This context for the project at ``project`` (found by Claude Code's rules)."""
        return replace(self, project=Path(os.path.realpath(project)), project_dir=None,
                       project_source=None)

    @property
    def project_note(self) -> str | None:
        """What a user must know about how the project was opened (None: by its source path,
        as Claude Code finds it)."""
        if self.project_dir is None:
            return None
        if self.project_source is None:
            why = "source path unknown"
        else:
            why = f"source path {self.show(self.project_source)} missing on disk"
        return f"{why}: showing its stores under the CC home only"

    @property
    def remote_dir(self) -> Path | None:
        value = self.env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR")
        return Path(value) if value else None

    @property
    def base(self) -> Path:
        """The memory base: the remote memory dir when set, else the CC home."""
        return self.remote_dir or self.claude_home

    def show(self, path: Path | str) -> str:
        return tilde(path, self.home)


@dataclass
class Locations:
    """Every store location of one project, plus what was learnt finding them."""

    context: Context
    git: GitRoot | None
    memory_root: Path
    auto: StoreLocation
    team: StoreLocation
    sessions: list[StoreLocation]
    agents: list[StoreLocation]
    snapshots: list[StoreLocation]
    agentmemory: StoreLocation
    definitions: dict[str, AgentDefinition]
    settings: SettingsSet
    problems: list[str] = field(default_factory=list)
    version: ClaudeCodeVersion = field(default_factory=lambda: ClaudeCodeVersion(None, "unknown"))
    """The Claude Code version whose rules were applied."""

    def every(self) -> list[StoreLocation]:
        """Every store location, in scan order."""
        return [self.auto, self.team, *self.agents, *self.snapshots, self.agentmemory,
                *self.sessions]


def validate_override(value: str) -> str | None:
    """Why CC rejects a memory directory override, or None when it is acceptable."""
    if "\0" in value:
        return "contains a NUL byte"
    if value.startswith(("\\\\", "//")):
        return "is a UNC path"
    if len(value) == 2 and value[1] == ":":
        return "is a bare drive"
    if len(value) < 3:
        return "is shorter than 3 characters"
    if not (os.path.isabs(value) or (len(value) > 2 and value[1] == ":")):
        return "is relative"
    return None


def expand_setting_path(value: str, home: Path) -> tuple[str | None, str | None]:
    """Expand ``~/`` in a settings path; bare ``~``, ``~/.`` and ``~/..`` are rejected."""
    if value in ("~", "~/", "~/.", "~/..", "~/./", "~/../"):
        return None, "points at the home directory itself"
    if value.startswith("~/"):
        value = str(home / value[2:])
    problem = validate_override(value)
    return (None, problem) if problem else (value, None)


def base_word(ctx: Context) -> str:
    """The memory base as a rule names it."""
    return "$CLAUDE_CODE_REMOTE_MEMORY_DIR" if ctx.remote_dir else ctx.show(ctx.claude_home)


DIR_NAME_ENV = "CLAUDE_CODE_PROJECT_DIR_NAME"
_DIR_NAME = lazy_re(r"[A-Za-z0-9_-]{1,64}")  # compiled when $CLAUDE_CODE_PROJECT_DIR_NAME is set
_RESERVED = lazy_re(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])", re.IGNORECASE)


def project_dir_name(ctx: Context, version: ClaudeCodeVersion) -> tuple[str | None, str | None]:
    """``$CLAUDE_CODE_PROJECT_DIR_NAME`` when it names the project's directory under
    ``projects/`` (from 2.1.234, with ``$CLAUDE_CONFIG_DIR`` set, 1 to 64 letters, digits,
    ``_`` or ``-``, no Windows device name), and a note when it is set but ignored."""
    value = ctx.env.get(DIR_NAME_ENV)
    if not value:
        return None, None
    if not version.at_least(PROJECT_DIR_NAME):
        return None, (f"${DIR_NAME_ENV} ignored: Claude Code reads it from 2.1.234 "
                      f"({version.describe()})")
    if not ctx.env.get("CLAUDE_CONFIG_DIR"):
        return None, (f"${DIR_NAME_ENV} ignored: Claude Code reads it only with "
                      "$CLAUDE_CONFIG_DIR set")
    if not _DIR_NAME.fullmatch(value) or _RESERVED.fullmatch(value):
        return None, (f"${DIR_NAME_ENV} ignored: not 1 to 64 letters, digits, _ or -, or a "
                      "Windows device name")
    return value, None


def project_setting_refused(ctx: Context, version: ClaudeCodeVersion) -> str | None:
    """Why ``autoMemoryDirectory`` in the checked-in ``.claude/settings.json`` is not taken
    (None: it is): before 2.1.89 never; after, only in a trusted workspace."""
    if not version.at_least(PROJECT_MEMORY_DIRECTORY):
        return ("autoMemoryDirectory in the checked-in .claude/settings.json is ignored "
                f"(CC takes it from project settings only after 2.1.88; {version.describe()})")
    from memtui.core.stores.trust import workspace_trust  # only for such a setting

    trust = workspace_trust(ctx.claude_home, ctx.home, ctx.project)
    if trust.trusted:
        return None
    return ("autoMemoryDirectory in the checked-in .claude/settings.json is ignored: "
            f"CC takes it only in a trusted workspace ({trust.why})")


def auto_memory_root(ctx: Context, settings: SettingsSet, git: GitRoot | None,
                     version: ClaudeCodeVersion | None = None) -> tuple[Path, str]:
    """The auto memory directory and the rule that chose it
    (docs/claude-code-rules.md#auto-memory-directory); a project opened by its directory
    under the CC home has its ``memory`` folder there."""
    if ctx.project_dir is not None:
        return (
            ctx.base / "projects" / ctx.project_dir.name / "memory",
            f"opened by its directory: {base_word(ctx)}/projects/{ctx.project_dir.name}/memory "
            f"({ctx.project_note})",
        )
    notes: list[str] = []
    override = ctx.env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override is not None:
        problem = validate_override(override)
        if problem is None:
            return Path(override), "from $CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
        notes.append(f"$CLAUDE_COWORK_MEMORY_PATH_OVERRIDE ignored: it {problem}")
    rules = version or ClaudeCodeVersion(None, "unknown")
    for source in (settings.policy, settings.local, settings.project, settings.user):
        value = source.data.get("autoMemoryDirectory")
        if value is None:
            continue
        if source is settings.project:
            refused = project_setting_refused(ctx, rules)
            if refused is not None:
                notes.append(refused)
                continue
        if not isinstance(value, str):
            notes.append(f"autoMemoryDirectory in {source.source} settings ignored: not a string")
            continue
        path, problem = expand_setting_path(value, ctx.home)
        if path is not None:
            where = f"autoMemoryDirectory in {source.source} settings {ctx.show(source.path)}"
            return Path(path), "; ".join([where, *notes])
        notes.append(f"autoMemoryDirectory in {source.source} settings ignored: it {problem}")
    named, name_note = project_dir_name(ctx, rules)
    if named is not None:
        return (ctx.base / "projects" / named / "memory",
                "; ".join([f"${DIR_NAME_ENV}: {base_word(ctx)}/projects/{named}/memory", *notes]))
    if name_note is not None:
        notes.append(name_note)
    if git is not None:
        anchor, why = git.root, git.rule
    else:
        anchor, why = ctx.project, f"project root {ctx.show(ctx.project)} (not in a git repo)"
    project_dir, dir_rule = find_project_dir(ctx.base / "projects", str(anchor))
    rule = f"default: {why} → {base_word(ctx)}/{dir_rule}/memory"
    return project_dir / "memory", "; ".join([rule, *notes])


def auto_memory_enabled(ctx: Context, settings: SettingsSet,
                        version: ClaudeCodeVersion | None = None) -> tuple[bool, str]:
    """Whether CC uses auto memory here, and which rule decided."""
    env = ctx.env
    if env_truthy(env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY"):
        return False, "disabled by $CLAUDE_CODE_DISABLE_AUTO_MEMORY"
    if env_defined_falsy(env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY"):
        return True, "enabled by $CLAUDE_CODE_DISABLE_AUTO_MEMORY set to a false value"
    if env_truthy(env, "CLAUDE_CODE_SIMPLE"):
        return False, "disabled by $CLAUDE_CODE_SIMPLE (--bare)"
    if env_truthy(env, "CLAUDE_CODE_SAFE_MODE") and (version is None
                                                      or version.at_least(SAFE_MODE)):
        return False, "disabled by $CLAUDE_CODE_SAFE_MODE (safe mode, from 2.1.169)"
    if env_truthy(env, "CLAUDE_CODE_REMOTE") and not ctx.remote_dir:
        return False, "disabled: $CLAUDE_CODE_REMOTE without $CLAUDE_CODE_REMOTE_MEMORY_DIR"
    found = settings.first("autoMemoryEnabled")
    if found is not None:
        value, source = found
        if value is False:
            return False, f"disabled by autoMemoryEnabled: false in {source.source} settings"
        if value is True:
            return True, f"enabled by autoMemoryEnabled: true in {source.source} settings"
    return True, "enabled (default)"


def list_dirs(path: Path) -> list[Path]:
    """The directories (or symlinks to one) directly in ``path``, sorted; one ``scandir``."""
    return [path / name for name in list_dir_names(path)]


def list_dir_names(path: Path | str) -> list[str]:
    """The names of ``list_dirs(path)``."""
    try:
        with os.scandir(path) as it:
            return sorted(entry.name for entry in it if _is_dir(entry))
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def sessions_dir(ctx: Context, version: ClaudeCodeVersion | None = None) -> tuple[Path, str]:
    """The directory holding the project's sessions, and its name as found."""
    if ctx.project_dir is not None:
        return ctx.claude_home / "projects" / ctx.project_dir.name, ctx.project_dir.name
    if version is not None:
        named, _note = project_dir_name(ctx, version)
        if named is not None:
            return ctx.claude_home / "projects" / named, named
    return find_project_dir(ctx.claude_home / "projects", str(ctx.project))


def claude_code_version(ctx: Context) -> ClaudeCodeVersion:
    """The Claude Code version whose rules apply to ``ctx`` (a bad override: ValueError)."""
    named = ctx.env.get(DIR_NAME_ENV)
    roots = []
    if named and _DIR_NAME.fullmatch(named):
        roots.append(ctx.claude_home / "projects" / named)
    roots.append(sessions_dir(ctx)[0])
    found = ClaudeCodeVersion(None, "unknown")
    for index, root in enumerate(roots):
        found = detect_version(ctx.claude_code_version, root, ctx.env,
                               ask_cli=index == len(roots) - 1)
        if found.version is not None:
            break
    return found


def session_locations(ctx: Context, *, confirm: bool = True,
                      version: ClaudeCodeVersion | None = None) -> list[StoreLocation]:
    """One store per session directory of this cwd (keyed on the cwd, never the remote dir)
    that holds a ``session-memory`` directory; without ``confirm``, one per session directory
    (the caller checks: ``scan --json`` does it with the stat it takes of the store anyway)."""
    sessions_root, dir_rule = sessions_dir(ctx, version)
    if ctx.project_dir is not None:
        rule = f"sessions of the project dir {ctx.show(sessions_root)}"
    else:
        rule = f"sessions of cwd {ctx.show(ctx.project)} → {ctx.show(ctx.claude_home)}/{dir_rule}"
    stores: list[StoreLocation] = []
    root = str(sessions_root)
    for name in list_dir_names(root):
        path = os.path.join(root, name, "session-memory")
        if not confirm or os.path.isdir(path):
            stores.append(
                StoreLocation(kind=StoreKind.SESSION, path=Path(path), rule=rule, session=name)
            )
    return stores


def agent_scope_roots(ctx: Context, git: GitRoot | None) -> dict[Scope, tuple[Path, str]]:
    """The parent directory of every agent memory dir in each scope, with its rule (a project
    opened by its directory under the CC home has no source tree: the user scope only)."""
    user = (ctx.base / "agent-memory", f"user scope: {base_word(ctx)}/agent-memory/<agent>")
    if ctx.project_dir is not None:
        return {Scope.USER: user}
    roots: dict[Scope, tuple[Path, str]] = {
        Scope.USER: user,
        Scope.PROJECT: (
            ctx.project / ".claude" / "agent-memory",
            "project scope: <project>/.claude/agent-memory/<agent> (checked into git)",
        ),
    }
    if ctx.remote_dir:
        anchor = git.root if git else ctx.project
        project_dir, dir_rule = find_project_dir(ctx.remote_dir / "projects", str(anchor))
        roots[Scope.LOCAL] = (
            project_dir / "agent-memory-local",
            "local scope with $CLAUDE_CODE_REMOTE_MEMORY_DIR: "
            f"{dir_rule}/agent-memory-local/<agent>",
        )
    else:
        roots[Scope.LOCAL] = (
            ctx.project / ".claude" / "agent-memory-local",
            "local scope: <project>/.claude/agent-memory-local/<agent> (not checked in)",
        )
    return roots


def agent_locations(
    ctx: Context, git: GitRoot | None, definitions: dict[str, AgentDefinition], enabled: bool
) -> list[StoreLocation]:
    """Agent memory of every defined agent, plus every agent memory dir found without one."""
    roots = agent_scope_roots(ctx, git)
    wanted: dict[tuple[str, Scope], str] = {}
    for agent_type, definition in definitions.items():
        if definition.memory is not None and definition.memory in roots:
            wanted[(agent_dir_name(agent_type), definition.memory)] = (
                f"defined in {ctx.show(definition.path)} with memory: {definition.memory.value}"
            )
    for scope, (root, _rule) in roots.items():
        for child in list_dirs(root):
            wanted.setdefault((child.name, scope), "found on disk (no agent defines this memory)")
    stores = []
    for (dir_name, scope), why in sorted(wanted.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        root, rule = roots[scope]
        stores.append(
            StoreLocation(
                kind=StoreKind.AGENT,
                path=root / dir_name,
                rule=f"{rule}; {why}",
                scope=scope,
                agent=dir_name,
                enabled=enabled,
            )
        )
    return stores


def snapshot_locations(ctx: Context) -> list[StoreLocation]:
    if ctx.project_dir is not None:
        return []  # snapshots ship in the source tree
    root = ctx.project / SNAPSHOTS_DIR
    return [
        StoreLocation(
            kind=StoreKind.SNAPSHOT,
            path=child,
            rule="<project>/.claude/agent-memory-snapshots/<agent type> (shipped with the project)",
            agent=child.name,
        )
        for child in list_dirs(root)
    ]


def definition_dirs(ctx: Context) -> list[Path]:
    """Where agents are defined: the user's agents, and the project's (not for a project
    opened by its directory under the CC home)."""
    if ctx.project_dir is not None:
        return [ctx.claude_home / "agents"]
    return [ctx.claude_home / "agents", ctx.project / ".claude" / "agents"]


def locate(
    ctx: Context, *, confirm_sessions: bool = True, cache: ScanCache | None = None
) -> Locations:
    """Find every store of ``ctx.project`` by Claude Code's rules (``confirm_sessions``: see
    ``session_locations``; ``cache`` keeps what agent files said while they are unchanged)."""
    settings = SettingsSet.load(ctx.claude_home, ctx.project, ctx.policy_settings)
    git = canonical_git_root(ctx.project) if ctx.project_dir is None else None
    version = claude_code_version(ctx)
    memory_root, auto_rule = auto_memory_root(ctx, settings, git, version)
    enabled, enabled_rule = auto_memory_enabled(ctx, settings, version)
    auto = StoreLocation(
        kind=StoreKind.AUTO,
        path=memory_root,
        rule=auto_rule,
        enabled=enabled,
        enabled_rule=enabled_rule,
    )
    team = StoreLocation(
        kind=StoreKind.TEAM,
        path=memory_root / "team",
        rule="<auto memory>/team (synced with the team per GitHub repo)",
        enabled=enabled,
        enabled_rule=enabled_rule,
    )
    definitions, def_problems = load_agent_definitions(definition_dirs(ctx), cache)
    agentmemory = StoreLocation(
        kind=StoreKind.AGENTMEMORY,
        path=ctx.agent_memory_home,
        rule=f"agentmemory home, {ctx.agent_memory_rule}",
    )
    found = Locations(
        context=ctx,
        git=git,
        memory_root=memory_root,
        auto=auto,
        team=team,
        sessions=session_locations(ctx, confirm=confirm_sessions, version=version),
        agents=agent_locations(ctx, git, definitions, enabled),
        snapshots=snapshot_locations(ctx),
        agentmemory=agentmemory,
        definitions=definitions,
        settings=settings,
        problems=settings.problems() + def_problems,
        version=version,
    )
    unit_cap = version.at_least(INDEX_BYTE_CAP)
    for location in found.every():
        location.unit_cap = unit_cap
    return found
