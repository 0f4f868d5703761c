"""Which snapshot store belongs to a selection (the core's matching, which the TUI's snapshot
review opens): a snapshot store itself, or the snapshot a project ships for an agent."""

from __future__ import annotations

from helpers import demo_context

from memtui.core.demo.build import DemoHome
from memtui.core.model import StoreKind
from memtui.core.scan.scanner import scan
from memtui.core.stores.snapshot import snapshot_store_of


def test_an_agent_store_finds_the_snapshot_shipped_for_it(demo: DemoHome) -> None:
    result = scan(demo_context(demo))
    snapshots = [s for s in result.stores if s.kind == StoreKind.SNAPSHOT]
    assert snapshots
    for snapshot in snapshots:
        assert snapshot_store_of(snapshot, result.stores) is (
            snapshot if snapshot.snapshot is not None else None)
    matched = 0
    for store in result.stores:
        if store.kind != StoreKind.AGENT:
            continue
        found = snapshot_store_of(store, result.stores)
        if found is not None:
            matched += 1
            assert found.kind == StoreKind.SNAPSHOT and found.snapshot is not None
            assert store.location.agent in (found.snapshot.agent,
                                            found.snapshot.agent.replace(":", "-"))
    assert matched >= 2  # reviewer and planner ship snapshots in the demo
    auto = next(s for s in result.stores if s.kind == StoreKind.AUTO)
    assert snapshot_store_of(auto, result.stores) is None
