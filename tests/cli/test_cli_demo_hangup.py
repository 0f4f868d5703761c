"""The demo's temporary home goes when the terminal closes (SIGHUP) or the process is
terminated, as it does on a normal exit (issue 25: three were left in the temp dir)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

CHILD = """
import sys
import memtui.cli as cli

def blocked(_args):
    print("ready", flush=True)
    sys.stdin.read()  # until the test hangs up
    return 0

cli.dispatch = blocked
raise SystemExit(cli.main(["--demo", "scan"]))
"""


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_hangup_removes_the_demo_home(tmp_path: Path, sig: signal.Signals) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)}
    child = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        roots = list(tmp_path.glob("memtui-demo-*"))
        assert len(roots) == 1 and (roots[0] / "home").is_dir()
        child.send_signal(sig)
        child.wait(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 128 + sig
    assert not roots[0].exists()
