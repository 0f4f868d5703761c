"""``memtui delete`` and ``redact`` given a path through a link that is swapped while it is
resolved (issue 25 item 5: 6 of 20 attack runs raised FileNotFoundError from ``realpath``): a
refusal in words, exit 1, nothing written. The race is forced: the link disappears between its
``lstat`` and its ``readlink``, where a real swap lands."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import home_args, tree_state

from memtui.cli import main
from memtui.core.demo.build import DemoHome

pytestmark = pytest.mark.usefixtures("state_home")  # tests/conftest.py


def swapped_while_resolved(monkeypatch: pytest.MonkeyPatch, link: Path) -> None:
    real_readlink = os.readlink

    def readlink(path: object, *args: object, **kwargs: object) -> str:
        if os.fspath(path) == str(link):  # type: ignore[arg-type]
            raise FileNotFoundError(2, "No such file or directory", str(link))
        return real_readlink(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "readlink", readlink)


@pytest.mark.parametrize("command", ["delete", "redact"])
def test_a_link_swapped_while_resolved_is_a_clear_refusal(
    demo: DemoHome, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, command: str,
) -> None:
    link = tmp_path / "via"
    link.symlink_to(demo.auto_memory)
    before = tree_state(demo.root)
    swapped_while_resolved(monkeypatch, link)
    argv = [str(link), "common-bugs.md"] if command == "delete" else [str(link / "x.md")]
    code = main([*home_args(demo), command, *argv, "--yes"])
    _out, err = capsys.readouterr()
    assert code == 1, err
    assert f"memtui {command}: refused: {link}" in err and "changed while it was resolved" in err
    assert "nothing was written" in err
    assert tree_state(demo.root) == before
