"""The memories a user marked (``space``, or every hit of a search) for one bulk action.

Marks are kept by node key (store path and memory path) with the node they were made on; a
rescan keeps the marks whose memory is still there (:meth:`MarkedMemories.refresh`)."""

from __future__ import annotations

from memtui.core.contents import ScanResult
from memtui.tui.nodes import NodeRef

MARK_GLYPH = "●"


class MarkedMemories:
    """Marked memories, in the order they were marked."""

    def __init__(self) -> None:
        self._refs: dict[str, NodeRef] = {}

    def __len__(self) -> int:
        return len(self._refs)

    def __contains__(self, key: str) -> bool:
        return key in self._refs

    def refs(self) -> list[NodeRef]:
        return list(self._refs.values())

    def toggle(self, ref: NodeRef) -> bool:
        """Mark ``ref`` (a memory) or unmark it; True when it is marked now."""
        if ref.key in self._refs:
            del self._refs[ref.key]
            return False
        self._refs[ref.key] = ref
        return True

    def add(self, refs: list[NodeRef]) -> int:
        """Mark each of ``refs``; how many were not marked before."""
        new = [ref for ref in refs if ref.key not in self._refs]
        for ref in new:
            self._refs[ref.key] = ref
        return len(new)

    def clear(self) -> list[str]:
        """Unmark everything; the keys that were marked."""
        keys = list(self._refs)
        self._refs.clear()
        return keys

    def refresh(self, result: ScanResult) -> None:
        """Point each mark at its memory in ``result``; drop the marks whose memory is gone."""
        if not self._refs:
            return
        fresh: dict[str, NodeRef] = {}
        for store in result.stores:
            for memory in store.memories:
                ref = NodeRef(store, memory)
                if ref.key in self._refs:
                    fresh[ref.key] = ref
        self._refs = {key: fresh[key] for key in self._refs if key in fresh}
