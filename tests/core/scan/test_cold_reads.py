"""A cold ``scan --json`` opens each memory file once (issue 25, item 1): the read that takes
a file's header usually takes all of it, and the secret scan uses those bytes instead of
opening the file again; only a file longer than that read is read whole a second time.
Counted with the opens a scan makes, not timed."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.story import FAKE_GITHUB_PAT
from memtui.core.demo.writers import write_memory
from memtui.core.fileread import READ_CHUNK, read_header
from memtui.core.plaintext import json_safe
from memtui.core.scan.json_text import scan_json_text
from memtui.core.scan.scanner import scan
from memtui.core.scan.serialize import scan_json

LONG_SMALL = "long-small.md"
"""60 lines in one read: the header read takes the whole file."""
LONG_LARGE = "long-large.md"
"""40 lines of 300 characters: more than one read, so it is read whole again."""


def body(lines: int, width: int) -> str:
    filler = [f"line {i} " + "x" * (width - 10) for i in range(lines)]
    return "\n".join([*filler, f"token {FAKE_GITHUB_PAT} at the end"]) + "\n"


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    home = build_demo_home(tmp_path / "demo")
    auto = home.auto_memory
    write_memory(auto, LONG_SMALL, description="Long but small", type="reference",
                 body=body(60, 40))
    write_memory(auto, LONG_LARGE, description="Long and large", type="reference",
                 body=body(40, 300))
    return home


def test_the_header_read_keeps_the_whole_file_only_when_it_took_all_of_it(
    home: DemoHome,
) -> None:
    small = home.auto_memory / LONG_SMALL
    header = read_header(small, home.auto_memory, regular=True)
    assert not header.complete and header.whole == small.read_bytes()
    assert len(header.whole) <= READ_CHUNK
    large = read_header(home.auto_memory / LONG_LARGE, home.auto_memory, regular=True)
    assert not large.complete and large.whole is None
    short = read_header(home.auto_memory / "staging-env.md", home.auto_memory, regular=True)
    assert short.complete and short.whole is None  # the header is the file: kept once


def test_a_cold_scan_opens_each_memory_once(
    home: DemoHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = demo_context(home, MEMTUI_NO_CACHE="1", XDG_CACHE_HOME=str(tmp_path / "cache"))
    opened: Counter[str] = Counter()
    real_open = os.open

    def counting_open(path: str | os.PathLike[str], flags: int, *args: int, **kw: int) -> int:
        opened[os.fspath(path)] += 1
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", counting_open)
    text = scan_json_text(ctx).text
    monkeypatch.setattr(os, "open", real_open)
    assert text == json_safe(json.dumps(scan_json(scan(ctx)), ensure_ascii=False))
    auto = json.loads(text)["stores"][0]
    secrets = {m["path"]: m["secrets"] for m in auto["memories"]}
    assert secrets[LONG_SMALL] == [{"rule": "github-pat", "line": 66}]
    assert secrets[LONG_LARGE] == [{"rule": "github-pat", "line": 46}]
    small = [path for m in auto["memories"]
             if (path := home.auto_memory / m["path"]).is_file() and not path.is_symlink()
             and path.stat().st_size <= READ_CHUNK and path.name != "MEMORY.md"]
    assert len(small) > 5 and home.auto_memory / LONG_SMALL in small
    assert {str(path): opened[str(path)] for path in small} == {str(p): 1 for p in small}
    assert opened[str(home.auto_memory / LONG_LARGE)] == 2  # the header, then the whole
