"""memtui's own config file, ``$XDG_CONFIG_HOME/memtui/config.toml``, and ``MEMTUI_*`` variables.

The file (default ``~/.config/memtui/config.toml``; ``--config FILE`` or ``$MEMTUI_CONFIG``
point elsewhere) is TOML::

    theme = "memtui-paper"

    [keymap]            # binding id = keys (Textual key names, comma-separated)
    "pane.zoom" = "Z"

    [journal]
    max_age_days = 14

Every key is validated: a problem names the file, the key and what is expected; an unknown
key is reported with the closest known one. A bad value (or a file that cannot be read or
parsed) falls back to the default and is reported: a broken config never stops memtui. The
environment overrides the file, key by key (``MEMTUI_<SECTION>_<KEY>``, e.g. ``MEMTUI_THEME``,
``MEMTUI_JOURNAL_MAX_MB``). Each value remembers where it came from (:attr:`Config.sources`).

Some keys configure features not built yet (team and secret rules): they
are validated and shown by ``memtui config``, nothing more. The ``judge`` keys are used by
``memtui judge``, ``distil.headroom`` by ``memtui distil``, the ``history`` keys by the
history's retention (``memtui history gc`` and recording).

Only :func:`load_config` and :func:`save_theme` import ``tomllib``, and only when there is a
file to parse. :func:`save_theme` is the one writer (the TUI saves the theme picked in its
palette): it edits the ``theme = ...`` line alone, atomically, and refuses a malformed file.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.fileread import read_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

CONFIG_ENV = "MEMTUI_CONFIG"
CONFIG_NAME = "config.toml"
CONFIG_READ_CAP = 256 * 1024
"""A config file is a few hundred bytes; a larger one is refused, not read whole."""

DEFAULT = "default"
"""The source of a value nobody set."""

PROVIDERS = ("local", "anthropic")
THEME_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""What a theme's ``name`` may be (memtui.tui.themes checks theme files the same way)."""
BINDING_ID = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")
KEY_NAME = re.compile(r"((ctrl|shift|alt|meta|super|hyper)\+)*([a-z][a-z0-9_]*|[!-~])")
"""One key of a binding: modifiers, then a Textual key name (lower case: ``ctrl+z``, ``f1``,
``question_mark``) or one character (``Z``)."""
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PATTERN = re.compile(r"[^\x00-\x1f\x7f]+")


class ConfigValueError(ValueError):
    """A value that does not fit its key; the message says what is expected."""


# ------------------------------------------------------------------------------ the model


@dataclass(frozen=True)
class JudgeConfig:
    """The judge (``memtui judge``): which provider and model rate memory pairs, and what they
    may spend."""

    provider: str = "local"
    model: str | None = None
    api_key_env: str = "ANTHROPIC_API_KEY"
    """The name of the environment variable holding the API key (never the key itself)."""
    spend_cap_usd: float | None = None
    batch: bool = False
    """Send through the Message Batches API (half the price; results within 24 hours)."""


@dataclass(frozen=True)
class AllowlistConfig:
    """Glob patterns or rule ids the coming team / secret rules let through."""

    allowlist: tuple[str, ...] = ()


@dataclass(frozen=True)
class HistoryConfig:
    """The history's retention (0: no limit); see :mod:`memtui.core.history.retention`."""

    max_age_days: float = 180.0
    max_size_mb: float = 200.0


@dataclass(frozen=True)
class DistilConfig:
    headroom: float = 0.7
    """Distilling aims at most at this share of whichever limit binds (lines or bytes)."""


@dataclass(frozen=True)
class JournalConfig:
    """The journal's limits (0: no limit); see :mod:`memtui.core.write.prune`."""

    max_age_days: float = 30.0
    max_mb: float = 100.0


@dataclass(frozen=True)
class ConfigFile:
    """Where the config file is, why there, and whether it was read."""

    path: Path | None
    """None: no ``$HOME`` (nor another variable) to find it by."""
    source: str
    """``--config``, ``$MEMTUI_CONFIG``, ``$XDG_CONFIG_HOME`` or ``default``."""
    exists: bool = False
    read: bool = False


