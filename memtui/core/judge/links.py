"""What archiving a memory leaves dangling: the ``[[wikilinks]]`` of the other memories of its
store (and of its MEMORY.md) that name it (by file stem, path or ``name:``), read in whole
files as the index health reads them (docs/claude-code-rules.md#index-health)."""

from __future__ import annotations

import posixpath

from memtui.core.contents import Memory, Store
from memtui.core.parse.wikilinks import wikilink_target
from memtui.core.scan.store_index import whole_file_links


def names_of(memory: Memory) -> set[str]:
    """Every name a ``[[wikilink]]`` may use for ``memory``, case-folded."""
    names = {memory.stem.casefold(), posixpath.splitext(memory.rel_path)[0].casefold()}
    if memory.name:
        names.add(memory.name.casefold())
    return names


def linked_from(store: Store, memory: Memory) -> list[str]:
    """The files of ``store`` (relative paths, in store order) whose ``[[wikilinks]]`` name
    ``memory``."""
    names = names_of(memory)
    found: list[str] = []
    for other in store.memories:
        if other.rel_path == memory.rel_path:
            continue
        for link in whole_file_links(other, store.path):
            target = wikilink_target(link).casefold().removesuffix(".md")
            if target in names:
                found.append(other.rel_path)
                break
    return found


def dangling_note(store: Store, memory: Memory) -> str | None:
    """The preview's warning when archiving ``memory`` breaks links to it, else None."""
    sources = linked_from(store, memory)
    if not sources:
        return None
    shown = ", ".join(sources[:5]) + (f" and {len(sources) - 5} more" if len(sources) > 5 else "")
    return (f"warning: [[{memory.stem}]] in {shown} will point at nothing once "
            f"{memory.rel_path} is archived (edit those links, or keep this side)")
