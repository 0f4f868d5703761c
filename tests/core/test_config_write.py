"""The config writer (``save_theme``): only the ``theme = ...`` line changes, every other byte
stays; the file is replaced atomically (a symlink's target, its mode kept); a malformed file is
reported and never overwritten."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memtui.core.config import ConfigFile, ConfigWriteError, load_config, save_theme

BODY = """\
# my memtui settings
theme = "nord"   # the dark one

[keymap]
"pane.zoom" = "Z"

[journal]
max_age_days = 14
"""


def write(path: Path, text: str | bytes, mode: int = 0o640) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    path.chmod(mode)
    return path


def theme_of(path: Path) -> str | None:
    config = load_config({"MEMTUI_CONFIG": str(path)})
    assert config.problems == []
    return config.theme


def test_only_the_theme_value_changes(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", BODY)
    assert save_theme(path, "memtui-paper") is True
    assert path.read_text() == BODY.replace('"nord"', '"memtui-paper"')
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert theme_of(path) == "memtui-paper"
    assert save_theme(path, "memtui-paper") is False  # already so: not written
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left


@pytest.mark.parametrize("text, expected", [
    ("", 'theme = "dracula"\n'),
    ("[journal]\nmax_mb = 5\n", 'theme = "dracula"\n[journal]\nmax_mb = 5\n'),
    ("# hi\n\n[journal]\nmax_mb = 5\n", '# hi\n\ntheme = "dracula"\n[journal]\nmax_mb = 5\n'),
    ("# no newline at the end", '# no newline at the end\ntheme = "dracula"\n'),
    ("theme = 'nord'\r\n[journal]\r\nmax_mb = 5\r\n",
     "theme = \"dracula\"\r\n[journal]\r\nmax_mb = 5\r\n"),
    ('[judge]\nmodel = "m"\n# theme = "x"\n',
     'theme = "dracula"\n[judge]\nmodel = "m"\n# theme = "x"\n'),
])  # fmt: skip
def test_a_theme_line_is_added_or_edited_and_nothing_else(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = write(tmp_path / "config.toml", text)
    save_theme(path, "dracula")
    assert path.read_bytes() == expected.encode()
    assert theme_of(path) == "dracula"


def test_a_missing_file_is_created_with_its_directory(tmp_path: Path) -> None:
    path = tmp_path / "xdg" / "memtui" / "config.toml"
    assert save_theme(path, "nord") is True
    assert path.read_text() == 'theme = "nord"\n'


def test_a_symlinked_config_writes_its_target(tmp_path: Path) -> None:
    target = write(tmp_path / "dotfiles" / "memtui.toml", BODY)
    link = tmp_path / "config.toml"
    link.symlink_to(target)
    save_theme(link, "dracula")
    assert link.is_symlink()
    assert 'theme = "dracula"   # the dark one' in target.read_text()


@pytest.mark.parametrize("content, why", [
    (b'theme = "nord"\n[journal\n', "not valid TOML"),
    (b'theme = "nord"\n\xff\n', "not UTF-8"),
    (b"theme = 5\n", "does not edit"),
    (b'theme = """nord"""\n', "does not edit"),
    (b'[keymap]\n"pane.zoom" = "Z"\n[[x]]\ntheme = "a"\n', None),  # a nested theme: not ours
])  # fmt: skip
def test_a_malformed_file_is_reported_and_left_alone(
    tmp_path: Path, content: bytes, why: str | None
) -> None:
    path = write(tmp_path / "config.toml", content)
    if why is None:  # the top-level theme is added; the table's own key stays
        save_theme(path, "nord")
        assert path.read_bytes() == b'theme = "nord"\n' + content
        return
    with pytest.raises(ConfigWriteError, match=why):
        save_theme(path, "dracula")
    assert path.read_bytes() == content
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_no_path_a_bad_name_a_directory_or_a_fifo_refuse(tmp_path: Path) -> None:
    with pytest.raises(ConfigWriteError, match="no config file"):
        save_theme(None, "nord")
    path = write(tmp_path / "config.toml", BODY)
    with pytest.raises(ConfigWriteError, match="not a theme name"):
        save_theme(path, 'x"\n[evil]')
    assert path.read_text() == BODY
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(ConfigWriteError, match="not changed"):
        save_theme(tmp_path / "dir.toml", "nord")
    os.mkfifo(tmp_path / "fifo.toml")
    with pytest.raises(ConfigWriteError, match="not changed"):
        save_theme(tmp_path / "fifo.toml", "nord")  # never opened: it would block


def test_a_file_too_large_is_not_rewritten(tmp_path: Path) -> None:
    big = BODY + "# " + "x" * (300 * 1024) + "\n"
    path = write(tmp_path / "config.toml", big)
    with pytest.raises(ConfigWriteError, match="larger than"):
        save_theme(path, "dracula")
    assert path.read_text() == big


def test_the_written_file_is_what_load_config_reads(tmp_path: Path) -> None:
    where = ConfigFile(tmp_path / "c" / "config.toml", "--config")
    save_theme(where.path, "memtui-paper")
    config = load_config({}, explicit=where.path)
    assert config.theme == "memtui-paper"
    assert config.sources["theme"] == str(where.path)
