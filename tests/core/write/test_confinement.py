"""Writes stay inside stores whose path has no symlink (issue 8, item 1): a repository that
links its agent memory (or ``.claude``, or ``.claude/agent-memory``) to a directory of the user's
is refused and that directory stays byte-identical; a directory swapped for a link while an
operation runs redirects nothing; undo and rollback confine the journal's paths again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import tree_state

from memtui.cli import main
from memtui.core.demo.writers import snapshot_json, write_agent, write_file, write_snapshot
from memtui.core.write import recovery as recovery_module
from memtui.core.write.apply import apply
from memtui.core.write.dirfd import DirTree, EditRefused, open_dir, relative_parts, store_target
from memtui.core.write.journal import Journal
from memtui.core.write.ops.snapshot import plan_snapshot
from memtui.core.write.proposal import FileChange, Proposal, sha256_hex

KEYS = "ssh-ed25519 AAAA-the-users-own-key user@host\n"
EVIL_KEYS = "ssh-ed25519 AAAA-the-attackers-key evil@repo\n"


pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def home_args(tmp_path: Path) -> list[str]:
    return ["--claude-home", str(tmp_path / "home" / ".claude"), "--project",
            str(tmp_path / "repo"), "--agent-memory-home", str(tmp_path / "home" / ".am")]


def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A cloned repository whose project agent memory ``evil`` is a link to the user's
    ``~/.ssh``, with a snapshot that ships ``authorized_keys``. Returns (repo, ~/.ssh)."""
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    ssh = tmp_path / "home" / ".ssh"
    write_file(ssh / "authorized_keys", KEYS, mode=0o600)
    write_file(ssh / "id_ed25519", "PRIVATE\n", mode=0o600)
    repo = tmp_path / "repo"
    write_snapshot(repo, "evil", snapshot_json=snapshot_json("2026-11-20T10:00:00.000Z"),
                   files={"authorized_keys": EVIL_KEYS, "notes.md": "hi\n"})
    (repo / ".claude" / "agent-memory").mkdir()
    os.symlink(ssh, repo / ".claude" / "agent-memory" / "evil")
    return repo, ssh


def test_snapshot_init_into_a_linked_agent_memory_leaves_the_target_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, ssh = hostile_repo(tmp_path)
    before = tree_state(ssh)
    code, _out, err = run(capsys, *home_args(tmp_path), "snapshot", "init", "evil",
                          "--scope", "project", "--yes")
    assert code == 1
    link = repo / ".claude" / "agent-memory" / "evil"
    assert f"refused: {link} is a symlink to {ssh}: memtui writes only into stores" in err
    assert tree_state(ssh) == before
    assert (ssh / "authorized_keys").read_text() == KEYS


def test_the_preview_names_the_real_target_and_refuses_before_asking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, ssh = hostile_repo(tmp_path)
    before = tree_state(ssh)
    code, out, err = run(capsys, *home_args(tmp_path), "snapshot", "init", "evil",
                         "--scope", "project")
    assert code == 1
    assert f"refused: {repo}/.claude/agent-memory/evil is a symlink to {ssh}" in out
    assert "refused:" in err and "re-run with --yes" not in err
    code, out, _err = run(capsys, *home_args(tmp_path), "snapshot", "init", "evil",
                          "--scope", "project", "--json")
    assert "the-users-own-key" not in out  # nothing behind the link is previewed
    plan = json.loads(out)
    assert plan["target"] == str(ssh)
    assert f"is a symlink to {ssh}" in plan["refused"]
    assert tree_state(ssh) == before


def test_a_plain_store_previews_its_real_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ssh = hostile_repo(tmp_path)
    write_snapshot(repo, "good", snapshot_json=snapshot_json("2026-11-20T10:00:00.000Z"),
                   files={"a.md": "a\n"})
    code, out, _err = run(capsys, *home_args(tmp_path), "snapshot", "init", "good",
                          "--scope", "project")
    assert code == 1  # no terminal to ask on
    assert f"writes into {repo / '.claude' / 'agent-memory' / 'good'}\n" in out
    assert not (repo / ".claude" / "agent-memory" / "good").exists()