@dataclass(frozen=True)
class ConfigProblem:
    key: str
    """The dotted key (``judge.model``), or ``""`` for the file as a whole."""
    message: str


@dataclass
class Config:
    """The effective config: the file's values over the defaults, the environment's over both."""

    file: ConfigFile
    theme: str | None = None
    """None: the TUI's default theme."""
    keymap: dict[str, str] = field(default_factory=dict)
    """Binding id to keys, as ``App.set_keymap`` takes them."""
    judge: JudgeConfig = JudgeConfig()
    team: AllowlistConfig = AllowlistConfig()
    secrets: AllowlistConfig = AllowlistConfig()
    history: HistoryConfig = HistoryConfig()
    distil: DistilConfig = DistilConfig()
    journal: JournalConfig = JournalConfig()
    sources: dict[str, str] = field(default_factory=dict)
    """Dotted key (``keymap.<id>`` for keymap entries) to ``default``, the file's path or
    ``$VARIABLE``."""
    problems: list[ConfigProblem] = field(default_factory=list)

    def value(self, key: str) -> object:
        """The value of a dotted key of :data:`KEYS` (``judge.model``)."""
        section, _, name = key.rpartition(".")
        return getattr(getattr(self, section) if section else self, name)

    def problems_of(self, section: str) -> list[str]:
        """The messages about keys of one section (``journal``)."""
        return [p.message for p in self.problems if p.key.startswith(section + ".")]


# ------------------------------------------------------------------------------ the keys


Parse = Callable[["Any"], object]


@dataclass(frozen=True)
class Key:
    """One key of the file: how its value is checked, its variable, what uses it."""

    name: str
    """Dotted: ``judge.model``; the section is the part before the dot."""
    parse: Parse
    """A TOML value to the key's value; raises :class:`ConfigValueError`."""
    expected: str
    from_text: Callable[[str], object] | None = None
    """An environment variable's text to a value ``parse`` takes (None: no variable)."""
    used_by: str = ""
    """What uses the value when memtui does not yet (shown by ``memtui config``)."""
    echo: bool = True
    """Whether a bad value is quoted in its problem (not for a key's *name*, which a user may
    have replaced by the key itself)."""

    def given(self, value: object) -> str:
        return shown_value(value) if self.echo else "the value given (not shown: it may be a key)"

    @property
    def env(self) -> str | None:
        if self.from_text is None:
            return None
        return "MEMTUI_" + self.name.replace(".", "_").upper()

    @property
    def default(self) -> object:
        section, _, name = self.name.rpartition(".")
        if not section:
            return None
        return getattr(SECTIONS[section], name)


def number(minimum: float, maximum: float | None = None, *, above: bool = False) -> Parse:
    def parse(value: Any) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise ConfigValueError
        if math.isinf(value) or value < minimum or (above and value == minimum):
            raise ConfigValueError
        if maximum is not None and value > maximum:
            raise ConfigValueError
        return float(value)

    return parse


def flag(value: Any) -> object:
    if not isinstance(value, bool):
        raise ConfigValueError
    return value


FLAG_WORDS = {"true": True, "1": True, "yes": True, "on": True,
              "false": False, "0": False, "no": False, "off": False}


def text_flag(raw: str) -> object:
    return FLAG_WORDS.get(raw.strip().lower(), raw)  # flag refuses anything else


def text_number(raw: str) -> object:
    try:
        return float(raw)
    except ValueError:
        return raw  # parse refuses it, with the key's message


def matching(pattern: re.Pattern[str]) -> Parse:
    def parse(value: Any) -> object:
        if not isinstance(value, str) or not pattern.fullmatch(value):
            raise ConfigValueError
        return value

    return parse


def choice(*choices: str) -> Parse:
    def parse(value: Any) -> object:
        if value not in choices:
            raise ConfigValueError
        return value

    return parse


def text(value: Any) -> object:
    if not isinstance(value, str) or not value.strip() or not PATTERN.fullmatch(value):
        raise ConfigValueError
    return value


def patterns(value: Any) -> object:
    if not isinstance(value, list) or not all(
        isinstance(item, str) and PATTERN.fullmatch(item) for item in value
    ):
        raise ConfigValueError
    return tuple(value)


