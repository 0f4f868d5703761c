"""memtui's config file: where it is, every key validated, the environment over the file,
each value's source, files that cannot be read; ``memtui config``; the journal's limits."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.config import (
    CONFIG_READ_CAP,
    DEFAULT,
    KEYS,
    Config,
    HistoryConfig,
    JournalConfig,
    config_file,
    load_config,
    shown_value,
)
from memtui.core.write.prune import MB, JournalLimits

GOOD = """\
theme = "memtui-paper"

[keymap]
"pane.zoom" = "Z"
"pane.next" = ["right", "ctrl+l"]

[judge]
provider = "anthropic"
model = "claude-haiku-4-5"
api_key_env = "MY_KEY"
spend_cap_usd = 2.5
batch = true

[team]
allowlist = ["docs/*.md", "team-rule-1"]

[secrets]
allowlist = ["example-token"]

[history]
max_age_days = 14
max_size_mb = 50

[distil]
headroom = 0.5

[journal]
max_age_days = 7
max_mb = 0
"""


def limits_of(env: dict[str, str]) -> JournalLimits:
    """The limits of the config ``env`` finds, as a shell hands them to the journal."""
    return JournalLimits.from_config(load_config(env))


def config_at(home: Path, text: str | bytes) -> Path:
    """``text`` as the config file of ``home`` (``~/.config/memtui/config.toml``)."""
    path = home / ".config" / "memtui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def loaded(tmp_path: Path, text: str | bytes, **env: str) -> tuple[Config, Path]:
    path = config_at(tmp_path, text)
    return load_config({"HOME": str(tmp_path), **env}), path


def messages(config: Config) -> list[str]:
    return [p.message for p in config.problems]


# ------------------------------------------------------------------------------ where


def test_where_the_file_is(tmp_path: Path) -> None:
    home = tmp_path / "home"
    default = home / ".config" / "memtui" / "config.toml"
    assert config_file({"HOME": str(home)}).path == default
    assert config_file({}, home).path == default
    xdg = config_file({"HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert (xdg.path, xdg.source) == (tmp_path / "xdg" / "memtui" / "config.toml",
                                      "$XDG_CONFIG_HOME")
    relative = config_file({"HOME": str(home), "XDG_CONFIG_HOME": "rel"})
    assert relative.path == default, "a relative XDG_CONFIG_HOME is ignored, as XDG says"
    env = config_file({"HOME": str(home), "MEMTUI_CONFIG": str(tmp_path / "m.toml")})
    assert (env.path, env.source) == (tmp_path / "m.toml", "$MEMTUI_CONFIG")
    explicit = config_file({"MEMTUI_CONFIG": "x"}, home, tmp_path / "c.toml")
    assert (explicit.path, explicit.source) == (tmp_path / "c.toml", "--config")
    assert config_file({}).path is None


def test_no_file_is_the_defaults_without_a_problem(tmp_path: Path) -> None:
    config = load_config({"HOME": str(tmp_path)})
    assert config.problems == []
    assert not config.file.exists
    assert config.theme is None and config.keymap == {}
    assert config.journal == JournalConfig()
    assert config.distil.headroom == 0.7
    assert config.judge.provider == "local" and config.judge.api_key_env == "ANTHROPIC_API_KEY"
    assert set(config.sources.values()) == {DEFAULT}


@pytest.mark.parametrize("variable", ["MEMTUI_CONFIG", None])
def test_a_named_file_that_is_missing_is_a_problem(tmp_path: Path, variable: str | None) -> None:
    missing = tmp_path / "nope.toml"
    if variable:
        config = load_config({"HOME": str(tmp_path), variable: str(missing)})
        origin = "$MEMTUI_CONFIG"
    else:
        config = load_config({"HOME": str(tmp_path)}, explicit=missing)
        origin = "--config"
    assert messages(config) == [f"{missing} (from {origin}): no such file"]


# ------------------------------------------------------------------------------ values


def test_a_good_file(tmp_path: Path) -> None:
    config, path = loaded(tmp_path, GOOD)
    assert config.problems == []
    assert config.file.read
    assert config.theme == "memtui-paper"
    assert config.keymap == {"pane.zoom": "Z", "pane.next": "right,ctrl+l"}
    assert (config.judge.provider, config.judge.model) == ("anthropic", "claude-haiku-4-5")
    assert (config.judge.api_key_env, config.judge.spend_cap_usd) == ("MY_KEY", 2.5)
    assert config.judge.batch is True
    assert config.team.allowlist == ("docs/*.md", "team-rule-1")
    assert config.secrets.allowlist == ("example-token",)
    assert config.history == HistoryConfig(max_age_days=14, max_size_mb=50)
    assert config.distil.headroom == 0.5
    assert config.journal == JournalConfig(max_age_days=7, max_mb=0)
    assert set(config.sources.values()) == {str(path)}
    assert set(config.sources) == {k.name for k in KEYS} | {"keymap.pane.zoom", "keymap.pane.next"}


BAD_VALUES = [
    ('theme = "two words"', "theme", "a theme name"),
    ("theme = 3", "theme", "a theme name"),
    ('[judge]\nprovider = "openai"', "judge.provider", "'local' or 'anthropic'"),
    ('[judge]\nmodel = ""', "judge.model", "a model name"),
    ("[judge]\nmodel = 4", "judge.model", "a model name"),
    ('[judge]\napi_key_env = "sk-ant-123"', "judge.api_key_env", "the name of an environment"),
    ("[judge]\nspend_cap_usd = -1", "judge.spend_cap_usd", "a number of US dollars"),
    ('[judge]\nspend_cap_usd = "5"', "judge.spend_cap_usd", "a number of US dollars"),
    ("[judge]\nspend_cap_usd = nan", "judge.spend_cap_usd", "a number of US dollars"),
    ('[team]\nallowlist = "docs/*"', "team.allowlist", "a list of glob patterns"),
    ("[team]\nallowlist = [1]", "team.allowlist", "a list of glob patterns"),
    ('[secrets]\nallowlist = ["a\\u0007b"]', "secrets.allowlist", "a list of glob patterns"),
    ("[history]\nmax_age_days = true", "history.max_age_days", "a number of 0 or more"),
    ("[history]\nmax_size_mb = -1", "history.max_size_mb", "a number of 0 or more"),
    ("[distil]\nheadroom = 0", "distil.headroom", "a number above 0, at most 1"),
    ("[distil]\nheadroom = 1.5", "distil.headroom", "a number above 0, at most 1"),
    ("[journal]\nmax_age_days = -3", "journal.max_age_days", "a number of 0 or more"),
    ("[journal]\nmax_mb = inf", "journal.max_mb", "a number of 0 or more"),
    ('[journal]\nmax_mb = "lots"', "journal.max_mb", "a number of 0 or more"),
]


@pytest.mark.parametrize(("text", "key", "expected"), BAD_VALUES,
                         ids=[f"{k}:{t.splitlines()[-1]}" for t, k, _ in BAD_VALUES])
def test_a_bad_value_is_reported_and_its_default_used(
    tmp_path: Path, text: str, key: str, expected: str
) -> None:
    config, path = loaded(tmp_path, text)
    spec = next(k for k in KEYS if k.name == key)
    [problem] = config.problems
    assert problem.key == key
    assert problem.message.startswith(f"{path}: key {key!r}: must be {expected}")
    using = "the default" if spec.default is None else shown_value(spec.default)
    assert ", not " in problem.message and problem.message.endswith(f"; using {using}")
    assert config.value(key) == spec.default
    assert config.sources[key] == DEFAULT


def test_an_api_key_in_place_of_its_variable_is_not_echoed(tmp_path: Path) -> None:
    """``api_key_env`` names the variable; a key written there instead is not repeated in
    the problem (which the TUI and ``memtui config`` show)."""
    secret = "sk-ant-api03-SECRET"
    config, path = loaded(tmp_path, f'[judge]\napi_key_env = "{secret}"\n',
                          MEMTUI_JUDGE_API_KEY_ENV=secret)
    assert messages(config) == [
        f"{path}: key 'judge.api_key_env': must be the name of an environment variable "
        "(letters, digits, '_'), not the value given (not shown: it may be a key); "
        'using "ANTHROPIC_API_KEY"',
        "MEMTUI_JUDGE_API_KEY_ENV is not the name of an environment variable (letters, digits, "
        "'_') (its value is not shown: it may be a key); using ANTHROPIC_API_KEY",
    ]
    assert config.judge.api_key_env == "ANTHROPIC_API_KEY"
    assert not any(secret in m for m in messages(config))


def test_one_bad_value_leaves_the_others(tmp_path: Path) -> None:
    config, path = loaded(tmp_path, '[journal]\nmax_age_days = "x"\nmax_mb = 5\n')
    assert config.journal == JournalConfig(max_age_days=30, max_mb=5)
    assert config.sources["journal.max_mb"] == str(path)


@pytest.mark.parametrize(
    ("text", "key", "hint"),
    [
        ('thme = "x"', "thme", "did you mean 'theme'?"),
        ('[judge]\nmodle = "x"', "judge.modle", "did you mean 'judge.model'?"),
        ("[journal]\nmax_age = 3", "journal.max_age", "did you mean 'journal.max_age_days'?"),
        ("[journl]\nmax_mb = 3", "journl", "did you mean 'journal'?"),
        ("[judge]\nmax_mb = 3", "judge.max_mb", "did you mean 'journal.max_mb'?"),
        ("[keymaps]\nx = 'y'", "keymaps", "did you mean 'keymap'?"),
        ("[judge]\nwhatever = 1", "judge.whatever",
         "(known in [judge]: judge.provider, judge.model, judge.api_key_env, "
         "judge.spend_cap_usd, judge.batch)"),
        ("zzz = 1", "zzz", "(known: theme, keymap, judge, team, secrets, history, distil, "
         "journal)"),
    ],
)
def test_an_unknown_key_is_reported_with_the_closest(
    tmp_path: Path, text: str, key: str, hint: str
) -> None:
    config, path = loaded(tmp_path, text)
    assert messages(config) == [f"{path}: key {key!r}: unknown key{'; ' if 'did' in hint else ' '}"
                                f"{hint}"]


def test_a_section_that_is_not_a_table(tmp_path: Path) -> None:
    config, path = loaded(tmp_path, 'journal = 3\nkeymap = "z"\n')
    assert messages(config) == [
        f"{path}: key 'journal': must be a table ([journal]), not 3",
        f"{path}: key 'keymap': must be a table ([keymap] \"pane.zoom\" = \"Z\"), not \"z\"",
    ]
    assert config.journal == JournalConfig() and config.keymap == {}


def test_keymap_entries_are_checked_one_by_one(tmp_path: Path) -> None:
    text = """\