def test_the_tui_confirm_text_names_the_real_target(tmp_path: Path) -> None:
    from memtui.tui.dialogs.confirm import proposal_summary

    repo, ssh = hostile_repo(tmp_path)
    snapshots = repo / ".claude" / "agent-memory-snapshots"
    link = repo / ".claude" / "agent-memory" / "evil"
    proposal = plan_snapshot(snapshots / "evil", link, "initialize")
    text = proposal_summary(proposal, proposal.diff(), "~/repo").plain
    assert f"refused: {link} is a symlink to {ssh}: memtui writes only into" in text
    write_snapshot(repo, "good", snapshot_json=snapshot_json("2026-11-20T10:00:00.000Z"),
                   files={"a.md": "a\n"})
    good = plan_snapshot(snapshots / "good", repo / ".claude" / "agent-memory" / "good",
                         "initialize")
    text = proposal_summary(good, good.diff(), "~/repo").plain
    assert f"writes into {repo / '.claude' / 'agent-memory' / 'good'}\n" in text


def test_replace_for_a_project_agent_whose_memory_is_a_link_deletes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``memory: project`` agent, its root linked to ``~/notes``: replace (which deletes the
    local top-level *.md files) must not delete the user's notes."""
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    notes = tmp_path / "home" / "notes"
    for name in ("todo.md", "diary.md", "ideas.md"):
        write_file(notes / name, f"my {name}\n")
    repo = tmp_path / "repo"
    write_agent(repo / ".claude" / "agents", "scribe", description="writes", memory="project",
                prompt="Write.")
    write_snapshot(repo, "scribe", snapshot_json=snapshot_json("2026-11-20T10:00:00.000Z"),
                   files={"todo.md": "pwned\n"})
    (repo / ".claude" / "agent-memory").mkdir()
    os.symlink(notes, repo / ".claude" / "agent-memory" / "scribe")
    before = tree_state(notes)
    code, _out, err = run(capsys, *home_args(tmp_path), "snapshot", "replace", "scribe", "--yes")
    assert code == 1
    assert f"is a symlink to {notes}: memtui writes only" in err
    assert tree_state(notes) == before


