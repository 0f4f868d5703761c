"""Secrets per memory in the scan: every store kind, the whole text (not the header), the rule
and line only (never the secret), cached by stat with the header's facts."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.contents import ScanResult, SecretMark
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.story import FAKE_AWS_KEY_ID, FAKE_GITHUB_PAT
from memtui.core.demo.writers import write_memory
from memtui.core.fileread import HEADER_LINES
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.plaintext import json_safe
from memtui.core.scan import scanner
from memtui.core.scan.json_text import scan_json_text
from memtui.core.scan.scanner import scan, scan_store
from memtui.core.scan.serialize import scan_json


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    """The whole demo home (the shared ``demo`` copy leaves the projects folder out)."""
    return build_demo_home(tmp_path_factory.mktemp("home") / "demo")


def settle(cache: ScanCache) -> ScanCache:
    cache._now = time.time() + RACY_SECONDS + 1  # the files were written "long ago"
    return cache


def secrets_by_file(result: ScanResult) -> dict[tuple[str, str], list[SecretMark]]:
    return {
        (store.kind.value, memory.rel_path): memory.secrets
        for store in result.stores
        for memory in store.memories
        if memory.secrets
    }


def test_the_demo_team_secrets_are_found_with_rule_and_line(home: DemoHome) -> None:
    result = scan(demo_context(home))
    assert secrets_by_file(result) == {
        ("team", "ci-tokens.md"): [SecretMark("github-pat", 6)],
        ("team", "aws-staging.md"): [SecretMark("aws-access-token", 9)],
    }


def test_scan_json_lists_secrets_per_memory_and_never_the_secret(
    home: DemoHome, tmp_path: Path
) -> None:
    ctx = demo_context(home, XDG_CACHE_HOME=str(tmp_path / "cache"))
    text = scan_json_text(ctx).text
    assert FAKE_GITHUB_PAT not in text and FAKE_AWS_KEY_ID not in text
    data = json.loads(text)
    memories = {
        (store["kind"], memory["path"]): memory
        for store in data["stores"]
        for memory in store["memories"]
    }
    assert all("secrets" in memory for memory in memories.values())
    assert memories[("team", "ci-tokens.md")]["secrets"] == [{"rule": "github-pat", "line": 6}]
    assert memories[("team", "aws-staging.md")]["secrets"] == [
        {"rule": "aws-access-token", "line": 9}
    ]
    assert memories[("team", "code-review.md")]["secrets"] == []
    # the text from the store fragments is the one from a scan, byte for byte
    assert text == json_safe(json.dumps(scan_json(scan(ctx)), ensure_ascii=False))
    assert scan_json_text(ctx).text == text  # and again, warm


def long_body(line_of_secret: int, secret: str) -> str:
    """A body whose ``line_of_secret``-th line holds ``secret``, far past the header."""
    lines = [f"note {i}" for i in range(line_of_secret + 20)]
    lines[line_of_secret - 1] = f"deploy token {secret}"
    return "\n".join(lines) + "\n"


def line_of(path: Path, secret: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if secret in text)


def test_every_store_kind_is_scanned_on_the_whole_text(tmp_path: Path) -> None:
    ctx = demo_context(build_demo_home(tmp_path / "demo"))
    before = scan(ctx)
    planted: dict[str, Path] = {}
    for store in before.stores:
        if not store.exists or store.kind.value in planted:
            continue
        if store.kind == StoreKind.SESSION and store.path.name != "session-memory":
            continue
        path = write_memory(store.path, "zz-leak.md", name="leak", description="d",
                            type="reference", body=long_body(HEADER_LINES + 25, FAKE_GITHUB_PAT))
        planted[store.kind.value] = path
    assert set(planted) == {kind.value for kind in StoreKind}  # the demo has every kind
    found = secrets_by_file(scan(ctx))
    for kind, path in planted.items():
        line = line_of(path, FAKE_GITHUB_PAT)
        assert line > HEADER_LINES
        assert found[(kind, "zz-leak.md")] == [SecretMark("github-pat", line)], kind


def test_secrets_are_cached_by_stat_and_read_again_when_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mem"
    path = write_memory(root, "a.md", name="a", description="d",
                        body=long_body(HEADER_LINES + 10, FAKE_GITHUB_PAT))
    location = StoreLocation(kind=StoreKind.AUTO, path=root, rule="test")
    cache_file = tmp_path / "scan.marshal"
    cache = settle(ScanCache(cache_file))
    first = scan_store(location, cache=cache).memories[0]
    cache.save()
    assert first.secrets == [SecretMark("github-pat", line_of(path, FAKE_GITHUB_PAT))]
    assert FAKE_GITHUB_PAT.encode() not in cache_file.read_bytes()  # rule and line only

    def no_read(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("a cached memory was read again")

    with monkeypatch.context() as patch:
        patch.setattr(scanner, "read_full", no_read)
        patch.setattr(scanner, "read_header", no_read)
        warm = scan_store(location, cache=settle(ScanCache(cache_file))).memories[0]
    assert warm.secrets == first.secrets
    mtime = path.stat().st_mtime
    write_memory(root, "a.md", name="a", description="d", body=long_body(HEADER_LINES + 10, "x"))
    os.utime(path, (mtime, mtime))  # same mtime: ctime and size still differ
    assert scan_store(location, cache=settle(ScanCache(cache_file))).memories[0].secrets == []


def test_a_file_past_the_full_read_cap_or_binary_never_breaks_the_scan(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    (root / "big.md").write_bytes(b"x" * (9 * 1024 * 1024) + FAKE_GITHUB_PAT.encode())
    (root / "bin.md").write_bytes(b"\0\xff" + f"\n{FAKE_GITHUB_PAT}\n".encode())
    (root / "bad.md").write_bytes(b"\xff\xfe token " + FAKE_GITHUB_PAT.encode() + b"\n")
    store = scan_store(StoreLocation(kind=StoreKind.AUTO, path=root, rule="test"))
    marks = {m.rel_path: m.secrets for m in store.memories}
    assert marks["big.md"] == []  # past the 8 MB a whole read stops at
    assert marks["bin.md"] == [SecretMark("github-pat", 2)]  # as team push scans it
    assert marks["bad.md"] == [SecretMark("github-pat", 1)]