[keymap]
"pane.zoom" = "Z"
"bad id!" = "x"
"pane.next" = 3
"pane.prev" = "ctrl + h"
"app.quit" = []
"edit.undo" = "Ctrl+u"
"memory.edit" = "F2"
"app.keys" = "question_mark,f1"
"edit.history" = "ctrl+shift+u"
"""
    config, path = loaded(tmp_path, text)
    assert config.keymap == {"pane.zoom": "Z", "app.keys": "question_mark,f1",
                             "edit.history": "ctrl+shift+u"}
    assert [p.key for p in config.problems] == [
        "keymap.bad id!", "keymap.pane.next", "keymap.pane.prev", "keymap.app.quit",
        "keymap.edit.undo", "keymap.memory.edit"]
    assert config.problems[0].message == (
        f"{path}: key 'keymap.bad id!': not a binding id (words joined by '.', e.g. "
        '"pane.zoom")')
    assert config.problems[1].message == (
        f"{path}: key 'keymap.pane.next': must be keys like \"Z\", \"ctrl+z\" or \"ctrl+z,f1\" "
        "(or a list of them; key names are lower case), not 3; the binding keeps its key")


# ------------------------------------------------------------------------------ environment


def test_the_environment_overrides_the_file(tmp_path: Path) -> None:
    config, path = loaded(
        tmp_path, GOOD, MEMTUI_THEME="nord", MEMTUI_JOURNAL_MAX_MB="12",
        MEMTUI_JUDGE_PROVIDER="local", MEMTUI_DISTIL_HEADROOM="0.9",
        MEMTUI_JUDGE_SPEND_CAP_USD="0", MEMTUI_HISTORY_MAX_AGE_DAYS="  ",
        MEMTUI_HISTORY_MAX_SIZE_MB="7",
    )
    assert config.problems == []
    assert (config.theme, config.sources["theme"]) == ("nord", "$MEMTUI_THEME")
    assert config.journal.max_mb == 12 and config.sources["journal.max_mb"] == (
        "$MEMTUI_JOURNAL_MAX_MB")
    assert config.journal.max_age_days == 7 and config.sources["journal.max_age_days"] == str(path)
    assert config.judge.provider == "local"
    assert config.sources["judge.provider"] == "$MEMTUI_JUDGE_PROVIDER"
    assert config.distil.headroom == 0.9
    assert config.judge.spend_cap_usd == 0
    assert config.history.max_age_days == 14, "a blank variable is not set"
    assert config.sources["history.max_age_days"] == str(path)
    assert config.history.max_size_mb == 7
    assert config.sources["history.max_size_mb"] == "$MEMTUI_HISTORY_MAX_SIZE_MB"


def test_a_bad_variable_falls_back_to_the_file(tmp_path: Path) -> None:
    config, path = loaded(tmp_path, GOOD, MEMTUI_JOURNAL_MAX_AGE_DAYS="soon",
                          MEMTUI_THEME="a b", MEMTUI_DISTIL_HEADROOM="2")
    assert messages(config) == [
        "MEMTUI_THEME='a b' is not a theme name (letters, digits, '-', '_' or '.'); "
        "using memtui-paper",
        "MEMTUI_DISTIL_HEADROOM='2' is not a number above 0, at most 1 (0.7: 70 %); using 0.5",
        "MEMTUI_JOURNAL_MAX_AGE_DAYS='soon' is not a number of 0 or more; using 7",
    ]
    assert config.theme == "memtui-paper" and config.sources["theme"] == str(path)
    assert config.journal.max_age_days == 7


def test_the_journal_limits_come_from_the_config(tmp_path: Path) -> None:
    config_at(tmp_path, "[journal]\nmax_age_days = 7\nmax_mb = 0\n")
    limits = limits_of({"HOME": str(tmp_path)})
    assert (limits.max_age_days, limits.max_bytes, limits.problems) == (7, None, ())
    env = {"HOME": str(tmp_path), "MEMTUI_JOURNAL_MAX_MB": "3", "MEMTUI_JOURNAL_MAX_AGE_DAYS": "0"}
    limits = limits_of(env)
    assert (limits.max_age_days, limits.max_bytes) == (None, 3 * MB), "the variables win"
    config_at(tmp_path, '[journal]\nmax_mb = -1\ntheme = "x"\n')
    limits = limits_of({"HOME": str(tmp_path)})
    assert limits.max_bytes == 100 * MB
    assert [p.split(": ", 1)[1] for p in limits.problems] == [
        "key 'journal.max_mb': must be a number of 0 or more, not -1; using 100",
        "key 'journal.theme': unknown key; did you mean 'theme'?",
    ]


# ------------------------------------------------------------------------------ bad files


def test_a_fifo_config_never_blocks(tmp_path: Path) -> None:
    path = tmp_path / ".config" / "memtui" / "config.toml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    result: list[Config] = []
    worker = threading.Thread(target=lambda: result.append(load_config({"HOME": str(tmp_path)})),
                              daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "reading a FIFO config blocked"
    [config] = result
    assert messages(config) == [
        f"{path}: not a regular file (device, FIFO or socket): not read; using the defaults"]
    assert config.file.exists and not config.file.read


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'theme = "caf\xe9"\n', "not UTF-8 text"),
        (b"theme = [\n", "not valid TOML (Invalid value"),
        (b'theme = "x"\ntheme = "y"\n', "not valid TOML (Cannot overwrite a value"),
        (b"# " + b"x" * CONFIG_READ_CAP + b"\n", "larger than 256 KB: not read"),
    ],
    ids=["not UTF-8", "bad TOML", "duplicate key", "too large"],
)
def test_a_file_that_is_not_a_config_is_the_defaults(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    config, path = loaded(tmp_path, content)
    [message] = messages(config)
    assert message.startswith(f"{path}: {problem}")
    assert message.endswith("; using the defaults")
    assert config.theme is None and set(config.sources.values()) == {DEFAULT}


def test_a_directory_config(tmp_path: Path) -> None:
    path = tmp_path / "dir.toml"
    path.mkdir()
    config = load_config({"HOME": str(tmp_path)}, explicit=path)
    assert messages(config) == [f"{path}: a directory, not a file: not read; using the defaults"]


# ------------------------------------------------------------------------------ memtui config


def run_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
               *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name in [n for n in os.environ if n.startswith("MEMTUI_")]:
        monkeypatch.delenv(name)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    code = main([*args[:-1], "config", *args[-1:]] if args and args[-1] == "--json"
                else [*args, "config"])
    return code, capsys.readouterr().out


def test_memtui_config_prints_values_and_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_at(tmp_path, GOOD)
    code, out = run_config(tmp_path, monkeypatch, capsys, env={"MEMTUI_JOURNAL_MAX_MB": "9"})
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"config file: {path} (from default; read)"
    row = {line.split()[0]: line for line in lines if line.startswith("  ")}
    assert row["theme"].split() == ["theme", "=", '"memtui-paper"', "from", str(path)]
    assert row["journal.max_mb"].split() == ["journal.max_mb", "=", "9", "from",
                                             "$MEMTUI_JOURNAL_MAX_MB"]
    assert "used by" not in row["judge.model"]  # memtui judge uses it
    assert row["distil.headroom"].endswith("(used by memtui distil)")
    assert "used by" not in row["journal.max_age_days"]
    assert row["pane.zoom"].split() == ["pane.zoom", "=", '"Z"', "from", str(path)]
    assert row["app.quit"].split() == ["app.quit", "=", '"q"', "from", "default"]
    assert lines[-1] == "no problems"


def test_memtui_config_lists_problems_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_at(tmp_path, '[judge]\nmodle = "x"\n[keymap]\n"main.zoom" = "Z"\n')
    code, out = run_config(tmp_path, monkeypatch, capsys)
    assert code == 1
    tail = out.splitlines()[-3:]
    assert tail == [
        "2 problems:",
        f"  {path}: key 'judge.modle': unknown key; did you mean 'judge.model'?",
        "  keymap: no binding has the id 'main.zoom'; did you mean pane.zoom? "
        "(memtui config lists the ids)",
    ]


def test_memtui_config_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text(GOOD + '[extra]\n', encoding="utf-8")
    code, out = run_config(tmp_path, monkeypatch, capsys, "--config", str(path), "--json",
                           env={"MEMTUI_THEME": "nord"})
    assert code == 1
    data = json.loads(out)
    assert data["file"] == {"path": str(path), "source": "--config", "exists": True, "read": True}
    assert data["values"]["theme"] == {"value": "nord", "source": "$MEMTUI_THEME",
                                       "env": "MEMTUI_THEME", "used_by": None}
    assert data["values"]["team.allowlist"]["value"] == ["docs/*.md", "team-rule-1"]
    assert data["values"]["journal.max_mb"] == {
        "value": 0, "source": str(path), "env": "MEMTUI_JOURNAL_MAX_MB", "used_by": None}
    assert data["keymap"]["pane.zoom"] == {"keys": "Z", "source": str(path)}
    assert data["bindings"]["pane.zoom"] == {"keys": "Z", "source": str(path)}
    assert data["bindings"]["app.quit"] == {"keys": "q", "source": "default"}
    assert [p["key"] for p in data["problems"]] == ["extra"]


def test_config_option_reaches_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--config FILE`` is the config of every command: ``undo --gc`` prunes by its limits."""
    path = tmp_path / "c.toml"
    path.write_text("[journal]\nmax_age_days = 3\nmax_mb = 0\n", encoding="utf-8")
    monkeypatch.setenv("MEMTUI_STATE_DIR", str(tmp_path / "state"))
    for name in ("MEMTUI_JOURNAL_MAX_AGE_DAYS", "MEMTUI_JOURNAL_MAX_MB", "MEMTUI_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    code = main(["--claude-home", str(tmp_path / "cc"), "--project", str(tmp_path),
                 "--config", str(path), "undo", "--gc", "--json"])
    assert code == 0
    limits = json.loads(capsys.readouterr().out)["limits"]
    assert limits == {"max_age_days": 3, "max_bytes": None}


