"""The conflicts screen: candidate pairs of memories (and CLAUDE.md rules), each with its
verdict, the two sides next to each other and a word diff; one key per decision.

A job runs the judge (docs/claude-code-rules.md#relations-between-memories): the items are read,
paired and judged with the configured provider. A provider that sends text (anthropic) first
shows its estimate (pairs, tokens, cost, secrets redacted) and sends only after ``y``. Decisions
that change no file (related, compatible, not a conflict) are recorded in the ledger; the pair
is then not raised again until one side changes. Keeping one side (``a``, ``b``) archives the
other through the write path: previewed, journaled, ``u`` undoes it. After a decision that
changed files (and a restore from the archive), the files are read again in a job: every other
pair of a changed memory shows its new text, is stale, and later decisions plan against it.

Groups (:mod:`memtui.core.judge.groups`): the pairs needing a decision about one fact are one
row, ``▸ group``, with the members' names folded (``enter`` shows its pairs under it). One
decision settles a group: ``K`` keeps the member picked and archives the rest, ``e`` merges
all into one, ``s`` writes a note into each, ``n`` / ``r`` / ``c`` mark it not a conflict,
related, compatible; each one previewed, journaled operation (:mod:`memtui.core.judge.
group_resolve`), which one ``u`` undoes."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.scalar import Scalar, Unit
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static, Tab, Tabs
from textual.widgets.option_list import Option
from textual.worker import Worker, get_current_worker

from memtui.core.config import Config, JudgeConfig
from memtui.core.contents import ScanResult
from memtui.core.judge.archive import Archive
from memtui.core.judge.group_resolve import (
    GroupPlan,
    default_keep,
    finish_group,
    memories_of,
    plan_group_dismiss,
    plan_group_keep,
    plan_group_merge,
    plan_group_scoped,
    propose_group_merge,
    propose_group_notes,
    settle_pairs,
)
from memtui.core.judge.groups import Group, group_pairs, needs_decision
from memtui.core.judge.items import CLAUDE_MD
from memtui.core.judge.ledger import Ledger, default_ledger_path
from memtui.core.judge.merge import (
    finish_merge,
    kept_side,
    merge_sources,
    plan_merge,
    propose_merge,
)
from memtui.core.judge.providers import ProviderError
from memtui.core.judge.refresh import changed_files, reread
from memtui.core.judge.resolve import finish_keep, plan_keep
from memtui.core.judge.run import JudgeRun, pairs_to_judge
from memtui.core.judge.scoped import finish_scoped, plan_scoped, propose_notes
from memtui.core.judge.session import JudgeSession, load_provider
from memtui.core.judge.verdicts import (
    Candidate,
    JudgedPair,
    JudgeItem,
    Relation,
)
from memtui.core.scan.scanner import cache_for, scan
from memtui.core.secrets.redact import masked_text
from memtui.core.stores.locations import Context
from memtui.core.write.journal import journal_for
from memtui.core.write.proposal import AppliedOp
from memtui.tui.decisions import archive_flow, confirm_and_apply
from memtui.tui.dialogs.base import HELP_KEY_ID
from memtui.tui.dialogs.confirm import ConfirmScreen
from memtui.tui.dialogs.decisions import KeepDialog, MergeDialog, ScopedDialog
from memtui.tui.dialogs.help import HelpRow, show_help
from memtui.tui.operations import undo_latest_flow
from memtui.tui.palette import ScreenCommands
from memtui.tui.plain import line
from memtui.tui.steady import show
from memtui.tui.widgets.footer import KeyFooter
from memtui.tui.widgets.pair_views import (
    PENDING,
    group_label,
    group_pair_label,
    group_text,
    in_store,
    pair_label,
    side_text,
    store_kinds,
    verdict_text,
    wanted,
    word_diff,
)
from memtui.tui.widgets.row_list import RowList
from memtui.tui.work import ReportsWork, ask, check, in_thread, is_cancelled, progress

SHOW_EVERY = 0.1
"""Seconds at least between two showings of the list while verdicts come in."""
STREAM_BATCH = 16
"""Pairs the local judge gives at a time (a few tens of milliseconds): the rows on screen
first (:attr:`ConflictsScreen.on_screen`), asked again before each batch."""
DECISIONS = frozenset({"keep", "keep_one", "decide", "scoped", "merge", "undo", "archive",
                       "rejudge"})
"""The actions that wait while the list shows the pairs found before (the pairing runs)."""
ROW_DECISIONS = frozenset({"keep", "keep_one", "decide", "scoped", "merge"})
"""The decisions on the highlighted row: they wait while a pair of it is being judged."""
STEP_EVERY = 0.1
"""Seconds at least between two showings of what the pairing is doing (a new step at once)."""
FIRST_ROWS = 100
"""At most this many rows are put into the list at once when it is shown (past the
highlighted one), and no more than the terminal has lines (a row takes two: the list shows
half as many); the rest follow :data:`FILL_ROWS` at a time after each redraw
(:meth:`ConflictsScreen.fill_more`). Laying out a row costs about 1 ms: the first frame
waits for these alone."""
FILL_ROWS = 50
"""Rows added after each redraw: keys are handled between the chunks."""
SIDE_FIRST_CHARS = 2_000
"""Characters of each side's body shown at once (a pane shows a few hundred); a longer one is
shown whole after the next redraw, if its pair is still shown: laying out a 15,000-character
side took a tenth of a second, on the first frame and on every move onto it."""


def sides_key(pair: JudgedPair | None) -> tuple[object, ...] | None:
    """What the side panes show of ``pair``: its sides (by identity: a reread makes new
    ones) and the side proposed to keep."""
    if pair is None:
        return None
    verdict = pair.verdict or pair.previous
    return (id(pair), id(pair.candidate), verdict.winner if verdict is not None else None)


def side_key(item: JudgeItem) -> tuple[object, ...]:
    return (item.key, item.kind, item.agent, item.scope, item.rel_path, item.line)


def option_key(pair: JudgedPair) -> tuple[object, ...]:
    """What a pair's row shows (:func:`pair_label`): equal keys, equal labels."""
    verdict = pair.verdict or pair.previous
    shown = (verdict.relation, round(verdict.confidence, 2)) if verdict is not None else None
    c = pair.candidate
    return (c.id, shown, pair.state, side_key(c.a), side_key(c.b))


class VerdictsIn(Message):
    """:meth:`ConflictsScreen.judge_stream`: ``done`` of ``total`` pairs judged (``last``: all
    of them, or as many as the run judged); ``pairs``: those judged since the one before."""

    def __init__(self, session: JudgeSession, done: int, total: int, last: bool = False,
                 pairs: list[JudgedPair] | None = None) -> None:
        super().__init__()
        self.session = session
        self.done = done
        self.total = total
        self.last = last
        self.pairs = pairs or []


class Pairing(Message):
    """:meth:`ConflictsScreen.find`: what reading and pairing the memories is doing."""

    def __init__(self, step: str, done: int, total: int) -> None:
        super().__init__()
        self.step = step
        self.done = done
        self.total = total

FILTERS: tuple[str, ...] = ("open", "stale", "judged", "all")
FILTER_LABELS = {
    "open": "needs a decision",
    "stale": "stale",
    "judged": "judged",
    "all": "every candidate",
}
RECORD_DECISIONS: dict[str, Relation] = {
    "related": Relation.RELATED,
    "compatible": Relation.COMPATIBLE,
    "not_conflict": Relation.NOT_CONFLICT,
}
COMPACT_WIDTH = 100
MESSAGE_ROWS = 3
"""The most rows ``#conf-message`` takes (a longer message is cut: the notes of a run)."""
"""Under this width the footer is compact (as on the main screen)."""
Row = JudgedPair | Group
"""A row of the list: a pair, or a group of three or more members (its pairs under it when
it is expanded)."""