def unchanged(raw: str) -> object:
    return raw


SECTIONS: dict[str, Any] = {
    "judge": JudgeConfig, "team": AllowlistConfig, "secrets": AllowlistConfig,
    "history": HistoryConfig, "distil": DistilConfig, "journal": JournalConfig,
}  # fmt: skip
ZERO_OFF = "a number of 0 or more"
"""0 is no limit (the journal's wording, kept from its variables' messages)."""
KEYS: tuple[Key, ...] = (
    Key("theme", matching(THEME_NAME), "a theme name (letters, digits, '-', '_' or '.')",
        unchanged),
    Key("judge.provider", choice(*PROVIDERS), " or ".join(map(repr, PROVIDERS)), unchanged),
    Key("judge.model", text, "a model name", unchanged),
    Key("judge.api_key_env", matching(ENV_NAME),
        "the name of an environment variable (letters, digits, '_')", unchanged, echo=False),
    Key("judge.spend_cap_usd", number(0), "a number of US dollars, 0 or more", text_number),
    Key("judge.batch", flag, "true or false", text_flag),
    Key("team.allowlist", patterns, "a list of glob patterns or rule ids", None,
        "the coming team rules"),
    Key("secrets.allowlist", patterns, "a list of glob patterns or rule ids", None,
        "the coming secret rules"),
    Key("history.max_age_days", number(0), ZERO_OFF, text_number,
        "memtui history gc and recording"),
    Key("history.max_size_mb", number(0), ZERO_OFF, text_number,
        "memtui history gc and recording"),
    Key("distil.headroom", number(0, 1, above=True), "a number above 0, at most 1 (0.7: 70 %)",
        text_number, "memtui distil"),
    Key("journal.max_age_days", number(0), ZERO_OFF, text_number),
    Key("journal.max_mb", number(0), ZERO_OFF, text_number),
)  # fmt: skip
KEYS_BY_NAME = {key.name: key for key in KEYS}
KEYMAP = "keymap"


# ------------------------------------------------------------------------------ where


def config_file(
    env: Mapping[str, str], home: Path | None = None, explicit: Path | None = None
) -> ConfigFile:
    """Where the config file is: ``explicit`` (``--config``), ``$MEMTUI_CONFIG``, else
    ``$XDG_CONFIG_HOME/memtui/config.toml`` (an absolute value only, as XDG says), else
    ``~/.config/memtui/config.toml`` (``home`` or ``$HOME``; with neither, there is none)."""
    if explicit is not None:
        return ConfigFile(explicit, "--config")
    if env.get(CONFIG_ENV):
        return ConfigFile(Path(env[CONFIG_ENV]), "$" + CONFIG_ENV)
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return ConfigFile(Path(xdg) / "memtui" / CONFIG_NAME, "$XDG_CONFIG_HOME")
    base = home or (Path(env["HOME"]) if env.get("HOME") else None)
    if base is None:
        return ConfigFile(None, DEFAULT)
    return ConfigFile(base / ".config" / "memtui" / CONFIG_NAME, DEFAULT)


# ------------------------------------------------------------------------------ reading


def load_config(
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    explicit: Path | None = None,
) -> Config:
    """The effective config for ``env`` (default ``os.environ``). Never raises: every
    problem is in :attr:`Config.problems`, and its value is the default (or the file's,
    when a variable is bad)."""
    environ = os.environ if env is None else env
    where = config_file(environ, home, explicit)
    problems: list[ConfigProblem] = []
    data, where = read_table(where, problems)
    values: dict[str, object] = {key.name: key.default for key in KEYS}
    sources = dict.fromkeys(values, DEFAULT)
    keymap: dict[str, str] = {}
    source = str(where.path)
    if data:
        check_file(data, source, values, sources, keymap, problems)
    for key in KEYS:
        check_env(key, environ, values, sources, problems)
    config = Config(file=where, keymap=keymap, sources=sources, problems=problems)
    config.theme = values["theme"]  # type: ignore[assignment]
    for section, kind in SECTIONS.items():
        fields = {
            name.partition(".")[2]: value
            for name, value in values.items()
            if name.partition(".")[0] == section
        }
        setattr(config, section, kind(**fields))
    return config


