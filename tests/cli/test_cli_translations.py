"""argparse's messages while the parser is built and parses: gettext is asked only where it
could translate (issue 25, cold start: its look-ups import ``locale`` and search directories)."""

from __future__ import annotations

import argparse
import gettext
import struct
from pathlib import Path

import pytest

from memtui.cli.parser import translations_looked_up_once


def write_mo(path: Path, catalog: dict[str, str]) -> None:
    """A GNU ``.mo`` file holding ``catalog`` (the format gettext.GNUTranslations reads)."""
    keys = sorted(catalog)
    ids = b"".join(k.encode() + b"\0" for k in keys)
    strs = b"".join(catalog[k].encode() + b"\0" for k in keys)
    start = 7 * 4 + 16 * len(keys)
    id_table, str_table, offset = b"", b"", 0
    for k in keys:
        id_table += struct.pack("<2I", len(k.encode()), start + offset)
        offset += len(k.encode()) + 1
    for k in keys:
        str_table += struct.pack("<2I", len(catalog[k].encode()), start + offset)
        offset += len(catalog[k].encode()) + 1
    header = struct.pack("<7I", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + 8 * len(keys), 0, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + id_table + str_table + ids + strs)


@pytest.fixture
def default_localedir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    localedir = tmp_path / "locale"
    monkeypatch.setattr(gettext, "_default_localedir", str(localedir))
    monkeypatch.setattr(gettext, "_localedirs", {})
    monkeypatch.setattr(gettext, "_current_domain", "messages")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "xx")
    return localedir


def test_without_a_locale_directory_gettext_is_not_asked(
    default_localedir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def find(domain: str, *args: object, **kwargs: object) -> list[str]:
        asked.append(domain)
        return []

    monkeypatch.setattr(gettext, "find", find)
    with translations_looked_up_once():
        assert argparse._("options") == "options"  # type: ignore[attr-defined]
        argparse.ArgumentParser(prog="x").format_help()
    assert asked == []


def test_a_translation_is_still_used(default_localedir: Path) -> None:
    write_mo(default_localedir / "xx" / "LC_MESSAGES" / "messages.mo", {"options": "Optionen"})
    with translations_looked_up_once():
        assert argparse._("options") == "Optionen"  # type: ignore[attr-defined]
        assert argparse._("usage: ") == "usage: "  # type: ignore[attr-defined]
    assert gettext.gettext("options") == "Optionen"


def test_a_bound_domain_directory_is_looked_in(
    default_localedir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bound = tmp_path / "bound"
    write_mo(bound / "xx" / "LC_MESSAGES" / "memtui-test.mo", {"options": "Wahlen"})
    monkeypatch.setattr(gettext, "_localedirs", {"memtui-test": str(bound)})
    monkeypatch.setattr(gettext, "_current_domain", "memtui-test")
    with translations_looked_up_once():
        assert argparse._("options") == "Wahlen"  # type: ignore[attr-defined]
