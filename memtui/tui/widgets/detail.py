"""The detail pane: what the selected node is, read in a worker and shown in full."""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from rich.console import Group, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static
from textual.worker import Worker

from memtui.core.age import age_text
from memtui.core.cache import RACY_SECONDS, StatKey, stat_key
from memtui.core.contents import LoadReport, Memory, Store
from memtui.core.model import Frontmatter, StoreKind
from memtui.core.parse.frontmatter import body_of, parse_frontmatter
from memtui.core.plaintext import counted
from memtui.core.scan.scanner import load_full_text
from memtui.core.scan.store_index import INDEX_NAME
from memtui.core.secrets.redact import masked_file
from memtui.core.secrets.scanner import SecretFinding
from memtui.core.stores.paths import tilde
from memtui.tui import clock, steady
from memtui.tui.labels import snapshot_badge
from memtui.tui.nodes import NodeRef, normalize
from memtui.tui.plain import body, content, line, text
from memtui.tui.widgets.index_view import (
    MAX_RAW_LINES,
    RenderedOnce,
    cut_row,
    first_lines,
    health_view,
    index_pinned,
    numbered_view,
    plain,
    raw_lines,
    same_lines,
)
from memtui.tui.work import ReportsWork, check, in_thread, run_flow


@dataclass
class LoadedMemory:
    """A memory read in full: its text, frontmatter, body and read problems."""

    ref: NodeRef
    text: str
    frontmatter: Frontmatter
    body: str
    problems: list[str]
    secrets: list[tuple[SecretFinding, str]] = field(default_factory=list)
    """Each secret of the file and its line with every secret masked (``text`` and ``body``
    are masked too: the pane never shows a secret)."""


HIT_CONTEXT = 200
"""Lines shown before and after a search hit's line (a huge file is not rendered whole)."""
HIT_STYLE = "bold reverse"
CUT_CONTEXT = 3
"""Rows of the numbered view kept in sight above the cut banner when ``c`` jumps to it."""


def hit_window(raw: str, number: int, context: int = HIT_CONTEXT) -> tuple[Text, Text, Text] | None:
    """The numbered lines of ``raw`` around line ``number``: those before, that line (styled)
    and those after, each as plain text (controls escaped, long lines cut); None when the file
    has no such line (it changed since it was indexed)."""
    lines = first_lines(raw, number + context)
    if number < 1 or number > len(lines):
        return None
    first = max(1, number - context)
    width = len(str(len(lines)))
    parts = (Text(), Text(), Text())
    if first > 1:
        parts[0].append(f"… {first - 1:,} lines above\n", style="dim italic")
    for at, raw_line in enumerate(lines[first - 1 :], start=first):
        out = parts[0] if at < number else parts[1] if at == number else parts[2]
        out.append(f"{at:>{width}} ", style="dim")
        shown = plain(raw_line.removesuffix("\r"))
        if at == number:
            shown.stylize(HIT_STYLE)
        out.append_text(shown)
        out.append("\n")
    for part in parts:
        part.rstrip()
    return parts


CACHED_FILES = 4
"""Files whose read text a pane keeps, while their stats are unchanged: selecting a 3 MB
MEMORY.md again reads and decodes nothing."""


def file_key(path: str | os.PathLike[str]) -> StatKey | None:
    """The stat key of ``path`` (a regular file, not written in the last ``RACY_SECONDS``:
    a second write in the same clock tick could leave its stats equal), or None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    if time.time() - max(st.st_mtime, st.st_ctime) < RACY_SECONDS:
        return None
    return stat_key(st)


def frontmatter_table(fm: Frontmatter) -> RenderableType:
    if not fm.present:
        return Text("no frontmatter", style="dim italic")
    table = Table(show_header=False, box=None, padding=(0, 1), expand=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for key, value in fm.data.items():
        if isinstance(value, dict):
            for sub_key, sub_value in value.items():
                table.add_row(text(f"{key}.{sub_key}"), text(format_value(sub_value)))
        else:
            table.add_row(text(key), text(format_value(value)))
    if fm.layout == "metadata":
        table.add_row(Text("layout", style="dim"), Text("metadata: (newer CC)", style="dim"))
    return table


def format_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def main_index(memory: Memory) -> bool:
    """Whether ``memory`` is its store's own MEMORY.md (shown as the numbered index view)."""
    return memory.is_index and memory.rel_path == INDEX_NAME


