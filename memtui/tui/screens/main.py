"""The main screen: every store kind side by side over a detail pane.

It gets the context and the settings the app loaded; nothing else in ``memtui/tui`` imports
it (the app, which makes it, aside). Dialogs and screens it opens get data and close with a
result; what they change reaches the app as a message, and the app tells every screen the
stores changed (:class:`~memtui.tui.messages.StoresChanged`): this one rescans.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static, Tab, Tabs, Tree
from textual.worker import Worker, WorkerState

from memtui.core.config import Config
from memtui.core.contents import LoadReport, ScanResult, Store
from memtui.core.model import StoreKind
from memtui.core.plaintext import counted
from memtui.core.scan.forked import ForkedScan, ForkedScanFailed
from memtui.core.scan.scanner import cache_for, scan_progressively
from memtui.core.scan.search import SearchHit
from memtui.core.scan.store_index import check_store_links
from memtui.core.stores.locations import Context
from memtui.core.stores.projects import nothing_found
from memtui.core.write.journal import Journal, journal_for
from memtui.tui.dialogs.base import HELP_KEY_ID
from memtui.tui.dialogs.help import HelpRow, show_help
from memtui.tui.dialogs.search import MarkHits, SearchIndexCache, SearchScreen
from memtui.tui.editor import edit_in_editor, editor_name
from memtui.tui.labels import LegendLine, agent_labeler, legend
from memtui.tui.live import LiveUpdates, ScanCompleted
from memtui.tui.marks import MarkedMemories
from memtui.tui.messages import SelectPath, StoresChanged
from memtui.tui.nodes import NodeRef
from memtui.tui.operations import (
    check_interrupted,
    delete_flow,
    delete_memory,
    delete_refusal,
    open_undo_history,
    redact_memory,
    refuse_delete,
    undo_latest,
)
from memtui.tui.palette import MemoryCommands
from memtui.tui.panes import (
    PANES,
    PaneSpec,
    pane_subtitle,
    pane_visible,
    pane_weight,
    spec_for,
    stores_for,
    tab_title,
)
from memtui.tui.plain import line
from memtui.tui.steady import same_text, show
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.footer import KeyFooter
from memtui.tui.widgets.store_tree import StoreTree
from memtui.tui.work import ReportsWork, ask, check, in_thread, progress

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing's checks at run time
if TYPE_CHECKING:
    from memtui.core.judge.ledger import Ledger
    from memtui.tui.dialogs.projects import OpenProject
    from memtui.tui.team import TeamView

# The screens and dialogs a key opens are imported when it is pressed, and what only follows a
# complete scan (the history, the team check, the judge's ledger, the recall manifests) when
# it runs: a large home's first paint waits for the app's imports.

LINKS_JOB = "checking [[links]] in whole files"
LinkUpdates = list[tuple[Store, LoadReport, LoadReport]]
NARROW_WIDTH = 120
LEGEND_HEIGHT = 32
"""A terminal this tall shows the legend line under the trees (``L`` shows or hides it)."""
COMPACT_WIDTH = 100
"""Under this width the footer is compact, ``?`` and ``q`` first, without ``^p`` (the help
names it)."""


def changed_stores(previous: ScanResult | None, result: ScanResult) -> list[Store] | None:
    """The stores of ``result`` that are not ``previous``'s objects (a live refresh replaces
    only what it rescanned); None when there is no previous result."""
    if previous is None:
        return None
    kept = {id(store) for store in previous.stores}
    return [store for store in result.stores if id(store) not in kept]


def pane_inputs(spec: PaneSpec, stores: list[Store], result: ScanResult) -> list[Store]:
    """The stores a pane's tree, title, width and tab are drawn from: its own, and for the
    Agents pane the snapshot stores too (an agent's label carries its snapshot's badge)."""
    if spec.id != "agents":
        return stores
    return [*stores, *(s for s in result.stores if s.snapshot is not None)]


def same_objects(old: list[Store] | None, new: list[Store]) -> bool:
    return old is not None and len(old) == len(new) and all(
        a is b for a, b in zip(old, new, strict=True))


def every_kind(result: ScanResult) -> bool:
    """Whether ``result`` has every kind of store (from their headers, at least)."""
    return result.scanned >= set(StoreKind)


class MainScreen(ReportsWork, Screen[None]):
    CSS_PATH = "main.tcss"
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {MemoryCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "pane(-1)", "Prev pane", show=False, id="pane.prev",
                tooltip="Move to the pane on the left"),
        Binding("right,l", "pane(1)", "Next pane", show=False, id="pane.next",
                tooltip="Move to the pane on the right"),
        Binding("z", "zoom", "Zoom", id="pane.zoom",
                tooltip="Zoom the current pane to full width (size, age, description), or back"),
        Binding("r", "raw", "Raw", show=False, id="detail.raw",
                tooltip="Raw text or rendered Markdown in the detail pane"),
        Binding("ctrl+r", "rescan", "Rescan", show=False, id="app.rescan",
                tooltip="Rescan every store"),
        Binding("e", "edit", "Edit", id="memory.edit",
                tooltip="Edit the selected memory in $VISUAL / $EDITOR, reload it after"),
        Binding("slash", "search", "Search", id="app.search",
                tooltip="Search memories: full text across every store"),
        Binding("p", "projects", "Projects", id="app.projects",
                tooltip="Switch project: every project under the Claude Code home"),
        Binding("s", "snapshot_review", "Snapshot", id="snapshot.review",
                tooltip="Review the selected agent's snapshot: diff, initialize, replace, mark "
                "synced"),
        Binding("c", "jump_cut", "Cut line", show=False, id="detail.cut",
                tooltip="In a MEMORY.md view: jump to the cut line (where Claude stops reading)"),
        Binding("D", "distil", "Distil", id="distil.open",
                tooltip="Distil the selected store's MEMORY.md: rebuilt to fit Claude Code's "
                "load budget with headroom (agentmemory: its tag index), previewed as a diff, "
                "changes toggled, undoable"),
        Binding("J", "judge", "Judge", id="judge.open",
                tooltip="Judge conflicts: duplicate and contradicting memories across every "
                "store and CLAUDE.md; decide pair by pair"),
        Binding("R", "recall", "Recall", show=False, id="recall.open",
                tooltip="Recall preview: what Claude Code's recall would attach for a prompt, "
                "and the manifest it chooses from"),
        Binding("C", "context", "Context", show=False, id="context.open",
                tooltip="What a session loads at its start: the CLAUDE.md chain and the memory "
                "indexes, sized (on an agent's store: that agent's)"),
        Binding("A", "archive", "Archive", show=False, id="judge.archive",
                tooltip="The judge's archive: memories that decisions took out of their "
                "stores; restore one (previewed, undoable)"),
        Binding("space", "toggle_mark", "Mark", show=False, id="memory.mark",
                tooltip="Mark or unmark the selected memory (d deletes every marked one); the "
                "cursor moves on to the next"),
        Binding("escape", "clear_marks", "Clear marks", show=False, id="memory.clear-marks",
                tooltip="Unmark every marked memory"),
        Binding("X", "redact", "Redact", show=False, id="memory.redact",
                tooltip="Redact the selected memory's secrets ([REDACTED:rule], previewed, "
                "undoable; rotate them anyway)"),
        Binding("d", "delete", "Delete", id="memory.delete",
                tooltip="Delete the selected memory, or every marked one, and their MEMORY.md "
                "lines (previewed, one undo)"),
        Binding("u", "undo", "Undo", id="edit.undo",
                tooltip="Undo the latest operation (after a preview)"),
        Binding("U", "undo_history", "History", show=False, id="edit.history",
                tooltip="Undo history: every operation of this Claude Code home"),
        Binding("H", "history", "History", show=False, id="memory.history",
                tooltip="History: every version of the selected memory (else of every store, "
                "and the files recently deleted), its diff, r restores one"),
        Binding("L", "legend", "Legend", show=False, id="pane.legend",
                tooltip="Show or hide the legend line under the trees"),
        Binding("question_mark", "help", "Help", id=HELP_KEY_ID,
                tooltip="Help: every key of this screen and the legend (? or esc closes it)"),
    ]
    HELP_EXTRA = (
        HelpRow("↑ ↓", "Move in a tree (the detail pane shows what the cursor is on)"),
        HelpRow("enter", "Open or fold a store or folder"),
        HelpRow("tab", "Next widget: the trees, then the detail pane"),
        HelpRow("⊘", "After a memory: past the 200 newest of its directory, so Claude Code's "
                "recall is never offered it (R shows the manifest)"),
    )

    def __init__(
        self, context: Context, settings: Config, *, watch: bool = True,
        first_scan: ForkedScan | None = None,
    ) -> None:
        super().__init__()
        self.context = context
        self.first_scan = first_scan
        """The first scan, forked before the app's imports: the first ``run_scan`` shows what
        it sends (None: it scans here)."""
        self.running_fork: ForkedScan | None = None
        """The forked scan ``run_scan`` is reading (ended when the screen goes)."""
        self.settings = settings
        self.result: ScanResult | None = None
        self.zoomed = False
        self.ledger: Ledger | None = None
        """The judge's ledger as the marks were read from it (the conflicts screen reuses it
        while the file is unchanged: reading 9,000 verdicts takes a third of a second)."""
        self.jobs_text = ""
        self.live = LiveUpdates(
            self, lambda: self.context, lambda: self.result, self.show_result, enabled=watch
        )
        self.search_cache = SearchIndexCache()
        self._tab_echoes: set[str | None] = set()
        self._tab_titles: dict[str, Text] = {}
        """The title each pane's tab was last given (given again, it is left as it is: a
        tab relabelled is laid out again and its bar moves its underline)."""
        self.pane_id = PANES[0].id
        self.marks = MarkedMemories()
        self.history_started = False
        """The first complete scan was recorded in the history (later ones are live)."""
        self.completed: ScanResult | None = None
        """The last complete result whose follow-ups were started."""
        self.panes_drawn: dict[str, list[Store]] = {}
        """Each pane's stores as last drawn (``pane_inputs``): a result that brings the same
        objects leaves the pane, its title, width and tab as they are."""
        self.invisible: dict[Path, frozenset[str]] = {}
        """Of each store root recall reads, its memories recall is never offered (paths
        from the root), as the last manifests said."""
        self.legend_shown: bool | None = None
        """``L`` chose to show (True) or hide (False) the legend; None: when there is room."""

    def compose(self) -> ComposeResult:
        yield Static(self.header_text(), id="header")
        yield Tabs(*[Tab(spec.title, id=f"tab-{spec.id}") for spec in PANES], id="pane-tabs")
        yield Static("", id="nothing-found")
        yield Static("scanning …", id="panes-waiting")
        with Horizontal(id="panes", classes="unsized"):
            for spec in PANES:
                with Vertical(id=f"pane-{spec.id}", classes="pane") as pane:
                    pane.border_title = spec.title
                    tree = StoreTree(
                        spec.labeler,
                        single=spec.single,
                        empty_text="scanning …",
                        id=f"tree-{spec.id}",
                        marks=self.marks,
                    )
                    yield tree
        yield LegendLine(id="legend")  # fitted to its width (labels.legend)
        yield Static("", id="pane-info")
        yield DetailPane(id="detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#tree-auto", StoreTree).focus()
        self.apply_size()
        self.watch(self.app, "jobs_text", self.set_jobs)
        self.run_scan()
        check_interrupted(self, self.journal())

    def journal(self) -> Journal:
        """The journal of this screen's Claude Code home, with the settings' limits."""
        return journal_for(self.context, self.settings)

    def on_stores_changed(self, _message: StoresChanged) -> None:
        """memtui changed files (here or on another screen): rescan."""
        self.run_scan()

    def header_text(self, jobs: str = "") -> Text:
        ctx = self.context
        text = Text()
        text.append(" memtui ", style="bold reverse")
        text.append(f" {line(ctx.show(ctx.project))}", style="bold")
        if self.result is not None and self.result.git_branch:
            text.append(f" (git: {line(self.result.git_branch)})", style="dim")
        text.append(f"  · CC home {line(ctx.show(ctx.claude_home))}", style="dim")
        version = self.result.claude_code_version if self.result is not None else None
        if version is not None:  # whose rules memtui follows (docs/claude-code-rules.md)
            text.append(f" · {line(version.short())}", style="dim")
        if ctx.project_note:
            text.append(f"  · {line(ctx.project_note)}", style="bold yellow")
        if jobs:
            text.append(f"   jobs: {line(jobs)}", style="bold yellow")
        return text

    def set_jobs(self, jobs: str) -> None:
        """The header's ``jobs:`` (the app keeps it from the workers' progress)."""
        self.jobs_text = jobs
        self.update_header()

    def update_header(self) -> None:
        show(self.query_one("#header", Static), self.header_text(self.jobs_text))

    @work(thread=True, exclusive=True, group="scan", exit_on_error=False, name="scan",
          description="Scan")
    def run_scan(self, header: str | None = None) -> None:
        """Scan every store in a thread; each stage's result is shown before the scan reads
        on (``call_from_thread`` waits for it), so the first trees paint without the scan's
        thread competing for the interpreter. After the first paint, the same worker checks
        ``[[wikilinks]]`` in whole files (the scan read only headers) with the scan's cache,
        and saves it."""
        context = self.context
        if header is not None:
            progress(header)

        def step(name: str) -> None:
            check()
            progress(f"scan: {name}")

        forked, self.first_scan = self.first_scan, None
        last: ScanResult | None = None
        if forked is not None:
            self.running_fork = forked
            try:
                last = self.show_forked(forked, step)
                if last is None:
                    return  # the child checked the links too
            except ForkedScanFailed:
                check()  # else it ended before its complete result: scanned here
            finally:
                forked.close()
                self.running_fork = None
        cache = cache_for(context)
        if last is None:
            for result in scan_progressively(context, step, cache):
                check()
                self.app.call_from_thread(self.show_result, result)
                if result.complete:
                    self.post_message(ScanCompleted(result, check_links=False))
                elif every_kind(result):
                    self.wait_for_paint()  # the panes first, then the secrets and the rest
                last = result
        if last is None:
            return
        progress(LINKS_JOB)
        updates = check_store_links(last.stores, cache)
        cache.save()
        check()
        self.app.call_from_thread(self.links_checked, updates)

    def show_forked(
        self, forked: ForkedScan, step: Callable[[str], None]
    ) -> ScanResult | None:
        """In the scan's thread: show what the forked first scan sends, as a scan here shows
        its results, but of the results that came while the app was busy (importing,
        composing) only the newest: the panes are laid out from it and paint at once. None
        once it sent its links check too; its complete result when it ended after that
        result (the links are left to the caller). Raises :class:`ForkedScanFailed` when it
        ended before its complete result."""
        complete = None
        batch: list[tuple[Any, ...]] = []
        try:
            with contextlib.closing(forked.messages()) as messages:
                for message in messages:
                    batch.append(message)
                    if message[0] != "links" and forked.pending():
                        continue  # more is here already
                    stages = [m[1] for m in batch if m[0] == "progress"]
                    results: list[ScanResult] = [m[1] for m in batch if m[0] == "result"]
                    links = [m[1] for m in batch if m[0] == "links"]
                    batch = []
                    if stages:
                        step(stages[-1])
                    check()
                    if results:
                        result = results[-1]
                        self.app.call_from_thread(self.show_result, result)
                        if result.complete:
                            self.post_message(ScanCompleted(result, check_links=False))
                            complete = result
                            progress(LINKS_JOB)
                        elif every_kind(result):
                            self.wait_for_paint()  # the panes first, then the rest
                    if links:
                        self.app.call_from_thread(self.links_checked, links[-1])
                        return None
        except ForkedScanFailed:
            if complete is None:
                raise
        if complete is None:
            raise ForkedScanFailed("the scan's process sent no complete result")
        return complete

    def wait_for_paint(self, limit: float = 2.0) -> None:
        """In the scan's thread: wait (``limit`` seconds at most) until the screen, when it
        is the one shown, has been refreshed, so that the scan's next stage does not compete
        with the paint of what was just shown."""
        if not self.is_current:
            return
        painted = threading.Event()
        if self.app.call_from_thread(self.call_after_refresh, painted.set):
            painted.wait(limit)

    def show_result(self, result: ScanResult) -> None:
        """Show a scan (a partial one leaves the panes it has not reached yet as they are).
        It only shows: what follows a complete result starts on :class:`ScanCompleted`.
        The panes are laid out from the first result that has every store's headers (their
        widths are known then; the secrets and other projects come with the complete one)."""
        self.result = result
        if result.complete or every_kind(result):
            self.update_header()  # the git branch and version come with the first result
            self.show_panes()  # every width is known: laid out once, at the next refresh
        if result.complete:
            self.marks.refresh(result)
        for spec in PANES:
            if not result.complete and not set(spec.kinds) <= result.scanned:
                continue
            stores = stores_for(spec, result)
            drawn_from = pane_inputs(spec, stores, result)
            if same_objects(self.panes_drawn.get(spec.id), drawn_from):
                continue  # a live refresh of another pane's stores: nothing here changed
            self.panes_drawn[spec.id] = drawn_from
            pane = self.query_one(f"#pane-{spec.id}", Vertical)
            tree = self.query_one(f"#tree-{spec.id}", StoreTree)
            labeler = agent_labeler(result.stores) if spec.id == "agents" else None
            tree.set_stores(stores, empty_text=spec.empty_text, labeler=labeler)
            pane.border_subtitle = pane_subtitle(spec, stores)
            pane.styles.width = f"{pane_weight(spec, stores, labeler)}fr"
            visible = pane_visible(spec, stores)
            pane.set_class(not visible, "absent")
            tab = self.query_one(f"#tab-{spec.id}", Tab)
            title = tab_title(spec, stores)
            if not same_text(self._tab_titles.get(spec.id), title):
                self._tab_titles[spec.id] = title
                tab.label = title
            tab.display = visible
        detail = self.query_one(DetailPane)
        if detail.ref is not None:
            fresh = self.refind(detail.ref)
            if fresh is None or fresh.store is not detail.ref.store:
                detail.follow(fresh)
        else:
            self.call_after_refresh(self.show_cursor_node)
        self.update_pane_info()
        if result.complete:
            self.show_nothing_found(nothing_found(self.context, result.stores))
            # what a scan and its trees made stays (a large home: millions of objects): out
            # of the collector's sight, so a full collection does not walk them all again in
            # the middle of the next refresh (freed objects are still freed by refcount)
            gc.freeze()

    def show_panes(self) -> None:
        """The panes appear once every pane's width is known (the first complete result's, or
        what a failed scan read): laid out once, never a pane at a width it leaves later.
        Until then ``#panes-waiting`` holds their place (the detail pane stays put)."""
        self.query_one("#panes").remove_class("unsized")
        self.query_one("#panes-waiting").display = False

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        """A failed scan shows the panes as far as it read them (a cancelled one was replaced
        by a newer scan, which shows them)."""
        if worker.group == "scan" and worker.state == WorkerState.ERROR:
            self.show_panes()

    def on_scan_completed(self, message: ScanCompleted) -> None:
        """A complete result is shown (the scan's or a live refresh's): watch its stores,
        record its changes in the history, check its links (a refresh's), its team memory's
        push rules, the judge's open pairs and the recall manifests, each in a worker of its
        own group. A result a newer one replaced meanwhile starts nothing: the newer one's
        completion does. A live refresh starts only what its changed stores call for (a
        store object it did not replace is the one checked before)."""
        result = message.result
        if result is not self.result:
            return
        previous, self.completed = self.completed, result
        changed = None if not message.check_links else changed_stores(previous, result)
        if changed is None or [s.path for s in result.stores] != [
            s.path for s in previous.stores  # type: ignore[union-attr]
        ]:
            self.live.track(result)
        self.record_history("live" if self.history_started else "start",
                            None if changed is None else [s.path for s in changed])
        self.history_started = True
        if message.check_links:
            self.check_links(result)
        team = next((s for s in result.stores if s.kind == StoreKind.TEAM), None)
        if changed is None or any(s is team for s in changed):
            self.check_team(team)
        if changed is None:
            self.load_conflicts()  # the judge's ledger: no store holds it
        kinds = {StoreKind.AUTO, StoreKind.TEAM, StoreKind.AGENT}
        if changed is None or any(s.kind in kinds for s in changed):
            self.load_recall_manifests(result, None if changed is None else changed)

    @work(exclusive=True, group="team", exit_on_error=False,
          name="checking team memory's push rules", description="Team")
    async def check_team(self, team: Store | None) -> None:
        from memtui.tui.team import team_check

        view = await in_thread(lambda: team_check(self.context.project, team))
        if view is not None:
            self.team_checked(view)

    @work(exclusive=True, group="conflict-marks", exit_on_error=False,
          name="reading the judge's ledger", description="Judge")
    async def load_conflicts(self) -> None:
        """The judge ledger's pairs that need a decision, marked ``≠`` in the trees."""
        from memtui.core.judge.ledger import Ledger, default_ledger_path

        env = self.context.env
        ledger = await in_thread(lambda: Ledger.load(default_ledger_path(env)))
        paths = await in_thread(lambda: frozenset(ledger.open_keys()))
        self.ledger = ledger  # J goes on with it while no other process wrote one since
        for tree in self.query(StoreTree):
            tree.set_conflicts(paths)

    @work(exclusive=True, group="recall-marks", exit_on_error=False,
          name="reading the recall manifests", description="Recall")
    async def load_recall_manifests(
        self, result: ScanResult, changed: list[Store] | None = None
    ) -> None:
        """The memories past the 200 newest of auto memory (team memory's included) and of
        each agent's memory: recall is never offered them, marked ``⊘`` in the trees, counted
        in the Auto pane. ``changed``: the stores a live refresh replaced; only their
        manifests are built again (the auto memory's for a team change), the others kept."""
        auto = next((s.path for s in result.stores if s.kind == StoreKind.AUTO and s.exists),
                    None)
        agents = [s.path for s in result.stores if s.kind == StoreKind.AGENT and s.exists]
        roots = [*([auto] if auto is not None else []), *agents]
        known = dict(self.invisible) if changed is not None else {}
        if changed is not None:
            for store in changed:
                known.pop(store.path, None)
                if store.kind == StoreKind.TEAM and auto is not None:
                    known.pop(auto, None)

        from memtui.core.recall.manifest import build_manifest

        def run() -> dict[Path, frozenset[str]]:
            found: dict[Path, frozenset[str]] = {}
            for root in roots:
                kept = known.get(root)
                found[root] = kept if kept is not None else frozenset(
                    build_manifest(root).invisible)
            return found

        found = await in_thread(run)
        self.invisible = found
        paths = frozenset(str(root / rel) for root, rels in found.items() for rel in rels)
        in_auto = len(found.get(auto, ())) if auto is not None else 0
        for tree in self.query(StoreTree):
            tree.set_unrecalled(paths)
        if in_auto and self.result is result:
            spec = PANES[0]
            pane = self.query_one(f"#pane-{spec.id}", Vertical)
            pane.border_subtitle = (f"{pane_subtitle(spec, stores_for(spec, result))} · "
                                    f"{in_auto:,} invisible to recall")

    def team_checked(self, view: TeamView) -> None:
        """The Team pane's push check: the repository first, each file's fate after it."""
        if self.result is None or not any(s is view.store for s in self.result.stores):
            return  # a newer scan replaced the store: its own check follows
        self.query_one("#tree-team", StoreTree).set_notes(view.banner, view.fates)
        self.query_one(DetailPane).set_team_fates(view.fates)

    def show_nothing_found(self, found: str | None) -> None:
        """Above the panes, when no store holds a memory: what was looked for, where, and
        what to try."""
        note = self.query_one("#nothing-found", Static)
        note.display = found is not None
        if found is not None:
            text = Text(f"Nothing found: {line(found)}.\n", style="bold yellow")
            text.append("Press p to pick a project Claude Code keeps memory for, or run "
                        "memtui --demo to try the demo home.")
            note.update(text)

    @work(exclusive=True, group="links", exit_on_error=False, name="links",
          description="Links")
    async def check_links(self, result: ScanResult) -> None:
        """A refreshed result's ``[[wikilinks]]`` in whole files (only its rescanned stores
        need it), with a cache that is read, never saved (as a partial rescan's)."""
        context = self.context

        def run() -> LinkUpdates:
            progress(LINKS_JOB)
            return check_store_links(result.stores, cache_for(context))

        self.links_checked(await in_thread(run))

    def links_checked(self, updates: LinkUpdates) -> None:
        """Put the whole-file checked reports in (a store whose report changed meanwhile is
        left alone) and draw a shown MEMORY.md again when its broken links changed."""
        redrawn: list[Store] = []
        for store, old, new in updates:
            if store.index is not old:
                continue
            if new.health.broken_wikilinks == old.health.broken_wikilinks:
                old.health.wikilinks_checked = new.health.wikilinks_checked  # nothing to draw
            else:
                store.index = new
                redrawn.append(store)
        if redrawn:
            self.query_one(DetailPane).index_changed(redrawn)

    def show_cursor_node(self) -> None:
        """After the first scan, show what the focused tree's cursor is on."""
        focused = self.focused
        detail = self.query_one(DetailPane)
        if not isinstance(focused, StoreTree) or detail.ref is not None:
            return
        if focused.cursor_node is None and focused.last_line >= 0:
            focused.cursor_line = 0
        if focused.cursor_node is not None:
            detail.show(focused.cursor_node.data)

    def update_pane_info(self) -> None:
        """One line under the panes: where the current pane's store lives and why."""
        info = self.query_one("#pane-info", Static)
        if self.result is None:
            return
        spec = self.current_spec()
        stores = stores_for(spec, self.result)
        text = Text()
        text.append(f" {spec.title}: ", style="bold")
        if spec.single and stores:
            store = stores[0]
            text.append(line(self.context.show(store.path)))
            text.append(f"  ·  {line(store.location.rule)}", style="dim")
            if not store.location.enabled:
                text.append(f"  ·  {line(store.location.enabled_rule)}", style="yellow")
        elif stores:
            roots = sorted({line(self.context.show(s.path.parent)) for s in stores})
            text.append(", ".join(roots))
            text.append(f"  ·  {counted(len(stores), 'store')}", style="dim")
        else:
            text.append(spec.empty_text, style="dim")
        if self.marks:
            text.append(f"  ·  {counted(len(self.marks), 'marked memory', 'marked memories')}"
                        " (d deletes them, esc clears)", style="bold yellow")
        show(info, text)

    def on_unmount(self) -> None:
        self.live.stop()
        for forked in (self.first_scan, self.running_fork):
            if forked is not None:
                forked.close()  # its reader (a cancelled worker) sees it end

    def refind(self, ref: NodeRef) -> NodeRef | None:
        """The same item in the freshly scanned stores, if it still exists."""
        if self.result is None:
            return None
        for store in self.result.stores:
            if store.path != ref.store.path:
                continue
            if ref.memory is None:
                return NodeRef(store, folder=ref.folder)
            for memory in store.memories:
                if memory.rel_path == ref.memory.rel_path:
                    return NodeRef(store, memory)
        return None

    # navigation -------------------------------------------------------------------------

    def visible_specs(self) -> list[PaneSpec]:
        return [s for s in PANES if not self.query_one(f"#pane-{s.id}").has_class("absent")]

    def current_spec(self) -> PaneSpec:
        """The pane the user is in: the focused tree's, or the detail pane's (the pane its
        node came from). Kept as state rather than read from the focus: focus moves after a
        refresh, and keys typed faster than that must still step from pane to pane."""
        visible = self.visible_specs()
        return next((s for s in visible if s.id == self.pane_id), visible[0])

    def focus_pane(self, spec: PaneSpec) -> None:
        self.pane_id = spec.id
        self.query_one(f"#tree-{spec.id}", StoreTree).focus()
        self.set_active_tab(spec)
        self.sync_pane_visibility()

    def set_active_tab(self, spec: PaneSpec) -> None:
        """Follow the focus in the tab bar without the tab bar moving the focus back later."""
        tabs = self.query_one("#pane-tabs", Tabs)
        if tabs.active != f"tab-{spec.id}":
            self._tab_echoes.add(f"tab-{spec.id}")
            tabs.active = f"tab-{spec.id}"

    def action_pane(self, step: int) -> None:
        specs = self.visible_specs()
        current = self.current_spec()
        index = specs.index(current) if current in specs else 0
        self.focus_pane(specs[max(0, min(len(specs) - 1, index + step))])  # no wrap

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed
        self.sync_pane_visibility()

    def action_raw(self) -> None:
        self.query_one(DetailPane).toggle_raw()

    def action_jump_cut(self) -> None:
        """Scroll the MEMORY.md view to the line where Claude stops reading."""
        why = self.query_one(DetailPane).jump_to_cut()
        if why is not None:
            self.notify(why, title="No cut line here", markup=False)

    def action_rescan(self) -> None:
        self.run_scan()

    @on(Tabs.TabActivated, "#pane-tabs")
    def tab_activated(self, event: Tabs.TabActivated) -> None:
        if event.tab.id in self._tab_echoes:
            self._tab_echoes.discard(event.tab.id)
            return
        pane_id = (event.tab.id or "").removeprefix("tab-")
        self.pane_id = pane_id
        tree = self.query_one(f"#tree-{pane_id}", StoreTree)
        if self.focused is not tree:
            tree.focus()
        self.sync_pane_visibility()

    def on_descendant_focus(self) -> None:
        """The focused widget's pane becomes the current one (the info line, ``z``, ``←`` and
        ``→`` follow it); a tree entered shows its cursor's node in the detail pane, so what the
        detail shows is what ``s``, ``d`` and ``e`` act on."""
        focused = self.focused
        pane_id: str | None = None
        if isinstance(focused, StoreTree) and focused.id:
            pane_id = focused.id.removeprefix("tree-")
            node = focused.cursor_node
            if node is not None and node.data is not None:
                self.show_node(node.data)
        elif isinstance(focused, DetailPane) and focused.ref is not None:
            spec = spec_for(focused.ref.store)
            pane_id = spec.id if spec is not None else None
        if pane_id is not None:
            self.pane_id = pane_id
            self.set_active_tab(self.current_spec())
            self.sync_pane_visibility()
        self.update_pane_info()

    def on_resize(self) -> None:
        self.apply_size()

    def apply_size(self) -> None:
        width, height = self.size
        self.set_class(width < NARROW_WIDTH, "narrow")
        footer = self.query_one(KeyFooter)
        footer.fit(width, COMPACT_WIDTH)  # ? (its help names ^p) and q always fit
        shown = height >= LEGEND_HEIGHT if self.legend_shown is None else self.legend_shown
        self.query_one("#legend", Static).display = shown
        self.sync_pane_visibility()

    def action_legend(self) -> None:
        self.legend_shown = not self.query_one("#legend", Static).display
        self.apply_size()

    def action_help(self) -> None:
        show_help(self, "Keys of the main screen", self.HELP_EXTRA, legend(lines=True))

    def sync_pane_visibility(self) -> None:
        """Zoomed or narrow: only the current pane shows; otherwise all present panes do."""
        single = self.zoomed or self.has_class("narrow")
        current = self.current_spec()
        for spec in PANES:
            pane = self.query_one(f"#pane-{spec.id}")
            pane.set_class(single and spec != current, "hidden")

    # selection --------------------------------------------------------------------------

    @on(Tree.NodeHighlighted)
    def node_highlighted(self, event: Tree.NodeHighlighted[NodeRef]) -> None:
        self.show_node(event.node.data)

    @on(Tree.NodeSelected)
    def node_selected(self, event: Tree.NodeSelected[NodeRef]) -> None:
        self.show_node(event.node.data)

    def show_node(self, ref: NodeRef | None) -> None:
        """Show ``ref`` in the detail pane, unless it already shows that node (where it is
        scrolled to stays)."""
        detail = self.query_one(DetailPane)
        shown = detail.ref
        if ref is not None and shown is not None and shown.store is ref.store and (
            shown.key == ref.key
        ):
            return
        detail.show(ref)

    def selected(self) -> NodeRef | None:
        """What the keys act on: the focused tree's node, else the detail pane's."""
        focused = self.focused
        if isinstance(focused, StoreTree):
            node = focused.cursor_node
            return node.data if node is not None else None
        return self.query_one(DetailPane).ref

    def on_select_path(self, message: SelectPath) -> None:
        self.select_path(message.store, message.rel_path)

    def select_path(self, store: Store, rel_path: str | None) -> None:
        """Jump to a store or a memory in its pane (search results, palette)."""
        for spec in PANES:
            if store.kind in spec.kinds:
                tree = self.query_one(f"#tree-{spec.id}", StoreTree)
                key = f"{store.path}::{rel_path or ''}"
                self.focus_pane(spec)
                tree.select_key(key)
                return

    def action_search(self) -> None:
        """Full-text search over every memory of the current scan."""
        if self.result is None or not self.result.complete:
            self.notify("Still scanning: search opens once the stores are read.")
            return
        self.app.push_screen(SearchScreen(self.result, self.search_cache), self.open_search_hit)

    def open_search_hit(self, hit: SearchHit | MarkHits | None) -> None:
        if isinstance(hit, MarkHits):
            refs = [NodeRef(h.store, h.memory) for h in hit.hits if h.memory is not None]
            refs = [r for r in refs if delete_refusal(r) is None]
            added = self.marks.add(refs)
            self.marks_changed([r.key for r in refs])
            self.notify(f"marked {added} more · {len(self.marks)} marked · d deletes them, "
                        "esc clears", title=f"Search {line(hit.query)!r}", markup=False)
        elif hit is not None:
            if hit.memory is not None and hit.line is not None:
                ref = NodeRef(hit.store, hit.memory)
                detail = self.query_one(DetailPane)
                detail.show_line(ref, hit.line)
                self.show_node(ref)
            self.select_path(hit.store, hit.memory.rel_path if hit.memory else None)

    def action_projects(self) -> None:
        """Pick another project of this Claude Code home."""
        if self.result is None or not self.result.complete:
            self.notify("Still scanning: the project list comes with the scan.")
            return
        from memtui.tui.dialogs.projects import ProjectsScreen

        screen = ProjectsScreen(
            self.result.projects, self.context.project, self.context.project_dir
        )
        self.app.push_screen(screen, self.project_chosen)

    def project_chosen(self, choice: OpenProject | None) -> None:
        if choice is None:
            return
        if choice.by_dir:
            self.switch_context(self.context.opened_by_dir(Path(choice.ref.dir), choice.ref.path))
        elif choice.ref.path is not None:
            self.switch_project(Path(choice.ref.path))

    def switch_project(self, path: Path) -> None:
        """Rescan for the project at ``path`` with the same homes and environment."""
        self.switch_context(self.context.opened_at(path))

    def switch_context(self, context: Context) -> None:
        self.context = context
        self.marks_changed(self.marks.clear())
        self.update_header()
        self.run_scan(header="scan: switching project")

    def file_changed(self, path: Path) -> None:
        """Refresh the store holding ``path`` (a full scan when no store holds it)."""
        self.live.changed({path})

    def action_edit(self) -> None:
        """Hand the selected memory file to ``$VISUAL``/``$EDITOR``, then record the edit in
        the history (the editor as its author) and reload its store."""
        path = edit_in_editor(self.app, self.selected())
        if path is not None:
            self.record_edit(path, editor_name())

    @work(thread=True, group="history", exit_on_error=False, name="recording the edit",
          description="History")
    def record_edit(self, path: Path, editor: str) -> None:
        """The edited file as the editor's version (once the history exists: ``memtui history
        record`` makes it), before the refresh sees the change."""
        from memtui.core.history.attribution import Attribution
        from memtui.core.history.record import record

        try:
            record(self.context, Attribution.editor_of(str(path), editor), only=[path],
                   create=False)
        finally:
            self.app.call_from_thread(self.file_changed, path)

    @work(thread=True, group="history", exit_on_error=False, name="recording the history",
          description="History")
    def record_history(self, source: str, touching: list[Path] | None = None) -> None:
        """Every change to the stores since the last version (at start: what changed while
        memtui was closed; later: live changes, bursts already merged), once the history
        exists; ``touching``: only in these stores (what a live refresh rescanned)."""
        from memtui.core.history.attribution import Attribution
        from memtui.core.history.record import record

        record(self.context, Attribution.unknown(source), touching=touching, create=False)

    def action_snapshot_review(self) -> None:
        """Review the selected agent's snapshot: initialize, replace or mark synced."""
        from memtui.tui.screens.snapshot_diff import SnapshotDiffScreen, snapshot_store_for

        store = snapshot_store_for(self.selected(), self.result)
        if store is None or store.snapshot is None:
            self.notify(
                "Select an agent snapshot, or an agent whose project ships a snapshot.",
                title="No snapshot here",
                severity="warning",
            )
            return
        self.app.push_screen(SnapshotDiffScreen(store.snapshot, self.context, self.journal()))

    def action_distil(self) -> None:
        """Review the selected store's distilled MEMORY.md; apply the changes kept."""
        ref = self.selected()
        store = None if ref is None else ref.store
        from memtui.tui.screens.distil import DistilScreen, distil_refusal

        why = distil_refusal(store)
        if why is not None:
            self.notify(line(why), title="Cannot distil", severity="warning", markup=False)
            return
        assert store is not None
        self.app.push_screen(DistilScreen(store, self.context, self.journal(),
                                          self.settings.distil.headroom))

    def action_judge(self) -> None:
        """Find duplicate and contradicting memories across every store; decide pair by pair."""
        if self.result is None:
            self.notify("The scan is still running; try again in a moment.", title="Judge")
            return
        from memtui.tui.screens.conflicts import ConflictsScreen

        screen = ConflictsScreen(self.result, self.context, self.settings, ledger=self.ledger)
        self.app.push_screen(screen, self.conflicts_closed)

    def conflicts_closed(self, _closed: None) -> None:
        self.load_conflicts()

    def action_recall(self) -> None:
        """The recall preview of the auto memory."""
        from memtui.tui.screens.recall import RecallScreen

        self.app.push_screen(RecallScreen(self.context))

    def action_context(self) -> None:
        """The context at session start: of the selected agent when an agent store is
        selected, else of the main session."""
        ref = self.selected()
        agent = None
        if ref is not None and ref.store.kind == StoreKind.AGENT:
            agent = ref.store.location.agent
        from memtui.tui.screens.recall import ContextScreen

        self.app.push_screen(ContextScreen(self.context, agent))

    def action_archive(self) -> None:
        """The judge's archive; the memory picked there is restored after its preview."""
        from memtui.tui.decisions import open_archive

        open_archive(self, self.context, self.journal())

    def action_delete(self) -> None:
        """Delete the marked memories (else the selected one) and their MEMORY.md lines, as
        one previewed operation with one undo."""
        if not self.marks:
            delete_memory(self, self.context, self.journal(), self.selected())
            return
        refs = self.marks.refs()
        if not refuse_delete(self, refs):
            self.delete_marked(refs)

    @work(exclusive=True, group="plan-delete", exit_on_error=False,
          name="planning the delete", description="Cannot delete")
    async def delete_marked(self, refs: list[NodeRef]) -> None:
        """The marked memories' delete flow; the marks go once they are deleted."""
        if await delete_flow(self, self.context, self.journal(), refs) is not None:
            self.marks_changed(self.marks.clear())

    def action_toggle_mark(self) -> None:
        """Mark or unmark the selected memory for ``d``; the cursor moves on to the next."""
        ref = self.selected()
        if ref is None or ref.memory is None:
            why: str | None = "Select a memory file to mark (d then deletes every marked one)."
        else:
            why = delete_refusal(ref)
        if why is not None or ref is None:
            self.notify(why or "", title="Cannot mark", severity="warning")
            return
        self.marks.toggle(ref)
        self.marks_changed([ref.key])
        focused = self.focused
        if isinstance(focused, StoreTree):
            focused.action_cursor_down()

    def action_clear_marks(self) -> None:
        """Unmark every marked memory."""
        self.marks_changed(self.marks.clear())

    def marks_changed(self, keys: list[str]) -> None:
        for tree in self.query(StoreTree):
            tree.show_marks(keys)
        self.update_pane_info()

    def action_redact(self) -> None:
        """Replace each secret of the selected memory with [REDACTED:<rule-id>] (previewed
        masked, undoable; the secret must be rotated anyway)."""
        redact_memory(self, self.context, self.journal(), self.selected())

    def action_undo(self) -> None:
        """Undo the latest operation memtui made (after a confirmation)."""
        undo_latest(self, self.journal())

    def action_history(self) -> None:
        """The versions of the selected memory (else of every store); the one picked is put
        back after its preview."""
        ref = self.selected()
        path = ref.memory.path if ref is not None and ref.memory is not None else None
        self.history_flow(path)

    @work(exclusive=True, group="plan-history", exit_on_error=False,
          name="planning the restore", description="Cannot restore")
    async def history_flow(self, path: Path | None) -> None:
        from memtui.core.history.timeline import open_history
        from memtui.core.write.ops.history import plan_restore as plan_history_restore
        from memtui.tui.decisions import confirm_and_apply
        from memtui.tui.dialogs.history import HistoryScreen

        choice = await ask(self, HistoryScreen(self.context, path))
        if choice is None:
            return
        context = self.context
        proposal = await in_thread(lambda: plan_history_restore(
            open_history(context), choice.path, choice.rev))
        diffs = await in_thread(proposal.diff)
        name = line(choice.path.name)
        await confirm_and_apply(self, context, self.journal(), proposal, diffs,
                                title=f"Restore {name} as of {choice.rev[:8]}?", yes="Restore",
                                label=f"restore {name}", danger=False,
                                message=lambda _op: f"restored {name} · u to undo")

    def action_undo_history(self) -> None:
        """Every operation memtui made; Enter undoes one."""
        open_undo_history(self, self.journal())
