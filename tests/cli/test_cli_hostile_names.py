"""File names that are not valid UTF-8 or hold a raw DEL, and a state dir memtui cannot write
(issue 25 item 5): ``judge``, ``distil``, ``scan`` and ``index`` finish, print valid UTF-8 with
every such byte escaped (JSON stays JSON), and say what they could not do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from core.judge.homes import Note, cli_args, store_dir, write_home
from helpers import REPO

from memtui.core.demo.writers import index_entry, write_index
from memtui.core.plaintext import escape_controls, json_safe

BAD_UTF8 = "\udcfftest-db.md"  # the file name's bytes: b"\xfftest-db.md"
DEL = "test-db\x7f.md"
NOTES = [
    Note("auto", BAD_UTF8, "Test database: what tests run against",
         "Integration tests run against a real Postgres 16; never SQLite, never mocks.", 40),
    Note("auto", DEL, "Test database: what tests run against",
         "Integration tests run against SQLite in memory so the suite stays fast.", 2),
]
TIMEOUT = 120
"""Generous for a loaded 2-core box."""


@pytest.fixture
def home(tmp_path: Path) -> list[str]:
    root = tmp_path / "home"
    ctx = write_home(root, NOTES)
    write_index(store_dir(root, "auto"), ["# Memory", index_entry("Deploy", "deploy.md", "x")])
    return cli_args(ctx)


def memtui(
    tmp_path: Path, *args: str, state: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``memtui`` in a process whose stdout would pass undecodable bytes through raw."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
           "MEMTUI_STATE_DIR": str(state or tmp_path / "state"), "MEMTUI_NO_CACHE": "1",
           "PYTHONIOENCODING": "utf-8:surrogateescape"}
    return subprocess.run([sys.executable, "-m", "memtui", *args], env=env,
                          capture_output=True, timeout=TIMEOUT, check=False)


def clean(done: subprocess.CompletedProcess[bytes]) -> str:
    assert b"Traceback" not in done.stderr, done.stderr[-3000:]
    text = done.stdout.decode("utf-8")  # strict: no raw 0xff
    assert "\x7f" not in text and "\x7f" not in done.stderr.decode("utf-8")
    return text


def test_escapes_of_undecodable_bytes_and_del() -> None:
    assert escape_controls(BAD_UTF8) == "\\xfftest-db.md"
    assert escape_controls(DEL) == "test-db\\x7f.md"
    assert json_safe(json.dumps(DEL)) == '"test-db\\u007f.md"'  # ASCII, DEL: escaped too
    assert json.loads(json_safe(json.dumps(BAD_UTF8, ensure_ascii=False))) == BAD_UTF8


@pytest.mark.parametrize("command", [["scan", "--json"], ["distil", "auto", "--json"]])
def test_json_output_stays_json(tmp_path: Path, home: list[str], command: list[str]) -> None:
    done = memtui(tmp_path, *home, *command)
    text = clean(done)
    assert done.returncode in (0, 1)
    json.loads(text)
    assert "\\udcfftest-db.md" in text  # the escape: the same name again for a reader


def test_index_json_stays_json(tmp_path: Path, home: list[str]) -> None:
    index = store_dir(tmp_path / "home", "auto") / "MEMORY.md"
    index.write_bytes(index.read_bytes() + b"- [x](\xff.md) \x7f del\n- [y](y\x7f.md)\n")
    done = memtui(tmp_path, *home, "index", "--json", str(index))
    text = clean(done)
    json.loads(text)
    assert "\\udcfftest-db.md" in text  # an orphan of the store


def test_judge_and_distil_finish_and_say_what_they_left_out(
    tmp_path: Path, home: list[str]
) -> None:
    done = memtui(tmp_path, *home, "judge", "--all")  # --all: the pair, whatever its verdict
    text = clean(done)
    assert done.returncode in (0, 1)  # judged (needing a decision or not), no crash
    assert "\\xfftest-db.md" in text
    assert (tmp_path / "state" / "judge" / "ledger.json").read_bytes().isascii()
    again = memtui(tmp_path, *home, "judge", "--json", "--all")
    pairs = json.loads(clean(again))["pairs"]
    assert {p["state"] for p in pairs} == {"judged"}  # the ledger read back the same keys

    done = memtui(tmp_path, *home, "distil", "auto")
    text = clean(done)
    assert "\\xfftest-db.md: its name is not valid UTF-8" in text


def test_an_unwritable_state_dir_is_said_and_the_judge_goes_on(
    tmp_path: Path, home: list[str]
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the state dir's parent should be\n")
    done = memtui(tmp_path, *home, "judge", state=blocker / "state")
    text = clean(done)
    assert done.returncode in (0, 1)
    assert "note: judge ledger " in text and " not saved: " in text
    assert "1 judged now" in text
