"""``settle`` waits for every worker, and a worker cancelled by a newer one is no failure."""

from __future__ import annotations

import threading

from textual.app import App

from memtui.tui.testing import settle


class TwoLoads(App[None]):
    """Starts a slow load, then a newer one of the same group, which cancels it."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.finished: list[str] = []

    def load(self, name: str) -> None:
        def work() -> None:
            self.release.wait(5)
            self.finished.append(name)

        self.run_worker(work, group="load", exclusive=True, thread=True)


async def test_settle_waits_past_a_cancelled_worker() -> None:
    app = TwoLoads()
    async with app.run_test() as pilot:
        app.load("first")
        app.load("second")  # cancels the first (its thread runs on, its result unused)
        app.release.set()
        await settle(pilot)
        assert "second" in app.finished
        assert all(w.is_finished for w in app.workers)
