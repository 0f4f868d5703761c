"""Team memory as Claude Code would push it: key validation, the size limit, secrets, batches,
checksums, the GitHub repository of origin, and ``memtui team check``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.demo.build import DemoHome, build_demo_home
from memtui.core.demo.story import DEMO_ORIGIN, FAKE_GITHUB_PAT
from memtui.core.team.keys import key_problem, path_problem
from memtui.core.team.push import MAX_BATCH_BYTES, MAX_FILE_BYTES, plan_push
from memtui.core.team.repo import github_slug, origin_repo


@pytest.mark.parametrize(("key", "refused"), [
    ("MEMORY.md", False),
    ("notes/deploy.md", False),
    ("a%20b.md", False),  # decodes to something else, but without .. or /
    ("caf\u00e9.md", False),
    ("bad\x00.md", True),
    ("dir\\file.md", True),
    ("/etc/passwd", True),
    ("a%2F..%2Fb.md", True),  # URL-decodes to a/../b.md
    ("%2e%2e", True),
    ("\uff0e\uff0e", True),  # fullwidth dots: NFKC makes them ..
    ("a\uff0fb.md", True),  # fullwidth solidus: NFKC makes it /
    ("a\ufe68b.md", True),  # small reverse solidus: NFKC makes it \
])
def test_key_validation_vectors(key: str, refused: bool) -> None:
    assert (key_problem(key) is not None) is refused


def team_dir(tmp_path: Path) -> Path:
    team = tmp_path / "team"
    team.mkdir()
    return team


def fates(team: Path) -> dict[str, str]:
    return {f.key: f.fate + (f": {f.reason}" if f.reason else "") for f in plan_push(team).files}


def test_links_out_dangling_and_loops_fail_closed(tmp_path: Path) -> None:
    team = team_dir(tmp_path)
    (tmp_path / "outside.md").write_text("outside\n")
    (team / "inside.md").write_text("inside\n")
    (team / "out.md").symlink_to(tmp_path / "outside.md")
    (team / "in.md").symlink_to(team / "inside.md")
    (team / "gone.md").symlink_to(team / "nothing.md")
    (team / "loop-a.md").symlink_to(team / "loop-b.md")
    (team / "loop-b.md").symlink_to(team / "loop-a.md")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.md").write_text("x\n")
    (team / "dirlink").symlink_to(tmp_path / "elsewhere")
    assert path_problem(team, "in.md") is None
    got = fates(team)
    assert got["inside.md"] == "push" and got["in.md"] == "push"
    assert got["out.md"] == "refused: invalid key (resolves outside the team directory)"
    assert got["dirlink"] == "refused: invalid key (resolves outside the team directory)"
    assert got["gone.md"] == "refused: invalid key (dangling symlink)"
    assert got["loop-a.md"] == "refused: invalid key (symlink loop)"


def test_size_limit_secrets_batches_and_checksums(tmp_path: Path) -> None:
    team = team_dir(tmp_path)
    (team / "big.md").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    (team / "edge.md").write_bytes(b"y" * MAX_FILE_BYTES)
    (team / "secret.md").write_text(f"token {FAKE_GITHUB_PAT}\n")
    for i in range(3):
        (team / f"part-{i}.md").write_bytes(b"z" * 90_000)
    plan = plan_push(team)
    got = {f.key: f for f in plan.files}
    assert got["big.md"].fate == "skipped" and got["big.md"].reason == "over 250,000 bytes"
    assert got["edge.md"].fate == "push"
    assert got["secret.md"].fate == "refused" and got["secret.md"].reason == "secret (github-pat)"
    assert [(h.rule, h.line) for h in got["secret.md"].secrets] == [("github-pat", 1)]
    expected = "sha256:" + hashlib.sha256(b"z" * 90_000).hexdigest()
    assert got["part-0.md"].checksum == expected
    assert plan.batches == [["edge.md"], ["part-0.md", "part-1.md"], ["part-2.md"]]
    sizes = {f.key: f.size for f in plan.files}
    # a file over the batch limit (but under the file limit) goes alone
    assert all(sum(sizes[k] for k in batch) <= MAX_BATCH_BYTES or len(batch) == 1
               for batch in plan.batches)


@pytest.mark.parametrize(("url", "slug"), [
    ("https://github.com/acme/shop.git", "acme/shop"),
    ("https://github.com/acme/shop", "acme/shop"),
    ("https://user@github.com/acme/shop.git", "acme/shop"),
    ("git@github.com:acme/shop.git", "acme/shop"),
    ("github.com:acme/shop", "acme/shop"),
    ("ssh://git@github.com/acme/shop.git", "acme/shop"),
    ("ssh://git@github.com:22/acme/shop.git", "acme/shop"),
    ("git://github.com/acme/shop.git", "acme/shop"),
    ("https://gitlab.com/acme/shop.git", None),
    ("https://github.com/acme", None),
])
def test_github_url_forms(url: str, slug: str | None) -> None:
    assert github_slug(url) == slug


def test_origin_is_read_from_the_git_config(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path / "demo")
    assert origin_repo(home.project) == ("acme/shop", DEMO_ORIGIN)
    assert origin_repo(home.worktree) == ("acme/shop", DEMO_ORIGIN)  # a linked worktree
    git = ["git", "-C", str(home.project), "remote"]
    subprocess.run([*git, "set-url", "origin", "git@gitlab.com:acme/shop.git"], check=True)
    elsewhere = (None, "origin is not on GitHub (git@gitlab.com:acme/shop.git)")
    assert origin_repo(home.project) == elsewhere
    subprocess.run([*git, "remove", "origin"], check=True)
    assert origin_repo(home.project) == (None, "no origin remote")
    assert origin_repo(tmp_path) == (None, "not a git repository")


def run_check(home: DemoHome, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["--claude-home", str(home.claude_home), "--project", str(home.project),
                 "team", "check", *extra])
    return code, capsys.readouterr().out


def test_team_check_on_the_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                state_home: Path) -> None:
    home = build_demo_home(tmp_path / "demo")
    code, out = run_check(home, capsys)
    assert code == 1
    assert "syncs for acme/shop" in out
    assert "refused: secret (github-pat)" in out and "ci-tokens.md" in out
    assert "batch 1:" in out
    assert FAKE_GITHUB_PAT not in out
    code, out = run_check(home, capsys, "--json")
    data = json.loads(out)
    assert code == 1 and FAKE_GITHUB_PAT not in out
    by_key = {f["key"]: f for f in data["files"]}
    assert by_key["ci-tokens.md"]["secrets"] == [{"rule": "github-pat", "line": 6}]
    assert by_key["MEMORY.md"]["fate"] == "push"
    assert by_key["MEMORY.md"]["checksum"].startswith("sha256:")


def test_team_check_exits_0_when_everything_would_push(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], state_home: Path
) -> None:
    home = build_demo_home(tmp_path / "demo")
    for name in os.listdir(home.team_memory):
        if "token" in name or "aws" in name:
            os.remove(home.team_memory / name)
    subprocess.run(["git", "-C", str(home.project), "remote", "remove", "origin"], check=True)
    code, out = run_check(home, capsys)
    assert code == 0, out
    assert "no GitHub origin (no origin remote): team memory does not sync" in out
