"""``memtui redact PATH``: the plan with each secret masked, asked unless ``--yes``, applied
through the journal, undone byte for byte; no output ever holds the secret."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from helpers import home_args, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.story import FAKE_AWS_KEY_ID, FAKE_GITHUB_PAT
from memtui.core.write.journal import Journal
from memtui.core.write.ops.redact import ROTATE_NOTE

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py

SECRETS = (FAKE_GITHUB_PAT, FAKE_AWS_KEY_ID)


class Terminal(io.StringIO):
    """A stdin that says it is a terminal, with the user's typed answer."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def home(tmp_path: Path) -> DemoHome:
    """The whole demo home (its team store lives under the projects folder)."""
    return build_demo_home(tmp_path / "demo")


def team_file(home: DemoHome, name: str = "ci-tokens.md") -> Path:
    return home.team_memory / name


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    for secret in SECRETS:
        assert secret not in out and secret not in err, argv
    return code, out, err


def test_the_plan_masks_the_secret_and_changes_nothing_without_yes(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_state(home.root)
    code, out, err = run(capsys, *home_args(home), "redact", str(team_file(home)))
    assert code == 1 and "re-run with --yes to apply" in err
    assert "redact 1 secret in ci-tokens.md of team" in out
    assert "line 6: github-pat secret ghp_…defg becomes [REDACTED:github-pat]" in out
    assert ROTATE_NOTE in out
    assert "-CI pulls private packages with the bot token `ghp_…defg`" in out
    assert "+CI pulls private packages with the bot token `[REDACTED:github-pat]`" in out
    code, out, _ = run(capsys, *home_args(home), "redact", str(team_file(home)), "--json")
    plan = json.loads(out)
    assert code == 1 and plan["kind"] == "redact-secrets"
    assert [f["status"] for f in plan["files"]] == ["changed"]
    assert tree_state(home.root) == before
    assert Journal.default().list() == []


def test_asked_on_a_terminal_no_keeps_the_file(
    home: DemoHome, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = team_file(home).read_bytes()
    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    code, _, err = run(capsys, *home_args(home), "redact", str(team_file(home)))
    assert code == 1 and "nothing changed" in err
    assert team_file(home).read_bytes() == before


def test_yes_redacts_and_undo_restores_the_identical_file(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    path = team_file(home)
    before = tree_state(home.root)
    original = path.read_bytes()
    code, out, _ = run(capsys, *home_args(home), "redact", str(path), "--yes")
    assert code == 0 and "undo with: memtui undo " in out
    assert f"note: {ROTATE_NOTE}" in out
    assert path.read_bytes() == original.replace(
        FAKE_GITHUB_PAT.encode(), b"[REDACTED:github-pat]"
    )
    code, out, _ = run(capsys, *home_args(home), "undo", "--list")
    assert code == 0 and "redact-secrets" in out
    code, out, _ = run(capsys, *home_args(home), "undo", "--list", "--json")
    assert [r["kind"] for r in json.loads(out)] == ["redact-secrets"]
    code, _, _ = run(capsys, *home_args(home), "undo", "--yes")
    assert code == 0
    assert path.read_bytes() == original
    assert tree_state(home.root) == before  # bytes, modes and mtimes


def test_json_output_of_an_applied_redaction_holds_no_secret(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    path = team_file(home, "aws-staging.md")
    code, out, _ = run(capsys, *home_args(home), "redact", str(path), "--yes", "--json")
    record = json.loads(out)
    assert code == 0 and record["kind"] == "redact-secrets" and ROTATE_NOTE in record["notes"]
    assert FAKE_AWS_KEY_ID not in path.read_text()
    code, out, _ = run(capsys, *home_args(home), "scan", "--json")
    secrets = {m["path"]: m["secrets"] for s in json.loads(out)["stores"]
               if s["kind"] == "team" for m in s["memories"]}
    assert secrets["aws-staging.md"] == [] and secrets["ci-tokens.md"] != []


def test_a_memory_without_a_secret_has_nothing_to_redact(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_state(home.root)
    code, out, _ = run(capsys, *home_args(home), "redact", str(team_file(home, "code-review.md")))
    assert code == 0 and "nothing to redact; nothing was written" in out
    assert tree_state(home.root) == before and Journal.default().list() == []


def test_a_path_that_is_no_memory_is_bad_usage(
    home: DemoHome, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stray = tmp_path / "stray.md"
    stray.write_text(f"token {FAKE_GITHUB_PAT}\n")
    code, _, err = run(capsys, *home_args(home), "redact", str(stray), "--yes")
    assert code == 2 and "is no memory file" in err
    assert FAKE_GITHUB_PAT in stray.read_text()


def test_a_file_that_is_not_utf8_is_refused(
    home: DemoHome, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home.team_memory / "latin1.md"
    path.write_bytes(b"caf\xe9 token " + FAKE_GITHUB_PAT.encode() + b"\n")
    code, _, err = run(capsys, *home_args(home), "redact", str(path), "--yes")
    assert code == 1 and "is not valid UTF-8" in err
    assert FAKE_GITHUB_PAT.encode() in path.read_bytes()
