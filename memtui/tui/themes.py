"""Theme files: memtui's own themes and the user's, validated into Textual ``Theme`` objects.

A theme file is TOML whose keys are the fields of :class:`textual.theme.Theme`::

    name = "memtui-dusk"
    dark = true
    primary = "#9d8cff"
    background = "#16131f"
    [variables]
    footer-key-foreground = "#ffb86b"

Shipped themes live in the repository's ``themes/`` folder (packaged as ``memtui/_themes``);
user themes in ``$XDG_CONFIG_HOME/memtui/themes/`` (default ``~/.config/memtui/themes``).
A bad file never stops the app: it becomes a problem message naming the file and the key.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from rich.terminal_theme import TerminalTheme
from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import Theme

from memtui.core.config import Config, ConfigWriteError, save_theme
from memtui.core.fileread import read_file
from memtui.tui.plain import line

DEFAULT_THEME = "memtui-dusk"
FALLBACK_THEME = "textual-dark"
THEME_ENV = "MEMTUI_THEME"
THEME_SUFFIX = ".toml"
THEME_READ_CAP = 256 * 1024
"""A theme file is a few hundred bytes; a larger one is refused, not read whole."""

COLOR_KEYS = (
    "primary", "secondary", "accent", "foreground", "background", "surface", "panel", "boost",
    "warning", "error", "success",
)  # fmt: skip
BOOL_KEYS = ("dark", "ansi")
NUMBER_KEYS = ("luminosity_spread", "text_alpha")
KNOWN_KEYS = frozenset(("name", "variables", *COLOR_KEYS, *BOOL_KEYS, *NUMBER_KEYS))

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
VARIABLE_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")
COLOR_VARIABLE_SUFFIXES = ("-foreground", "-background", "-color")
PERCENT_PATTERN = re.compile(r"\d+(\.\d+)?%")


def _rgb(hex_color: str) -> tuple[int, int, int]:
    value = int(hex_color.lstrip("#"), 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255


LIGHT_ANSI = TerminalTheme(
    _rgb("#f7f7f7"),
    _rgb("#000000"),
    [_rgb(c) for c in ("#000000", "#aa3731", "#2f6f24", "#805200", "#325cc0", "#7a3e9d",
                       "#006a91", "#f7f7f7", "#777777")],
    [_rgb(c) for c in ("#b52f2f", "#2f6f24", "#805200", "#005fa3", "#9c2f9c", "#006a91",
                       "#f7f7f7")],
)
"""The ANSI colours (``yellow`` warnings, ``green``, ``cyan`` in the trees and views) on a
light theme: Textual's Alabaster, its yellow, green and cyan (and bright ones) darkened to a
contrast of 4.5:1 on a light panel (its yellow read 2.1:1 on memtui-paper's)."""


class ThemeFileError(ValueError):
    """A theme file that cannot become a theme; the message names the file and the key."""


KeyProblem = Callable[[str], ThemeFileError]
"""Builds the error for one key from a description of its problem."""


# ------------------------------------------------------------------------------ where


def shipped_theme_dir() -> Path | None:
    """memtui's own themes: ``memtui/_themes`` in a wheel, else ``themes/`` of a checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "_themes", package.parent / "themes"):
        if candidate.is_dir():
            return candidate
    return None


def user_theme_dir(env: Mapping[str, str], home: Path) -> Path:
    """``$XDG_CONFIG_HOME/memtui/themes`` (a relative value is ignored, as XDG says)."""
    xdg = env.get("XDG_CONFIG_HOME", "")
    config = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"
    return config / "memtui" / "themes"


# ------------------------------------------------------------------------------ reading


def load_theme_file(path: Path) -> Theme:
    """Read and validate one theme file. Raises :class:`ThemeFileError` on any problem."""
    read = read_file(path, THEME_READ_CAP)
    if not read.readable or not read.complete:
        problem = read.problems[0] if read.problems else "cannot read"
        raise ThemeFileError(f"{path}: {problem}")
    try:
        data = tomllib.loads(read.data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ThemeFileError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise ThemeFileError(f"{path}: not valid TOML ({error})") from None
    return theme_from_mapping(data, str(path))


def theme_from_mapping(data: Mapping[str, Any], source: str) -> Theme:
    """A validated ``Theme`` from a theme file's table; ``source`` names it in errors."""

    def fail(key: str, problem: str) -> ThemeFileError:
        return ThemeFileError(f"{source}: key {key!r}: {problem}")

    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown key (known: {', '.join(sorted(KNOWN_KEYS))})")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise fail("name", "required: letters, digits, '-', '_' or '.', e.g. name = \"my-dark\"")
    if "primary" not in data:
        raise fail("primary", "required: the theme's main color")
    fields: dict[str, Any] = {"name": name}
    for key in COLOR_KEYS:
        if key in data:
            fields[key] = checked_color(data[key], partial(fail, key))
    for key in BOOL_KEYS:
        if key in data:
            if not isinstance(data[key], bool):
                raise fail(key, f"must be true or false, not {data[key]!r}")
            fields[key] = data[key]
    for key in NUMBER_KEYS:
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise fail(key, f"must be a number, not {value!r}")
            fields[key] = float(value)
    fields["variables"] = checked_variables(data.get("variables", {}), fail)
    theme = Theme(**fields)
    try:
        theme.to_color_system().generate()
    except (ColorParseError, ValueError) as error:
        raise ThemeFileError(f"{source}: the colors do not make a theme ({error})") from None
    return theme