@pytest.mark.parametrize("linked", [".claude", ".claude/agent-memory", ".claude/agent-memory/a"])
@pytest.mark.parametrize("action", ["initialize", "replace"])
def test_a_link_on_any_directory_on_the_way_is_refused(
    tmp_path: Path, linked: str, action: str
) -> None:
    """The real directory is moved out of the repository and a link left in its place: every
    directory from ``.claude`` down to the store is checked, not only the store itself."""
    repo = tmp_path / "repo"
    snap = write_snapshot(repo, "a", snapshot_json=snapshot_json("2026-11-20T10:00:00.000Z"),
                          files={"x.md": "new\n"})
    store = repo / ".claude" / "agent-memory" / "a"
    write_file(store / "x.md", "old\n")
    write_file(store / "y.md", "keep\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    moved = outside / Path(linked).name
    shutil.move(repo / linked, moved)
    os.symlink(moved, repo / linked)
    before = tree_state(outside)
    proposal = plan_snapshot(snap, store, action)  # type: ignore[arg-type]
    with pytest.raises(EditRefused, match="memtui writes only into stores whose path has no"):
        apply(proposal, Journal.default())
    assert tree_state(outside) == before
    assert Journal.default().list() == []
    real, problem = proposal.target()
    assert problem is not None and f"{repo / linked} is a symlink to {moved}" in problem
    assert real == str(store.resolve())


def test_the_lock_dir_of_a_team_store_is_confined_too(tmp_path: Path) -> None:
    """A team store's lock lives in its parent; a link there is refused as well."""
    outside = tmp_path / "outside"
    write_file(outside / "memory" / "team" / "a.md", "a\n")
    os.symlink(outside / "memory", tmp_path / "memory")
    before = tree_state(outside)
    change = FileChange(tmp_path / "memory" / "team" / "b.md", "write", b"b\n", None)
    with pytest.raises(EditRefused, match="is a symlink to"):
        apply(Proposal("t", "t", tmp_path / "memory" / "team", tmp_path / "memory", [change]),
              Journal.default())
    assert tree_state(outside) == before


# --- a directory swapped for a link while operations run ----------------------------------

SWAPPER = textwrap.dedent(
    """
    import os, sys, time
    sub, outside, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    aside, link = sub + ".aside", sub + ".link"
    os.symlink(outside, link)
    swaps = 0
    while not os.path.exists(stop):
        os.rename(sub, aside)
        os.rename(link, sub)
        swaps += 1
        time.sleep(0.0003)
        os.rename(sub, link)
        os.rename(aside, sub)
        time.sleep(0.0003)
    print(swaps)
    """
)


def test_a_subdirectory_swapped_for_a_link_redirects_no_write(tmp_path: Path) -> None:
    """Another process keeps swapping ``store/sub`` for a link to an outside directory that
    holds files of the same names and bytes (so a redirected delete or write passes the hash
    check); deletes and rewrites in ``sub`` run meanwhile. The outside directory stays
    byte-identical and every operation is done or refused in words."""
    store = tmp_path / "store"
    outside = tmp_path / "outside"
    trials = 60
    for n in range(trials):
        for directory in (store / "sub", outside):
            write_file(directory / f"m{n}.md", f"memory {n}\n")
            write_file(directory / f"w{n}.md", f"write {n}\n")
    before = tree_state(outside)
    journal = Journal(tmp_path / "journal")
    stop = tmp_path / "stop"
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(store / "sub"), str(outside), str(stop)],
        stdout=subprocess.PIPE, text=True,
    )
    done = refused = 0
    errors: list[OSError] = []
    deadline = time.monotonic() + 20
    try:
        for n in range(trials):
            if time.monotonic() > deadline:
                break
            sub = store / "sub"
            memory, rewrite = f"memory {n}\n".encode(), f"write {n}\n".encode()
            changes = [
                FileChange(sub / f"m{n}.md", "delete", None, sha256_hex(memory)),
                FileChange(sub / f"w{n}.md", "write", b"new\n", sha256_hex(rewrite)),
            ]
            try:
                apply(Proposal("t", f"trial {n}", store, store, changes), journal)
                done += 1
            except EditRefused:
                refused += 1
            except OSError as exc:  # never expected: apply refuses in words
                errors.append(exc)
    finally:
        stop.touch()
        out, _ = swapper.communicate(timeout=30)
    assert tree_state(outside) == before
    assert errors == []
    assert int(out.strip()) >= 10  # the swapper really raced the operations
    assert done + refused >= trials // 2


# --- undo and rollback confine the journal again ------------------------------------------


def small_store(tmp_path: Path) -> Path:
    store = tmp_path / "mem"
    write_file(store / "a.md", "alpha\n")
    return store


def edit_a(store: Path, journal: Journal) -> str:
    change = FileChange(store / "a.md", "write", b"changed\n", sha256_hex(b"alpha\n"))
    return apply(Proposal("t", "edit a", store, store, [change]), journal).op_id


def tamper(journal: Journal, op_id: str, **changes: object) -> None:
    path = journal.directory / op_id / "op.json"
    data = json.loads(path.read_bytes())
    for key, value in changes.items():
        if key == "file_path":
            data["files"][0]["path"] = value
        else:
            data[key] = value
    path.write_text(json.dumps(data))


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("how", ["outside", "dotdot", "relative"])
@pytest.mark.parametrize("recovery", ["undo", "rollback", "complete"])
def test_a_tampered_journal_path_is_refused(tmp_path: Path, how: str, recovery: str) -> None:
    store = small_store(tmp_path)
    victim = write_file(tmp_path / "victim" / "a.md", "changed\n")
    journal = Journal.default()
    op_id = edit_a(store, journal)
    raw = {"outside": str(victim), "dotdot": f"{store}/../victim/a.md", "relative": "a.md"}[how]
    tamper(journal, op_id, file_path=raw)
    if recovery != "undo":
        tamper(journal, op_id, state="applying", pid=dead_pid())
    before = tree_state(tmp_path / "victim"), tree_state(store)
    with pytest.raises(EditRefused, match=f"journal record of operation {op_id} names") as info:
        getattr(recovery_module, recovery)(journal, op_id)
    assert "nothing was written" in info.value.reason
    assert (tree_state(tmp_path / "victim"), tree_state(store)) == before


