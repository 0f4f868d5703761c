"""Planning a refresh resolves only the store roots a changed path can be under (a large home
has hundreds of stores: resolving every root took a quarter of a second per refresh), and a
path reported by its real path still finds its store behind a symlink."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.model import StoreKind
from memtui.core.scan.refresh import plan_refresh, watch_targets
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    built = build_demo_home(tmp_path / "demo")
    real = tmp_path / "elsewhere" / "agent-memory"
    real.parent.mkdir()
    os.rename(built.agent_memory_home, real)
    os.symlink(real, built.agent_memory_home)  # the agentmemory store's root is a symlink
    return built


def context(home: DemoHome) -> Context:
    return Context.create(project=home.project, claude_home=home.claude_home,
                          agent_memory_home=home.agent_memory_home,
                          env={"HOME": str(home.root)})


def counted_plan(
    monkeypatch: pytest.MonkeyPatch, home: DemoHome, changed: set[Path]
) -> tuple[set[Path], bool, int, int]:
    ctx = context(home)
    result = scan(ctx)
    targets = watch_targets(ctx, result)
    calls: list[str] = []
    real = os.path.realpath

    def counting(path: os.PathLike[str] | str, *, strict: bool = False) -> str:
        calls.append(os.fspath(path))
        return real(path, strict=strict)

    monkeypatch.setattr(os.path, "realpath", counting)
    plan = plan_refresh(result, targets, changed)
    monkeypatch.undo()
    return plan.stores, plan.structural, len(calls), len(result.stores)


def test_one_changed_file_resolves_a_few_roots_not_all(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    auto = home.auto_memory
    stores, structural, calls, count = counted_plan(monkeypatch, home, {auto / "new.md"})
    assert stores == {auto} and not structural
    assert count > 10 and calls <= 4, calls


def test_a_path_reported_by_its_real_path_finds_its_store_behind_a_symlink(
    home: DemoHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Path(os.path.realpath(home.agent_memory_home))
    assert real != home.agent_memory_home
    for changed in (real / "daily" / "2026-12-01.md", home.agent_memory_home / "notes.md"):
        stores, structural, _calls, _count = counted_plan(monkeypatch, home, {changed})
        assert stores == {home.agent_memory_home} and not structural, changed
    ctx = context(home)
    kinds = {s.path: s.kind for s in scan(ctx).stores}
    assert kinds[home.agent_memory_home] == StoreKind.AGENTMEMORY
