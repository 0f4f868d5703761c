"""Secrets on output (issue 25, item 5): real-looking secrets planted in names, descriptions,
file names, index lines and bodies of a temp home; every command, text and JSON, prints none
of them, and the request bodies the judge and recall send (the real SDK against a mocked
Messages API) hold none of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core.judge.mock_api import FakeMessagesAPI
from core.recall.mock_selector import FakeSelector
from core.secrets.samples import SAMPLES
from helpers import copy_demo, home_args

from memtui.cli import main
from memtui.core.demo.build import DemoHome
from memtui.core.demo.writers import index_entry, make_dir, write_index, write_memory
from memtui.core.judge import anthropic_judge
from memtui.core.recall import anthropic_recall
from memtui.core.stores.sanitize import sanitize_path

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py

SECRET = {s.rule: s.secret for s in SAMPLES}
IN_FILE_NAME = SECRET["github-pat"]
IN_OTHER_FILE_NAME = SECRET["anthropic-api-key"]  # found only with the suffix read as a space
IN_NAME = SECRET["slack-bot-token"]
IN_DESCRIPTION = SECRET["stripe-access-token"]
IN_INDEX_TITLE = SECRET["npm-access-token"]
IN_INDEX_HOOK = SECRET["gitlab-pat"]
IN_DANGLING = SECRET["pulumi-api-token"]
IN_BODY = SECRET["aws-access-token"]
PLANTED = {
    "file name": IN_FILE_NAME, "other file name": IN_OTHER_FILE_NAME, "name": IN_NAME,
    "description": IN_DESCRIPTION, "index title": IN_INDEX_TITLE, "index hook": IN_INDEX_HOOK,
    "dangling": IN_DANGLING, "body": IN_BODY,
}
FIRST, SECOND = f"{IN_FILE_NAME}.md", f"{IN_OTHER_FILE_NAME}.md"
BODY = ("Deploy the release with make deploy from the main branch, then check the staging "
        "dashboard before telling the team; the release token is {token}.\n")


def plant(memory: Path) -> None:
    """The planted memories and index lines, in the store ``memory``."""
    write_memory(memory, FIRST, name=f"deploy release {IN_NAME}",
                 description=f"how to deploy the release ({IN_DESCRIPTION})", type="project",
                 body=BODY.format(token=IN_BODY))
    write_memory(memory, SECOND, name="deploy release steps",
                 description="how to deploy the release", type="project",
                 body=BODY.format(token="in the vault"))
    index = memory / "MEMORY.md"
    lines = index.read_text(encoding="utf-8").splitlines() if index.exists() else []
    write_index(memory, [
        *lines,
        index_entry(f"Deploy {IN_INDEX_TITLE}", FIRST, f"how to deploy {IN_INDEX_HOOK}"),
        index_entry("Release steps", SECOND, "the release"),
        index_entry("Gone", f"gone-{IN_DANGLING}.md", "a file no more"),
    ])


@pytest.fixture
def home(pristine: DemoHome, tmp_path: Path) -> list[str]:
    """The demo home with the planted secrets in its auto memory: its CLI options."""
    home = copy_demo(pristine, tmp_path / "demo", keep_auto=True)
    plant(home.auto_memory)
    return home_args(home)


@pytest.fixture
def small(tmp_path: Path) -> list[str]:
    """A home of the planted memories alone (the pair a provider is sent): its options."""
    project = make_dir(tmp_path / "small" / "project")
    claude = tmp_path / "small" / "claude"
    plant(make_dir(claude / "projects" / sanitize_path(str(project)) / "memory"))
    return ["--claude-home", str(claude), "--project", str(project),
            "--agent-memory-home", str(tmp_path / "small" / "agentmemory")]


def run(capsys: pytest.CaptureFixture[str], home: list[str], *argv: str) -> tuple[int, str]:
    code = main([*home, *argv])
    out, err = capsys.readouterr()
    return code, out + err


def auto_memory(home: list[str]) -> Path:
    claude, project = Path(home[1]), home[3]
    return claude / "projects" / sanitize_path(project) / "memory"


def leaked(text: str) -> list[str]:
    """Where each planted secret the text holds was planted, with the line it is on."""
    return [f"{where}: {line[:300]}" for where, secret in PLANTED.items()
            for line in text.splitlines() if secret in line]


def masked(secret: str) -> str:
    return f"{secret[:4]}…{secret[-4:]}"


def test_scan_index_and_snapshot_status_show_no_secret(
    home: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _code, out = run(capsys, home, "scan")
    assert leaked(out) == []
    assert masked(IN_FILE_NAME) + ".md" in out and masked(IN_DESCRIPTION) in out
    for _ in range(2):  # the second run prints the stores' cached text
        _code, out = run(capsys, home, "scan", "--json")
        assert leaked(out) == []
        auto = next(s for s in json.loads(out)["stores"] if s["kind"] == "auto")
        assert masked(IN_FILE_NAME) + ".md" in {m["path"] for m in auto["memories"]}
    index = str(auto_memory(home) / "MEMORY.md")
    for argv in (("index", index), ("index", "--json", index), ("snapshot", "status"),
                 ("snapshot", "status", "--json"), ("context",), ("team", "check")):
        _code, out = run(capsys, home, *argv)
        assert leaked(out) == [], argv
    assert masked(IN_DANGLING) in run(capsys, home, "index", "--json", index)[1]


def test_judge_and_distil_show_no_secret(
    home: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _code, out = run(capsys, home, "judge", "--json", "--all")
    assert leaked(out) == []
    pair = next(p for p in json.loads(out)["pairs"]
                if {p["a"]["path"], p["b"]["path"]} & {masked(IN_FILE_NAME) + ".md"})
    assert masked(IN_NAME) in json.dumps(pair, ensure_ascii=False)
    for argv in (("judge", "--all"), ("distil", "auto"), ("distil", "auto", "--json")):
        _code, out = run(capsys, home, *argv)
        assert leaked(out) == [], argv


def test_delete_undo_and_their_previews_show_no_secret(
    home: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(auto_memory(home))
    code, out = run(capsys, home, "delete", store, FIRST)
    assert code == 1 and leaked(out) == []  # the preview; no terminal to ask on
    code, out = run(capsys, home, "delete", store, FIRST, "--yes")
    assert code == 0 and leaked(out) == []
    for argv in (("undo", "--list"), ("undo", "--list", "--json"), ("undo",)):
        _code, out = run(capsys, home, *argv)
        assert leaked(out) == [], argv
    assert masked(IN_FILE_NAME) in run(capsys, home, "undo", "--list")[1]


def test_recall_shows_no_secret(home: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (("recall", "--manifest"), ("recall", "--manifest", "--json"),
                 ("recall", "how do I deploy the release"),
                 ("recall", "--json", "how do I deploy the release")):
        _code, out = run(capsys, home, *argv)
        assert leaked(out) == [], argv


def test_the_judges_request_bodies_hold_no_secret(
    small: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = FakeMessagesAPI()
    monkeypatch.setattr(anthropic_judge, "http_client_factory", api.client)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    _code, out = run(capsys, small, "judge", "--json", "--provider", "anthropic", "--yes")
    assert leaked(out) == []
    sent = "\n".join(api.bodies)
    assert api.calls and "deploy release" in sent  # the planted pair was sent
    assert leaked(sent) == [] and leaked(json.loads(json.dumps(sent))) == []
    assert "[REDACTED:github-pat].md" in sent and "[REDACTED:anthropic-api-key].md" in sent


def test_recalls_request_bodies_hold_no_secret_and_its_answer_maps_back(
    small: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = FakeSelector(answer={"selected_memories": ["[REDACTED:github-pat].md"]})
    monkeypatch.setattr(anthropic_recall, "http_client_factory", api.client)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    _code, out = run(capsys, small, "recall", "--provider", "anthropic", "--yes",
                    "how do I deploy the release")
    assert leaked(out) == []
    sent = json.dumps(api.bodies, ensure_ascii=False)
    assert api.bodies and leaked(sent) == []
    assert "[REDACTED:github-pat].md" in sent
    assert f"== {masked(IN_FILE_NAME)}.md" in out  # the memory the selector chose, attached
