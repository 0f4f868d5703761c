"""Refreshing a scan after files changed: only the touched stores are rescanned."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from memtui.core.cache import RACY_SECONDS, ScanCache
from memtui.core.contents import ScanResult, Store
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.writers import write_memory, write_synced
from memtui.core.model import StoreKind
from memtui.core.scan import scanner as scan_module
from memtui.core.scan.refresh import plan_refresh, refresh, watch_targets
from memtui.core.scan.scanner import cache_for, scan
from memtui.core.stores.locations import Context


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    return build_demo_home(tmp_path)


@pytest.fixture
def ctx(home: DemoHome) -> Context:
    return Context.create(
        project=home.project,
        claude_home=home.claude_home,
        agent_memory_home=home.agent_memory_home,
        env={"HOME": str(home.root)},
    )


def store_of(result: ScanResult, kind: StoreKind, agent: str | None = None) -> Store:
    return next(
        s for s in result.stores if s.kind == kind and (agent is None or s.location.agent == agent)
    )


def descriptions(store: Store) -> dict[str, str | None]:
    return {m.rel_path: m.description for m in store.memories}


def test_changed_memory_rescans_only_its_store(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    path = write_memory(home.auto_memory, "fresh_note.md", description="written just now",
                        type="project")
    after = refresh(ctx, before, {path})
    assert after is not before
    auto_before, auto_after = store_of(before, StoreKind.AUTO), store_of(after, StoreKind.AUTO)
    assert "fresh_note.md" not in descriptions(auto_before)
    assert descriptions(auto_after)["fresh_note.md"] == "written just now"
    assert auto_after.problems == auto_before.problems  # location problems kept
    for old, new in zip(before.stores, after.stores, strict=True):
        if old.kind != StoreKind.AUTO:
            assert new is old, f"{old.title} was rescanned for nothing"
    assert after.projects is before.projects


def test_team_change_leaves_auto_alone(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    path = write_memory(home.team_memory, "ref_new.md", description="team rule")
    after = refresh(ctx, before, {path})
    assert store_of(after, StoreKind.AUTO) is store_of(before, StoreKind.AUTO)
    assert descriptions(store_of(after, StoreKind.TEAM))["ref_new.md"] == "team rule"


def test_deleted_memory_disappears(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    victim = next(m for m in store_of(before, StoreKind.AUTO).memories if not m.is_index)
    victim.path.unlink()
    after = refresh(ctx, before, {victim.path})
    assert victim.rel_path not in descriptions(store_of(after, StoreKind.AUTO))


def test_synced_file_in_agent_dir_refreshes_snapshot_status(ctx: Context) -> None:
    before = scan(ctx)
    snapshot = next(
        s for s in before.stores
        if s.snapshot and not s.snapshot.problem and s.snapshot.primary.status == "prompt-update"
    )
    assert snapshot.snapshot is not None and snapshot.snapshot.updated_at
    local = snapshot.snapshot.primary.local
    synced = write_synced(local, snapshot.snapshot.updated_at)
    after = refresh(ctx, before, {synced})
    fresh = next(s for s in after.stores if s.path == snapshot.path)
    assert fresh.snapshot is not None and fresh.snapshot.primary.status == "none"
    assert store_of(after, StoreKind.AUTO) is store_of(before, StoreKind.AUTO)


def test_new_agent_dir_brings_a_new_store(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    new_dir = home.claude_home / "agent-memory" / "newcomer"
    path = write_memory(new_dir, "MEMORY.md", description=None)
    after = refresh(ctx, before, {new_dir, path})
    assert not any(s.location.agent == "newcomer" for s in before.stores)
    newcomer = store_of(after, StoreKind.AGENT, agent="newcomer")
    assert newcomer.exists and [m.rel_path for m in newcomer.memories] == ["MEMORY.md"]


def test_new_session_brings_a_new_store(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    targets = watch_targets(ctx, before)
    session_dir = targets.sessions_root / "0badcafe-0000-4000-8000-000000000000"
    summary = session_dir / "session-memory" / "summary.md"
    summary.parent.mkdir(parents=True)
    summary.write_text("# Session Title\nlive refresh\n", encoding="utf-8")
    after = refresh(ctx, before, {session_dir})
    sessions = [s.location.session for s in after.stores if s.kind == StoreKind.SESSION]
    assert "0badcafe-0000-4000-8000-000000000000" in sessions
    assert len(sessions) == 1 + sum(s.kind == StoreKind.SESSION for s in before.stores)


def test_noise_returns_the_same_result(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    targets = watch_targets(ctx, before)
    session = store_of(before, StoreKind.SESSION)
    assert session.session_info is not None and session.session_info.transcript is not None
    transcript = session.session_info.transcript
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"user"}\n')
    unrelated = home.project / "src" / "app.py"
    subagent = targets.sessions_root / (session.location.session or "") / "subagents" / "a.jsonl"
    noise = {transcript, unrelated, subagent, home.root / "elsewhere.txt"}
    assert plan_refresh(before, targets, noise).empty
    assert refresh(ctx, before, noise) is before


def test_plan_sorts_paths(ctx: Context, home: DemoHome) -> None:
    result = scan(ctx)
    targets = watch_targets(ctx, result)
    auto = store_of(result, StoreKind.AUTO)
    plan = plan_refresh(result, targets, {auto.path / "logs" / "2026" / "x.md"})
    assert plan.stores == {auto.path} and not plan.structural and not plan.full
    agent = store_of(result, StoreKind.AGENT, agent="planner")
    plan = plan_refresh(result, targets, {agent.path / "notes.md"})
    snapshots = {s.path for s in result.stores if s.kind == StoreKind.SNAPSHOT}
    assert plan.stores == {agent.path, *snapshots}
    plan = plan_refresh(result, targets, {home.project / ".claude"})
    assert plan.structural  # on the way to the agent and snapshot roots
    plan = plan_refresh(result, targets, {home.claude_home / "agents" / "new-agent.md"})
    assert plan.full
    plan = plan_refresh(result, targets, {auto.path})
    assert plan.structural and not plan.stores


def test_structural_change_without_new_store_keeps_result(ctx: Context, home: DemoHome) -> None:
    before = scan(ctx)
    targets = watch_targets(ctx, before)
    empty_session_dir = targets.sessions_root / "1234abcd-0000-4000-8000-000000000000"
    empty_session_dir.mkdir()
    assert plan_refresh(before, targets, {empty_session_dir}).structural
    assert refresh(ctx, before, {empty_session_dir}) is before


def test_watch_targets_cover_every_store_and_container(ctx: Context, home: DemoHome) -> None:
    result = scan(ctx)
    targets = watch_targets(ctx, result)
    assert {s.path for s in result.stores} <= targets.roots
    assert home.claude_home / "agent-memory" in targets.roots
    assert home.project / ".claude" / "agent-memory-snapshots" in targets.roots
    assert targets.sessions_root.parent == home.claude_home / "projects"


def test_a_burst_is_planned_with_one_realpath_per_folder_and_store(
    ctx: Context, home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200 files written at once: each store root and each folder is resolved once, not twice
    per file and store (that took seconds with a few dozen stores)."""
    result = scan(ctx)
    targets = watch_targets(ctx, result)
    auto = store_of(result, StoreKind.AUTO)
    team = store_of(result, StoreKind.TEAM)  # inside the auto store's root: the deeper wins
    changed = {auto.path / f"burst_{i:03}.md" for i in range(150)}
    changed |= {auto.path / "logs" / f"log_{i:02}.md" for i in range(25)}
    changed |= {team.path / f"team_{i:02}.md" for i in range(25)}
    calls: list[str] = []
    real = os.path.realpath

    def counting(path: os.PathLike[str] | str, *, strict: bool = False) -> str:
        calls.append(os.fspath(path))
        return real(path, strict=strict)

    monkeypatch.setattr(os.path, "realpath", counting)
    plan = plan_refresh(result, targets, changed)
    monkeypatch.undo()
    assert plan.stores == {auto.path, team.path} and not plan.structural
    assert len(result.stores) > 10
    assert len(calls) <= len(result.stores) + 3, len(calls)


def test_a_refresh_with_the_scan_cache_reads_only_the_changed_headers(
    ctx: Context, home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One new file in a store of ~250: its header is read, the others come from the cache
    (each rescan parsed the whole store: a quarter of a second per refresh in the demo)."""
    monkeypatch.setattr(ScanCache, "clock", staticmethod(lambda: time.time() + RACY_SECONDS + 5))
    result = scan(ctx, cache=cache_for(ctx))  # saves the cache, the files "long" unchanged
    auto = store_of(result, StoreKind.AUTO)
    assert len(auto.memories) > 100
    new = write_memory(auto.path, "fresh_one.md", description="just written")
    read: list[str] = []
    original = scan_module.read_header

    def counting(path: Path, *args: Any, **kwargs: Any) -> Any:
        read.append(str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(scan_module, "read_header", counting)
    after = refresh(ctx, result, {new}, cache=cache_for(ctx))
    assert descriptions(store_of(after, StoreKind.AUTO))["fresh_one.md"] == "just written"
    assert descriptions(store_of(after, StoreKind.AUTO)) == {
        **descriptions(auto), "fresh_one.md": "just written"}
    assert str(new) in read and len(read) <= 5, read
