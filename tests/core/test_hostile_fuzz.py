"""Fuzz targets for the hostile inputs an attack run found (issue 25, item 5), each over the
real code path, no network:

- file names with bytes that are no UTF-8 and a raw DEL: ``scan``, ``scan --json``,
  ``index --json``, ``distil --json`` and ``judge --json`` finish and print strict UTF-8 (JSON
  that reads back), no raw DEL;
- secrets in a frontmatter ``name``, a ``description``, a file name, an index line's title or
  hook: no command prints them;
- bodies of ``Fact k. `` × 1000 (and other repeated sentences): the judge reads a bounded
  number of bounded statements and embeds a bounded number of texts (the work counted, not
  timed);
- a 200 reply whose body is no message (not JSON, cut JSON, JSON of another shape) from the
  Messages API (the real SDK on a mocked transport): the anthropic judge falls back to the
  local one for every pair, never raises;
- a ``.git/config`` that is ``/dev/zero``, a FIFO, a huge sparse file, a directory or a
  symlink loop: ``origin_repo`` and ``team check`` answer with a reason, the FIFO never
  opened, ``/dev/zero`` never read.
"""

from __future__ import annotations

import io
import json
import os
import resource
import string
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import httpx2
import pytest
from core.judge.homes import Note, store_dir, write_home
from core.judge.mock_api import MODEL
from helpers import REPO
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memtui.cli import main
from memtui.core.config import JudgeConfig
from memtui.core.demo.writers import index_entry, make_git_repo, write_index, write_memory
from memtui.core.judge import engine
from memtui.core.judge.anthropic_judge import AnthropicJudge
from memtui.core.judge.embed import Embedder, Matrix, Progress
from memtui.core.judge.finder import judge_candidates
from memtui.core.judge.items import memory_items
from memtui.core.judge.providers import load_judge
from memtui.core.judge.statements import MAX_STATEMENT_CHARS, MAX_STATEMENTS, statements_of
from memtui.core.judge.verdicts import Candidate
from memtui.core.scan.scanner import scan
from memtui.core.secrets.mask import mask_secrets
from memtui.core.team.repo import origin_repo

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py

SLOW = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
"""Each example builds a home of its own in a fresh directory (the fixtures only give the
place): the function-scoped fixtures are not reset between examples on purpose."""
CLI_FUZZ = settings(max_examples=12, deadline=None, suppress_health_check=SLOW)
"""Few examples, no deadline: every example runs real commands on a real home (the machine
may be loaded; what is bounded is counted, not timed)."""
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=SLOW)


def fresh(scratch: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=scratch))


def run(root: Path, *argv: str) -> tuple[int, str]:
    """A CLI command on the home at ``root``, in this process: its code and all it printed."""
    out, err = io.StringIO(), io.StringIO()
    home = ["--claude-home", str(root / "claude"), "--project", str(root / "project"),
            "--agent-memory-home", str(root / "agent-memory")]
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*home, *argv])
    return code, out.getvalue() + err.getvalue()


def printable(text: str) -> None:
    """What a terminal or a pipe gets: strict UTF-8, no raw DEL (escaped as ``\\x7f``)."""
    text.encode("utf-8")  # a lone surrogate (a byte that was no UTF-8) raises here
    assert "\x7f" not in text


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return tmp_path


# ------------------------------------------------------------------------------ file names

name_piece = st.sampled_from(["\udcff", "\udc80", "\udcfe", "\x7f", "a", "é", "-", " ", "7",
                              "\u202e", "\x1b", "x"])
"""Undecodable bytes (as surrogateescape makes them of a name), DEL, ESC, bidi, plain."""
hostile_names = st.lists(name_piece, min_size=1, max_size=10).map(lambda p: "".join(p) + ".md")


def hostile_home(root: Path, names: Sequence[str]) -> Path:
    notes = [Note("auto", name, "Test database: what the tests run against",
                  f"Integration tests run against database number {i}.", 2 + i)
             for i, name in enumerate(names)]
    write_home(root, notes)
    auto = store_dir(root, "auto")
    write_index(auto, ["# Memory", index_entry("Plain", "plain.md", "a plain one")])
    write_memory(auto, "plain.md", description="a plain one", type="user")
    return auto


@CLI_FUZZ
@given(names=st.lists(hostile_names, min_size=1, max_size=3, unique=True))
def test_hostile_file_names_never_break_an_output(scratch: Path, names: list[str]) -> None:
    root = fresh(scratch)
    auto = hostile_home(root, names)
    for argv, is_json in ((["scan"], False), (["scan", "--json"], True),
                          (["index", str(auto / "MEMORY.md"), "--json"], True),
                          (["distil", "auto", "--json"], True)):
        code, out = run(root, *argv)
        assert code in (0, 1), (argv, out)
        printable(out)
        if is_json:
            json.loads(out)