def read_table(
    where: ConfigFile, problems: list[ConfigProblem]
) -> tuple[dict[str, Any], ConfigFile]:
    """The file's top table ({} when there is none or it is unreadable, with a problem)."""

    def fail(message: str) -> tuple[dict[str, Any], ConfigFile]:
        problems.append(ConfigProblem("", f"{where.path}: {message}; using the defaults"))
        return {}, ConfigFile(where.path, where.source, exists=True)

    if where.path is None:
        return {}, where
    read = read_file(where.path, CONFIG_READ_CAP)
    if read.missing:
        if where.source in ("--config", "$" + CONFIG_ENV):
            problems.append(ConfigProblem("", f"{where.path} (from {where.source}): no such file"))
        return {}, where
    if not read.readable:
        return fail(read.problems[0] if read.problems else "cannot read")
    if not read.complete:
        return fail(f"larger than {CONFIG_READ_CAP // 1024} KB: not read")
    import tomllib

    try:
        data = tomllib.loads(read.data.decode("utf-8"))
    except UnicodeDecodeError:
        return fail("not UTF-8 text")
    except tomllib.TOMLDecodeError as error:
        return fail(f"not valid TOML ({error})")
    return data, ConfigFile(where.path, where.source, exists=True, read=True)


def check_file(
    data: Mapping[str, Any],
    source: str,
    values: dict[str, object],
    sources: dict[str, str],
    keymap: dict[str, str],
    problems: list[ConfigProblem],
) -> None:
    """Take the file's valid values into ``values`` / ``keymap``; a problem for each other."""

    def problem(key: str, message: str) -> None:
        problems.append(ConfigProblem(key, f"{source}: key {key!r}: {message}"))

    for name, value in data.items():
        if name == KEYMAP:
            check_keymap(value, source, sources, keymap, problems)
        elif name in SECTIONS:
            if not isinstance(value, dict):
                problem(name, f"must be a table ([{name}]), not {value!r}")
                continue
            for sub, item in value.items():
                check_value(f"{name}.{sub}", item, source, values, sources, problem)
        else:
            check_value(name, value, source, values, sources, problem)


def check_value(
    name: str,
    value: Any,
    source: str,
    values: dict[str, object],
    sources: dict[str, str],
    problem: Callable[[str, str], None],
) -> None:
    key = KEYS_BY_NAME.get(name)
    if key is None:
        problem(name, unknown_key(name))
        return
    try:
        values[name] = key.parse(value)
    except ConfigValueError:
        problem(name, f"must be {key.expected}, not {key.given(value)}; "
                f"using {fallback(key.default)}")
        return
    sources[name] = source


def unknown_key(name: str) -> str:
    """``unknown key``, with the closest known key: in its own section first, then the same
    name elsewhere (a key in the wrong section); lacking one, the keys it could have been."""
    import difflib

    def closest(word: str, words: list[str]) -> str | None:
        found = difflib.get_close_matches(word, words, n=1, cutoff=0.6)
        return found[0] if found else None

    tops = ["theme", KEYMAP, *SECTIONS]
    section, _, short = name.rpartition(".")
    if not section:
        guess = closest(name, tops)
        if guess is None:
            return f"unknown key (known: {', '.join(tops)})"
        return f"unknown key; did you mean {guess!r}?"
    in_section = [k.rpartition(".")[2] for k in KEYS_BY_NAME if k.startswith(section + ".")]
    guess = closest(short, in_section)
    if guess is not None:
        return f"unknown key; did you mean {section + '.' + guess!r}?"
    elsewhere = [k for k in [*KEYS_BY_NAME, *tops] if k.rpartition(".")[2] == short]
    if elsewhere:
        return f"unknown key; did you mean {elsewhere[0]!r}?"
    known = ", ".join(section + "." + k for k in in_section)
    return f"unknown key (known in [{section}]: {known})"