@pytest.mark.parametrize("recovery", ["undo", "rollback", "complete"])
def test_a_store_root_turned_into_a_link_afterwards_is_refused(
    tmp_path: Path, recovery: str
) -> None:
    store = small_store(tmp_path)
    journal = Journal.default()
    op_id = edit_a(store, journal)
    if recovery != "undo":
        tamper(journal, op_id, state="applying", pid=dead_pid())
    real = tmp_path / "elsewhere"
    store.rename(real)
    os.symlink(real, store)
    before = tree_state(real)
    with pytest.raises(EditRefused, match=f"{store} is a symlink to {real}: memtui writes"):
        getattr(recovery_module, recovery)(journal, op_id)
    assert tree_state(real) == before


def test_cli_undo_through_a_linked_root_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path)
    (tmp_path / "home").mkdir()
    journal = Journal.default(home=tmp_path / "home")
    op_id = edit_a(store, journal)
    real = tmp_path / "elsewhere"
    store.rename(real)
    os.symlink(real, store)
    before = tree_state(real)
    code, out, _err = run(capsys, "--claude-home", str(tmp_path / "home"), "undo", op_id)
    assert code == 1
    assert f"  refused: {store} is a symlink to {real}: memtui writes only" in out
    code, _out, err = run(capsys, "--claude-home", str(tmp_path / "home"), "undo", op_id, "--yes")
    assert code == 1
    assert f"refused: {store} is a symlink to {real}: memtui writes only" in err
    assert tree_state(real) == before


def test_undo_previews_name_the_real_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from memtui.tui.dialogs.undo import undo_body

    store = small_store(tmp_path)
    (tmp_path / "home").mkdir()
    journal = Journal.default(home=tmp_path / "home")
    op_id = edit_a(store, journal)
    _code, out, _err = run(capsys, "--claude-home", str(tmp_path / "home"), "undo", op_id)
    assert f"  writes into {store}\n" in out
    assert f"writes into {store}\n" in undo_body(journal.get(op_id)).plain


# --- the walk itself --------------------------------------------------------------------


def test_relative_parts_accepts_only_plain_relative_paths() -> None:
    assert relative_parts("a/b.md") == ("a", "b.md")
    for bad in ("", "/a", "a//b", "a/./b", "a/../b", "..", "a/"):
        with pytest.raises(ValueError):
            relative_parts(bad)


def test_open_dir_stops_at_the_deepest_existing_directory(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    opened = open_dir(tmp_path / "a" / "b" / "c")
    try:
        assert opened.missing == ("b", "c")
        assert opened.real == str(tmp_path / "a")
    finally:
        os.close(opened.fd)
    write_file(tmp_path / "f", "x")
    with pytest.raises(EditRefused, match="is not a directory"):
        open_dir(tmp_path / "f" / "b")
    assert store_target(tmp_path / "a" / "b") == (str(tmp_path / "a" / "b"), None)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.md")
    with DirTree() as tree, pytest.raises(EditRefused, match="not a regular file"):
        tree.read(tmp_path / "fifo.md")


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.islink("/bin"),
                    reason="needs root (to drop to another user) and /bin as a system link")
def test_system_links_are_followed_only_by_a_user_who_could_not_have_made_them() -> None:
    """``/bin -> usr/bin`` is owned by root in a root-only directory: a normal user cannot
    have created it, so it is followed for them; for root (who could have checked it out), no
    link is followed."""
    with pytest.raises(EditRefused, match="/bin is a symlink to"):
        open_dir(Path("/bin"))
    code = (
        "import os; from pathlib import Path; from memtui.core.write.dirfd import open_dir\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "o = open_dir(Path('/bin')); print(o.real, o.missing)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=30).stdout
    assert out.strip() == f"{os.path.realpath('/bin')} ()"