@settings(max_examples=4, deadline=None, suppress_health_check=SLOW)
@given(names=st.lists(hostile_names, min_size=2, max_size=2, unique=True))
def test_hostile_file_names_never_break_the_judge(scratch: Path, names: list[str]) -> None:
    root = fresh(scratch)
    hostile_home(root, names)
    code, out = run(root, "judge", "--json")
    assert code in (0, 1), out
    printable(out)
    json.loads(out)


# ------------------------------------------------------------------------------ secrets

secrets = st.text(alphabet=string.ascii_letters + string.digits, min_size=36, max_size=36).map(
    lambda tail: "ghp_" + tail).filter(lambda token: mask_secrets(token) != token)
"""GitHub tokens the rules find (``ghp_000…`` is too plain to be one: gitleaks' entropy)."""
PLACES = ("file name", "name", "description", "index title", "index hook")


@CLI_FUZZ
@given(secret=secrets, places=st.sets(st.sampled_from(PLACES), min_size=1))
def test_a_secret_in_a_name_or_an_index_line_is_printed_by_no_command(
    scratch: Path, secret: str, places: set[str]
) -> None:
    root = fresh(scratch)
    write_home(root, [])
    auto = store_dir(root, "auto")
    file = f"{secret}.md" if "file name" in places else "deploy.md"
    name = f"deploy bot {secret}" if "name" in places else "deploy bot"
    description = f"the bot token is {secret} for CI" if "description" in places else "CI bot"
    write_memory(auto, file, name=name, description=description, type="reference",
                 body="Deploys go through the CI bot.\n")
    write_memory(auto, "deploy-2.md", name="deploy bot", description="the CI bot deploys",
                 type="reference", body="Deploys go through the CI bot, always.\n")
    title = f"Deploy {secret}" if "index title" in places else "Deploy"
    hook = f"the token {secret}" if "index hook" in places else "how it deploys"
    write_index(auto, ["# Memory", index_entry(title, file, hook),
                       index_entry("Gone", "gone.md", "a file no more")])
    for argv in (["scan"], ["scan", "--json"], ["index", str(auto / "MEMORY.md"), "--json"],
                 ["index", str(auto / "MEMORY.md")], ["distil", "auto", "--json"],
                 ["distil", "auto"]):
        code, out = run(root, *argv)
        assert code in (0, 1), (argv, out)
        assert secret not in out, (argv, places)
    code, out = run(root, "judge", "--json")
    assert secret not in out, places


# ------------------------------------------------------------------------------ the judge

sentences = st.sampled_from(["Fact {k}. ", "Rule {k}: never. ", "- item {k}\n", "{k}; ",
                             "Use Postgres {k}! "])


class CountingEmbedder(Embedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
        self.texts += texts
        return super().embed(texts, progress)


@FUZZ
@given(sentence=sentences, times=st.integers(min_value=200, max_value=1500),
       same=st.booleans())
def test_repeated_sentence_bodies_are_judged_with_bounded_work(
    scratch: Path, sentence: str, times: int, same: bool
) -> None:
    root = fresh(scratch)
    ctx = write_home(root, [
        Note("auto", "facts.md", "Facts", sentence.format(k=1) * times, 1),
        Note("team", "facts.md", "Facts", sentence.format(k=1 if same else 2) * times, 2),
    ])
    found = judge_candidates(memory_items(scan(ctx)))
    for pair in found:
        for side in (pair.a, pair.b):
            statements = statements_of(side)
            assert len(statements) <= MAX_STATEMENTS
            assert all(len(s.text) <= MAX_STATEMENT_CHARS for s in statements)
        counting = CountingEmbedder()
        engine.judge_pair(pair, engine.Vectors(counting))
        assert len(counting.texts) <= 2 + 4 * MAX_STATEMENTS
        assert all(len(text) <= 4_000 for text in counting.texts)


# ------------------------------------------------------------------------------ API replies

replies = (
    st.binary(max_size=300)
    | st.sampled_from([b"", b"<html>502 Bad Gateway</html>", b"\xff\xfe", b'{"id": "msg_',
                       b"null", b"[]", b"42", b'"text"', b'{"type": "message"}',
                       b'{"content": "nope"}', b'{"error": {"type": "overloaded"}}'])
    | st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                   lambda kids: st.lists(kids, max_size=3)
                   | st.dictionaries(st.sampled_from(["id", "type", "content", "usage",
                                                      "role", "model"]), kids, max_size=4),
                   max_leaves=10).map(lambda v: json.dumps(v).encode())
)


