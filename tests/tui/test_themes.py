"""Theme files: shipped themes, validation messages, user theme dirs, theme selection."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App

from memtui.cli import build_parser
from memtui.tui.themes import (
    DEFAULT_THEME,
    THEME_READ_CAP,
    ThemeFileError,
    install_themes,
    load_theme_file,
    load_themes,
    shipped_theme_dir,
    user_theme_dir,
)

GOOD = """\
name = "my-night"
dark = true
primary = "#112233"
secondary = "rgb(10, 20, 30)"
accent = "orange"
foreground = "#eeeeee"
background = "#000000"
surface = "#101010"
panel = "#202020"
warning = "#ffaa00"
error = "#ff0000"
success = "#00ff00"
luminosity_spread = 0.2
text_alpha = 1

[variables]
footer-key-foreground = "#ffaa00"
input-selection-background = "#575b61 40%"
block-cursor-text-style = "bold"
border = "$primary"
"""


def write(directory: Path, name: str, text: str | bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def problem_of(path: Path) -> str:
    themes, problems = load_themes([path.parent])
    assert themes == []
    assert len(problems) == 1
    return problems[0]


# ------------------------------------------------------------------------ shipped themes


def test_shipped_themes_load_without_problems() -> None:
    directory = shipped_theme_dir()
    assert directory is not None
    themes, problems = load_themes([directory])
    assert problems == []
    by_name = {theme.name: theme for theme in themes}
    assert by_name[DEFAULT_THEME].dark is True
    assert by_name["memtui-paper"].dark is False


def test_shipped_themes_are_complete_color_systems() -> None:
    themes, _ = load_themes([shipped_theme_dir()])
    for theme in themes:
        colors = theme.to_color_system().generate()
        assert colors["background"] != colors["foreground"]
        for key in ("primary", "accent", "background", "surface", "panel", "foreground"):
            assert getattr(theme, key), f"{theme.name} leaves {key} to Textual"


# ------------------------------------------------------------------------ one file


def test_good_file_loads_every_field(tmp_path: Path) -> None:
    theme = load_theme_file(write(tmp_path, "night.toml", GOOD))
    assert theme.name == "my-night"
    assert theme.primary == "#112233"
    assert theme.accent == "orange"
    assert theme.dark is True
    assert theme.luminosity_spread == 0.2
    assert theme.text_alpha == 1.0
    assert theme.variables["input-selection-background"] == "#575b61 40%"
    assert theme.variables["border"] == "$primary"


@pytest.mark.parametrize(
    ("replace", "by", "key", "words"),
    [
        ('primary = "#112233"', 'primary = "#11223"', "primary", "not a color"),
        ('accent = "orange"', 'accent = "ornge"', "accent", "did you mean 'orange'?"),
        ('accent = "orange"', "accent = 12", "accent", "must be a color string"),
        ("dark = true", 'dark = "yes"', "dark", "true or false"),
        ("text_alpha = 1", 'text_alpha = "1"', "text_alpha", "must be a number"),
        ('name = "my-night"', 'name = "my night"', "name", "required"),
        ('name = "my-night"', "", "name", "required"),
        ('primary = "#112233"', "", "primary", "required"),
        (
            'footer-key-foreground = "#ffaa00"',
            'footer-key-foreground = "#ffaa0"',
            "variables.footer-key-foreground",
            "not a color",
        ),
        ('"#575b61 40%"', '"#575b61 forty"', "variables.input-selection-background", "percentage"),
        (
            'block-cursor-text-style = "bold"',
            "block-cursor-text-style = 1",
            "variables.block-cursor-text-style",
            "must be a string",
        ),
        ('border = "$primary"', 'Border_Color = "red"', "variables.Border_Color", "names"),
        ("dark = true", 'dark = true\ncolour = "red"', "colour", "unknown key"),
    ],
)
def test_bad_value_names_file_and_key(
    tmp_path: Path, replace: str, by: str, key: str, words: str
) -> None:
    assert replace in GOOD
    path = write(tmp_path, "bad.toml", GOOD.replace(replace, by))
    with pytest.raises(ThemeFileError) as raised:
        load_theme_file(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: key {key!r}: ")
    assert words in message
    assert problem_of(path) == message


def test_variables_must_be_a_table(tmp_path: Path) -> None:
    text = GOOD.split("[variables]")[0] + 'variables = "red"\n'
    message = problem_of(write(tmp_path, "vars.toml", text))
    assert "key 'variables'" in message and "table" in message


def test_bad_toml_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.toml", 'name = "x\nprimary = [\n')
    message = problem_of(path)
    assert message.startswith(f"{path}: not valid TOML (")


def test_not_utf8_is_a_problem(tmp_path: Path) -> None:
    path = write(tmp_path, "latin.toml", 'name = "caf\xe9"\n'.encode("latin-1"))
    assert problem_of(path) == f"{path}: not UTF-8 text"


def test_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "themes" / "dir.toml"
    path.mkdir(parents=True)
    message = problem_of(path)
    assert message == f"{path}: a directory, not a file: not read"


def test_fifo_theme_file_is_a_problem_and_never_blocks(tmp_path: Path) -> None:
    path = tmp_path / "themes" / "fifo.toml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    outcome: list[str] = []
    worker = threading.Thread(target=lambda: outcome.append(problem_of(path)), daemon=True)
    worker.start()
    worker.join(10)
    assert outcome, "reading a FIFO theme file blocked"
    assert outcome[0] == f"{path}: not a regular file (device, FIFO or socket): not read"


def test_huge_theme_file_is_refused_not_read_whole(tmp_path: Path) -> None:
    path = write(tmp_path, "huge.toml", b"# " + b"x" * (THEME_READ_CAP + 10) + b"\n")
    assert problem_of(path).startswith(f"{path}: larger than ")


# ------------------------------------------------------------------------ many files


def test_load_themes_keeps_good_files_next_to_bad_ones(tmp_path: Path) -> None:
    write(tmp_path / "a", "good.toml", GOOD)
    write(tmp_path / "a", "bad.toml", GOOD.replace("#112233", "nope"))
    write(tmp_path / "a", "notes.txt", "not a theme")
    write(tmp_path / "b", "other.toml", GOOD.replace("my-night", "other"))
    themes, problems = load_themes([tmp_path / "a", tmp_path / "missing", None, tmp_path / "b"])
    assert [theme.name for theme in themes] == ["my-night", "other"]
    assert len(problems) == 1
    assert "bad.toml: key 'primary'" in problems[0]


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=300))
def test_load_themes_never_raises_on_arbitrary_bytes(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    directory = tmp_path_factory.mktemp("fuzz")
    write(directory, "x.toml", data)
    themes, problems = load_themes([directory])
    assert len(themes) + len(problems) == 1


toml_scalars = st.one_of(
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["#fff", "#123456", "red", "rgb(1,2,3)", "hsl(0,50%,50%)", "#12345g"]),
)
theme_keys = st.sampled_from(
    ["name", "primary", "accent", "dark", "ansi", "text_alpha", "surface", "boost", "x", ""]
)


@settings(max_examples=200, deadline=None)
@given(
    table=st.dictionaries(theme_keys, toml_scalars, max_size=8),
    variables=st.dictionaries(
        st.sampled_from(["border", "footer-background", "link-color", "Bad", "a-b-foreground"]),
        toml_scalars,
        max_size=3,
    ),
)
def test_any_table_becomes_a_theme_or_a_theme_file_error(
    table: dict[str, object], variables: dict[str, object]
) -> None:
    from memtui.tui.themes import theme_from_mapping

    data = {**table, "variables": variables}
    try:
        theme = theme_from_mapping(data, "fuzz.toml")
    except ThemeFileError as error:
        assert str(error).startswith("fuzz.toml: ")
    else:
        assert theme.name == data["name"]
        theme.to_color_system().generate()


# ------------------------------------------------------------------------ where and which


def test_user_theme_dir_follows_xdg(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert user_theme_dir({}, home) == home / ".config" / "memtui" / "themes"
    xdg = tmp_path / "xdg"
    assert user_theme_dir({"XDG_CONFIG_HOME": str(xdg)}, home) == xdg / "memtui" / "themes"
    relative = {"XDG_CONFIG_HOME": "relative/config"}
    assert user_theme_dir(relative, home) == home / ".config" / "memtui" / "themes"


def test_install_themes_default_then_env_then_request(tmp_path: Path) -> None:
    app: App[None] = App()
    assert install_themes(app, {}, tmp_path) == []
    assert app.theme == DEFAULT_THEME
    env = {"MEMTUI_THEME": "memtui-paper"}
    assert install_themes(app, env, tmp_path) == []
    assert app.theme == "memtui-paper"
    assert install_themes(app, env, tmp_path, "nord") == []
    assert app.theme == "nord"


def test_install_themes_unknown_name_falls_back_with_a_message(tmp_path: Path) -> None:
    app: App[None] = App()
    problems = install_themes(app, {"MEMTUI_THEME": "no-such-theme"}, tmp_path)
    assert app.theme == DEFAULT_THEME
    assert len(problems) == 1
    assert "'no-such-theme' not found" in problems[0]
    assert "memtui-paper" in problems[0]


def test_user_theme_registered_and_overrides_shipped_one(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    user_dir = xdg / "memtui" / "themes"
    write(user_dir, "mine.toml", GOOD)
    write(user_dir, "paper.toml", GOOD.replace("my-night", "memtui-paper"))
    app: App[None] = App()
    env = {"XDG_CONFIG_HOME": str(xdg)}
    assert install_themes(app, env, tmp_path, "my-night") == []
    assert app.theme == "my-night"
    assert app.available_themes["memtui-paper"].primary == "#112233"


def test_cli_accepts_theme_option() -> None:
    assert build_parser().parse_args(["--theme", "memtui-paper"]).theme == "memtui-paper"
    assert build_parser().parse_args([]).theme is None


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2 relative luminance."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_light_themes_keep_warnings_readable() -> None:
    """On a light theme every coloured text (the theme's warning, accent, error, success,
    footer keys, and the ANSI yellow, green, cyan, red the trees and views use, as the app maps
    them) keeps a contrast of 4.5:1 (WCAG AA) on the background, surface and panel."""
    from textual.color import Color

    from memtui.tui.themes import LIGHT_ANSI

    themes, problems = load_themes([shipped_theme_dir()])
    light = [t for t in themes if not t.dark]
    assert light and not problems
    ansi = {"red": 1, "green": 2, "yellow": 3, "cyan": 6}
    for theme in light:
        colors = {key: getattr(theme, key) for key in ("warning", "accent", "error", "success")}
        colors["footer-key-foreground"] = theme.variables["footer-key-foreground"]
        texts = {name: Color.parse(value).rgb for name, value in colors.items() if value}
        texts |= {f"ansi {name}": tuple(LIGHT_ANSI.ansi_colors[i]) for name, i in ansi.items()}
        for ground in ("background", "surface", "panel"):
            behind = Color.parse(getattr(theme, ground)).rgb
            for name, rgb in texts.items():
                ratio = contrast(rgb, behind)  # type: ignore[arg-type]
                assert ratio >= 4.5, f"{theme.name}: {name} on {ground} is {ratio:.2f}:1"


async def test_a_light_theme_maps_ansi_yellow_to_a_readable_colour() -> None:
    """The app installs memtui's light ANSI colours: ``yellow`` text is not Alabaster's."""
    from memtui.tui.themes import LIGHT_ANSI

    app: App[None] = App()
    async with app.run_test():
        install_themes(app, {}, Path("/nonexistent"), "memtui-paper")
        assert app.ansi_theme is LIGHT_ANSI
