"""Full-text search over every memory of the scan: type, pick a hit, jump to it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker

from memtui.core.contents import ScanResult
from memtui.core.plaintext import counted
from memtui.core.scan.search import (
    SearchHit,
    SearchIndex,
    build_search_index,
    fold,
    match_spans,
    query_terms,
)
from memtui.tui.dialogs.base import Dialog, dialog_box
from memtui.tui.messages import JobProgress
from memtui.tui.plain import line, styled
from memtui.tui.work import check, in_thread, is_cancelled, progress

MATCH_STYLE = "bold reverse"
PROGRESS_INTERVAL = 0.1
"""Seconds between two progress updates posted by the indexing worker."""
RESULT_LIMIT = 100
DESCRIPTION_CHARS = 100
"""Hits listed at most: more would cost keystroke time; a longer query narrows them."""


@dataclass(frozen=True)
class MarkHits:
    """The search closed with ``ctrl+t``: mark every memory its query matches (all of them,
    not only the hits listed)."""

    query: str
    hits: list[SearchHit]


class SearchIndexCache:
    """The search index of one scan result, kept while that result is current."""

    def __init__(self) -> None:
        self._result: ScanResult | None = None
        self._index: SearchIndex | None = None
        self.last_query = ""

    def get(self, result: ScanResult) -> SearchIndex | None:
        if self._result is result and self._index is not None and self._index.complete:
            return self._index
        return None

    def put(self, result: ScanResult, index: SearchIndex) -> None:
        self._result, self._index = result, index


def highlighted(text: str, spans: list[tuple[int, int]], style: str = "") -> Text:
    """``text`` (from disk) with the matches styled, its control characters then escaped."""
    return styled(text, [(start, end, MATCH_STYLE) for start, end in spans], style)


def hit_prompt(hit: SearchHit, terms: tuple[str, ...]) -> Text:
    """The store and the memory's path, then the field's snippet (and for a name or path hit,
    the description), then the file line of the first body match, every match styled."""
    path = hit.memory.rel_path if hit.memory else ""
    prompt = Text()
    prompt.append(line(hit.store.title), style="bold")
    prompt.append("  ")
    prompt.append_text(highlighted(path, match_spans(fold(path), terms), style="cyan"))
    if hit.field == "body" and hit.line is not None:
        pass  # its line comes below
    elif hit.field != "path":
        prompt.append(f"\n  {hit.field}: ", style="dim")
        prompt.append_text(highlighted(hit.snippet, hit.spans))
    description = hit.memory.description if hit.memory else None
    if hit.field in ("name", "path") and description:
        short = " ".join(description.split())[:DESCRIPTION_CHARS]
        prompt.append("\n  " if hit.field == "path" else " · ", style="dim")
        prompt.append_text(highlighted(short, match_spans(fold(short), terms), style="dim"))
    if hit.line is not None:  # the matching text in the file: ⏎ opens the file there
        prompt.append(f"\n  line {hit.line}: ", style="dim")
        prompt.append_text(highlighted(hit.line_snippet, list(hit.line_spans)))
    return prompt


class SearchScreen(Dialog[SearchHit | MarkHits | None]):
    """An input over a list of hits; the index is built once per scan, in a job."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="search.close"),
        Binding("ctrl+t", "mark_all", "Mark every hit (for d)", id="search.mark-all"),
        Binding("down", "move(1)", "Next hit", show=False, id="search.next"),
        Binding("up", "move(-1)", "Previous hit", show=False, id="search.previous"),
    ]

    def __init__(self, result: ScanResult, cache: SearchIndexCache) -> None:
        super().__init__()
        self.result = result
        self.cache = cache
        self.index: SearchIndex | None = cache.get(result)
        self.hits: list[SearchHit] = []
        self.more = False
        self.indexing: Worker[None] | None = None

    def compose(self) -> ComposeResult:
        with dialog_box("search", "Search memories",
                        "⏎ open · ↑↓ move · ctrl+t mark every hit · esc close"):
            yield Input(
                self.cache.last_query,
                placeholder="words to find (every word must match)",
                id="search-input",
            )
            yield Static("", id="search-status")
            yield OptionList(id="search-results", classes="dialog-list")

    def on_mount(self) -> None:
        self.query_one("#search-input", Input).focus()
        if self.index is None:
            self.show_status(Text("indexing …", style="dim"))
            self.build_index()
        else:
            self.run_query(self.query_one("#search-input", Input).value)

    # indexing ---------------------------------------------------------------------------

    def build_index(self) -> None:
        result = self.result
        last = 0.0

        def run() -> SearchIndex:
            def step(done: int, total: int) -> None:
                nonlocal last
                now = time.monotonic()
                if done < total and now - last < PROGRESS_INTERVAL:
                    return
                last = now
                progress(f"indexing {done:,} / {total:,}", done, total)

            index = build_search_index(result, cancelled=is_cancelled, progress=step)
            check()  # a cancelled index is partial: never kept
            return index

        self.indexing = self.run_worker(partial(self._index, run), name="indexing",
                                        group="search-index", description="Search",
                                        exclusive=True, exit_on_error=False)

    async def _index(self, run: Callable[[], SearchIndex]) -> None:
        self.index_ready(await in_thread(run))

    def on_job_progress(self, message: JobProgress) -> None:
        if message.worker is not self.indexing:
            return
        if self.index is not None:
            return  # a progress message that arrives after the index: the status stays
        if message.done is not None and message.total is not None:
            self.show_progress(message.done, message.total)

    def show_progress(self, done: int, total: int) -> None:
        if self.is_attached:
            self.show_status(Text(f"indexing {done:,} / {total:,}", style="bold yellow"))

    def index_ready(self, index: SearchIndex) -> None:
        self.cache.put(self.result, index)
        self.index = index
        if self.is_attached:
            self.run_query(self.query_one("#search-input", Input).value)

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        if worker is self.indexing and failure is not None and self.is_attached:
            self.show_status(Text(line(failure), style="bold red"))

    # querying ---------------------------------------------------------------------------

    @on(Input.Changed, "#search-input")
    def query_changed(self, event: Input.Changed) -> None:
        self.cache.last_query = event.value
        self.run_query(event.value)

    def run_query(self, text: str) -> None:
        """Query the in-memory index (no I/O) and show the hits."""
        if self.index is None:
            return
        started = time.perf_counter()
        found = self.index.query(text, limit=RESULT_LIMIT + 1)
        self.more = len(found) > RESULT_LIMIT
        self.hits = found[:RESULT_LIMIT]
        elapsed = (time.perf_counter() - started) * 1000
        terms = query_terms(text)
        results = self.query_one("#search-results", OptionList)
        results.set_options(Option(hit_prompt(hit, terms)) for hit in self.hits)
        if self.hits:
            results.highlighted = 0
        self.show_status(self.status_text(text, elapsed))

    def status_text(self, text: str, elapsed_ms: float) -> Text:
        total = len(self.index) if self.index is not None else 0
        if not query_terms(text):
            return Text(f"type to search {counted(total, 'memory', 'memories')}", style="dim")
        count = len(self.hits)
        more = "+" if self.more else ""
        words = f"{count}{more} hit{'s' if count != 1 else ''}"
        return Text(f"{words} in {counted(total, 'memory', 'memories')} · {elapsed_ms:.0f} ms",
                    style="dim")

    def show_status(self, text: Text) -> None:
        self.query_one("#search-status", Static).update(text)

    # choosing ---------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        results = self.query_one("#search-results", OptionList)
        if step > 0:
            results.action_cursor_down()
        else:
            results.action_cursor_up()

    @on(Input.Submitted, "#search-input")
    def input_submitted(self) -> None:
        self.choose(self.query_one("#search-results", OptionList).highlighted)

    @on(OptionList.OptionSelected, "#search-results")
    def option_selected(self, event: OptionList.OptionSelected) -> None:
        self.choose(event.option_index)

    def choose(self, position: int | None) -> None:
        if position is None or not 0 <= position < len(self.hits):
            return
        self.dismiss(self.hits[position])

    def action_mark_all(self) -> None:
        """Close, marking every memory the query matches (the main screen's ``d`` deletes
        them as one operation)."""
        text = self.query_one("#search-input", Input).value
        if self.index is None or not query_terms(text):
            self.notify("Type a query first: ctrl+t marks every memory it matches.",
                        title="Search")
            return
        hits = [h for h in self.index.query(text, limit=len(self.index)) if h.memory is not None]
        self.dismiss(MarkHits(text, hits))

    def action_close(self) -> None:
        self.dismiss(None)
