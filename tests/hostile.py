"""A demo home full of hostile text: Rich/Textual markup, ESC/OSC/CSI sequences, C1 controls,
bidi overrides, newlines, DEL and bytes that are no UTF-8 in file names, frontmatter, bodies,
MEMORY.md lines, agent names, session titles, snapshot files and in the path of the home
itself.

Every view must show these literally (markup never parsed, controls escaped) and no raw control
character may reach the terminal (:func:`raw_controls`).
"""

from __future__ import annotations

import re
from pathlib import Path

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import (
    agent_memory_dir,
    index_entry,
    make_dir,
    snapshot_json,
    write_file,
    write_index,
    write_memory,
    write_session,
    write_snapshot,
)
from memtui.core.stores.sanitize import sanitize_path

MARKUP_CLOSE = "closing [/nope] tag"
CLICK = "[@click=app.quit]QUIT[/]"
STYLE = "[bold red]x[/]"
OSC_TITLE = "\x1b]2;pwned\x07"
CLEAR = "\x1b[2J"
C1_CSI = "\x9b"
BIDI = "\u202e"

HOSTILE = f"{MARKUP_CLOSE} {CLICK} {STYLE} {OSC_TITLE} {CLEAR} {C1_CSI}31m {BIDI}gnp.exe"
"""One value holding every injection at once (one line)."""

ESCAPED = (
    f"{MARKUP_CLOSE} {CLICK} {STYLE} \\x1b]2;pwned\\x07 \\x1b[2J \\x9b31m \\u202egnp.exe"
)
"""How :data:`HOSTILE` must be shown."""

ROOT_NAME = "home \x1b]2;rooted\x07 [b]x"
"""The directory the whole home is built in: every path shown carries it."""
ROOT_SHOWN = "home \\x1b]2;rooted\\x07 [b]x"

# file names (a name cannot hold "/": a folder and a file make the markup of a relative path)
OSC_FILE = "osc\x1b]2;pwned\x07.md"
OSC_FILE_SHOWN = "osc\\x1b]2;pwned\\x07.md"
NEWLINE_FILE = "new\nline.md"
NEWLINE_FILE_SHOWN = "new\\nline.md"
C1_FILE = "c1\x9b2Jq.md"
C1_FILE_SHOWN = "c1\\x9b2Jq.md"
BIDI_FILE = f"bidi{BIDI}dm.exe.md"
BIDI_FILE_SHOWN = "bidi\\u202edm.exe.md"
MARKUP_FOLDER = "[@click=app.quit]QUIT["
MARKUP_FILE = "]tail.md"
MARKUP_REL = f"{MARKUP_FOLDER}/{MARKUP_FILE}"  # "[@click=app.quit]QUIT[/]tail.md"
CLEAR_FILE = "clear\x1b[2J.md"
CLEAR_FILE_SHOWN = "clear\\x1b[2J.md"
UNDECODABLE_FILE = "bad\udcff\udcfe.md"  # the name's bytes b"bad\xff\xfe.md": no UTF-8
UNDECODABLE_FILE_SHOWN = "bad\\xff\\xfe.md"
DEL_FILE = "del\x7f.md"
DEL_FILE_SHOWN = "del\\x7f.md"

BODY = (
    "# Hostile body\n\n"
    f"{MARKUP_CLOSE}\n\n{CLICK}\n\n{STYLE}\n\n"
    f"osc {OSC_TITLE} clear {CLEAR} c1 {C1_CSI}31m bidi {BIDI}gnp.exe\n\n"
    "[a link](javascript:alert(1)) and [another](app.quit)\n\n"
    "```\ncode \x1b[31mred\x1b[0m\n```\n"
)

AGENT = "spy\x1b]2;pwned\x07[b]"
AGENT_SHOWN = "spy\\x1b]2;pwned\\x07[b]"
SNAPSHOT_AGENT = "snap\x1b[2J[@click=app.quit]q"
SNAPSHOT_AGENT_SHOWN = "snap\\x1b[2J[@click=app.quit]q"
SESSION_ID = "badc0de1-0000-4000-8000-00000000beef"
OTHER_PROJECT_CWD = "/nowhere/proj\x1b]2;pwned\x07[/x]"


def build_hostile_home(tmp: Path) -> DemoHome:
    """The demo home built inside ``tmp/ROOT_NAME``, plus hostile memories everywhere."""
    home = build_demo_home(tmp / ROOT_NAME)
    auto = home.auto_memory
    frontmatter = {"name": CLICK, "description": HOSTILE, "type": f"{STYLE}{CLEAR}"}
    for rel in (OSC_FILE, NEWLINE_FILE, C1_FILE, BIDI_FILE, MARKUP_REL, CLEAR_FILE,
                UNDECODABLE_FILE, DEL_FILE):
        write_memory(auto, rel, body=BODY, **frontmatter)
    index = auto / "MEMORY.md"
    lines = index.read_text(encoding="utf-8").split("\n")
    hostile_lines = [
        index_entry(MARKUP_CLOSE, OSC_FILE, f"{CLICK} {OSC_TITLE} {CLEAR} {C1_CSI}q {BIDI}x"),
        index_entry(STYLE, "missing\x1b[2J.md", "dangling, with an ESC in the target"),
        index_entry("newline file", NEWLINE_FILE.replace("\n", "%0A"), "newline"),
    ]
    write_index(auto, [lines[0], *hostile_lines, *lines[1:-1]])

    agent_dir = agent_memory_dir("user", AGENT, claude_home=home.claude_home,
                                 project=home.project)
    write_index(agent_dir, [index_entry(HOSTILE, OSC_FILE, CLICK)])
    write_memory(agent_dir, OSC_FILE, body=BODY, **frontmatter)

    write_snapshot(
        home.project,
        SNAPSHOT_AGENT,
        snapshot_json=snapshot_json("2026-11-20T10:00:00.000Z"),
        files={OSC_FILE: BODY, CLEAR_FILE: BODY, "MEMORY.md": f"- [{HOSTILE}]({OSC_FILE})\n"},
    )
    write_session(
        home.claude_home,
        str(home.project),
        SESSION_ID,
        sections={"Session Title": HOSTILE, "Current State": BODY},
        started="2026-11-29T09:30:00.000Z",
    )
    other = home.claude_home / "projects" / sanitize_path(OTHER_PROJECT_CWD)
    make_dir(other)
    write_file(
        other / f"{SESSION_ID}.jsonl",
        '{"type":"user","cwd":"/nowhere/proj\\u001b]2;pwned\\u0007[/x]",'
        f'"sessionId":"{SESSION_ID}","timestamp":"2026-11-29T09:30:00.000Z",'
        '"message":{"role":"user","content":"hi"}}\n',
    )
    theme_dir = home.root / ".config" / "memtui" / "themes"
    write_file(theme_dir / f"bad{OSC_TITLE}[b]x.toml", "name = 3\n")
    return home


SEQUENCES_OF_THE_APP = re.compile(r"\x1b\[[0-9;]*[mH]|\x1b\[\?[0-9;]*[hl]")
"""What Textual itself writes: SGR colours and cursor moves (and mode switches)."""

RAW = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{BIDI}\u2066-\u2069\u200e\u200f]")


def raw_controls(output: str, *, app_sequences: bool = False) -> list[str]:
    """Every raw control character of ``output`` (newlines allowed) with a little context;
    with ``app_sequences`` the SGR and cursor-move sequences a renderer writes are allowed."""
    if app_sequences:
        output = SEQUENCES_OF_THE_APP.sub("", output)
    return [repr(output[max(0, m.start() - 20) : m.end() + 20]) for m in RAW.finditer(output)]
