"""A pane's tree of stores, folders and memories, rebuilt in place without losing the cursor.

Each row is fitted to the pane when it is drawn: a name is shortened before its badges and
marks (:func:`memtui.tui.labels.fit`), and a wide tree (zoomed, or the one pane of a narrow
terminal) shows each memory's size, age and description after its name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Tree
from textual.widgets.tree import NodeID, TreeNode

from memtui.core.age import age_text
from memtui.core.contents import Memory, Store
from memtui.core.write.prune import human_size
from memtui.tui import clock
from memtui.tui.labels import TYPE_STYLE, Label, fit
from memtui.tui.marks import MARK_GLYPH, MarkedMemories
from memtui.tui.nodes import MemoryBadges, NodeRef, badges_for_store
from memtui.tui.plain import line, text

StoreLabeler = Callable[[Store], Label]

FIRST_CHUNK = 400
"""Memory nodes added at once when a tree is filled: more than a screen."""

CHUNK = 1500
"""Memory nodes added per later step."""

WIDE_ROW = 72
"""A tree at least this wide shows size, age and description after each memory's name."""
NAME_COLUMN = 34
"""Cells of a wide row's label column (name, type letter, marks)."""


CONFLICT_GLYPH = "≠"
UNRECALLED_GLYPH = "⊘"
"""A memory past the 200 newest of its directory: Claude Code's recall is never offered it."""
"""A memory in a pair the judge says needs a decision (``J`` shows it)."""


def memory_label(memory: Memory, marks: MemoryBadges, *, marked: bool = False) -> Label:
    name = memory.rel_path.rsplit("/", 1)[-1]
    tail = Text()
    if memory.type:
        tail.append(f" {line(memory.type[0])}", style=TYPE_STYLE.get(memory.type, ""))
    glyphs = marks.glyphs()
    if glyphs:
        tail.append(f" {glyphs}", style="red" if marks.problems else "yellow")
    shown = Text(f"{MARK_GLYPH} ", style="bold reverse") if marked else Text()
    shown.append_text(text(name, style="bold" if memory.is_index else ""))
    return Label(shown, tail)


def index_label(store: Store) -> Label:
    report = store.index
    name = Text("MEMORY.md", style="bold")
    if report is None:
        return Label(name)
    if report.binds != "none":
        return Label(name, Text(f" ▲ {report.lines}/200", style="bold red"))
    return Label(name, Text(f" {report.lines}/200", style="dim"))


def details(memory: Memory, width: int) -> Text:
    """Size, age and description of a memory, for a wide row (``width`` cells)."""
    out = Text(f"{human_size(memory.size):>9}  {age_text(memory.mtime, clock.now()):<13}",
               style="dim")
    if memory.description:
        out.append(f" {line(memory.description)}", style="italic")
    out.truncate(width, overflow="ellipsis")
    return out


