"""The real CLI on a home full of markup, terminal sequences and newlines in names: nothing from
disk reaches the terminal as a control character, and every hostile value is shown escaped on
its own line (issue 8, item 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import (
    AGENT,
    AGENT_SHOWN,
    BIDI_FILE,
    BIDI_FILE_SHOWN,
    C1_FILE_SHOWN,
    CLEAR_FILE_SHOWN,
    CLICK,
    DEL_FILE,
    DEL_FILE_SHOWN,
    ESCAPED,
    HOSTILE,
    MARKUP_CLOSE,
    MARKUP_REL,
    NEWLINE_FILE,
    NEWLINE_FILE_SHOWN,
    OSC_FILE,
    OSC_FILE_SHOWN,
    ROOT_SHOWN,
    SNAPSHOT_AGENT,
    SNAPSHOT_AGENT_SHOWN,
    UNDECODABLE_FILE,
    UNDECODABLE_FILE_SHOWN,
    build_hostile_home,
    raw_controls,
)

from memtui.core.demo.build import DemoHome

OTHER_PROJECT_SHOWN = "/nowhere/proj\\x1b]2;pwned\\x07[/x]"


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_hostile_home(tmp_path)


def run_cli(home: DemoHome, *argv: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m memtui`` on the hostile home, stdin not a terminal, output as bytes."""
    env = {
        **os.environ,
        "HOME": str(home.root.parent),  # paths are shown as ~/<ROOT_NAME>/…
        "XDG_STATE_HOME": str(home.root.parent / "state"),
        "XDG_CACHE_HOME": str(home.root.parent / "cache"),
        "COLUMNS": "200",
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    args = [
        "--claude-home", str(home.claude_home),
        "--project", str(home.project),
        "--agent-memory-home", str(home.agent_memory_home),
    ]
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args, *argv],
        capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=120, check=False,
    )


def clean(output: bytes) -> str:
    """``output`` as text, after checking it holds no raw control character but newlines."""
    text = output.decode("utf-8")
    assert raw_controls(text) == []
    return text


def lines_with(text: str, needle: str) -> list[str]:
    return [line for line in text.split("\n") if needle in line]


def test_scan_shows_every_hostile_value_escaped_on_its_line(home: DemoHome) -> None:
    done = run_cli(home, "scan")
    assert done.returncode == 0, done.stderr
    out = clean(done.stdout)
    clean(done.stderr)
    assert lines_with(out, "project ")[0].startswith(f"project ~/{ROOT_SHOWN}/project")
    for name in (OSC_FILE_SHOWN, NEWLINE_FILE_SHOWN, C1_FILE_SHOWN, BIDI_FILE_SHOWN,
                 CLEAR_FILE_SHOWN, MARKUP_REL, UNDECODABLE_FILE_SHOWN, DEL_FILE_SHOWN):
        rows = [line for line in lines_with(out, name) if ESCAPED in line]
        assert rows and "today" in rows[0], name  # name, age and description on one line
    assert not any(line.startswith("line.md") for line in out.split("\n"))
    assert lines_with(out, f"agent {AGENT_SHOWN} (user)")
    assert lines_with(out, f"snapshot {SNAPSHOT_AGENT_SHOWN}")
    session = lines_with(out, "session 2026-11-29T09:30")
    assert session and session[0].endswith(ESCAPED)
    assert lines_with(out, OTHER_PROJECT_SHOWN)
    assert lines_with(out, "dangling: line 3 → missing\\x1b[2J.md")
    assert MARKUP_CLOSE in out and CLICK in out  # markup is text on the CLI too


def test_scan_json_is_valid_json_with_no_raw_control_byte(home: DemoHome) -> None:
    for _ in range(2):  # the second run prints the cached store text
        done = run_cli(home, "scan", "--json")
        assert done.returncode == 0, done.stderr
        text = clean(done.stdout)
        assert text.count("\n") == 1 and text.endswith("\n")
        assert "\\u009b" in text and "\\u202e" in text and "\\u001b" in text
        data = json.loads(text)
        auto = next(s for s in data["stores"] if s["kind"] == "auto")
        memories = {m["path"]: m for m in auto["memories"]}
        for rel in (OSC_FILE, NEWLINE_FILE, BIDI_FILE, MARKUP_REL, UNDECODABLE_FILE, DEL_FILE):
            assert memories[rel]["description"] == HOSTILE  # the same value, exactly
        assert any(s["agent"] == AGENT for s in data["stores"])