class ConflictsScreen(ReportsWork, Screen[None]):
    """Judge conflicts across every store and CLAUDE.md; decide pair by pair."""

    CSS_PATH = "conflicts.tcss"

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ScreenCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="conflicts.back",
                tooltip="Back to the main screen (a running judge is stopped)"),
        Binding("left", "move(-1)", "Prev pair", show=False, id="conflicts.prev",
                tooltip="The pair above in the list"),
        Binding("right", "move(1)", "Next pair", show=False, id="conflicts.next",
                tooltip="The pair below in the list"),
        Binding("f", "filter", "Filter", id="conflicts.filter",
                tooltip="Show the next filter: needs a decision, stale, judged, every candidate"),
        Binding("k", "store_filter", "Store", show=False, id="conflicts.store",
                tooltip="Show only the pairs with a side in the next kind of store (agent, "
                "auto, CLAUDE.md, team…), then every store again"),
        Binding("K", "keep_one", "Keep one", id="conflicts.keep_one",
                tooltip="A group: keep the member you pick, archive every other one (one "
                "operation; previewed, undoable)"),
        Binding("a", "keep('a')", "Keep A", id="conflicts.keep_a",
                tooltip="Keep A: archive B (its file and MEMORY.md lines; previewed, undoable)"),
        Binding("b", "keep('b')", "Keep B", id="conflicts.keep_b",
                tooltip="Keep B: archive A (its file and MEMORY.md lines; previewed, undoable)"),
        Binding("s", "scoped", "Scoped", id="conflicts.scoped",
                tooltip="Keep both as scoped: an \"applies when …\" note on each memory, "
                "which you edit (previewed, undoable)"),
        Binding("e", "merge", "Merge", id="conflicts.merge",
                tooltip="Merge: edit the proposed merged memory; it replaces the newer side "
                "and the other is archived (previewed, undoable)"),
        Binding("r", "decide('related')", "Related", id="conflicts.related",
                tooltip="Decide: related (no file changes; not raised again until one changes)"),
        Binding("c", "decide('compatible')", "Compatible", id="conflicts.compatible",
                tooltip="Decide: compatible (no file changes; not raised again until one "
                "changes)"),
        Binding("n", "decide('not_conflict')", "Not a conflict", id="conflicts.not_conflict",
                tooltip="Decide: not a conflict (no file changes; not raised again until one "
                "changes)"),
        Binding("u", "undo", "Undo", show=False, id="conflicts.undo",
                tooltip="Undo the latest operation (a group's decision as a whole), then judge "
                "again"),
        Binding("v", "archive", "Archive", id="conflicts.archive",
                tooltip="The archive: memories that decisions took out of their stores; "
                "restore one (previewed, undoable)"),
        Binding("ctrl+r", "rejudge", "Judge again", id="conflicts.rejudge",
                tooltip="Judge every undecided pair again (a provider that sends text asks "
                "first)"),
        Binding("question_mark", "help", "Help", id=HELP_KEY_ID,
                tooltip="Help: every key of this screen (? or esc closes it)"),
    ]
    FOOTER_EITHER: ClassVar[tuple[tuple[tuple[str, ...], ...], ...]] = (
        (("keep('a')", "keep('b')"), ("keep_one",)),
    )
    """The footer shows a pair's keep keys or a group's, never both (:meth:`check_action`):
    its width is that of the wider (:meth:`~memtui.tui.widgets.footer.KeyFooter.
    natural_width`)."""
    HELP_EXTRA = (
        HelpRow("↑ ↓", "Move in the list of pairs and groups"),
        HelpRow("⏎", "A group: show or hide its pairs"),
        HelpRow("tab", "Next widget: the pairs, side A, side B, the word diff"),
    )

    def __init__(self, result: ScanResult, context: Context, settings: Config,
                 ledger: Ledger | None = None) -> None:
        super().__init__()
        self.ledger_read = ledger
        """The ledger the main screen read (used while no other process wrote it since)."""
        self.result = result
        self.context = context
        self.settings = settings
        self.config = settings.judge
        self.journal = journal_for(context, settings)
        self.found: JudgeSession | None = None
        """The judge session: its run, ledger, judge and (to send) estimate."""
        self.filter = "open"
        self.store_filter: str | None = None
        """Only pairs with a side in this kind of store (None: every store)."""
        self.shown: list[JudgedPair] = []
        """The pairs the filters keep (every pair of a group among them)."""
        self.rows: list[Row] = []
        """The list's rows: groups of three or more (with their pairs when expanded) and the
        pairs of no such group."""
        self.expanded: set[str] = set()
        """The groups whose pairs are shown under them (by id)."""
        self.group_keys: dict[str, frozenset[str]] = {}
        """The members' keys of each group shown (by id): a group that grows while verdicts
        come in (a new id) stays open."""
        self.options: dict[tuple[object, ...], Option] = {}
        """The list's options by what their label shows (:func:`option_key`): a row unchanged
        since the list was last shown keeps its Option, whose drawn lines the OptionList keeps
        (6,700 new options took 5 s to lay out; the same ones again 0.2 s)."""
        self.changed: set[str] = set()
        """Files a decision changed that the pairs do not show yet (:meth:`reread`)."""
        self.judging: tuple[int, int] | None = None
        """While :meth:`judge_stream` runs: pairs judged so far, of how many."""
        self.showing = False
        """A :class:`VerdictsIn` is on its way or its list is being filled: the worker posts
        no other until the list is whole (:meth:`filled`)."""
        self.show_cost = 0.0
        """Seconds the latest list of :meth:`verdicts_in` took, until it was whole."""
        self.show_started: float | None = None
        """When :meth:`verdicts_in` began showing the list (None: no such showing pending)."""
        self.grouped: tuple[tuple[object, ...], list[Group]] | None = None
        """:meth:`groups`' last answer, with what it was made of."""
        self.preview_run: JudgeRun | None = None
        """Until the first pairing is done: the pairs found before whose sides did not change
        (:meth:`show_preview`)."""
        self.judge_name = self.config.provider
        self.pending: list[Callable[[], Option]] = []
        """How to make the option of each of :attr:`rows`; the list holds a prefix of them
        while :meth:`fill_more` adds the rest."""
        self.fill_round = 0
        self.fill_chain = 0
        """Which chain of :meth:`fill_more` calls is the live one (:meth:`on_screen_resume`
        starts another)."""
        self.sides_shown: JudgedPair | None = None
        """The pair whose sides the panes show (:meth:`show_whole_sides`)."""
        self.queued: set[str] = set()
        """The pairs (by id) the running judge has still to give a verdict that the list
        shows: their rows say :data:`~memtui.tui.widgets.pair_views.PENDING`, the list of
        pairs needing a decision holds them, and no decision is taken on them."""
        self.on_screen: tuple[str, ...] = ()
        """The pairs of the rows on screen, the highlighted one first: the judge takes those
        not judged yet first (read by its thread, set on the UI's)."""
        self.row_at: dict[str, int] = {}
        """Each pair row's index in :attr:`rows` (a pair outside any group shown)."""
        self.row_keys: list[tuple[object, ...]] = []
        """The key of each row's option in :attr:`options` (:meth:`make_rows`)."""
        self.pairing: str | None = None
        """What the pairing is doing, while :meth:`find` reads and pairs the memories."""

    def compose(self) -> ComposeResult:
        yield Static(Text(" conflicts ", style="bold reverse"), id="conf-head")
        yield Tabs(*[Tab(FILTER_LABELS[f], id=f"filter-{f}") for f in FILTERS],
                   active="filter-open", id="conf-filters")
        yield Static("", id="conf-message")
        with Horizontal(id="conf-body"):
            yield RowList(id="conf-pairs")
            with Vertical(id="conf-detail"):
                yield Static("", id="conf-verdict")
                with Horizontal(id="conf-sides"):
                    with VerticalScroll(id="conf-a-scroll"):
                        yield Static("", id="conf-a")
                    with VerticalScroll(id="conf-b-scroll"):
                        yield Static("", id="conf-b")
                with VerticalScroll(id="conf-diff-scroll"):
                    yield Static("", id="conf-diff")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#conf-a-scroll").border_title = "A"
        self.query_one("#conf-b-scroll").border_title = "B"
        self.query_one("#conf-diff-scroll").border_title = "word diff A → B"
        pairs = self.query_one("#conf-pairs", OptionList)
        pairs.focus()
        self.watch(pairs, "scroll_y", lambda _y: self.scrolled(), init=False)
        self.apply_size()
        self.find()

    def on_resize(self) -> None:
        self.apply_size()
        self.fit_message()

    def on_screen_resume(self) -> None:
        """Back from a dialog: the next chunk of the list (and the sides whole) asked for after
        a redraw may have gone with it. Textual hands a ``call_after_refresh`` callback to
        whichever screen is current when it is handled: a dialog pushed meanwhile takes it,
        and dropped it when it closed before its own redraw (the list then stayed part-filled
        until the next verdicts). A new chain of fills starts; the old one, if it lives, stops
        at its next step."""
        if not self.is_attached:
            return
        if self.filling:
            self.fill_chain += 1
            self.call_after_refresh(self.fill_more, self.fill_round, self.fill_chain)
        if self.sides_shown is not None:
            self.call_after_refresh(self.show_whole_sides, self.sides_shown)

    def apply_size(self) -> None:
        """A small terminal gets the compact footer (``?`` and ``q`` first, no ``^p``)."""
        footer = self.query_one(KeyFooter)
        footer.fit(self.size.width, COMPACT_WIDTH)  # ? (its help names ^p) and q always fit

    # the workers ---------------------------------------------------------------------------

    def say(self, message: str, style: str = "") -> None:
        widget = self.query_one("#conf-message", Static)
        if show(widget, Text(line(message), style=style)):
            self.fit_message(widget)

    def fit_message(self, widget: Static | None = None) -> None:
        """``#conf-message`` has a fixed height (conflicts.tcss): a new message ("judging n of
        m", after each batch of verdicts) is drawn without laying the whole screen out again.
        Its height is the rows its text wraps to (1 to :data:`MESSAGE_ROWS`, as ``auto`` made
        it), set anew only when that changes (then the screen is laid out)."""
        widget = widget or self.query_one("#conf-message", Static)
        width = (widget.size.width or self.size.width) - widget.styles.gutter.width
        if width <= 0:
            return  # not laid out yet: on_resize fits it
        widget.clear_cached_dimensions()  # Static.update keeps the last text's
        wraps = widget.get_content_height(self.size, self.size, width)
        rows = max(1, min(MESSAGE_ROWS, wraps))
        if widget.styles.height != Scalar(rows, Unit.CELLS, Unit.HEIGHT):
            widget.styles.height = rows

    @work(exclusive=True, group="judge", exit_on_error=False, name="judge", description="Judge")
    async def find(self, rejudge: bool = False) -> None:
        """Read and pair in a thread and show the pairs the ledger knows at once; then judge
        the others in :meth:`judge_stream` (their rows appear as their verdicts come in). A
        provider that sends text shows its estimate and sends only on yes (and never over
        ``judge.spend_cap_usd``)."""
        self.workers.cancel_group(self, "judge-stream")  # a run before this one: stopped
        try:
            judge = load_provider(self.context, self.settings)
        except ProviderError as err:
            self.say(f"{err}; using the local judge", "bold yellow")
            judge = load_provider(self.context, JudgeConfig(), "local")
        result, context, settings = self.result, self.context, self.settings
        self.queued = set()  # a run before this one: stopped
        self.pairing = "reading the memories"
        self.say(f"reading and pairing memories ({judge.name} judge) …", "dim")
        said: dict[str, float] = {}  # each step: when it was last said

        def step(name: str, done: int, total: int) -> None:
            progress(f"judge: {name}", done, total)
            now = time.monotonic()
            if name not in said or now - said[name] >= STEP_EVERY or done == total:
                said[name] = now
                self.post_message(Pairing(name, done, total))

        first = self.found is None
        self.judge_name = judge.name

        def preview(run: JudgeRun) -> None:  # a worker thread's: shown on the UI's
            if first:
                self.app.call_from_thread(self.show_preview, run)

        known, self.ledger_read = self.ledger_read, None  # the first run's only

        def start() -> JudgeSession:
            ledger = known if known is not None and known.unchanged_on_disk() else None
            session = JudgeSession.start(context, settings, provider=judge, result=result,
                                         rejudge=rejudge, progress=step, cancelled=is_cancelled,
                                         preview=preview, ledger=ledger)
            check()
            return session

        session = await in_thread(start)
        self.found, self.preview_run, self.pairing = session, None, None
        self.judging, self.queued = None, set()  # the preview's, if any: the session's now
        if not session.asks_first:
            if session.todo:
                self.judging = (0, len(session.todo))
                self.queued = {p.candidate.id for p in session.todo}
            self.show_pairs()  # the rows on screen known before the judge starts on them
            if session.todo:
                self.judge_stream(session)
            return
        if await self.confirm_sending(session):
            self.say(f"sending {len(session.todo)} pairs …", "dim")
            await in_thread(lambda: session.send(step, is_cancelled))
            session.estimate = None
            self.show_pairs()

    @work(thread=True, exclusive=True, group="judge-stream", exit_on_error=False,
          name="judging", description="Judge")
    def judge_stream(self, session: JudgeSession) -> None:
        """Judge ``session.todo`` a batch at a time (:meth:`JudgeSession.stream`, likeliest
        first); the list is shown again at most every :data:`SHOW_EVERY` seconds (longer when
        showing it takes longer: at most a third of the time goes to it) and once at the end.
        Leaving the screen (or a newer run) cancels it; the verdicts in are kept."""
        worker = get_current_worker()
        total = len(session.todo)

        def step(name: str, done: int, all_: int) -> None:
            progress(f"judge: {name}", done, all_)

        done, last = 0, time.monotonic()
        fresh: list[JudgedPair] = []
        for batch in session.stream(step, lambda: worker.is_cancelled, batch=STREAM_BATCH,
                                    first=lambda: self.on_screen):
            done += len(batch)
            fresh += batch
            now = time.monotonic()
            if worker.is_cancelled:
                break
            if not self.showing and now - last >= max(SHOW_EVERY, 2 * self.show_cost):
                self.showing, last = True, now
                self.post_message(VerdictsIn(session, done, total, pairs=fresh))
                fresh = []
        if not worker.is_cancelled:
            self.post_message(VerdictsIn(session, done, total, last=True, pairs=fresh))

    @on(VerdictsIn)
    def verdicts_in(self, event: VerdictsIn) -> None:
        """A batch of verdicts is in: the list again (the cursor stays on its row). The
        worker posts the next one once this list is whole (:meth:`filled`), and no sooner than
        twice the time it took: at most a third of the time goes to showing."""
        if event.session is not self.found:  # a run replaced since
            self.showing = False
            return
        self.judging = None if event.last else (event.done, event.total)
        self.show_started = time.monotonic()
        if event.last:  # every verdict in: the list grouped and filtered again, once
            self.queued = set()
            self.show_pairs()
            return
        self.queued -= {p.candidate.id for p in event.pairs}
        self.relabel(self.drop_rows(event.pairs))
        self.filled()

    def drop_rows(self, pairs: list[JudgedPair]) -> list[JudgedPair]:
        """Of ``pairs``, verdicts in, those with a row of their own that the filters no longer
        list (in "needs a decision": not a conflict, compatible, related) leave the list at
        once (:meth:`remove_rows`); the others, returned, are relabelled where they are."""
        gone: list[int] = []
        kept: list[JudgedPair] = []
        for pair in pairs:
            at = self.row_at.get(pair.candidate.id)
            if (at is not None and at < len(self.rows) and self.rows[at] is pair
                    and not (self.listed(pair) and in_store(pair, self.store_filter))):
                gone.append(at)
            else:
                kept.append(pair)
        if gone:
            self.remove_rows(gone)
        return kept

    def remove_rows(self, indexes: list[int]) -> None:
        """Take the rows at ``indexes`` (pairs of no group) out of the list where they are,
        the others staying as they are (not laid out again). The cursor stays on its row;
        when its row left, it goes to the next row still listed (else the one before)."""
        drop = set(indexes)
        rows = self.query_one("#conf-pairs", RowList)
        at = rows.highlighted
        target: int | None = None
        if at is not None and 0 <= at < len(self.rows):
            target = next((n for n in range(at, len(self.rows)) if n not in drop),
                          next((n for n in range(at, -1, -1) if n not in drop), None))
        dropped = {row_id(self.rows[n]) for n in drop}
        for n in sorted(drop, reverse=True):  # the list stays a prefix of the rows at each
            self.options.pop(self.row_keys[n], None)  # step (a removal scrolls: the rows
            del self.rows[n], self.row_keys[n], self.pending[n]  # near are filled in)
            if n < rows.option_count:
                rows.remove_option_at_index(n)
        own = set(self.row_at) - dropped  # pairs of no group shown
        self.row_at = {r.candidate.id: n for n, r in enumerate(self.rows)
                       if isinstance(r, JudgedPair) and r.candidate.id in own}
        self.shown = [p for p in self.shown if p.candidate.id not in dropped]
        if target is None or not self.rows:
            self.show_pair(None)
            self.refresh_bindings()
            return
        new = target - sum(1 for n in drop if n < target)
        self.fill_to(new + 1)
        rows.highlighted = new
        self.show_row(self.rows[new])
        self.refresh_bindings()
        self.note_on_screen()

    def relabel(self, pairs: list[JudgedPair]) -> None:
        """The rows of ``pairs``, verdicts in, relabelled where they are (the list is not laid
        out again: thousands of rows took most of the time judging took); the pane of the
        highlighted one, if it is among them. Pairs that need no decision have left the list
        already (:meth:`drop_rows`)."""
        labels: list[tuple[int, Text]] = []
        current = self.current_row()
        rows = self.query_one("#conf-pairs", RowList)
        for pair in pairs:
            at = self.row_at.get(pair.candidate.id)
            if at is None or at >= len(self.rows) or self.rows[at] is not pair:
                continue  # not a row of its own (in a group, filtered out, a reread since)
            key = ("pair", *option_key(pair), False)
            self.options.pop(self.row_keys[at], None)  # its label said judging
            self.row_keys[at] = key
            label = partial(pair_label, pair)
            if at < rows.option_count:  # in the list: relabelled where it is
                labels.append((at, label()))
                self.options[key] = rows.get_option_at_index(at)
            else:  # made with its verdict when the list gets to it
                self.pending[at] = self.row_option(key, pair.candidate.id, label)
        rows.relabel(labels)
        self.show_head()
        ids = {p.candidate.id for p in pairs}
        if any(p is current for p in pairs) or (isinstance(current, Group) and any(
                p.candidate.id in ids for p in current.pairs)):
            self.show_row(current)  # its verdict in, or one of the group's
            self.refresh_bindings()

    def row_option(self, key: tuple[object, ...], row_key: str,
                   label: Callable[[], Text]) -> Callable[[], Option]:
        """How to make the option of a row: the one made for ``key`` already, else a new
        one (made when the list gets to it)."""

        def make() -> Option:
            made = self.options.get(key) or Option(label(), id=row_key)
            self.options[key] = made
            return made

        return make

    @on(Pairing)
    def pairing_step(self, event: Pairing) -> None:
        """What reading and pairing the memories is doing, in the message line (until the
        pairs are in)."""
        if self.pairing is None:  # the pairs are in
            return
        what = event.step
        if event.total > 1:
            what += f": {event.done:,} of {event.total:,}"
        self.pairing = what
        if self.found is not None:  # judged again: the list shows the pairs found before
            self.say(f"reading and pairing memories again ({self.judge_name} judge): {what} …",
                     "dim")
        elif self.preview_run is not None:
            self.say_judging()
        else:
            self.say(f"before any pair can be shown, {what} ({self.judge_name} judge) …",
                     "dim")

    def filled(self) -> None:
        """The list holds every row: a showing of :meth:`verdicts_in` is done."""
        if self.show_started is not None:
            self.show_cost = time.monotonic() - self.show_started
            self.show_started = None
        self.showing = False

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        if failure is not None and worker.group == "judge-stream" and self.queued:
            # no verdict comes for the pairs still marked judging: they are shown as they
            # are (not judged), their decisions no longer wait for one
            self.queued, self.judging = set(), None
            self.show_pairs()
        if failure is not None and worker.group in ("judge", "judge-stream"):
            self.say(failure, "bold red")

    async def confirm_sending(self, found: JudgeSession) -> bool:
        """Show the pairs; with an estimate (a provider that sends text), ask before sending
        (refused over the spend cap). True: send."""
        estimate = found.estimate
        self.show_pairs()
        if estimate is None:
            return False
        body_text = Text(line(estimate.describe()))
        body_text.append("\n\nEvery text is redacted first (secrets become "
                         "[REDACTED:rule]). Nothing is sent unless you say yes.", style="dim")
        for note in estimate.notes:
            body_text.append(f"\n• {line(note)}", style="dim")
        if found.held_back:
            body_text.append(f"\n• only the best {len(found.todo)} pairs are sent; "
                             f"{found.held_back} more wait for the next run", style="dim")
        refusal = found.spend_check()
        if refusal is not None:
            self.say(f"{estimate.describe()}: {refusal}", "bold yellow")
            return False
        screen = ConfirmScreen("Send these pairs to Claude?", body_text, yes="Send",
                               danger=False)
        if not await ask(self, screen):
            self.say("nothing was sent: the pairs keep their ledger state", "dim")
            return False
        return True

    # showing ----------------------------------------------------------------------------

    def show_preview(self, run: JudgeRun) -> None:
        """While the memories are paired: the pairs found before whose memories did not
        change, or (cold) those found without the model, which its neighbours join when they
        are found (the list grows; the highlighted row stays). No decision until then."""
        if self.found is None and self.is_attached:
            self.preview_run = run
            # those without a current verdict (all, cold) are listed marked judging: the
            # judge starts on them, those on screen first, once the pairing is done
            self.queued = {p.candidate.id for p in pairs_to_judge(run.pairs)}
            self.show_pairs()

    def show_pairs(self) -> None:
        found = self.found
        run = found.run if found is not None else self.preview_run
        if run is None:
            return
        was = self.current()  # stays highlighted while shown, else the row where it was
        self.shown = [p for p in run.pairs
                      if self.listed(p) and in_store(p, self.store_filter)]
        self.show_head()
        notes = found.notes if found is not None else run.notes
        if found is None or self.judging is not None:
            self.say_judging()
        elif not self.shown:
            where = "" if self.store_filter is None else f" in {line(self.store_filter)}"
            self.say(f"no pair {FILTER_LABELS[self.filter]}{where}" +
                     ("" if self.filter != "open" else ": f shows the other pairs"), "green")
        elif notes:
            self.say("; ".join(notes), "yellow")
        else:
            self.say("")
        pairs = self.query_one("#conf-pairs", OptionList)
        keep = pairs.highlighted
        options = self.make_rows()
        ids = [row_id(r) for r in self.rows]
        if was is not None and row_id(was) in ids:
            keep = ids.index(row_id(was))
        elif was is not None and (now := self.successor(was)) is not None:
            keep = now
        self.fill_round += 1  # a fill of the list before this one stops
        self.pending = options
        pairs.clear_options()
        if self.rows:
            at = min(keep or 0, len(self.rows) - 1)
            self.fill_to(at + self.first_rows())
            pairs.highlighted = at
            self.show_row(self.rows[at])
        else:
            self.show_pair(None)
        self.refresh_bindings()
        self.note_on_screen()
        if len(self.pending) > pairs.option_count:
            self.call_after_refresh(self.fill_more, self.fill_round, self.fill_chain)
        else:
            self.filled()

    def show_head(self) -> None:
        """The head line: the judge, the counts, how far judging is (one line: drawn again,
        the screen not laid out again)."""
        found = self.found
        run = found.run if found is not None else self.preview_run
        if run is None:
            return
        memories = sum(1 for i in run.items if i.kind != CLAUDE_MD)
        head = Text(" conflicts ", style="bold reverse")
        head.append(f"  {self.judge_name} judge · {memories} memories, "
                    f"{len(run.items) - memories} CLAUDE.md rules · {len(run.pairs)} candidates · "
                    f"{len(run.open_pairs())} need a decision", style="bold")
        if self.judging is not None:
            done, total = self.judging
            head.append(f" · judged {done:,} of {total:,}", style="bold yellow")
        if self.store_filter is not None:
            head.append(f" · only {line(self.store_filter)} (k: next store)", style="bold cyan")
        usage = found.usage if found is not None else None
        if usage is not None and usage.requests:
            head.append(f" · sent {usage.requests} requests, ${usage.cost_usd:.4f}", style="dim")
        show(self.query_one("#conf-head", Static), head)

    def listed(self, pair: JudgedPair) -> bool:
        """``pair`` is in the list the filter shows: the list of pairs needing a decision
        also holds those being judged (:attr:`queued`), until their verdict is in."""
        return wanted(pair, self.filter) or (
            self.filter == "open" and pair.state != "decided"
            and pair.candidate.id in self.queued)

    def pending_row(self, row: Row | None) -> bool:
        """A pair of ``row`` is still being judged: its decisions wait."""
        if isinstance(row, Group):
            return any(p.candidate.id in self.queued for p in row.pairs)
        return row is not None and row.candidate.id in self.queued

    def say_judging(self) -> None:
        """The message while the memories are paired, or their pairs judged."""
        if self.found is None:
            doing = f": {self.pairing}" if self.pairing else ""
            early = self.preview_run.early if self.preview_run is not None else None
            meanwhile = ("the pairs of the same content, name or words, marked "
                         f"{PENDING} (those near in meaning join them)" if early == "cheap"
                         else "the pairs found before whose memories did not change")
            self.say(f"pairing memories ({self.judge_name} judge{doing}) … meanwhile "
                     f"{meanwhile}; decisions wait for the pairing", "dim")
        elif self.judging is not None:  # the same words throughout (the count is in the head):
            # the message's height follows its text, a new text lays the screen out again
            self.say(f"judging ({self.judge_name}) · rows marked {PENDING} get their verdict "
                     "as it comes, those on screen first; their decisions wait for it · "
                     "grouped when all are in", "dim")

    def scrolled(self) -> None:
        self.fill_near()
        self.note_on_screen()

    def note_on_screen(self) -> None:
        """:attr:`on_screen`: the pairs of the highlighted row and of the rows the list shows
        (a row takes two lines), for the judge to take first."""
        if not self.is_attached or not self.rows:
            self.on_screen = ()
            return
        pairs = self.query_one("#conf-pairs", OptionList)
        top = max(0, int(pairs.scroll_y) // 2)
        seen = self.rows[top: top + max(1, pairs.size.height // 2 + 1)]
        at = pairs.highlighted
        if at is not None and 0 <= at < len(self.rows):
            seen = [self.rows[at], *seen]
        ids: list[str] = []
        for row in seen:
            if isinstance(row, Group):
                ids += (p.candidate.id for p in row.pairs)
            else:
                ids.append(row.candidate.id)
        self.on_screen = tuple(ids)

    def first_rows(self) -> int:
        """Rows put in at once past the highlighted one (:data:`FIRST_ROWS`)."""
        return max(1, min(FIRST_ROWS, self.app.size.height))

    def fill_to(self, count: int) -> None:
        """The list holds at least ``count`` of :attr:`rows` (all when fewer)."""
        pairs = self.query_one("#conf-pairs", OptionList)
        have = pairs.option_count
        if count > have:
            pairs.add_options([made() for made in self.pending[have:count]])

    def fill_more(self, round_: int, chain: int) -> None:
        """The next :data:`FILL_ROWS` rows into the list, after the screen was drawn: the
        first rows show at once and keys are handled between the chunks (laying out an
        option costs about 1 ms; thousands at once froze the screen for seconds)."""
        if round_ != self.fill_round or chain != self.fill_chain or not self.is_attached:
            return  # the list was shown again since, another chain took over, or gone
        if self.queued and self.query_one("#conf-pairs", OptionList).option_count >= \
                self.rows_near():
            return  # judging: the rest as the list gets near them (:meth:`fill_near`)
        self.fill_to(self.query_one("#conf-pairs", OptionList).option_count + FILL_ROWS)
        if len(self.pending) > self.query_one("#conf-pairs", OptionList).option_count:
            self.call_after_refresh(self.fill_more, round_, chain)
        else:
            self.filled()

    def rows_near(self) -> int:
        """Rows the list holds while pairs are being judged: a few screens past the
        highlighted row and the top one shown. The whole list (9,000 candidates at 1,000
        memories) is laid out once the verdicts are in and it is grouped: laying out rows it
        drops then took a core's seconds from the judge."""
        pairs = self.query_one("#conf-pairs", OptionList)
        return max(int(pairs.scroll_y) // 2, pairs.highlighted or 0) + 3 * self.first_rows()

    def fill_near(self) -> None:
        """While pairs are being judged: the rows near the highlighted one and those shown,
        when the list does not hold them yet (the key or scroll that got there)."""
        if self.queued and self.is_attached:
            self.fill_to(self.rows_near())

    @property
    def filling(self) -> bool:
        """Rows are still being added to the list (:meth:`fill_more`)."""
        return len(self.pending) > self.query_one("#conf-pairs", OptionList).option_count

    def groups(self) -> list[Group]:
        """The groups of :attr:`shown`, grouped again only when a pair, or what it needs,
        changed (opening a group, a filter or a redraw with the same verdicts reuses them:
        grouping 7,000 pairs takes most of a second)."""
        # the pairs by identity (a group holds its pairs, so theirs cannot be reused while
        # it is kept; a verdict that came in changes a pair in place: its group shows it)
        key = tuple((id(p), id(p.candidate), needs_decision(p)) for p in self.shown)
        if self.grouped is None or self.grouped[0] != key:
            self.grouped = (key, group_pairs(self.shown))
        return self.grouped[1]

    def make_rows(self) -> list[Callable[[], Option]]:
        """:attr:`rows` from :attr:`shown`, and how to make their options (each made when
        the list gets to it): the groups of three or more first (the pairs needing a decision
        only), then every other pair in its order."""
        self.rows = []
        self.row_at = {}
        self.row_keys = []
        options: list[Callable[[], Option]] = []
        grouped: set[str] = set()
        known, self.options = self.options, {}

        def make(key: tuple[object, ...], row_id: str, label: Callable[[], Text]) -> Option:
            made = self.options.get(key) or known.get(key) or Option(label(), id=row_id)
            self.options[key] = made
            return made

        def option(key: tuple[object, ...], row_id: str,
                   label: Callable[[], Text]) -> Callable[[], Option]:
            self.row_keys.append(key)
            if key in known:  # kept now: a later show_pairs reuses it even if not added yet
                self.options[key] = known[key]
            return partial(make, key, row_id, label)

        if self.filter == "open":
            for group in self.groups():
                if len(group.members) < 3:
                    continue
                keys = frozenset(m.key for m in group.members)
                if group.id not in self.expanded and any(  # grown since it was opened
                        self.group_keys.get(e, frozenset()) & keys for e in self.expanded):
                    self.expanded.add(group.id)
                self.group_keys[group.id] = keys
                open_ = group.id in self.expanded
                self.rows.append(group)
                options.append(option(
                    ("group", group.id, open_, group.relation, len(group.pairs),
                     *(side_key(m) for m in group.members)),
                    group.id, partial(group_label, group, open_)))
                numbers = {m.key: n for n, m in enumerate(group.members, 1)}
                for pair in group.pairs:
                    grouped.add(pair.candidate.id)
                    if open_:
                        self.rows.append(pair)
                        c = pair.candidate
                        options.append(option(
                            ("in-group", *option_key(pair), numbers.get(c.a.key),
                             numbers.get(c.b.key)),
                            c.id, partial(group_pair_label, pair, numbers)))
        queued = self.queued
        for pair in self.shown:
            if pair.candidate.id not in grouped:
                pending = pair.candidate.id in queued
                self.row_at[pair.candidate.id] = len(self.rows)
                self.rows.append(pair)
                options.append(option(("pair", *option_key(pair), pending), pair.candidate.id,
                                      partial(pair_label, pair, pending)))
        return options

    def successor(self, was: Row) -> int | None:
        """The row that now holds what ``was`` showed, gone from the list (verdicts came in
        meanwhile): a group that grew (it shares a member), the group a pair joined."""
        if isinstance(was, Group):
            keys = {m.key for m in was.members}
            return next((n for n, r in enumerate(self.rows) if isinstance(r, Group)
                         and keys & {m.key for m in r.members}), None)
        pair_id = was.candidate.id
        return next((n for n, r in enumerate(self.rows) if isinstance(r, Group)
                     and any(p.candidate.id == pair_id for p in r.pairs)), None)

    def show_row(self, row: Row | None) -> None:
        if isinstance(row, Group):
            self.show_group(row)
        else:
            self.show_pair(row)

    def show_group(self, group: Group) -> None:
        """A group: its members and pairs in the verdict's place, its best pair's sides."""
        self.show_pair(group.pairs[0], group_text(group, default_keep(group).key))

    def show_pair(self, pair: JudgedPair | None, group: Text | None = None) -> None:
        """``pair``'s verdict (or ``group``, a group's text, in its place) and sides. A pane
        that would show what it shows is left as it is (:func:`~memtui.tui.steady.show`)."""
        verdict_static = self.query_one("#conf-verdict", Static)
        verdict_static.set_class(group is not None, "group")
        if pair is None:
            self.sides_shown = None
            for name in ("#conf-verdict", "#conf-a", "#conf-b", "#conf-diff"):
                show(self.query_one(name, Static), "")
            return
        if group is not None and self.pending_row(self.current_row()):
            group = Text.assemble((f"{PENDING} a pair of this group is being judged again: "
                                   "its decisions wait for the verdict\n", "italic yellow"),
                                  group)
        show(verdict_static, group if group is not None else verdict_text(
            pair, pair.candidate.id in self.queued))
        if sides_key(pair) != sides_key(self.sides_shown):  # the same sides: left as they are
            self.sides_shown = pair                         # (scrolled, whole)
            self.show_sides(pair, SIDE_FIRST_CHARS)
            c = pair.candidate
            if max(len(c.a.body), len(c.b.body)) > SIDE_FIRST_CHARS:
                self.call_after_refresh(self.show_whole_sides, pair)
        show(self.query_one("#conf-diff", Static), word_diff(
            masked_text(pair.candidate.a.text, path=pair.candidate.a.rel_path),
            masked_text(pair.candidate.b.text, path=pair.candidate.b.rel_path),
        ))

    def show_sides(self, pair: JudgedPair, limit: int | None) -> None:
        verdict = pair.verdict or pair.previous
        winner = verdict.winner if verdict is not None else None
        c = pair.candidate
        show(self.query_one("#conf-a", Static), side_text(c.a, winner == "a", limit))
        show(self.query_one("#conf-b", Static), side_text(c.b, winner == "b", limit))

    def show_whole_sides(self, pair: JudgedPair) -> None:
        """After a redraw: the sides of ``pair`` whole, if they are still the sides shown."""
        if self.is_attached and sides_key(self.sides_shown) == sides_key(pair):
            self.show_sides(pair, None)

    @on(OptionList.OptionHighlighted, "#conf-pairs")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.rows):
            self.show_row(self.rows[event.option_index])
            self.refresh_bindings()
            self.fill_near()
            self.note_on_screen()

    @on(OptionList.OptionSelected, "#conf-pairs")
    def selected(self, event: OptionList.OptionSelected) -> None:
        """``enter`` on a group shows (or hides) its pairs under it."""
        if 0 <= event.option_index < len(self.rows):
            row = self.rows[event.option_index]
            if isinstance(row, Group):
                self.expanded ^= {row.id}
                self.show_pairs()

    @on(Tabs.TabActivated, "#conf-filters")
    def filter_tab(self, event: Tabs.TabActivated) -> None:
        name = (event.tab.id or "").removeprefix("filter-")
        if name in FILTERS and name != self.filter:
            self.filter = name
            self.show_pairs()

    # actions ----------------------------------------------------------------------------

    def current_row(self) -> Row | None:
        index = self.query_one("#conf-pairs", OptionList).highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    def current(self) -> JudgedPair | None:
        """The highlighted pair (None: a group, or nothing, is highlighted)."""
        row = self.current_row()
        return row if isinstance(row, JudgedPair) else None

    def current_group(self) -> Group | None:
        row = self.current_row()
        return row if isinstance(row, Group) else None

    def highlight(self, row_key: str) -> bool:
        """Highlight the row of the pair or group ``row_key`` (a pair of a group: the group
        is expanded first); False: no such row."""
        for group in (r for r in self.rows if isinstance(r, Group)):
            if row_key in (p.candidate.id for p in group.pairs) and group.id not in self.expanded:
                self.expanded.add(group.id)
                self.show_pairs()
                break
        ids = [row_id(r) for r in self.rows]
        if row_key not in ids:
            return False
        self.fill_to(ids.index(row_key) + self.first_rows())
        self.query_one("#conf-pairs", OptionList).highlighted = ids.index(row_key)
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        row = self.current_row()
        if self.found is None and action in DECISIONS:  # the earlier pairs, while pairing
            return False
        if action in ROW_DECISIONS and self.pending_row(row):
            return None  # shown, dimmed: the verdict is not in yet
        # the footer shows the keys of the highlighted row: a pair's sides (a, b), a group's
        # member (K); the others' are hidden, not dimmed (None: no row at all)
        if action == "keep":
            return True if isinstance(row, JudgedPair) else None if row is None else False
        if action == "keep_one":
            return isinstance(row, Group)
        if action in ("decide", "scoped", "merge"):
            return True if row is not None else None
        return True

    # a group's decisions --------------------------------------------------------------------

    def action_keep_one(self) -> None:
        if self.waits():
            return
        group = self.current_group()
        if group is not None:
            self.keep_group_flow(group)

    @work(exclusive=True, group="plan-group", exit_on_error=False,
          name="planning the group's decision", description="Cannot keep")
    async def keep_group_flow(self, group: Group) -> None:
        key = await ask(self, KeepDialog(group.members, default_keep(group).key))
        kept = group.member(key) if key is not None else None
        if kept is None:
            return
        result = self.result
        plan = await in_thread(lambda: plan_group_keep(result, group, kept),
                               label="planning the decision", title="Cannot keep")
        count, name = len(plan.archived), line(kept.rel_path)
        await self.apply_group(
            plan, title=f"Keep {name} and archive the {count} other members?", yes="Archive",
            label=f"archive {count} memories",
            message=f"kept {name}, archived {count} memories · u to undo")

    async def merge_group(self, group: Group) -> None:
        result = self.result
        kept, kept_bytes, merged = await in_thread(lambda: propose_group_merge(result, group),
                                                   label="proposing the merge",
                                                   title="Cannot merge")
        others = [m for m in memories_of(group) if m.key != kept.key]
        text = merged.decode("utf-8", errors="replace").replace("\r\n", "\n")
        new = await ask(self, MergeDialog(kept, others[0], text, more=others[1:]))
        if new is None:
            return
        crlf = b"\r\n" in kept_bytes
        data = (new.replace("\n", "\r\n") if crlf else new).encode("utf-8")
        plan = await in_thread(lambda: plan_group_merge(result, group, kept, data),
                               label="planning the merge", title="Cannot merge")
        name = line(kept.rel_path)
        await self.apply_group(
            plan, title=f"Merge {len(plan.archived) + 1} memories into {name}?", yes="Merge",
            label=f"merge into {name}",
            message=f"merged {len(plan.archived)} memories into {name} · u to undo")

    async def scope_group(self, group: Group) -> None:
        proposed = propose_group_notes(group)
        if not proposed:
            self.notify("Every member is a CLAUDE.md rule: memtui does not edit CLAUDE.md "
                        "files.", title="Cannot scope", severity="warning")
            return
        tags = {str(n): m for n, m in enumerate(group.members, 1)}
        given = await ask(self, ScopedDialog(
            tags, {tag: proposed[m.key] for tag, m in tags.items() if m.key in proposed}))
        if given is None:
            return
        notes = {tags[tag].key: text for tag, text in given.items()}
        result = self.result
        plan = await in_thread(lambda: plan_group_scoped(result, group, notes),
                               label="planning the notes", title="Cannot scope")
        await self.apply_group(
            plan, title=f"Keep all {len(plan.notes)} as scoped?", yes="Write the notes",
            label=f"scope {len(plan.notes)} memories", danger=False,
            message="scoped: an \"applies when\" note on each · u to undo")

    async def dismiss_group(self, group: Group, decision: str) -> None:
        ledger = self.ledger()
        plan = await in_thread(lambda: plan_group_dismiss(group, decision, ledger),
                               label="planning the decision", title="Cannot decide")
        said = decision.replace("_", " ")
        await self.apply_group(
            plan, title=f"Mark the group {said}?", yes="Decide", danger=False,
            label=f"mark the group {said}",
            message=f"{said}: the group's {len(group.pairs)} pairs are not raised again "
            "until a member changes · u to undo")

    @work(exclusive=True, group="plan-group", exit_on_error=False,
          name="planning the group's decision", description="Cannot decide the group")
    async def group_flow(self, group: Group, decision: str) -> None:
        if decision == "merge":
            await self.merge_group(group)
        elif decision == "scoped":
            await self.scope_group(group)
        else:
            await self.dismiss_group(group, decision)

    async def apply_group(self, plan: GroupPlan, *, title: str, yes: str, label: str,
                          message: str, danger: bool = True) -> None:
        """Preview ``plan``'s one operation, apply it on yes, record it; the list then shows
        the group settled and the changed memories are read again."""
        diffs = await in_thread(plan.proposal.diff)
        archive, ledger = Archive.default(self.context.env), self.ledger()
        op = await confirm_and_apply(
            self, self.context, self.journal, plan.proposal, diffs, title=title, yes=yes,
            label=label, danger=danger, message=lambda _op: message,
            after=lambda done: finish_group(plan, done, archive, ledger),
        )
        if op is None:
            return
        if self.found is not None:
            self.found.run.pairs = settle_pairs(plan, self.found.run.pairs)
        self.show_pairs()
        if plan.decision not in RECORD_DECISIONS:  # memories changed: read them again
            self.reread(op)

    def action_undo(self) -> None:
        self.undo_then_judge()

    @work(exclusive=True, group="plan-journal", exit_on_error=False, name="undo",
          description="Undo")
    async def undo_then_judge(self) -> None:
        """Undo the latest operation (after its confirmation), rescan and judge again: the
        pairs it settled come back."""
        op = await undo_latest_flow(self, self.journal)
        if op is None:
            return
        context = self.context
        self.result = await in_thread(lambda: scan(context, cache=cache_for(context)),
                                      label="rescanning")
        self.find()

    # a pair's decisions ---------------------------------------------------------------------

    def waits(self) -> bool:
        """The highlighted row is still being judged: said, and no decision is taken (its
        keys are dimmed too: :meth:`check_action`)."""
        row = self.current_row()
        if not self.pending_row(row):
            return False
        done, total = self.judging or (0, len(self.queued))
        if isinstance(row, Group):
            what, wait = "a pair of this group", "Its decisions wait for the verdicts."
        else:
            what, wait = "this pair", "Its decisions wait for its verdict."
        self.notify(f"Still judging {what}: {done:,} of {total:,} done. {wait}",
                    title="Judging", severity="warning")
        return True

    def on_key(self, event: events.Key) -> None:
        """A decision key pressed on a row still being judged: its binding is disabled
        (:meth:`check_action` gives None: dimmed in the footer, and Textual does not run
        it), so the key would do nothing without a word. The key reaches the screen before
        the bindings are looked at (it bubbles up from the focused widget): say why."""
        active = self.active_bindings.get(event.key)
        if active is None or active.enabled:
            return
        name = active.binding.action.partition("(")[0]
        if name in ROW_DECISIONS and self.waits():
            event.stop()
            event.prevent_default()

    def action_keep(self, side: str) -> None:
        """Keep one side: the other is archived (previewed, journaled, undoable)."""
        if self.waits():
            return
        pair, found = self.current(), self.found
        if pair is not None and found is not None:
            self.keep_flow(pair.candidate, side)

    @work(exclusive=True, group="plan-keep", exit_on_error=False,
          name="planning the decision", description="Cannot keep")
    async def keep_flow(self, candidate: Candidate, side: str) -> None:
        result = self.result
        kept = await in_thread(lambda: plan_keep(result, candidate, side),
                               label="planning the decision", title="Cannot keep " + side.upper())
        diffs = await in_thread(kept.proposal.diff)
        archive, ledger = Archive.default(self.context.env), self.ledger()
        name = line(kept.memory.rel_path)
        op = await confirm_and_apply(
            self, self.context, self.journal, kept.proposal, diffs,
            title=f"Keep {kept.keep.upper()} and archive {'B' if kept.keep == 'a' else 'A'}?",
            yes="Archive", label=f"archive {name}",
            message=lambda _op: f"archived {name} (kept {kept.winner.rel_path}) · u to undo",
            after=lambda done: finish_keep(kept, done, archive, ledger),
        )
        self.gone(kept.loser.key, op)

    def ledger(self) -> Ledger:
        return self.found.ledger if self.found is not None else Ledger.load(
            default_ledger_path(self.context.env))

    def gone(self, key: str, op: AppliedOp | None) -> None:
        """A side left its store (archived): its pairs leave the list; the other files the
        decision changed are read again."""
        found = self.found
        if op is None or found is None:
            return
        found.drop(key)
        self.show_pairs()
        self.reread(op)

    def reread(self, op: AppliedOp | None) -> None:
        """After ``op`` changed files: rescan where they live (later plans read the new scan)
        and read its memories again, in a worker; every pair with one of them shows its new
        content and, judged for the old one, is stale (:mod:`memtui.core.judge.refresh`)."""
        if op is None:
            return
        self.changed |= changed_files(op.files)
        self.reread_changed()

    @work(exclusive=True, group="reread", exit_on_error=False,
          name="reading the changed memories", description="Cannot read the changed memories")
    async def reread_changed(self) -> None:
        """One at a time: a newer one cancels this one and reads its files too."""
        paths, result, context = set(self.changed), self.result, self.context
        items = list(self.found.run.items) if self.found is not None else []
        fresh = await in_thread(lambda: reread(context, result, items, paths,
                                               cache_for(context)))
        self.changed -= paths
        self.result = fresh.result
        if self.found is not None:
            self.found.refresh(fresh)
        self.show_pairs()

    def action_scoped(self) -> None:
        """Keep both as scoped: the user edits each side's "applies when" note, then the
        preview; both notes are one operation (a group: a note on each member)."""
        if self.waits():
            return
        group = self.current_group()
        if group is not None:
            self.group_flow(group, "scoped")
            return
        pair = self.current()
        if pair is None:
            return
        proposed = propose_notes(pair.candidate, pair.verdict or pair.previous)
        if not proposed:
            self.notify("Both sides are CLAUDE.md rules: memtui does not edit CLAUDE.md files.",
                        title="Cannot scope", severity="warning")
            return
        self.scoped_flow(pair, proposed)

    @work(exclusive=True, group="plan-scoped", exit_on_error=False,
          name="planning the notes", description="Cannot scope")
    async def scoped_flow(self, pair: JudgedPair, proposed: dict[str, str]) -> None:
        candidate, result = pair.candidate, self.result
        notes = await ask(self, ScopedDialog({"a": candidate.a, "b": candidate.b}, proposed))
        if notes is None:
            return
        scoped = await in_thread(lambda: plan_scoped(result, candidate, notes))
        diffs = await in_thread(scoped.proposal.diff)
        ledger = self.ledger()
        op = await confirm_and_apply(
            self, self.context, self.journal, scoped.proposal, diffs,
            title="Keep both as scoped?", yes="Write the notes", danger=False,
            label="scope " + " and ".join(line(s.memory.rel_path) for s in scoped.sides),
            message=lambda _op: "scoped: an \"applies when\" note on each · u to undo",
            after=lambda _done: finish_scoped(scoped, ledger),
        )
        if op is None:
            return
        if self.found is not None:
            self.found.scoped(pair, scoped)
        self.show_pairs()
        self.reread(op)

    def action_merge(self) -> None:
        """Merge: memtui proposes one memory holding both, the user edits it, then the
        preview: it replaces the newer side, the other is archived, as one operation (a
        group: every memory member into the newest)."""
        if self.waits():
            return
        group = self.current_group()
        if group is not None:
            self.group_flow(group, "merge")
            return
        pair = self.current()
        if pair is not None:
            self.merge_flow(pair.candidate)

    @work(exclusive=True, group="plan-merge", exit_on_error=False,
          name="proposing the merge", description="Cannot merge")
    async def merge_flow(self, candidate: Candidate) -> None:
        result = self.result

        def propose() -> tuple[str, bytes, bytes]:
            keep = kept_side(candidate)
            kept, other = merge_sources(result, candidate, keep)
            return keep, kept, propose_merge(kept, other)

        keep, kept_bytes, merged = await in_thread(propose)
        crlf = b"\r\n" in kept_bytes
        winner, loser = (candidate.a, candidate.b) if keep == "a" else (candidate.b, candidate.a)
        text = merged.decode("utf-8", errors="replace").replace("\r\n", "\n")
        new = await ask(self, MergeDialog(winner, loser, text))
        if new is None:
            return
        data = (new.replace("\n", "\r\n") if crlf else new).encode("utf-8")
        merge = await in_thread(lambda: plan_merge(result, candidate, keep, data),
                                label="planning the merge", title="Cannot merge")
        diffs = await in_thread(merge.proposal.diff)
        archive, ledger = Archive.default(self.context.env), self.ledger()
        name = line(merge.keep.memory.rel_path)
        op = await confirm_and_apply(
            self, self.context, self.journal, merge.proposal, diffs,
            title=f"Merge into {keep.upper()} and archive {'B' if keep == 'a' else 'A'}?",
            yes="Merge", label=f"merge {name}",
            message=lambda _op: f"merged {name} into {merge.keep.winner.rel_path} · u to undo",
            after=lambda done: finish_merge(merge, done, archive, ledger),
        )
        self.gone(merge.keep.loser.key, op)

    def action_archive(self) -> None:
        self.restore_from_archive()

    @work(exclusive=True, group="plan-restore", exit_on_error=False, name="the archive",
          description="Archive")
    async def restore_from_archive(self) -> None:
        self.reread(await archive_flow(self, self.context, self.journal))

    def action_back(self) -> None:
        self.workers.cancel_group(self, "judge")
        self.workers.cancel_group(self, "judge-stream")
        self.dismiss(None)

    def action_help(self) -> None:
        show_help(self, "Keys of the conflicts screen", self.HELP_EXTRA)

    def action_move(self, step: int) -> None:
        pairs = self.query_one("#conf-pairs", OptionList)
        if not self.rows:
            return
        index = max(0, min(len(self.rows) - 1, (pairs.highlighted or 0) + step))
        self.fill_to(index + 1)
        pairs.highlighted = index

    def action_filter(self) -> None:
        following = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self.query_one("#conf-filters", Tabs).active = f"filter-{following}"

    def action_store_filter(self) -> None:
        """The next kind of store (of the pairs the filter shows), then every store again."""
        if self.found is None:
            return
        filtered = [p for p in self.found.run.pairs if wanted(p, self.filter)]
        cycle: list[str | None] = [None, *store_kinds(filtered)]
        at = cycle.index(self.store_filter) if self.store_filter in cycle else 0
        self.store_filter = cycle[(at + 1) % len(cycle)]
        self.show_pairs()

    def action_rejudge(self) -> None:
        if self.writing():
            self.notify("A decision is still being written: judge again once it is done.",
                        title="Judge", severity="warning")
            return
        self.find(rejudge=True)

    def writing(self) -> bool:
        """A decision's operation of this screen is still running (its ``plan-`` worker):
        its ledger entry is written at its end, into this session's ledger, and a session
        started meanwhile would read the ledger file without it and, judging, write it
        back without the decision."""
        return any(w.node is self and w.group.startswith("plan-") and not w.is_finished
                   for w in self.workers)

    def action_decide(self, decision: str) -> None:
        if self.waits():
            return
        group = self.current_group()
        if group is not None:
            self.group_flow(group, decision)
            return
        pair, found = self.current(), self.found
        if pair is None or found is None:
            return
        try:
            found.decide(pair, decision)
        except OSError as err:
            self.notify(line(f"the ledger could not be saved: {err}"), title="Judge",
                        severity="error", markup=False)
            return
        self.notify(line(f"{decision.replace('_', ' ')}: not raised again until one side "
                         "changes"), title="Decided", markup=False)
        self.show_pairs()


def row_id(row: Row) -> str:
    """A row's option id: the group's id or the pair's."""
    return row.id if isinstance(row, Group) else row.candidate.id
