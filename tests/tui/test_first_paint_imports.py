"""What the TUI imports before its first paint (issue 25): the app, its main screen and what
they show, not what runs only after a complete scan (the history, the team memory's push check,
the judge's ledger, the recall manifests), imported when it runs, nor what only a key that
changes files needs. Checked in a fresh interpreter (``sys.modules`` after importing the app
and making it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = (
    "import sys\n"
    "from pathlib import Path\n"
    "from memtui.core.stores.locations import Context\n"
    "from memtui.tui.app import make_app\n"
    "import memtui.tui.screens.main\n"
    "root = Path(sys.argv[1])\n"
    "make_app(Context.create(project=root / 'p', claude_home=root / 'c', env={'HOME': str(root)}),"
    " watch=False)\n"
    "print(' '.join(sorted(sys.modules)))\n"
)

LATER = ("memtui.core.history", "memtui.core.team", "memtui.core.judge", "memtui.core.recall",
         "memtui.tui.team",
         # what a key that changes files needs (planners, recovery, their dialogs): imported
         # when it is pressed
         "memtui.core.write.ops", "memtui.core.write.recovery", "memtui.tui.dialogs.confirm",
         "memtui.tui.dialogs.undo")


def test_the_app_imports_nothing_that_only_follows_a_complete_scan(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMTUI_")}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    modules = set(done.stdout.split())
    assert "memtui.tui.screens.main" in modules
    early = sorted(m for m in modules if m.startswith(LATER))
    assert early == []
