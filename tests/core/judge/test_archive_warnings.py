"""What a keep / restore tells before it writes (issue 22, item 5): archiving a memory that a
``[[wikilink]]`` names warns; a restored memory whose index line would land past MEMORY.md's
cut says so, and can be put above the cut instead."""

from __future__ import annotations

from pathlib import Path

from core.judge.homes import Note, store_dir, write_home
from helpers import tree_state

from memtui.core.demo.writers import write_file
from memtui.core.judge.archive import Archive, lands_past_cut, plan_restore
from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.items import memory_items
from memtui.core.judge.ledger import Ledger
from memtui.core.judge.resolve import finish_keep, plan_keep
from memtui.core.parse.load_report import load_report
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context
from memtui.core.write.apply import apply
from memtui.core.write.journal import Journal
from memtui.core.write.recovery import undo_operation

TWINS = [
    Note("auto", "deploy-freeze.md", "No deploys on Fridays",
         "No production deploys on Fridays; hotfixes need two reviewers.", 5),
    Note("auto", "friday-freeze.md", "No deploys on Fridays",
         "No production deploys on Fridays; hotfixes need two reviewers.", 1),
]


def _home(tmp_path: Path, notes: list[Note] = TWINS) -> tuple[Path, Context]:
    root = tmp_path / "home"
    return root, write_home(root, notes)


def _candidate(ctx: Context):  # type: ignore[no-untyped-def]
    [candidate] = find_candidates(memory_items(scan(ctx)))
    return candidate


def test_archiving_a_memory_a_wikilink_names_warns(tmp_path: Path) -> None:
    _root, ctx = _home(tmp_path, [*TWINS, Note("auto", "release.md", "Releases",
                                              "Before a release read [[deploy-freeze]].", 3)])
    candidate = _candidate(ctx)
    keep = "a" if candidate.a.rel_path == "friday-freeze.md" else "b"
    plan = plan_keep(scan(ctx), candidate, keep)
    assert plan.proposal.notes[0] == (
        "warning: [[deploy-freeze]] in release.md will point at nothing once deploy-freeze.md "
        "is archived (edit those links, or keep this side)")
    other = plan_keep(scan(ctx), candidate, "b" if keep == "a" else "a")
    assert not any(n.startswith("warning:") for n in other.proposal.notes)


def _long_index(root: Path, lines: int) -> Path:
    index = store_dir(root, "auto") / "MEMORY.md"
    rows = [f"- [note {i}](note-{i}.md) — filler" for i in range(lines)]
    return write_file(index, "\n".join(rows) + "\n")


def _archived(root: Path, ctx: Context, tmp_path: Path) -> tuple[Archive, Journal]:
    """deploy-freeze.md (listed in the index) archived by a keep decision."""
    index = store_dir(root, "auto") / "MEMORY.md"
    index.write_text(index.read_text() + "- [Deploy freeze](deploy-freeze.md) — Fridays\n")
    candidate = _candidate(ctx)
    keep = "a" if candidate.a.rel_path == "friday-freeze.md" else "b"
    plan = plan_keep(scan(ctx), candidate, keep)
    journal = Journal(tmp_path / "journal", home=ctx.claude_home)
    archive = Archive(tmp_path / "archive")
    finish_keep(plan, apply(plan.proposal, journal), archive, Ledger(tmp_path / "ledger.json"))
    return archive, journal


def test_a_restore_that_lands_past_the_cut_says_so_and_can_go_above_it(tmp_path: Path) -> None:
    root, ctx = _home(tmp_path)
    _long_index(root, 199)
    archive, journal = _archived(root, ctx, tmp_path)
    index = store_dir(root, "auto") / "MEMORY.md"
    write_file(index, index.read_text() + "- [later](later.md) — added since\n")  # 200 lines now
    [entry] = archive.entries()
    assert lands_past_cut(entry) == 200

    at_end = plan_restore(archive, entry)
    [warning] = [n for n in at_end.notes if "past MEMORY.md's cut" in n]
    assert "loading stops at line 200" in warning and "--above-cut" in warning

    before = tree_state(root)
    above = plan_restore(archive, entry, above_cut=True)
    assert not any("past MEMORY.md's cut" in n for n in above.notes)
    assert "warning: pushes the entry [later] past the cut" in above.notes
    done = apply(above, journal)
    report = load_report("MEMORY.md", index.read_text(), agent=False)
    assert report.cut_line == 200
    loaded = {e.target for e in report.entries} - {d.target for d in report.dropped}
    assert "deploy-freeze.md" in loaded  # Claude Code loads it again
    assert (store_dir(root, "auto") / "deploy-freeze.md").exists()
    undo_operation(journal, done.record)
    assert tree_state(root) == before


def test_a_restore_into_an_index_that_fits_says_nothing_of_the_cut(tmp_path: Path) -> None:
    root, ctx = _home(tmp_path)
    _long_index(root, 10)
    archive, _journal = _archived(root, ctx, tmp_path)
    [entry] = archive.entries()
    assert lands_past_cut(entry) is None
    plan = plan_restore(archive, entry, above_cut=True)
    assert not any("cut" in n for n in plan.notes)
    text = next(c.new_bytes for c in plan.changes if c.path.name == "MEMORY.md")
    assert text is not None
    assert text.decode().endswith("- [Deploy freeze](deploy-freeze.md) — Fridays\n")