@pytest.fixture(scope="module")
def candidates(tmp_path_factory: pytest.TempPathFactory) -> list[Candidate]:
    root = tmp_path_factory.mktemp("reply")
    ctx = write_home(root, [
        Note("auto", "test-db.md", "Test database: what tests run against",
             "Integration tests run against a real Postgres 16; never SQLite.", 40),
        Note("team", "test-db.md", "Test database: what tests run against",
             "Integration tests run against SQLite in memory so the suite stays fast.", 2),
    ])
    found = judge_candidates(memory_items(scan(ctx)))
    assert found
    return found


@FUZZ
@given(body=replies)
@example(body=b'{"":null,"usage":false}')  # found by this target: crashed counting the usage
@example(body=b'{"content":true,"usage":{}}')  # and iterating the content
def test_a_200_reply_that_is_no_message_falls_back_to_the_local_judge(
    candidates: list[Candidate], body: bytes
) -> None:
    sent: list[str] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/count_tokens"):
            return httpx2.Response(200, json={"input_tokens": 1000})
        sent.append(request.url.path)
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    judge = load_judge("anthropic", JudgeConfig(provider="anthropic", model=MODEL),
                       env={"ANTHROPIC_API_KEY": "sk-test"},
                       http_client=httpx2.Client(transport=httpx2.MockTransport(handle)))
    assert isinstance(judge, AnthropicJudge)
    verdicts = judge.judge(candidates)
    assert sent  # the reply was asked for (and was no message)
    assert len(verdicts) == len(candidates)
    assert all(v is not None and v.judge == "local" and v.fallback for v in verdicts)


# ------------------------------------------------------------------------------ .git/config


def repo_with(root: Path) -> Path:
    project = root / "project"
    make_git_repo(project)
    subprocess.run(["git", "-C", str(project), "remote", "add", "origin",
                    "https://github.com/acme/shop.git"], check=True)
    return project


def hostile_config(project: Path, kind: str) -> Path:
    config = project / ".git" / "config"
    config.unlink()
    if kind == "dev-zero":
        config.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(config)
    elif kind == "huge-sparse":
        with open(config, "wb") as handle:
            handle.truncate(300 * 1024 * 1024)  # 300 MB of holes: no disk used
    elif kind == "directory":
        config.mkdir()
    elif kind == "loop":
        config.symlink_to(config)
    return config


class FifoWatch:
    """Whether anybody but the test opened a FIFO: a writer waits on it in a thread; the test
    opens its reading end itself once the code under test is done, so a writer woken before
    then was woken by the code under test (which then reads an end of file: no hang)."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.done = threading.Event()
        self.opened_early = False
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def _write(self) -> None:
        fd = os.open(self.fifo, os.O_WRONLY)  # blocks until a reader opens it
        self.opened_early = not self.done.is_set()
        os.close(fd)

    def finish(self) -> bool:
        self.done.set()
        fd = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.thread.join()
        os.close(fd)
        return self.opened_early


KINDS = ("dev-zero", "fifo", "huge-sparse", "directory", "loop")


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_git_config_gives_a_reason_never_a_hang(tmp_path: Path, kind: str) -> None:
    project = repo_with(tmp_path)
    config = hostile_config(project, kind)
    watch = FifoWatch(config) if kind == "fifo" else None
    slug, why = origin_repo(project)
    code, out = run(tmp_path, "team", "check")
    if watch is not None:
        assert not watch.finish(), "the FIFO was opened"
    assert slug is None and why
    assert code in (0, 1) and "no GitHub origin" in out, out


@pytest.mark.parametrize("kind", ["dev-zero", "huge-sparse"])
def test_team_check_reads_a_bounded_config_in_a_bounded_process(
    tmp_path: Path, kind: str
) -> None:
    """The whole command in a process whose address space is capped (1 GiB): ``/dev/zero``
    read unbounded grew ~600 MB/s until the machine ran out."""
    project = repo_with(tmp_path)
    hostile_config(project, kind)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "memtui", "--claude-home", str(tmp_path / "claude"),
         "--project", str(project), "team", "check"],
        capture_output=True, text=True, cwd=REPO, preexec_fn=cap, timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path)},
    )
    assert done.returncode in (0, 1), done.stderr
    assert "no GitHub origin" in done.stdout, done.stdout
