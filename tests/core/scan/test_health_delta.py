"""The index health of a live refresh, brought up to date from the changed files alone
(``health_delta``): on many random edits (files added, deleted, renamed, their names and
wikilinks edited), the refreshed store equals a full scan of it, and the health is the one a
full recompute (``health_again``) gives; the other memories' verdicts are not judged again."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from memtui.core.contents import LoadReport, Store
from memtui.core.demo.writers import write_file, write_memory
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.parse import link_targets
from memtui.core.scan import health_delta as delta_module
from memtui.core.scan import incremental
from memtui.core.scan.cached_report import CachedReport
from memtui.core.scan.health_delta import health_delta
from memtui.core.scan.incremental import health_again, rescan_changed
from memtui.core.scan.scanner import scan_store
from memtui.core.scan.store_index import check_whole_files

NAMES = [f"note_{i}" for i in range(30)]
"""The file stems the edits draw from: entries and wikilinks name some that do not exist."""
ODD_TARGETS = ["./note_3.md", "note_4.md#part", "note%5F5.md", "sub/../note_6.md", "notes/",
               "https://example.com/x", "./", "note_7"]


def location(root: Path) -> StoreLocation:
    return StoreLocation(kind=StoreKind.AUTO, path=root, rule="test store")


def full(root: Path) -> Store:
    return scan_store(location(root), skip={"team"})


def plain_report(report: LoadReport | None) -> Any:
    if report is None:
        return None
    return (CachedReport.of(report).to_plain(), report.health.wikilinks_checked)


def plain_store(store: Store) -> Any:
    memories = [{f.name: getattr(m, f.name) for f in dataclasses.fields(m)}
                for m in store.memories]
    return memories, plain_report(store.index)


def links_body(rng: random.Random) -> str:
    links = rng.sample([*NAMES, "Nobody", "note_1#sec|alias"], rng.randint(0, 2))
    return "".join(f"See [[{link}]].\n" for link in links)


def write_note(root: Path, rng: random.Random, stem: str) -> Path:
    name = rng.choice([None, None, rng.choice(NAMES), "Shared name"])
    return write_memory(root, f"{stem}.md", name=name, description=f"about {stem}",
                        body=links_body(rng))


def build_store(root: Path, rng: random.Random) -> None:
    """A store of some of ``NAMES`` (one in a folder), and a MEMORY.md pointing to some of
    them, some that do not exist, and targets no plain name is (paths, anchors, a folder)."""
    for stem in rng.sample(NAMES, 15):
        write_note(root, rng, stem)
    write_note(root, rng, "notes/inner")
    entries = [f"- [{t}]({t}.md) — a note" for t in rng.sample(NAMES, 18)]
    entries += [f"- [odd]({t}) — odd" for t in ODD_TARGETS if rng.random() < 0.6]
    rng.shuffle(entries)
    write_file(root / "MEMORY.md", "# Index\n" + "\n".join(entries) + "\nSee [[note_2]].\n")


def edit(root: Path, rng: random.Random) -> set[str]:
    """One random edit of the store's top-level notes; the paths it changed."""
    present = sorted(p.stem for p in root.glob("note_*.md"))
    absent = sorted(set(NAMES) - set(present))
    action = rng.choice(["add", "delete", "rename", "links", "name"])
    if (action == "add" and absent) or not present:
        stem = rng.choice(absent)
        write_note(root, rng, stem)
        return {f"{stem}.md"}
    stem = rng.choice(present)
    if action == "delete":
        (root / f"{stem}.md").unlink()
        return {f"{stem}.md"}
    if action == "rename" and absent:
        new = rng.choice(absent)
        (root / f"{stem}.md").rename(root / f"{new}.md")
        return {f"{stem}.md", f"{new}.md"}
    write_note(root, rng, stem)  # new links, maybe a new name
    return {f"{stem}.md"}


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("checked", ["headers", "files"])
def test_random_edits_equal_a_full_recompute(
    tmp_path: Path, seed: int, checked: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty edits in a row, each refreshed on top of the last: the store equals a full scan,
    the delta's health equals ``health_again``'s, and the delta answered (no fallback) for
    these top-level files. ``files``: the previous report's wikilinks had been checked in
    whole files (as the TUI does after each refresh)."""
    rng = random.Random(seed)
    root = tmp_path / "store"
    build_store(root, rng)
    store = full(root)
    fallbacks: list[str] = []
    real_again = incremental.health_again

    def counting_again(*args: Any, **kwargs: Any) -> LoadReport:
        fallbacks.append("again")
        return real_again(*args, **kwargs)

    monkeypatch.setattr(incremental, "health_again", counting_again)
    for _step in range(40):
        if checked == "files" and store.index is not None:
            store.index = check_whole_files(store, store.index)
        old = store
        changes = edit(root, rng)
        store = rescan_changed(location(root), old, changes)
        assert plain_store(store) == plain_store(full(root)), changes
        assert old.index is not None and store.index is not None
        if old.index is not store.index:
            again = real_again(store, old.index)
            assert plain_report(store.index) == plain_report(again), changes
    assert not fallbacks


def test_the_other_entries_are_not_judged_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file: only the entries whose target may name it are judged (twice: before and
    after), not the store's other entries."""
    root = tmp_path / "store"
    for i in range(50):
        write_memory(root, f"m{i}.md", description="x")
    index = "\n".join(f"- [m{i}](m{i}.md) — m" for i in range(50)) + "\n- [new](new.md) — n\n"
    write_file(root / "MEMORY.md", index)
    old = full(root)
    write_memory(root, "new.md", description="fresh")
    judged: list[str | None] = []
    real = link_targets.link_of

    def counting(target: str | None, *args: Any) -> Any:
        judged.append(target)
        return real(target, *args)

    monkeypatch.setattr(delta_module, "link_of", counting)
    store = rescan_changed(location(root), old, {"new.md"})
    assert set(judged) == {"new.md"}
    assert store.index is not None and old.index is not None
    assert [e.target for e in old.index.health.dangling] == ["new.md"]
    assert list(store.index.health.dangling) == []
    assert plain_store(store) == plain_store(full(root))


@pytest.mark.parametrize("case", ["nested", "topic", "folder"])
def test_what_it_cannot_follow_is_computed_again(tmp_path: Path, case: str) -> None:
    """A file below a folder, a topic file distil wrote, a changed folder: no delta (None),
    the caller computes the health again."""
    root = tmp_path / "store"
    write_memory(root, "a.md", description="a")
    write_memory(root, "notes/b.md", description="b")
    write_file(root / "MEMORY.md", "- [a](a.md) — a\n")
    old = full(root)
    if case == "nested":
        write_memory(root, "notes/c.md", description="c")
        changes = {"notes/c.md"}
    elif case == "topic":
        write_memory(root, "topic.md", description="t", extra={"distilled-from": "MEMORY.md"})
        changes = {"topic.md"}
    else:
        changes = {"notes"}
    new = rescan_changed(location(root), old, set())  # the files as they are now, listed
    assert old.index is not None
    assert health_delta(old, new, old.index, changes) is None
    assert plain_store(rescan_changed(location(root), old, changes)) == plain_store(full(root))


def test_a_root_folder_entry_leaves_no_orphan(tmp_path: Path) -> None:
    """An entry pointing to the store's own folder: a new file is no orphan."""
    root = tmp_path / "store"
    write_memory(root, "a.md", description="a")
    write_file(root / "MEMORY.md", "- [all](./) — everything\n")
    old = full(root)
    write_memory(root, "b.md", description="b")
    store = rescan_changed(location(root), old, {"b.md"})
    assert store.index is not None and store.index.health.orphans == []
    assert plain_store(store) == plain_store(full(root))


def test_health_again_is_what_it_equals(tmp_path: Path) -> None:
    """The reference itself: ``health_again`` of an unchanged store is the scan's health."""
    rng = random.Random(1)
    root = tmp_path / "store"
    build_store(root, rng)
    store = full(root)
    assert store.index is not None
    assert plain_report(health_again(store, store.index)) == plain_report(store.index)