def test_index_text_and_json(home: DemoHome) -> None:
    done = run_cli(home, "index", str(home.auto_memory / "MEMORY.md"))
    out = clean(done.stdout)
    assert done.returncode == 0
    assert lines_with(out, "dangling: line 3 → missing\\x1b[2J.md (no such file)")
    assert lines_with(out, f"orphan: {C1_FILE_SHOWN}")
    assert lines_with(out, f"orphan: {BIDI_FILE_SHOWN}")
    agent_index = home.claude_home / "agent-memory" / AGENT / "MEMORY.md"
    done = run_cli(home, "index", "--agent", "--json", str(agent_index))
    report = json.loads(clean(done.stdout))
    assert report["loaded"].startswith(f"- [{HOSTILE}]({OSC_FILE})")


def test_snapshot_status_text_and_json(home: DemoHome) -> None:
    done = run_cli(home, "snapshot", "status")
    out = clean(done.stdout)
    assert done.returncode == 0
    assert lines_with(out, f"{SNAPSHOT_AGENT_SHOWN}: snapshot updatedAt 2026-11-20")
    done = run_cli(home, "snapshot", "status", "--json")
    assert SNAPSHOT_AGENT in [s["agent"] for s in json.loads(clean(done.stdout))]


def test_plans_without_yes_escape_names_and_diffs(home: DemoHome) -> None:
    store = str(home.auto_memory)
    done = run_cli(home, "delete", store, OSC_FILE)
    assert done.returncode == 1  # no terminal to ask on: nothing changed
    out = clean(done.stdout)
    clean(done.stderr)
    assert lines_with(out, f"deleted   {OSC_FILE_SHOWN}")
    removed = f"-- [{MARKUP_CLOSE}]({OSC_FILE_SHOWN}) — {CLICK} \\x1b]2;pwned\\x07 \\x1b[2J"
    assert lines_with(out, removed)  # the index line the delete removes, in the diff
    assert lines_with(out, "-osc \\x1b]2;pwned\\x07 clear \\x1b[2J c1 \\x9b31m")  # the body
    assert (home.auto_memory / OSC_FILE).exists()

    done = run_cli(home, "delete", store, NEWLINE_FILE)
    out = clean(done.stdout)
    assert lines_with(out, f"--- a/{NEWLINE_FILE_SHOWN}")
    assert not any(line.startswith("line.md") for line in out.split("\n"))

    done = run_cli(home, "snapshot", "init", SNAPSHOT_AGENT)
    assert done.returncode == 1
    out = clean(done.stdout)
    clean(done.stderr)
    assert lines_with(out, f"added     {OSC_FILE_SHOWN}")
    assert lines_with(out, f"added     {CLEAR_FILE_SHOWN}")


def test_undo_list_and_undo_plan_escape_titles_and_paths(home: DemoHome) -> None:
    done = run_cli(home, "delete", str(home.auto_memory), NEWLINE_FILE, "--yes")
    assert done.returncode == 0, done.stderr
    assert lines_with(clean(done.stdout), f"done: delete {NEWLINE_FILE_SHOWN}")
    done = run_cli(home, "undo", "--list")
    out = clean(done.stdout)
    assert lines_with(out, NEWLINE_FILE_SHOWN)
    assert lines_with(out, ROOT_SHOWN)
    assert not any(line.startswith("line.md") for line in out.split("\n"))
    done = run_cli(home, "undo")
    assert done.returncode == 1  # asks, and there is no terminal
    out = clean(done.stdout)
    assert lines_with(out, f"undo delete-memory: delete {NEWLINE_FILE_SHOWN}")


def test_error_messages_escape_paths_and_names(home: DemoHome) -> None:
    done = run_cli(home, "delete", str(home.auto_memory), "nope\x1b]2;x\x07.md")
    assert done.returncode == 2
    err = clean(done.stderr)
    assert "nope\\x1b]2;x\\x07.md" in err and ROOT_SHOWN in err
    done = run_cli(home, "index", str(home.root / "nothing\x9b.md"))
    assert done.returncode == 2
    assert "nothing\\x9b.md is not a file" in clean(done.stderr)
    done = run_cli(home, "snapshot", "init", AGENT)
    assert done.returncode == 2
    err = clean(done.stderr)
    assert SNAPSHOT_AGENT_SHOWN in err and AGENT_SHOWN in err


def test_yaml_warnings_about_a_memory_never_reach_the_terminal(home: DemoHome) -> None:
    """ruamel warns on stderr about a reused anchor, quoting the file (a bidi override
    included: YAML allows it): memtui prints nothing of it."""
    (home.auto_memory / "anchors.md").write_text(
        "---\nname: anchors\na: &x [1]\nb: &x [2]\ndescription: d \u202e\n---\nbody\n"
    )
    done = run_cli(home, "scan")
    assert done.returncode == 0
    assert done.stderr == b""
    assert "anchors.md" in clean(done.stdout)