def check_keymap(
    value: Any,
    source: str,
    sources: dict[str, str],
    keymap: dict[str, str],
    problems: list[ConfigProblem],
) -> None:
    """``[keymap]``: binding id = "keys" (or a list of keys). Which ids exist is the TUI's
    to say (:func:`memtui.tui.keymap.unknown_binding_ids`); here only their form."""
    if not isinstance(value, dict):
        problems.append(ConfigProblem(
            KEYMAP, f'{source}: key {KEYMAP!r}: must be a table ([keymap] "pane.zoom" = "Z"), '
            f"not {shown_value(value)}"))  # fmt: skip
        return
    for binding_id, keys in value.items():
        name = f"{KEYMAP}.{binding_id}"
        if not BINDING_ID.fullmatch(binding_id):
            problems.append(ConfigProblem(name, f"{source}: key {name!r}: not a binding id "
                                          "(words joined by '.', e.g. \"pane.zoom\")"))
            continue
        joined = keys_text(keys)
        if joined is None:
            problems.append(ConfigProblem(name, (
                f"{source}: key {name!r}: must be keys like \"Z\", \"ctrl+z\" or "
                f"\"ctrl+z,f1\" (or a list of them; key names are lower case), not "
                f"{shown_value(keys)}; the binding keeps its key")))  # fmt: skip
            continue
        keymap[binding_id] = joined
        sources[name] = source


def keys_text(keys: Any) -> str | None:
    """Keys as ``App.set_keymap`` takes them (``"ctrl+z,Z"``), or None when they are not keys."""
    items = keys if isinstance(keys, list) else [keys]
    if not items or not all(isinstance(item, str) for item in items):
        return None
    parts = [part.strip() for item in items for part in item.split(",")]
    if not all(KEY_NAME.fullmatch(part) for part in parts):
        return None
    return ",".join(parts)


def check_env(
    key: Key,
    env: Mapping[str, str],
    values: dict[str, object],
    sources: dict[str, str],
    problems: list[ConfigProblem],
) -> None:
    """The key's variable, when set (to anything but spaces), over the file's value."""
    name = key.env
    if name is None or key.from_text is None:
        return
    raw = env.get(name, "").strip()
    if not raw:
        return
    try:
        values[key.name] = key.parse(key.from_text(raw))
    except ConfigValueError:
        hidden = "" if key.echo else " (its value is not shown: it may be a key)"
        given = f"{name}={raw!r}" if key.echo else name
        problems.append(ConfigProblem(key.name, f"{given} is not {key.expected}{hidden}; "
                                      f"using {fallback(values[key.name], bare=True)}"))
        return
    sources[key.name] = "$" + name


# ------------------------------------------------------------------------------ showing


def fallback(value: object, *, bare: bool = False) -> str:
    return "the default" if value is None else shown_value(value, bare=bare)


def shown_value(value: object, *, bare: bool = False) -> str:
    """A value as TOML would spell it (``"memtui-paper"``, ``30``, ``["a", "b"]``), or
    ``not set``. ``bare``: numbers and strings without quotes (for messages about text)."""
    import json

    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value if bare else json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(shown_value(item) for item in value) + "]"
    return repr(value)


def config_json(config: Config) -> dict[str, object]:
    """``memtui config --json``: the file, each key's value and source, the problems."""
    values: dict[str, object] = {}
    for key in KEYS:
        value = config.value(key.name)
        values[key.name] = {
            "value": list(value) if isinstance(value, tuple) else value,
            "source": config.sources[key.name],
            "env": key.env,
            "used_by": key.used_by or None,
        }
    return {
        "file": {
            "path": None if config.file.path is None else str(config.file.path),
            "source": config.file.source,
            "exists": config.file.exists,
            "read": config.file.read,
        },
        "values": values,
        "keymap": {
            binding_id: {"keys": keys, "source": config.sources[f"{KEYMAP}.{binding_id}"]}
            for binding_id, keys in config.keymap.items()
        },
        "problems": [{"key": p.key, "message": p.message} for p in config.problems],
    }


# ------------------------------------------------------------------------------ writing


class ConfigWriteError(Exception):
    """The config file was not changed; the message says why (a malformed file is reported,
    never overwritten)."""


