"""A judge run brought up to date after files changed on disk (a decision wrote a note, merged
two memories, archived one; an undo put them back): the memories among the changed files are
read again as a run reads them (:func:`~memtui.core.judge.items.memory_item`), pairs with a side
gone leave the run, and pairs with a side changed take its new content and the ledger's state for
it: ``stale`` when they were judged before (one side changed since that verdict), or the state a
decision recorded for these very contents. Candidates are not searched again: a pair the change
makes or unmakes appears or goes on the next run.

The TUI's conflicts screen does this after every decision it applies, so the other pairs of a
rewritten memory show and plan against what is on disk."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from memtui.core.cache import ScanCache
from memtui.core.contents import ScanResult
from memtui.core.judge.items import CLAUDE_MD, memory_item
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.run import JudgeRun
from memtui.core.judge.verdicts import Candidate, JudgedPair, JudgeItem
from memtui.core.scan.refresh import refresh
from memtui.core.stores.locations import Context

Fresh = Mapping[str, JudgeItem | None]
"""Item key → the item read again, or None when its memory is no longer in the scan."""


def changed_files(paths: Iterable[Path | str]) -> set[str]:
    """``paths`` as the scan names files (absolute, normalized)."""
    return {os.path.abspath(os.fspath(p)) for p in paths}


def reread_items(
    result: ScanResult, items: Iterable[JudgeItem], changed: Iterable[Path | str]
) -> dict[str, JudgeItem | None]:
    """Each memory item of ``items`` whose file is among ``changed``, built again from
    ``result`` (a scan that has seen the change): key → the new item, None when its memory
    left the scan. CLAUDE.md rules are left as they are (memtui never writes those files)."""
    files = changed_files(changed)
    wanted = {item.file: item.key for item in items
              if item.kind != CLAUDE_MD and item.file in files}
    fresh: dict[str, JudgeItem | None] = dict.fromkeys(wanted.values())
    for store in result.stores:
        for memory in store.memories:
            key = wanted.get(memory.file)
            if key is not None and not memory.is_index:
                fresh[key] = memory_item(store, memory)
    return fresh


@dataclass
class Reread:
    """What :func:`reread` found: the scan after the change, and the items it changed."""

    result: ScanResult
    items: dict[str, JudgeItem | None]


def reread(
    ctx: Context,
    result: ScanResult,
    items: Iterable[JudgeItem],
    changed: Iterable[Path | str],
    cache: ScanCache | None = None,
) -> Reread:
    """``result`` rescanned where ``changed`` files live (:func:`memtui.core.scan.refresh.
    refresh`), and the items among those files read again from it (:func:`reread_items`)."""
    paths = [Path(p) for p in changed_files(changed)]
    fresh = refresh(ctx, result, paths, cache=cache)
    return Reread(fresh, reread_items(fresh, items, paths))


def refreshed_pairs(
    pairs: Iterable[JudgedPair], fresh: Fresh, ledger: Ledger
) -> list[JudgedPair]:
    """``pairs`` after the items of ``fresh`` changed: a pair with a side gone is left out, a
    pair with a side changed is looked up again in ``ledger`` with the new content (``stale``
    when it was judged or decided for the old one); a side only touched (the same digest)
    keeps the pair's verdict; the others are kept as they are."""
    out: list[JudgedPair] = []
    for pair in pairs:
        a, b = pair.candidate.a, pair.candidate.b
        if a.key not in fresh and b.key not in fresh:
            out.append(pair)
            continue
        new_a, new_b = fresh.get(a.key, a), fresh.get(b.key, b)
        if new_a is None or new_b is None:
            continue
        candidate = Candidate(new_a, new_b, pair.candidate.score, pair.candidate.reasons)
        if (new_a.digest, new_b.digest) == (a.digest, b.digest):  # touched, not changed
            out.append(replace(pair, candidate=candidate))
        else:
            out.append(ledger.lookup(candidate))
    return out


def refreshed_items(items: Sequence[JudgeItem], fresh: Fresh) -> list[JudgeItem]:
    """``items`` with those of ``fresh`` replaced, or left out when gone."""
    out: list[JudgeItem] = []
    for item in items:
        new = fresh.get(item.key, item)
        if new is not None:
            out.append(new)
    return out


def refresh_run(run: JudgeRun, fresh: Fresh, ledger: Ledger) -> None:
    """``run``'s items and pairs after the items of ``fresh`` changed (see the module's doc)."""
    if not fresh:
        return
    run.items = refreshed_items(run.items, fresh)
    run.pairs = refreshed_pairs(run.pairs, fresh, ledger)
