"""The memtui Textual application and the factory the CLI and the tests share."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from memtui.core.locations import Context
from memtui.tui.screens.main import MainScreen


class MemtuiApp(App[None]):
    TITLE = "memtui"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(self, context: Context, *, watch: bool = True) -> None:
        super().__init__()
        self.context = context
        self.watch_files = watch

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self.context))


def make_app(context: Context, *, watch: bool = True) -> MemtuiApp:
    return MemtuiApp(context, watch=watch)


def run_app(context: Context) -> int:
    make_app(context).run()
    return 0