def test_memtui_config_names_a_theme_the_tui_has_not_with_the_closest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``theme = "dracola"`` was reported by the TUI only, and without a "did you mean"
    (issue 25)."""
    config_at(tmp_path, 'theme = "dracola"\n')
    code, out = run_config(tmp_path, monkeypatch, capsys)
    assert code == 1
    problem = out.splitlines()[-1].strip()
    assert problem.startswith("Theme 'dracola' not found; did you mean 'dracula'?"), problem
    code, out = run_config(tmp_path, monkeypatch, capsys, "--json")
    assert code == 1
    assert any(p["key"] == "theme" and "'dracula'" in p["message"]
               for p in json.loads(out)["problems"])


def test_memtui_config_says_what_an_unset_judge_key_means(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``judge.model`` and ``spend_cap_usd`` showed "not set" though they have a meaning."""
    from memtui.cli.config_commands import DEFAULT_NOTES
    from memtui.core.judge.anthropic_judge import DEFAULT_MODEL

    code, out = run_config(tmp_path, monkeypatch, capsys)
    assert code == 0
    row = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert f"(default: {DEFAULT_MODEL})" in row["judge.model"]
    assert DEFAULT_NOTES["judge.model"] == f"default: {DEFAULT_MODEL}"
    assert "(no cap:" in row["judge.spend_cap_usd"]
