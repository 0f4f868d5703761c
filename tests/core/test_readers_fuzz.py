"""Fuzz targets for the readers of files memtui did not write: settings, transcripts,
``snapshot.json`` and git's files. Whatever the bytes, each returns its documented result
(never raises) in bounded time."""

from __future__ import annotations

import json
import os
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.plaintext import escape_controls, json_safe
from memtui.core.stores.cc_settings import read_settings
from memtui.core.stores.gitroot import GitRoot, canonical_git_root, current_branch
from memtui.core.stores.sessions import read_transcript_head
from memtui.core.stores.snapshot import SNAPSHOT_JSON, read_snapshot_meta, read_synced_from
from memtui.core.team.gitconfig import parse_git_config
from memtui.core.team.repo import origin_repo

FUZZ = settings(max_examples=80, deadline=None)
"""Small: the suite stays fast (no deadline: a busy machine is no failure)."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
nesting = st.integers(min_value=1, max_value=5_000).map(lambda n: "[" * n + "]" * n)
json_like = (
    json_values.map(json.dumps)
    | nesting
    | st.text(alphabet='{}[]":,0123456789.eE+-tfnrul \\\n', max_size=200)
)
file_bytes = st.binary(max_size=400) | json_like.map(lambda s: s.encode("utf-8"))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(data=file_bytes)
def test_settings_reader(scratch: Path, data: bytes) -> None:
    path = scratch / "settings.json"
    path.write_bytes(data)
    result = read_settings("project", path)
    assert isinstance(result.data, dict)
    assert result.exists
    assert (result.problem is None) == (result.data != {} or _is_empty_object(data))


def _is_empty_object(data: bytes) -> bool:
    try:
        return json.loads(data.decode("utf-8")) == {}
    except (ValueError, RecursionError):
        return False


@FUZZ
@given(lines=st.lists(file_bytes, max_size=14))
def test_transcript_reader(scratch: Path, lines: list[bytes]) -> None:
    path = scratch / "t.jsonl"
    path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
    head = read_transcript_head(path)
    for value in (head.cwd, head.started, head.git_branch):
        assert value is None or isinstance(value, str)


@FUZZ
@given(snapshot=file_bytes, synced=file_bytes)
def test_snapshot_readers(scratch: Path, snapshot: bytes, synced: bytes) -> None:
    (scratch / SNAPSHOT_JSON).write_bytes(snapshot)
    (scratch / ".snapshot-synced.json").write_bytes(synced)
    for value, problem in (read_snapshot_meta(scratch), read_synced_from(scratch)):
        assert (value is None) != (problem is None)
        assert value is None or (isinstance(value, str) and value)
        assert problem is None or isinstance(problem, str)


git_text = (
    st.binary(max_size=200)
    | st.sampled_from([b"ref: refs/heads/main\n", b"ref: refs/remotes/o/x\n", b"0" * 40,
                       b"ref: refs/heads/.invalid\n", b"gitdir: ../x\n", b""])
    | st.text(alphabet=string.printable, max_size=80).map(lambda s: s.encode())
)


@FUZZ
@given(head=git_text)
def test_git_head_reader(scratch: Path, head: bytes) -> None:
    repo = scratch / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "HEAD").write_bytes(head)
    branch = current_branch(repo)
    assert branch is None or isinstance(branch, str)
    found = canonical_git_root(repo)
    assert isinstance(found, GitRoot) and found.root == Path(os.path.realpath(repo))


@FUZZ
@given(dot_git=git_text, commondir=git_text, backlink=git_text)
def test_git_worktree_readers(
    scratch: Path, dot_git: bytes, commondir: bytes, backlink: bytes
) -> None:
    """A checkout whose ``.git`` file, and the ``commondir`` and ``gitdir`` files of the git
    dir it names, hold anything: a GitRoot (its own root unless every check passes)."""
    main = scratch / "main" / ".git" / "worktrees" / "wt"
    main.mkdir(parents=True, exist_ok=True)
    (main / "commondir").write_bytes(commondir)
    (main / "gitdir").write_bytes(backlink)
    (main / "HEAD").write_bytes(b"ref: refs/heads/wt\n")
    checkout = scratch / "wt"
    checkout.mkdir(exist_ok=True)
    (checkout / ".git").write_bytes(dot_git if dot_git.strip() else b"gitdir: " +
                                    str(main).encode())
    found = canonical_git_root(checkout)
    assert isinstance(found, GitRoot) and isinstance(found.rule, str)
    branch = current_branch(checkout)
    assert branch is None or isinstance(branch, str)


git_config_text = (
    git_text
    | st.lists(st.sampled_from([b'[remote "origin"]', b"[remote.origin]", b'[url "gh:"]',
                                b"\turl = ", b"insteadOf = g", b'"', b"\\", b"\\\n", b"#",
                                b";", b"\n", b"\r\n", b"[", b"]", b"\xff", b"\x00",
                                b"https://github.com/a/b", b"[include]\npath = x"]),
               max_size=30).map(b"".join)
)


@FUZZ
@given(config=git_config_text)
def test_git_config_reader(scratch: Path, config: bytes) -> None:
    """Whatever ``.git/config`` holds: an origin or a reason, never an exception."""
    repo = scratch / "config-repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "HEAD").write_bytes(b"ref: refs/heads/main\n")
    (repo / ".git" / "config").write_bytes(config)
    parsed = parse_git_config(config)
    assert parsed.problem is None or isinstance(parsed.problem, str)
    slug, found = origin_repo(repo)
    assert slug is None or "/" in slug
    assert isinstance(found, str) and found


# names as Python holds them: any character but a surrogate, and the low surrogates
# surrogateescape makes of undecodable bytes (a high one cannot come from a file name)
shown_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=60) | (
    st.binary(max_size=40).map(lambda b: b.decode("utf-8", "surrogateescape"))
) | st.lists(st.sampled_from(["\x7f", "\udcff", "\udc80", "\x9b", "\u202e", "a", "\n", "é"]),
             max_size=20).map("".join)


@FUZZ
@given(text=shown_text)
def test_what_is_shown_of_a_name_is_valid_utf8_without_controls(text: str) -> None:
    """A file name (undecodable bytes as surrogates, DEL, C1, bidi): its text and JSON forms
    encode as strict UTF-8 with no raw control, and the JSON reads back the same string."""
    for shown in (escape_controls(text), escape_controls(text, keep_newlines=True)):
        shown.encode("utf-8")
        assert not any(c in shown for c in "\x7f\x9b\u202e")
    encoded = json_safe(json.dumps(text, ensure_ascii=False))
    encoded.encode("utf-8")
    assert "\x7f" not in encoded and json.loads(encoded) == text