def entries_pointing_to(store: Store, rel_path: str) -> list[str]:
    """The index entries (``line N: the entry``) that point to the store's file ``rel_path``."""
    if store.index is None:
        return []
    name = rel_path.rsplit("/", 1)[-1]
    # the name test first: normalize() on each of 50,000 entries costs a second per selection
    return [
        f"line {e.line}: {line(e.raw.strip())}"
        for e in store.index.entries
        if e.target and name in e.target and normalize(e.target) == rel_path
    ]


def index_pointers(store: Store, memory: Memory) -> list[RenderableType]:
    """What of the index leads to ``memory``: its entries, or the topic file distil wrote
    that lists it (and the entries pointing to that), or that nothing does."""
    pointers = entries_pointing_to(store, memory.rel_path)
    if pointers:
        return [Text("Index entries pointing here:", style="bold"),
                *(Text(f"  {p}", style="dim") for p in pointers)]
    if store.index is None or memory.is_index:
        return []
    topic = store.index.health.listed.get(memory.rel_path)
    if topic is None:
        return [Text("No MEMORY.md entry points to this file.", style="yellow")]
    return [Text.assemble(("Listed in ", "bold"), (line(topic), "bold"),
                          (", a topic file distil wrote; MEMORY.md points to it:", "bold")),
            *(Text(f"  {p}", style="dim") for p in entries_pointing_to(store, topic))]


REDACT_HINT = "X redacts them (previewed, u undoes); rotate each secret anyway."


def secrets_view(secrets: list[tuple[SecretFinding, str]]) -> Text:
    """Each secret's rule and line, and its line masked (``ghp_…9abc``)."""
    out = Text()
    out.append(f"⚠ {counted(len(secrets), 'secret')}: ", style="bold red")
    out.append(REDACT_HINT, style="yellow")
    for finding, masked_line in secrets:
        out.append(f"\n  line {finding.line} · {line(finding.rule)}  ", style="bold")
        out.append(line(masked_line.strip()), style="dim")
    return out


def modified_stamp(data: dict[str, object]) -> str | None:
    """The frontmatter's ``modified`` time (newer Claude Code writes it under ``metadata:``,
    from 2.1.75), as written; None when there is none."""
    value = data.get("modified")
    meta = data.get("metadata")
    if value is None and isinstance(meta, dict):
        value = meta.get("modified")
    return None if value is None else str(value)


def memory_meta(ref: NodeRef, loaded: LoadedMemory, fate: Text | None = None) -> RenderableType:
    memory = ref.memory
    assert memory is not None
    meta = Text()
    meta.append(line(tilde(memory.path)), style="bold")
    meta.append(f"\n{memory.size:,} bytes · {age_text(memory.mtime, clock.now())}", style="dim")
    modified = modified_stamp(memory.frontmatter.data)
    if modified is not None:
        meta.append(f" · modified {line(modified)} (its frontmatter)", style="dim")
    if memory.type:
        meta.append(f" · type {line(memory.type)}", style="dim")
    parts: list[RenderableType] = [meta]
    if fate is not None:
        parts.append(Text.assemble(("team push: ", "bold"), fate))
    problems = list(dict.fromkeys([*memory.problems, *loaded.problems]))
    for problem in problems:
        parts.append(Text(f"⚠ {line(problem)}", style="bold red"))
    if loaded.secrets:
        parts.append(secrets_view(loaded.secrets))
    parts.extend(index_pointers(ref.store, memory))
    parts.append(frontmatter_table(loaded.frontmatter))
    return Group(*parts)


def store_summary(store: Store) -> RenderableType:
    loc = store.location
    summary = Text()
    summary.append(f"{line(store.title)}\n", style="bold")
    summary.append(f"{line(tilde(loc.path))}\n")
    summary.append(f"rule: {line(loc.rule)}\n", style="dim")
    if loc.enabled_rule:
        summary.append(f"{line(loc.enabled_rule)}\n", style="dim" if loc.enabled else "yellow")
    if not store.exists and not store.problems:  # a problem says why better than this
        summary.append("The directory does not exist yet.\n", style="italic")
    summary.append(f"{counted(len(store.memories), 'file')}\n")
    for problem in store.problems:
        summary.append(f"⚠ {line(problem)}\n", style="red")
    parts: list[RenderableType] = [summary]
    if store.session_info:
        info = store.session_info
        session = Text()
        session.append(f"session {line(info.session_id)}\n", style="bold")
        session.append(f"cwd {line(info.cwd or '?')} · started {line(info.started or '?')}")
        session.append(f" · branch {line(info.git_branch or '?')}\n")
        session.append(
            "empty: still the template\n" if info.empty else f"title: {line(info.title or '-')}\n"
        )
        parts.append(session)
    if store.snapshot:
        parts.append(snapshot_summary(store))
    return Group(*parts)