_THEME_LINE = re.compile(
    r"""^(?P<head>[ \t]*(?:theme|"theme"|'theme')[ \t]*=[ \t]*)"""
    r"""(?P<value>"(?:[^"\\\r\n]|\\.)*"|'[^'\r\n]*')"""
    r"""(?P<tail>[ \t]*(?:\#[^\r\n]*)?)\r?$""",
    re.MULTILINE,
)
"""A top-level ``theme = "..."`` line (its value a one-line string, maybe a comment after)."""
_TABLE_LINE = re.compile(r"^[ \t]*\[", re.MULTILINE)


def save_theme(path: Path | None, theme: str) -> bool:
    """Set ``theme = "<theme>"`` in the config file at ``path``, changing only that line (or
    adding one before the first table, or creating the file): every other byte stays. The
    file is replaced atomically (a symlink's target is written, its mode kept). True when the
    file changed, False when it already said so. Raises :class:`ConfigWriteError`, the file
    untouched, when there is no file to write (``path`` None), the name is no theme name, or
    the file is malformed (unreadable, too large, not UTF-8, not TOML, ``theme`` not a string
    line memtui can edit), or changed while saving."""
    if path is None:
        raise ConfigWriteError("no config file: $HOME is not set (use --config FILE)")
    if not THEME_NAME.fullmatch(theme):
        raise ConfigWriteError(f"{theme!r} is not a theme name")
    target = Path(os.path.realpath(path))
    old_bytes, old_mode = _read_for_edit(target)
    import tomllib

    try:
        old_text = old_bytes.decode("utf-8")
        old_data = tomllib.loads(old_text)
    except UnicodeDecodeError:
        raise ConfigWriteError(f"{path}: not UTF-8 text; not changed") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigWriteError(f"{path}: not valid TOML ({error}); not changed") from None
    new_text = _with_theme(old_text, theme)
    try:
        new_data = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError:
        new_data = None
    if new_data != {**old_data, "theme": theme}:
        raise ConfigWriteError(f"{path}: its theme key is in a form memtui does not edit; "
                               "not changed (set it by hand)")
    if new_text == old_text and old_mode is not None:
        return False
    _replace(target, old_bytes, new_text.encode("utf-8"), old_mode)
    return True


def _read_for_edit(target: Path) -> tuple[bytes, int | None]:
    """The file's bytes and mode (None: it does not exist yet)."""
    read = read_file(target, CONFIG_READ_CAP)
    if read.missing:
        return b"", None
    if not read.readable:
        why = read.problems[0] if read.problems else "cannot read"
        raise ConfigWriteError(f"{target}: {why}; not changed")
    if not read.complete:
        raise ConfigWriteError(f"{target}: larger than {CONFIG_READ_CAP // 1024} KB; not changed")
    mode = read.stat.st_mode if read.stat is not None else os.stat(target).st_mode
    return read.data, mode & 0o7777


def _with_theme(text: str, theme: str) -> str:
    """``text`` with its top-level theme line's value replaced, or a theme line added."""
    import json

    value = json.dumps(theme)
    table = _TABLE_LINE.search(text)
    top_end = table.start() if table else len(text)
    found = _THEME_LINE.search(text, 0, top_end)
    if found is not None:
        return text[: found.start("value")] + value + text[found.end("value"):]
    eol = "\r\n" if "\r\n" in text else "\n"
    line = f"theme = {value}{eol}"
    if table is not None:
        return text[:top_end] + line + text[top_end:]
    if text and not text.endswith("\n"):
        text += eol
    return text + line


def _replace(target: Path, old: bytes, new: bytes, mode: int | None) -> None:
    """Write ``new`` to a temporary file beside ``target`` and rename it over ``target``,
    unless ``target`` no longer holds ``old``."""
    import tempfile

    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".config-", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(new)
            handle.flush()
            os.fchmod(handle.fileno(), 0o600 if mode is None else mode)
            os.fsync(handle.fileno())
        now = read_file(target, CONFIG_READ_CAP)
        if (b"" if now.missing else now.data) != old or (now.missing != (mode is None)):
            raise ConfigWriteError(f"{target}: changed while saving; not changed")
        os.replace(tmp, target)
        tmp = None
        _sync_dir(target.parent)
    except OSError as error:
        raise ConfigWriteError(f"{target}: cannot write ({error.strerror or error}); "
                               "not changed") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _sync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
