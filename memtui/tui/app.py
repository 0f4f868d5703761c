"""The memtui Textual application and the factory the CLI and the tests share.

The app is the wiring: it loads the settings once and hands them to the main screen, keeps
the header's ``jobs:`` text from the workers' progress (:mod:`memtui.tui.work`), and handles the
messages that concern more than one screen (an operation applied anywhere: it says so and
tells every screen the stores changed). It never calls into a screen. It is the only module
that imports ``screens/main.py`` (``tests/tui/test_architecture.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import Worker

from memtui.core.config import Config, load_config
from memtui.core.scan.forked import ForkedScan
from memtui.core.stores.locations import Context
from memtui.tui.keymap import KeymapApp, unknown_binding_ids
from memtui.tui.messages import JobEnded, JobProgress, OperationApplied, StoresChanged
from memtui.tui.plain import line
from memtui.tui.screens.main import MainScreen
from memtui.tui.themes import install_themes, remember_theme
from memtui.tui.work import ReportsWork, header_text


class MemtuiApp(ReportsWork, KeymapApp):
    TITLE = "memtui"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(
        self, context: Context, *, watch: bool = True, theme: str | None = None,
        first_scan: ForkedScan | None = None,
    ) -> None:
        super().__init__()
        self.context = context
        self.first_scan = first_scan
        """The first scan, forked before the app's imports (else the main screen scans)."""
        self.watch_files = watch
        self.config: Config = load_config(context.env, context.home)
        requested = theme or self.config.theme  # --theme, else $MEMTUI_THEME, else the file
        self.theme_problems = install_themes(self, context.env, context.home, requested)
        self.job_texts: dict[Worker[Any], str] = {}

    def on_mount(self) -> None:
        for config_problem in self.config.problems:
            self.notify(line(config_problem.message), title="Config", severity="warning",
                        timeout=15, markup=False)
        for problem in self.theme_problems:
            self.notify(line(problem), title="Theme", severity="warning", timeout=15, markup=False)
        self.apply_keymap()
        remember_theme(self, self.config, self.context.env)  # a theme picked is saved
        self.push_screen(MainScreen(self.context, self.config, watch=self.watch_files,
                                    first_scan=self.first_scan))
        self.first_scan = None

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands (theme, quit, screenshot) but its key panel: each screen
        has its own help (``?``), which the screen's own palette commands offer."""
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command

    jobs_text: reactive[str] = reactive("")
    """The header's ``jobs:``: every running worker's latest progress (the main screen
    watches it)."""

    def on_job_progress(self, message: JobProgress) -> None:
        worker = message.worker
        if worker.is_finished or worker.is_cancelled or self.job_texts.get(worker) == message.text:
            return
        self.job_texts[worker] = message.text
        self.jobs_text = header_text(self.job_texts)

    def on_job_ended(self, message: JobEnded) -> None:
        self.job_texts.pop(message.worker, None)
        self.jobs_text = header_text(self.job_texts)

    def on_operation_applied(self, message: OperationApplied) -> None:
        """Something changed files (a delete, an undo, a snapshot action, a recovery): say
        what, and tell every screen (the main screen rescans)."""
        self.notify(line(message.summary), title="Done", markup=False)
        for screen in self.screen_stack:
            screen.post_message(StoresChanged())

    def apply_keymap(self) -> None:
        """The config's ``[keymap]`` through ``App.set_keymap`` (kept in ``self.keymap``:
        :class:`~memtui.tui.keymap.KeymapApp`); an id no binding has is reported with the ids
        like it."""
        if not self.config.keymap:
            return
        self.set_keymap(self.config.keymap)
        for problem in unknown_binding_ids(self.config.keymap):
            self.notify(line(problem), title="Keymap", severity="warning", timeout=15,
                        markup=False)


def make_app(
    context: Context, *, watch: bool = True, theme: str | None = None,
    first_scan: ForkedScan | None = None,
) -> MemtuiApp:
    """The app; ``first_scan``: its first scan, forked already (``ForkedScan.start``)."""
    return MemtuiApp(context, watch=watch, theme=theme, first_scan=first_scan)


def run_app(
    context: Context, *, theme: str | None = None, first_scan: ForkedScan | None = None
) -> int:
    make_app(context, theme=theme, first_scan=first_scan).run()
    return 0
