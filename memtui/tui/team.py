"""The Team pane's push view: which GitHub repository team memory syncs for and how each file
would fare on push (Claude Code's rules: :func:`memtui.core.team.push.plan_push`), worked out
in a worker after each complete scan (GitPython and reading every team file stay off the UI
thread)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text

from memtui.core.contents import Store
from memtui.core.team.push import PushPlan, TeamFile, plan_push
from memtui.core.team.repo import origin_repo
from memtui.tui.plain import line
from memtui.tui.work import progress

NO_ORIGIN = "no GitHub origin: team memory does not sync"
FATE_STYLE = {"push": "green", "skipped": "yellow", "refused": "bold red"}


@dataclass(frozen=True)
class TeamView:
    """What the Team pane shows of a push check: a banner, and each file's fate by absolute
    path."""

    store: Store
    banner: Text
    fates: dict[str, Text]


def fate_text(item: TeamFile) -> Text:
    """``push``, ``skipped: over 250,000 bytes``, ``refused: secret (github-pat)``, …"""
    words = item.fate if not item.reason else f"{item.fate}: {item.reason}"
    return Text(line(words), style=FATE_STYLE.get(item.fate, ""))


def banner_text(repo: str | None, plan: PushPlan) -> Text:
    """``⇅ syncs for acme/shop · 2 push · 2 refused`` (or why nothing syncs)."""
    text = Text()
    if repo is None:
        text.append(NO_ORIGIN, style="dim italic")
    else:
        text.append("⇅ syncs for ", style="dim")
        text.append(line(repo), style="bold")
    for fate in ("push", "skipped", "refused"):
        count = sum(1 for f in plan.files if f.fate == fate)
        if count:
            text.append(" · ", style="dim")
            text.append(f"{count} {fate}", style=FATE_STYLE[fate])
    return text


def team_view(store: Store, project: Path) -> TeamView:
    """The push check of ``store`` (the team store) for ``project``: blocking, for a job."""
    repo, _found = origin_repo(project)
    plan = plan_push(store.path)
    fates = {str(store.path / item.key): fate_text(item) for item in plan.files}
    return TeamView(store, banner_text(repo, plan), fates)


def team_check(project: Path, store: Store | None) -> TeamView | None:
    """The push check of the team ``store`` (none, or one that does not exist: nothing to
    check, None); blocking, for a worker (it says ``team: push rules`` in the header)."""
    if store is None or not store.exists:
        return None
    progress("team: push rules")
    return team_view(store, project)