def snapshot_summary(store: Store) -> RenderableType:
    snap = store.snapshot
    assert snap is not None
    table = Table(title=None, box=None, padding=(0, 1))
    table.add_column("scope")
    table.add_column("status")
    table.add_column("syncedFrom")
    table.add_column("local dir")
    table.add_column("")
    for item in snap.scopes:
        table.add_row(
            Text(item.scope.value),
            Text(item.status),
            text(item.synced_from or "-"),
            text(tilde(item.local)),
            Text("← Claude Code acts here" if item.cc_acts else ""),
        )
    head = Text()
    head.append(f"snapshot of {line(snap.agent)}  ", style="bold")
    head.append_text(snapshot_badge(store))
    files = line(", ".join(snap.files)) or "-"
    head.append(f"\nupdatedAt {line(snap.updated_at or '-')} · files: {files}")
    head.append(f"\nCC acts on the {snap.acted_scope.value} scope", style="dim")
    if snap.problem:
        head.append(f"\n⚠ {line(snap.problem)}", style="bold red")
    reasons = Text(
        "\n".join(f"{s.scope.value}: {line(s.reason)}" for s in snap.scopes), style="dim"
    )
    return Group(head, table, reasons)


LONG_MARKDOWN_LINES = 60
"""A memory body of more lines than this is drawn by Rich's Markdown as one widget. Textual's
Markdown mounts a widget for every block: a memory of 150 list items took 2 s to show and one
of 400 items 5 s (an agentmemory daily log is such a list), where Rich draws it at once."""


RENDER_CHARS = 200_000
"""A memory body longer than this, or of more than ``MAX_RAW_LINES`` lines, is not rendered:
its first lines are shown as text, as ``r`` shows a long MEMORY.md (a 3 MB access log pasted
into a memory took Textual's Markdown 18 s and Rich's 40 s, the UI frozen meanwhile)."""


def long_body(text: str) -> bool:
    return text.count("\n") >= LONG_MARKDOWN_LINES


def too_big_to_render(text: str) -> bool:
    return len(text) > RENDER_CHARS or text.count("\n", 0, RENDER_CHARS) >= MAX_RAW_LINES


def rich_markdown(text: str) -> RichMarkdown:
    """``text`` (a body from disk, controls escaped) drawn by Rich's Markdown: it parses no
    Rich markup, and a link shows as its text and its target, not as a terminal hyperlink
    (a memory's links are never followed)."""
    return RichMarkdown(text, hyperlinks=False)


