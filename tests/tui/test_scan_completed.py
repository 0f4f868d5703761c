"""Showing a scan and following it up are two things (issue 21): ``show_result`` only shows;
``ScanCompleted`` (posted by the scan's worker and by a live refresh) starts the follow-ups,
each a worker of its own group, and only for the result still shown."""

from __future__ import annotations

from dataclasses import replace

from helpers import demo_app
from textual.message import Message
from textual.worker import Worker, WorkerState

from memtui.core.demo.build import DemoHome
from memtui.core.model import StoreKind
from memtui.tui.live import ScanCompleted
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle

SIZE = (160, 45)
FOLLOW_UPS = {"history", "links", "team", "conflict-marks", "recall-marks"}


async def test_show_result_only_shows_and_scan_completed_follows_up(demo: DemoHome) -> None:
    started: list[str | None] = []

    def hook(message: Message) -> None:
        if isinstance(message, Worker.StateChanged) and message.state == WorkerState.RUNNING:
            started.append(message.worker.group)

    app = demo_app(demo, MEMTUI_NO_CACHE="1")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.result is not None
        assert FOLLOW_UPS - {"links"} <= set(started), "the first scan was followed up"
        assert "links" not in started, "the scan's own worker checked its links"
        result = screen.result

        started.clear()
        screen.show_result(result)
        await settle(pilot)
        assert started == [], "showing a result starts no work"

        screen.post_message(ScanCompleted(replace(result), check_links=True))
        await settle(pilot)
        assert started == [], "a result no longer shown is not followed up"

        screen.post_message(ScanCompleted(result, check_links=False))
        await settle(pilot)
        assert sorted(g for g in started if g is not None) == sorted(FOLLOW_UPS - {"links"}), (
            "each follow-up of a scan is one worker of its own group")

        # a live refresh that replaced the team store: what a team store calls for (its push
        # check, the auto memory's recall manifest, which holds team memory), not the ledger
        fresh = replace(result, stores=[replace(s) if s.kind == StoreKind.TEAM else s
                                        for s in result.stores])
        screen.show_result(fresh)
        started.clear()
        screen.post_message(ScanCompleted(fresh, check_links=True))
        await settle(pilot)
        assert sorted(g for g in started if g is not None) == sorted(
            FOLLOW_UPS - {"conflict-marks"}), "a refresh follows up its changed stores"

        # one that replaced nothing the follow-ups read: its history and links only
        again = replace(fresh, stores=list(fresh.stores))
        screen.show_result(again)
        started.clear()
        screen.post_message(ScanCompleted(again, check_links=True))
        await settle(pilot)
        assert sorted(g for g in started if g is not None) == ["history", "links"]