def checked_color(value: Any, fail: KeyProblem) -> str:
    """``value`` when Textual can parse it as a color (``#rrggbb``, ``rgb(...)``, a name)."""
    if not isinstance(value, str):
        raise fail(f"must be a color string, not {value!r}")
    try:
        Color.parse(value)
    except ColorParseError as error:
        hint = f"; did you mean {error.suggested_color!r}?" if error.suggested_color else ""
        raise fail(f"{value!r} is not a color (use #rrggbb, rgb(r,g,b) or a name){hint}") from None
    return value


def checked_variables(value: Any, fail: Callable[[str, str], ThemeFileError]) -> dict[str, str]:
    """The ``[variables]`` table: CSS variable names to strings; color-ish ones parsed."""
    if not isinstance(value, dict):
        raise fail("variables", 'must be a table of name = "value" pairs')
    out: dict[str, str] = {}
    for name, text in value.items():
        key = f"variables.{name}"
        if not VARIABLE_PATTERN.fullmatch(name):
            raise fail(key, "variable names are lower-case words joined by '-'")
        if not isinstance(text, str):
            raise fail(key, f"must be a string, not {text!r}")
        if name.endswith(COLOR_VARIABLE_SUFFIXES):
            checked_variable_color(text, partial(fail, key))
        out[name] = text
    return out


def checked_variable_color(text: str, fail: KeyProblem) -> None:
    """A color variable: a color, optionally followed by an opacity like ``40%``."""
    color, _, rest = text.strip().partition(" ")
    if color.startswith("$"):
        return
    checked_color(color, fail)
    if rest.strip() and not PERCENT_PATTERN.fullmatch(rest.strip()):
        raise fail(f"{text!r}: expected a color optionally followed by a percentage")


def load_themes(dirs: Iterable[Path | None]) -> tuple[list[Theme], list[str]]:
    """Every ``*.toml`` theme in ``dirs`` (missing dirs skipped), and a message per bad file."""
    themes: list[Theme] = []
    problems: list[str] = []
    for directory in dirs:
        if directory is None or not directory.is_dir():
            continue
        try:
            paths = sorted(p for p in directory.iterdir() if p.suffix == THEME_SUFFIX)
        except OSError as error:
            problems.append(f"{directory}: cannot list themes ({error.strerror or error})")
            continue
        for path in paths:
            try:
                themes.append(load_theme_file(path))
            except ThemeFileError as error:
                problems.append(str(error))
    return themes, problems


# ------------------------------------------------------------------------------ the app


def theme_names(env: Mapping[str, str], home: Path) -> set[str]:
    """Every theme name memtui can show: Textual's own, memtui's shipped and the user's."""
    from textual.theme import BUILTIN_THEMES

    themes, _problems = load_themes([shipped_theme_dir(), user_theme_dir(env, home)])
    return {*BUILTIN_THEMES, *(theme.name for theme in themes)}


def unknown_theme(wanted: str, names: Iterable[str]) -> str | None:
    """Why ``wanted`` is no theme, with the closest names ("did you mean"), or None."""
    known = sorted(names)
    if wanted in known:
        return None
    close = difflib.get_close_matches(wanted, known, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"Theme {wanted!r} not found{hint or '.'} Available: {', '.join(known)}"


def install_themes(
    app: App[Any], env: Mapping[str, str], home: Path, requested: str | None = None
) -> list[str]:
    """Register shipped then user themes and select one; return messages to show the user.

    The choice: ``requested`` (``--theme``), else ``$MEMTUI_THEME``, else memtui's default.
    """
    themes, problems = load_themes([shipped_theme_dir(), user_theme_dir(env, home)])
    for theme in themes:
        app.register_theme(theme)
    default = DEFAULT_THEME if DEFAULT_THEME in app.available_themes else FALLBACK_THEME
    wanted = requested or env.get(THEME_ENV) or default
    why = unknown_theme(wanted, app.available_themes)
    if why is not None:
        problems.append(why.replace(" Available:", f" Using {default!r}. Available:", 1))
        wanted = default
    app.ansi_theme_light = LIGHT_ANSI
    app.theme = wanted
    return problems


def remember_theme(app: App[Any], config: Config, env: Mapping[str, str]) -> None:
    """From now on, a theme picked (the palette's theme command: any change of ``app.theme``)
    is saved to the config file (``theme = ...``, through the core's writer) and said so; a
    file that cannot be written (malformed, unreadable, no ``$HOME``) is reported, untouched."""
    saved = [app.theme]

    def changed(theme: Theme) -> None:
        if theme.name == saved[0]:
            return
        try:
            save_theme(config.file.path, theme.name)
        except ConfigWriteError as error:
            app.notify(line(f"Theme {theme.name!r} not saved: {error}"), title="Theme",
                       severity="warning", timeout=15, markup=False)
            return
        saved[0] = theme.name
        note = f"Theme {theme.name!r} saved to {config.file.path}"
        if env.get(THEME_ENV, "").strip():
            note += f" (${THEME_ENV} still overrides it)"
        app.notify(line(note), title="Theme", markup=False)

    app.theme_changed_signal.subscribe(app, changed)