class DetailPane(ReportsWork, VerticalScroll):
    """Shows the selected store, MEMORY.md or memory. Reads happen in a job."""

    DEFAULT_CSS = """
    DetailPane > #detail-pinned {
        dock: top;
        height: auto;
        padding-bottom: 1;
        background: $surface;
    }
    DetailPane > #detail-health, DetailPane > #detail-raw, DetailPane > #detail-long,
    DetailPane > #detail-hit, DetailPane > #detail-after {
        display: none;
    }
    """

    can_focus = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ref: NodeRef | None = None
        self.raw_mode = False
        self.loaded: LoadedMemory | None = None
        self._read_cache: dict[str, tuple[StatKey, LoadedMemory]] = {}
        self._index_cache: tuple[LoadReport, RenderedOnce] | None = None
        self._lines_cache: tuple[str, LoadReport, RenderedOnce] | None = None
        self._keep_y: float | None = None
        self.hit_line: tuple[str, int] | None = None
        """(node key, line): the memory is shown at that line (a search hit) until another
        node is shown or ``r`` is pressed."""
        self.team_fates: dict[str, Text] = {}
        """Each team file's push fate (by absolute path), from the Team pane's check."""

    def compose(self) -> ComposeResult:
        yield Static("", id="detail-pinned")
        yield Static("", id="detail-health")
        yield Static(Text("Select a memory to read it.", style="dim"), id="detail-head")
        yield Markdown("", id="detail-body", open_links=False)
        yield Static("", id="detail-long")
        yield Static("", id="detail-raw")
        yield Static("", id="detail-hit")
        yield Static("", id="detail-after")

    def set_team_fates(self, fates: dict[str, Text]) -> None:
        """The Team pane's push check came: a team memory shown says its new fate (after
        ``X`` it was "refused: secret", now "push")."""
        self.team_fates = fates
        loaded = self.loaded
        if loaded is not None and loaded.ref.memory is not None and (
            loaded.ref.memory.file in fates and loaded.ref == self.ref
        ):
            self._render_loaded(loaded)

    def show(self, ref: NodeRef | None) -> None:
        self.ref = ref
        self._keep_y = None
        self.loaded = None
        if self.hit_line is not None and (ref is None or ref.key != self.hit_line[0]):
            self.hit_line = None
        self._show_hit_parts(False)
        self.set_pinned(None)
        self.scroll_home(animate=False)
        head = self.query_one("#detail-head", Static)
        # hidden, not emptied (that re-lays the screen out again): updated before it shows again
        self.query_one("#detail-body", Markdown).display = False
        self.query_one("#detail-long", Static).display = False
        self.query_one("#detail-health", Static).display = False
        steady.show(self.query_one("#detail-raw", Static), "")
        if ref is None:
            self.border_title = None  # nothing shown: no name left over from before
            head.update(Text("Select a memory to read it.", style="dim"))
            return
        if ref.memory is None:
            head.update(store_summary(ref.store))
            self.border_title = content(ref.store.title)
            return
        self.border_title = content(ref.memory.rel_path)
        head.update(Text(f"reading {line(ref.memory.rel_path)} …", style="dim"))
        self.load(ref)

    def follow(self, fresh: NodeRef | None) -> None:
        """The stores were refreshed and ``fresh`` is the item on show in them (None: it is
        gone). It is drawn again only when what the pane shows of it changed: another memory
        object (its file changed), a store's summary, a MEMORY.md whose report changed (from
        the text already read, scrolled where it was), or a memory whose index entries or
        topic file did; otherwise the pane only takes the new objects (a 3,000-line MEMORY.md
        is not read and drawn again because another file of its store came)."""
        ref, loaded = self.ref, self.loaded
        if (ref is None or fresh is None or ref.memory is None or fresh.memory is not ref.memory
                or loaded is None or loaded.ref is not ref):
            self.show(fresh)
            return
        memory = fresh.memory
        old_index, new_index = ref.store.index, fresh.store.index
        pointers = None
        if old_index is not new_index and not main_index(memory):
            pointers = [str(t) for t in index_pointers(ref.store, memory)]
        self.ref = fresh
        self.loaded = replace(loaded, ref=fresh)
        if old_index is new_index:
            return
        if main_index(memory) or pointers != [str(t)
                                              for t in index_pointers(fresh.store, memory)]:
            self._render_loaded(self.loaded)

    def load(self, ref: NodeRef) -> None:
        """Read the memory of ``ref`` in a worker (its label, never the NodeRef, describes the
        worker: a repr of the whole store and its index report costs seconds)."""
        memory = ref.memory
        assert memory is not None
        run_flow(self, partial(self._load, ref), group="detail",
                 label=f"reading {line(memory.rel_path)}", title="Detail")

    async def _load(self, ref: NodeRef) -> None:
        self._render_loaded(await in_thread(lambda: self._read(ref)))

    def worker_ended(self, worker: Worker[Any], failure: str | None) -> None:
        """A read that failed says so in the pane too (it said "reading x.md …")."""
        memory = None if self.ref is None else self.ref.memory
        if failure is not None and memory is not None and (
            worker.name == f"reading {line(memory.rel_path)}"
        ):
            self.query_one("#detail-head", Static).update(Text(line(failure), style="bold red"))

    def _read(self, ref: NodeRef) -> LoadedMemory:
        memory = ref.memory
        assert memory is not None
        path = str(memory.path)
        key = file_key(path)
        cached = self._read_cache.get(path)
        if key is not None and cached is not None and cached[0] == key:
            return replace(cached[1], ref=ref)
        text, problems = load_full_text(memory, ref.store.path)
        check()
        masked = masked_file(text, path=memory.rel_path)  # shown, never the secrets themselves
        raw = masked.text
        fm = parse_frontmatter(raw.lstrip("\ufeff").replace("\r", ""))
        secrets = list(zip(masked.findings, masked.lines, strict=True))
        loaded = LoadedMemory(ref, raw, fm, body_of(raw, fm), problems, secrets)
        if key is not None and file_key(path) == key:  # unchanged while it was read
            self._read_cache.pop(path, None)
            self._read_cache[path] = (key, loaded)
            while len(self._read_cache) > CACHED_FILES:
                del self._read_cache[next(iter(self._read_cache))]
        return loaded

    def _render_loaded(self, loaded: LoadedMemory) -> None:
        if self.ref != loaded.ref:
            return
        self.loaded = loaded
        memory = loaded.ref.memory
        assert memory is not None
        head = self.query_one("#detail-head", Static)
        markdown = self.query_one("#detail-body", Markdown)
        long = self.query_one("#detail-long", Static)
        long.display = False  # shown below for a long body only
        raw = self.query_one("#detail-raw", Static)
        store = loaded.ref.store
        is_main_index = memory.is_index and memory.rel_path == INDEX_NAME
        if self._render_hit(loaded, is_main_index):
            return
        self._show_hit_parts(False)
        health = self.query_one("#detail-health", Static)  # the MEMORY.md view's own
        health.display = is_main_index and store.index is not None and not self.raw_mode
        if is_main_index and store.index is not None:
            self.set_pinned(index_pinned(store.index))
            markdown.display = False
            raw.display = self.raw_mode
            if self.raw_mode:
                head.update(Text("raw file (r: back to the numbered view)", style="dim"))
                raw.update(raw_lines(loaded.text))
            else:
                parts, lines = self._index_content(store.index, loaded.text)
                for widget, content in ((health, parts), (head, lines)):
                    if widget.content is not content:  # the same: not drawn again
                        widget.update(content)
            return
        head.update(memory_meta(loaded.ref, loaded, self.team_fates.get(memory.file)))
        unreadable = any("binary" in p or "cannot read" in p for p in loaded.problems)
        show_raw = self.raw_mode or unreadable or (store.kind == StoreKind.SNAPSHOT and not (
            memory.rel_path.endswith(".md")
        ))
        big = not unreadable and too_big_to_render(loaded.text)
        raw.display = show_raw or big
        if show_raw or big:
            markdown.display = False
            if unreadable:
                raw.update(Text("(contents not shown)"))
            elif big:  # its first lines, as text, rendered or raw
                raw.update(raw_lines(loaded.text if show_raw else loaded.body))
            else:
                raw.update(Text(body(loaded.text)))
        elif long_body(loaded.body):
            markdown.display = False
            long.update(rich_markdown(body(loaded.body)))
            long.display = True
        elif markdown.display:
            markdown.update(body(loaded.body))
        else:  # shown once updated: what it held before never shows
            self.call_later(self._reveal_markdown, markdown, body(loaded.body), loaded.ref)

    def show_line(self, ref: NodeRef, number: int) -> None:
        """Show ``ref`` at line ``number`` (a search hit): the file's lines around it, that
        line highlighted and scrolled into view. The pane shows ``ref`` once it is selected
        (drawn again at once when it already shows it)."""
        self.hit_line = (ref.key, number)
        loaded = self.loaded
        if self.ref is not None and self.ref.key == ref.key and loaded is not None and (
            loaded.ref.key == ref.key
        ):
            self._render_loaded(loaded)

    def _render_hit(self, loaded: LoadedMemory, is_main_index: bool) -> bool:
        """Draw the search hit's view of ``loaded`` if one is asked for; False otherwise."""
        hit = self.hit_line
        if hit is None or hit[0] != loaded.ref.key:
            return False
        unreadable = any("binary" in p or "cannot read" in p for p in loaded.problems)
        window = None if unreadable else hit_window(loaded.text, hit[1])
        if window is None:
            self.hit_line = None
            return False
        store = loaded.ref.store
        self.set_pinned(index_pinned(store.index) if is_main_index and store.index else None)
        view = "numbered" if is_main_index else "rendered"
        self.query_one("#detail-head", Static).update(Text(
            f"line {hit[1]}: the search hit (r: back to the {view} view)", style="dim"))
        self.query_one("#detail-body", Markdown).display = False
        self.query_one("#detail-long", Static).display = False
        self.query_one("#detail-health", Static).display = False
        before, line_text, after = window
        self.query_one("#detail-raw", Static).update(before)
        self.query_one("#detail-hit", Static).update(line_text)
        self.query_one("#detail-after", Static).update(after)
        self.query_one("#detail-raw", Static).display = bool(before.plain)
        self._show_hit_parts(True)
        self.call_after_refresh(self._scroll_to_hit)
        return True

    def _show_hit_parts(self, shown: bool) -> None:
        for part in ("#detail-hit", "#detail-after"):
            self.query_one(part, Static).display = shown

    def _scroll_to_hit(self) -> None:
        if self.hit_line is not None:
            self.scroll_to_center(self.query_one("#detail-hit", Static), animate=False,
                                  immediate=True)

    def jump_to_cut(self) -> str | None:
        """Scroll the MEMORY.md view to its cut line (where Claude stops reading); why not,
        when it cannot (no MEMORY.md on show, or nothing is cut)."""
        loaded = self.loaded
        memory = loaded.ref.memory if loaded is not None else None
        if loaded is None or memory is None or not (
            memory.is_index and memory.rel_path == INDEX_NAME and loaded.ref.store.index
        ):
            return "Select a store's MEMORY.md: c jumps to the line where Claude stops reading."
        report = loaded.ref.store.index
        assert report is not None
        if report.cut_line is None:
            return f"Claude reads all of this MEMORY.md ({report.lines} lines): nothing is cut."
        if self.raw_mode or self.hit_line is not None:
            self.raw_mode = False
            self.hit_line = None
            self._render_loaded(loaded)
        self.call_after_refresh(self._scroll_to_cut, report, loaded.text)
        return None

    def _scroll_to_cut(self, report: LoadReport, raw: str) -> None:
        head = self.query_one("#detail-head", Static)
        row = cut_row(report, raw, self.app.console, head.size.width)
        # the pinned meter covers the top rows of the view: the banner goes just below it,
        # a few numbered lines above it still in sight
        pinned = self.query_one("#detail-pinned", Static).outer_size.height
        y = head.virtual_region.y + row - pinned - CUT_CONTEXT
        self.scroll_to(y=max(0, y), animate=False, immediate=True)

    async def _reveal_markdown(self, markdown: Markdown, text: str, ref: NodeRef) -> None:
        await markdown.update(text)
        if self.ref == ref and self.loaded is not None and self.loaded.ref == ref:
            markdown.display = True
            self.call_after_refresh(self._restore_scroll)

    def index_changed(self, stores: list[Store]) -> None:
        """These stores have a new index report: a MEMORY.md of one of them on show is drawn
        again (where it is scrolled to stays)."""
        loaded = self.loaded
        if loaded is None or loaded.ref.memory is None or not loaded.ref.memory.is_index:
            return
        if any(loaded.ref.store is store for store in stores):
            self._render_loaded(loaded)

    def _index_content(self, report: LoadReport, raw: str) -> tuple[RenderedOnce, RenderedOnce]:
        """The MEMORY.md view: its health (``#detail-health``) and its numbered lines
        (``#detail-head``), each made again only when what it shows changed (the report and
        the text are the same objects while the file is unchanged; a live refresh that changes
        the health alone, a new orphan, makes the health again, not 3,000 numbered lines)."""
        cached = self._index_cache
        if cached is None or cached[0] is not report:
            cached = (report, health_view(report))
            self._index_cache = cached
        lines = self._lines_cache
        if lines is None or lines[0] is not raw or not same_lines(lines[1], report):
            lines = (raw, report, numbered_view(raw, report))
            self._lines_cache = lines
        return cached[1], lines[2]

    def set_pinned(self, pinned_content: RenderableType | None) -> None:
        """Content that stays at the top while the rest scrolls (the MEMORY.md meter)."""
        pinned = self.query_one("#detail-pinned", Static)
        if pinned_content is None:
            steady.show(pinned, "")  # most often already empty: not laid out again
        else:
            pinned.update(pinned_content)
        pinned.display = pinned_content is not None

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A link in a memory is never followed (its target comes from the file: a URL, a
        ``file:`` path, a scheme some program handles): its target is only shown."""
        event.stop()
        self.notify(line(event.href), title="Link (not opened)", markup=False)

    def toggle_raw(self) -> None:
        """Raw text or the rendered view of the shown file, scrolled where it was (from a
        search hit's view: the view it was in)."""
        if self.hit_line is not None:
            self.hit_line = None
            if self.loaded is not None:
                self._render_loaded(self.loaded)
                self.scroll_home(animate=False)
            return
        self.raw_mode = not self.raw_mode
        if self.loaded is not None:
            self._keep_y = self.scroll_y
            self._render_loaded(self.loaded)
            self.call_after_refresh(self._restore_scroll)

    def _restore_scroll(self, tries: int = 8) -> None:
        """Back where the view was before :meth:`toggle_raw` swapped it, once its new content
        is laid out (a long text or a Markdown body takes a refresh or more)."""
        keep = self._keep_y
        if keep is None:
            return
        if self.max_scroll_y < keep and tries > 0:
            self.call_after_refresh(self._restore_scroll, tries - 1)
            return
        self.scroll_to(y=keep, animate=False, immediate=True)