class StoreTree(Tree[NodeRef]):
    """One pane: either a single store's files at the top level, or one node per store."""

    DEFAULT_CSS = """
    StoreTree { background: $surface; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # over Tree's own space (expand/collapse, which enter also does)
        Binding("space", "screen.toggle_mark", "Mark", show=False, id="memory.mark"),
    ]

    def __init__(
        self,
        labeler: StoreLabeler | None = None,
        *,
        single: bool = False,
        empty_text: str = "nothing here",
        name: str | None = None,
        id: str | None = None,
        marks: MarkedMemories | None = None,
    ) -> None:
        super().__init__("stores", name=name, id=id)
        self.show_root = False
        self.guide_depth = 2
        self._labeler = labeler
        self._single = single
        self._empty_text = empty_text
        self.stores: list[Store] = []
        self._filled = False
        self._generation = 0
        self._pending: list[_PendingItems] = []
        self.marks: MarkedMemories | None = marks
        """The screen's marked memories, drawn in the labels (None: no marks)."""
        self.banner: Text | None = None
        """A first row above the stores (the Team pane's push check), None: none."""
        self.fates: dict[str, Text] = {}
        """Words after a memory's label, by absolute path (each team file's push fate)."""
        self.conflicts: frozenset[str] = frozenset()
        self.unrecalled: frozenset[str] = frozenset()
        """Memories (absolute paths) recall is never offered (past the 200 newest)."""
        """Absolute paths of the memories in a pair that needs a decision (``≠``)."""
        self._tails: dict[NodeID, tuple[int, int]] = {}
        """Each label's tail and badge lengths (:attr:`memtui.tui.labels.Label.kept`)."""

    def show_marks(self, keys: Iterable[str]) -> None:
        """Draw the labels of the memories with these keys again (marked or unmarked)."""
        wanted = set(keys)
        if not wanted:
            return
        store_marks: dict[int, dict[str, MemoryBadges]] = {}
        for node in self._all_nodes():
            ref = node.data
            if ref is None or ref.memory is None or ref.key not in wanted:
                continue
            if ref.memory.is_index and "/" not in ref.memory.rel_path:
                continue
            marks = store_marks.get(id(ref.store))
            if marks is None:
                marks = store_marks[id(ref.store)] = badges_for_store(ref.store)
            self.relabel(node, self._memory_label(ref.store, ref.memory, marks))

    def _memory_label(
        self, store: Store, memory: Memory, marks: dict[str, MemoryBadges]
    ) -> Label:
        """A memory's label: its marks (and ``●`` when marked), ``≠`` when the judge raised
        it, and a team file's push fate as the badge (kept whole when the row is narrow)."""
        found = marks.get(memory.rel_path)
        marked = self.marks is not None and NodeRef(store, memory).key in self.marks
        label = memory_label(memory, found or MemoryBadges(), marked=marked)
        if memory.file in self.conflicts:
            label.tail.append(f" {CONFLICT_GLYPH}", style="bold magenta")
        if memory.file in self.unrecalled:
            label.tail.append(f" {UNRECALLED_GLYPH}", style="dim")
        fate = self.fates.get(memory.file)
        if fate is not None:
            label = replace(label, badge=Text("  ").append_text(fate))
        return label

    def set_notes(self, banner: Text | None, fates: dict[str, Text]) -> None:
        """Show ``banner`` first and ``fates`` after the memories' labels (the tree is drawn
        again, cursor and expanded nodes kept)."""
        self.banner, self.fates = banner, fates
        if self._filled:
            self._filled = False
            self.set_stores(self.stores)

    def set_conflicts(self, paths: frozenset[str]) -> None:
        """Mark the memories in ``paths`` with ``≠`` (the tree is drawn again when it changes)."""
        if paths == self.conflicts:
            return
        self.conflicts = paths
        if self._filled:
            self._filled = False
            self.set_stores(self.stores)

    def set_unrecalled(self, paths: frozenset[str]) -> None:
        """Mark the memories in ``paths`` with ``⊘``: invisible to recall (drawn again when
        it changes)."""
        if paths == self.unrecalled:
            return
        self.unrecalled = paths
        if self._filled:
            self._filled = False
            self.set_stores(self.stores)

    def add_label(
        self, parent: TreeNode[NodeRef], label: Label, ref: NodeRef, *, leaf: bool
    ) -> TreeNode[NodeRef]:
        whole = label.text()
        node = parent.add_leaf(whole, data=ref) if leaf else parent.add(whole, data=ref)
        self._tails[node.id] = label.kept
        return node

    def relabel(self, node: TreeNode[NodeRef], label: Label) -> None:
        """Give ``node`` a new label (fitted like the ones it was added with)."""
        node.set_label(label.text())
        self._tails[node.id] = label.kept

    def render_label(self, node: TreeNode[NodeRef], base_style: Style, style: Style) -> Text:
        """The label fitted to the row (the name shortened first); in a wide tree a memory's
        size, age and description follow it."""
        label = super().render_label(node, base_style, style)
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth
        tail, badge = self._tails.get(node.id, (0, 0))
        memory = node.data.memory if node.data is not None else None
        if room < WIDE_ROW or memory is None:
            return fit(label, tail, room, badge)
        column = max(NAME_COLUMN - depth * self.guide_depth, 12)
        label = fit(label, tail, column, badge)
        end = len(label)
        label.pad_right(column - label.cell_len)
        label.append_text(details(memory, room - column))
        label.stylize(style, end)  # the cursor's highlight spans the whole row
        return label

    def watch_show_vertical_scrollbar(self, _shown: bool) -> None:
        """The labels are fitted to the width beside the scrollbar: when it comes or goes
        that width changes while the widget's does not, and Textual's line cache (keyed by the
        widget's width) would keep rows fitted to the old one (cut instead of ending in …)."""
        self._invalidate()

    def get_label_width(self, node: TreeNode[NodeRef]) -> int:
        """The label's own width (cheap: a tree of thousands asks it of every node)."""
        return node._label.cell_len + 2

    def on_focus(self) -> None:
        """Entering a pane puts the cursor on its first item, so Enter and the detail work."""
        if self.cursor_line < 0 and self.last_line >= 0:
            self.cursor_line = 0

    def set_stores(
        self,
        stores: Iterable[Store],
        *,
        empty_text: str | None = None,
        labeler: StoreLabeler | None = None,
    ) -> None:
        """Replace the content, keeping the expanded nodes and the cursor where they were;
        ``empty_text`` (shown when there is no store) and ``labeler`` (a store's label)
        replace the tree's own when given.

        The same store objects as last time (a refresh that rescanned other stores) leave the
        tree untouched; the restored cursor is not announced, so the detail pane stays on
        what the user chose even when this tree is not the one in focus."""
        if empty_text is not None:
            self._empty_text = empty_text
        if labeler is not None:
            self._labeler = labeler
        new_stores = list(stores)
        if self._filled and len(new_stores) == len(self.stores) and all(
            new is old for new, old in zip(new_stores, self.stores, strict=True)
        ):
            return
        self._filled = True
        expanded = {n.data.key for n in self._all_nodes() if n.is_expanded and n.data}
        cursor = self.cursor_node.data.key if self.cursor_node and self.cursor_node.data else None
        self.stores = new_stores
        self.clear()
        self._tails.clear()
        self._generation += 1
        self._pending = []
        if self.banner is not None and self.stores:
            self.root.add_leaf(self.banner, data=NodeRef(self.stores[0]))
        if not self.stores:
            self.root.add_leaf(Text(self._empty_text, style="dim italic"))
        for store in self.stores:
            if self._single:
                self._add_store_items(self.root, store, expanded)
            else:
                self._add_store_node(store, expanded)
        self.root.expand()
        self._add_pending(self._generation, FIRST_CHUNK, cursor)

    def _add_pending(self, generation: int, budget: int, cursor: str | None) -> None:
        """Add queued memory nodes, ``budget`` at a time between refreshes, so a store of
        thousands of files shows its first screen at once; then restore the cursor."""
        if generation != self._generation:
            return  # a newer set_stores replaced the content
        while self._pending and budget > 0:
            job = self._pending[-1]
            taken = job.add(self, budget)
            budget -= taken
            if job.done:
                self._pending.pop()
        if self._pending:
            self.set_timer(0.01, lambda: self._add_pending(generation, CHUNK, cursor))
        elif cursor is not None:
            self.call_after_refresh(self._restore_cursor, cursor)

    def _restore_cursor(self, key: str) -> None:
        node = self._node_with_key(key)
        if node is not None:
            self._expand_parents(node)
            self.call_after_refresh(self._move_quietly, node)
        elif self.has_focus and self.cursor_node is not None:
            # the item went away: the detail follows the node now under the cursor
            self.post_message(Tree.NodeHighlighted(self.cursor_node))

    def _move_quietly(self, node: TreeNode[NodeRef]) -> None:
        with self.prevent(Tree.NodeHighlighted):
            self._move_to(node)

    def _node_with_key(self, key: str) -> TreeNode[NodeRef] | None:
        for node in self._all_nodes():
            if node.data and node.data.key == key:
                return node
        return None

    def _all_nodes(self) -> list[TreeNode[NodeRef]]:
        out: list[TreeNode[NodeRef]] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(node.children)
        return out

    def select_key(self, key: str) -> bool:
        """Move the cursor to the node with ``key``; False when it is gone."""
        node = self._node_with_key(key)
        if node is None and self._pending:
            self._add_pending(self._generation, sum(len(j.memories) for j in self._pending), None)
            node = self._node_with_key(key)
        if node is None:
            return False
        self._expand_parents(node)
        self.call_after_refresh(self._move_to, node)
        return True

    @staticmethod
    def _expand_parents(node: TreeNode[NodeRef]) -> None:
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent

    def _move_to(self, node: TreeNode[NodeRef]) -> None:
        if node.line >= 0:
            self.move_cursor(node)

    def _add_store_node(self, store: Store, expanded: set[str]) -> None:
        ref = NodeRef(store)
        label = self._labeler(store) if self._labeler else Label(text(store.title))
        node = self.add_label(self.root, label, ref, leaf=False)
        self._add_store_items(node, store, expanded)
        if ref.key in expanded:
            node.expand()

    def _add_store_items(
        self, parent: TreeNode[NodeRef], store: Store, expanded: set[str]
    ) -> None:
        if not store.location.enabled:
            parent.add_leaf(
                Text(f"disabled: {line(store.location.enabled_rule)}", style="dim italic"),
                data=NodeRef(store),
            )
        if not store.exists:
            parent.add_leaf(Text("(no directory yet)", style="dim italic"), data=NodeRef(store))
            return
        if not store.memories:
            parent.add_leaf(Text("(empty)", style="dim italic"), data=NodeRef(store))
            return
        job = _PendingItems(parent, store, expanded, sorted(store.memories, key=sort_key))
        self._pending.insert(0, job)

    def _add_memory(self, job: _PendingItems, memory: Memory) -> None:
        folder = memory.rel_path.rsplit("/", 1)[0] if "/" in memory.rel_path else ""
        node_parent = self._folder_node(job.folders, job.store, folder, job.expanded)
        label = (
            index_label(job.store)
            if memory.is_index and folder == ""
            else self._memory_label(job.store, memory, job.marks)
        )
        self.add_label(node_parent, label, NodeRef(job.store, memory), leaf=True)

    def _folder_node(
        self,
        folders: dict[str, TreeNode[NodeRef]],
        store: Store,
        folder: str,
        expanded: set[str],
    ) -> TreeNode[NodeRef]:
        if folder in folders:
            return folders[folder]
        head, _, tail = folder.rpartition("/")
        parent = self._folder_node(folders, store, head, expanded)
        ref = NodeRef(store, folder=folder)
        node = parent.add(Text(f"{line(tail)}/", style="bold blue"), data=ref)
        if ref.key in expanded:
            node.expand()
        folders[folder] = node
        return node


class _PendingItems:
    """The memory nodes of one store still to be added to a tree."""

    def __init__(
        self,
        parent: TreeNode[NodeRef],
        store: Store,
        expanded: set[str],
        memories: list[Memory],
    ) -> None:
        self.store = store
        self.expanded = expanded
        self.memories = memories
        self.position = 0
        self.marks = badges_for_store(store)
        self.folders: dict[str, TreeNode[NodeRef]] = {"": parent}

    @property
    def done(self) -> bool:
        return self.position >= len(self.memories)

    def add(self, tree: StoreTree, budget: int) -> int:
        end = min(len(self.memories), self.position + budget)
        for memory in self.memories[self.position : end]:
            tree._add_memory(self, memory)
        taken = end - self.position
        self.position = end
        return taken


def sort_key(memory: Memory) -> tuple[int, int, str]:
    """MEMORY.md first, then top-level files before subfolders, then by path."""
    depth = memory.rel_path.count("/")
    return (0 if memory.is_index and depth == 0 else 1, depth, memory.rel_path)

