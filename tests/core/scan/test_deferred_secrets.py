"""The first trees come before any secret scan (issue 25, item 1): ``scan_progressively``
yields the auto and team stores from their headers, then scans their memories' whole texts
for secrets (cached by stat as before), so the complete result is what it always was."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.contents import ScanResult, SecretMark
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind
from memtui.core.scan import scanner
from memtui.core.scan.scanner import scan, scan_progressively


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> DemoHome:
    return build_demo_home(tmp_path_factory.mktemp("home") / "demo")


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The memories whose whole text was scanned for secrets, in order."""
    seen: list[str] = []
    real = scanner.secret_marks

    def counting(text: str, rel_path: str) -> list[SecretMark]:
        seen.append(rel_path)
        return real(text, rel_path)

    monkeypatch.setattr(scanner, "secret_marks", counting)
    return seen


def settled(path: Path) -> ScanCache:
    cache = ScanCache(path)
    cache._now = time.time() + RACY_SECONDS + 1  # the files were written "long ago"
    return cache


def team_secrets(result: ScanResult) -> dict[str, list[SecretMark]]:
    team = next(s for s in result.stores if s.kind == StoreKind.TEAM)
    return {m.rel_path: list(m.secrets) for m in team.memories if m.secrets}


EXPECTED = {
    "ci-tokens.md": [SecretMark("github-pat", 6)],
    "aws-staging.md": [SecretMark("aws-access-token", 9)],
}


def test_the_first_trees_are_shown_before_any_secret_scan(
    home: DemoHome, scanned: list[str]
) -> None:
    stages = scan_progressively(demo_context(home))
    first = next(stages)
    assert {s.kind for s in first.stores} == {StoreKind.AUTO, StoreKind.TEAM}
    assert scanned == [] and team_secrets(first) == {}
    *_, complete = stages
    assert complete.complete and team_secrets(complete) == EXPECTED
    assert {"ci-tokens.md", "aws-staging.md"} <= set(scanned)


def test_the_deferred_scan_is_cached_and_a_warm_first_stage_has_the_secrets(
    home: DemoHome, tmp_path: Path, scanned: list[str]
) -> None:
    cache_file = tmp_path / "scan.marshal"
    cold = scan(demo_context(home), cache=settled(cache_file))
    assert team_secrets(cold) == EXPECTED
    scanned.clear()
    first = next(scan_progressively(demo_context(home), cache=settled(cache_file)))
    assert team_secrets(first) == EXPECTED  # from the cache, with the headers
    assert scanned == []


def test_a_store_shown_before_its_secrets_were_known_comes_back_as_a_new_object(
    home: DemoHome,
) -> None:
    """A view keeps a store object it showed as it was (the TUI's trees): the team store, whose
    memories turned out to hold secrets, is a new object in the complete result; the auto
    store, which holds none, is the one shown."""
    stages = scan_progressively(demo_context(home))
    first = next(stages)
    *_, complete = stages
    shown = {s.kind: s for s in first.stores}
    final = {s.kind: s for s in complete.stores if s.kind in shown}
    assert final[StoreKind.TEAM] is not shown[StoreKind.TEAM]
    assert final[StoreKind.TEAM].memories == shown[StoreKind.TEAM].memories
    assert final[StoreKind.AUTO] is shown[StoreKind.AUTO]


def test_every_store_comes_from_its_headers_before_any_secret_scan_or_project(
    home: DemoHome, scanned: list[str]
) -> None:
    """The panes are laid out from a result that has every kind of store, read from their
    headers only: no memory's whole text was scanned for secrets, no other project listed
    (both come with the complete result, which has every store as before)."""
    stages = scan_progressively(demo_context(home))
    headers = next(r for r in stages if r.scanned >= set(StoreKind))
    assert not headers.complete
    assert scanned == [] and headers.projects == []
    agents = [s for s in headers.stores if s.kind == StoreKind.AGENT]
    assert agents and any(s.memories for s in agents)
    assert not any(m.secrets for s in headers.stores for m in s.memories)
    *_, complete = stages
    assert complete.complete and complete.projects
    assert team_secrets(complete) == EXPECTED
    assert [(s.kind, s.path, [m.rel_path for m in s.memories]) for s in headers.stores] == [
        (s.kind, s.path, [m.rel_path for m in s.memories]) for s in complete.stores
    ]
    assert len(scanned) > 200  # every readable memory's, after the headers
    assert scan(demo_context(home)).stores == complete.stores
