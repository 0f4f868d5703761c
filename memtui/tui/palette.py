"""Command palette providers: every action of the screen the palette was opened from (one
command per binding memtui declares on it, so a binding added later is offered too), and on
the main screen a jump to any memory or store.

A screen lists :class:`ScreenCommands` (or, the main screen, :class:`MemoryCommands`) in its
``COMMANDS``; the provider reads the screen's bindings, runs their actions by name, and jumps
with a :class:`~memtui.tui.messages.SelectPath` message (it never imports the main screen)."""

from __future__ import annotations

import asyncio
import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

from textual.actions import parse
from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.markup import escape
from textual.screen import Screen
from textual.style import Style

from memtui.core.contents import ScanResult, Store
from memtui.core.stores.locations import Context
from memtui.tui.keymap import key_display, meaning, own_bindings
from memtui.tui.messages import SelectPath
from memtui.tui.plain import line

MAX_HITS = 60
"""Candidates passed to the (slow, exhaustive) fuzzy scorer per query."""
YIELD_EVERY = 2_000
"""Candidates checked between two pauses that let the UI breathe."""


@dataclass(frozen=True)
class Candidate:
    """One thing the palette can do; ``rank`` orders actions, then stores, then memories."""

    text: str
    lowered: str
    command: Callable[[], object]
    help: str
    rank: int

    @property
    def help_markup(self) -> str:
        """The help line escaped: the palette parses it as markup, descriptions are not."""
        return escape(self.help)


@runtime_checkable
class PaletteScreen(Protocol):
    """What the palette needs of the screen it was opened from."""

    context: Context
    result: ScanResult | None


def action_candidates(screen: Screen[Any]) -> list[Candidate]:
    """A command for each binding memtui declares on ``screen`` (its meaning, its key), but
    those the screen offers not at all now (``check_action`` False: the footer hides them)."""
    out: list[Candidate] = []
    for binding in own_bindings(screen):
        namespace, name, params = parse(binding.action)
        if not namespace and screen.check_action(name, params) is False:
            continue
        text = meaning(binding)
        keys = key_display(screen, binding)
        out.append(Candidate(text, text.lower(), partial(screen.run_action, binding.action),
                             f"key {keys}", 0))
    return out


def post_select(screen: Screen[Any], store: Store, rel_path: str | None) -> None:
    screen.post_message(SelectPath(store, rel_path))


def jump_candidates(screen: Screen[Any], context: Context, result: ScanResult) -> list[Candidate]:
    """``agent reviewer (user)`` for each store, ``auto: deploy-freeze.md`` for each memory
    (names, paths and descriptions with their control characters escaped)."""
    out: list[Candidate] = []
    for store in result.stores:
        where = line(context.show(store.path))
        title = line(store.title)
        out.append(
            Candidate(title, title.lower(), partial(post_select, screen, store, None), where, 1)
        )
        for memory in store.memories:
            text = f"{title}: {line(memory.rel_path)}"
            out.append(
                Candidate(
                    text,
                    text.lower(),
                    partial(post_select, screen, store, memory.rel_path),
                    line(memory.description) if memory.description else where,
                    2,
                )
            )
    return out


def subsequence_pattern(query: str) -> re.Pattern[str]:
    """Matches text holding the query's characters in order (what the fuzzy matcher needs).

    ``a[^b]*+b[^c]*+c``: each gap is possessive, so a long query never backtracks.
    """
    chars = [re.escape(ch) for ch in query.lower()]
    gaps = "".join(f"[^{ch}]*+{ch}" for ch in chars[1:])
    return re.compile(chars[0] + gaps if chars else "")


def prefilter_key(candidate: Candidate, query: str) -> tuple[int, int, int]:
    """Cheap ordering before fuzzy scoring: substring hits, then actions/stores, then short."""
    return (0 if query in candidate.lowered else 1, candidate.rank, len(candidate.text))


def highlight(matcher: Matcher, text: str) -> Content:
    """``text`` with the fuzzy match styled (no markup parsing of file names)."""
    content = Content(text)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    for offset in offsets:
        content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class ScreenCommands(Provider):
    """Every action of the screen the palette was opened from."""

    def __init__(self, screen: Screen[Any], match_style: Style | None = None) -> None:
        super().__init__(screen, match_style)
        self.candidates: list[Candidate] = []

    async def startup(self) -> None:
        self.candidates = action_candidates(self.screen)

    async def discover(self) -> Hits:
        for candidate in self.candidates:
            if candidate.rank == 0:
                yield DiscoveryHit(candidate.text, candidate.command, help=candidate.help_markup)

    async def search(self, query: str) -> Hits:
        query = query.strip()
        if not query:
            return
        pattern = subsequence_pattern(query)
        lowered = query.lower()
        found: list[Candidate] = []
        for number, candidate in enumerate(self.candidates, 1):
            if pattern.search(candidate.lowered):
                found.append(candidate)
            if number % YIELD_EVERY == 0:
                await asyncio.sleep(0)
        best = heapq.nsmallest(MAX_HITS, found, key=lambda c: prefilter_key(c, lowered))
        matcher = self.matcher(query)
        for candidate in best:
            score = matcher.match(candidate.text)
            if score > 0:
                yield Hit(
                    score,
                    highlight(matcher, candidate.text),
                    candidate.command,
                    text=candidate.text,
                    help=candidate.help_markup,
                )


class MemoryCommands(ScreenCommands):
    """The main screen's actions, and its memories and stores to jump to."""

    async def startup(self) -> None:
        await super().startup()
        screen = self.screen
        if isinstance(screen, PaletteScreen) and screen.result is not None:
            self.candidates += jump_candidates(self.screen, screen.context, screen.result)
