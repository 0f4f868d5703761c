"""A pane's tree of stores, folders and memories, rebuilt in place without losing the cursor.

Each row is fitted to the pane when it is drawn: a name is shortened before its badges and
marks (:func:`memtui.tui.labels.fit`), and a wide tree (zoomed, or the one pane of a narrow
terminal) shows each memory's size, age and description after its name."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text, TextType
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.widgets import Tree
from textual.widgets.tree import NodeID, TreeNode

from memtui.core.age import age_text
from memtui.core.contents import Memory, Store
from memtui.core.write.prune import human_size
from memtui.tui import clock
from memtui.tui.labels import TYPE_STYLE, Label, fit
from memtui.tui.marks import MARK_GLYPH, MarkedMemories
from memtui.tui.nodes import MemoryBadges, NodeRef, badges_for_store, badges_updated
from memtui.tui.plain import line, text

StoreLabeler = Callable[[Store], Label]

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


FEW_LINE_EDITS = 16
"""Up to this many top-level rows coming or going, a refresh edits Textual's list of the
tree's lines in place (:meth:`StoreTree._splice_lines`); more, and the list is built again."""

PLACEHOLDER = Text("…")
"""The label of a memory node not drawn yet: its real label is made when first read
(:class:`_Node`), so a tree of thousands of memories makes only the labels it shows."""


class _Node(TreeNode[NodeRef]):
    """A tree node whose label may be made when it is first read (drawn, or asked for): a
    memory's label is marked stale when what it shows changes, and made again then."""

    _stale = False

    @property
    def _label(self) -> Text:
        if self._stale:
            self._stale = False
            tree = self._tree
            assert isinstance(tree, StoreTree)
            self._text = tree.fresh_label(self)
        return self._text

    @_label.setter
    def _label(self, value: Text) -> None:
        self._text = value
        self._stale = value is PLACEHOLDER


@dataclass
class _Slot:
    """One store's nodes in a tree: where its items hang (the root of a single-store tree, or
    the store's own node), its folder and memory nodes by path, and its notices (disabled,
    no directory, empty)."""

    store: Store
    parent: TreeNode[NodeRef]
    node: TreeNode[NodeRef] | None = None
    folders: dict[str, TreeNode[NodeRef]] = field(default_factory=dict)
    items: dict[str, TreeNode[NodeRef]] = field(default_factory=dict)
    notices: list[TreeNode[NodeRef]] = field(default_factory=list)


def _shape(store: Store) -> tuple[bool, bool, bool]:
    """What decides a store's notices: enabled, exists, holds memories."""
    return (store.location.enabled, store.exists, bool(store.memories))


def _layout(memories: list[Memory]) -> dict[str, list[tuple[bool, str]]]:
    """Each folder's children (``""``: the store's top level), in the order a tree shows them:
    ``(True, folder)`` or ``(False, memory path)``; memories sorted by :func:`sort_key`, a
    folder placed where its first memory comes."""
    layout: dict[str, list[tuple[bool, str]]] = {"": []}
    for memory in sorted(memories, key=sort_key):
        rel = memory.rel_path
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        # the folders on the way, outermost first, each added to its parent once
        missing: list[str] = []
        at = folder
        while at not in layout:
            missing.append(at)
            at = at.rpartition("/")[0]
        for sub in reversed(missing):
            layout[sub] = []
            layout[sub.rpartition("/")[0]].append((True, sub))
        layout[folder].append((False, rel))
    return layout


class StoreTree(Tree[NodeRef]):
    """One pane: either a single store's files at the top level, or one node per store.

    A refresh that brings new store objects changes only the nodes of the memories that
    changed (and of those whose badges did): the other nodes, the cursor, the expanded
    folders and the scroll position stay. Memory labels are made when first drawn."""

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
        self._slots: dict[Path, _Slot] = {}
        self._banner_node: TreeNode[NodeRef] | None = None
        self._badges: dict[int, tuple[Store, dict[str, MemoryBadges]]] = {}
        self.marks: MarkedMemories | None = marks
        """The screen's marked memories, drawn in the labels (None: no marks)."""
        self.banner: Text | None = None
        """A first row above the stores (the Team pane's push check), None: none."""
        self.fates: dict[str, Text] = {}
        """Words after a memory's label, by absolute path (each team file's push fate)."""
        self.conflicts: frozenset[str] = frozenset()
        """Absolute paths of the memories in a pair that needs a decision (``≠``)."""
        self.unrecalled: frozenset[str] = frozenset()
        """Memories (absolute paths) recall is never offered (past the 200 newest)."""
        self._tails: dict[NodeID, tuple[int, int]] = {}
        """Each label's tail and badge lengths (:attr:`memtui.tui.labels.Label.kept`)."""
        self._line_edits: list[tuple[bool, TreeNode[NodeRef]]] | None = None
        """During :meth:`_update`: the top-level rows :meth:`_place` added (True) or removed
        (False), in that order; None: the tree changed otherwise (its lines built again)."""

    # labels ------------------------------------------------------------------------------

    def process_label(self, label: TextType) -> Text:
        """A one-line label as it is (Textual's splits every label into lines, twice per
        node: a tree of thousands pays for it); anything else as Textual makes it."""
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    def _badges_for(self, store: Store) -> dict[str, MemoryBadges]:
        """``badges_for_store(store)``, made once per store object."""
        kept = self._badges.get(id(store))
        if kept is None or kept[0] is not store:
            kept = self._badges[id(store)] = (store, badges_for_store(store))
        return kept[1]

    def fresh_label(self, node: TreeNode[NodeRef]) -> Text:
        """The label a memory node shows now (made when it is drawn or read)."""
        ref = node.data
        assert ref is not None and ref.memory is not None
        memory = ref.memory
        if memory.is_index and "/" not in memory.rel_path:
            label = index_label(ref.store)
        else:
            label = self._memory_label(ref.store, memory, self._badges_for(ref.store))
        self._tails[node.id] = label.kept
        return label.text()

    def _stale(self, nodes: Iterable[TreeNode[NodeRef]]) -> None:
        """Make these nodes' labels again when they are next drawn."""
        touched = False
        for node in nodes:
            if isinstance(node, _Node):
                node._label = PLACEHOLDER
                node._updates += 1
                touched = True
        if touched:
            self._updates += 1
            self._line_cache.clear()
            self.refresh()

    def _memory_nodes(self) -> Iterator[TreeNode[NodeRef]]:
        for slot in self._slots.values():
            yield from slot.items.values()

    def show_marks(self, keys: Iterable[str]) -> None:
        """Draw the labels of the memories with these keys again (marked or unmarked)."""
        wanted = set(keys)
        if wanted:
            self._stale(n for n in self._memory_nodes()
                        if n.data is not None and n.data.key in wanted)

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

    def _stale_files(self, files: set[str]) -> None:
        """Draw again the memories whose absolute paths are in ``files``."""
        if files:
            self._stale(n for n in self._memory_nodes()
                        if n.data is not None and n.data.memory is not None
                        and n.data.memory.file in files)

    def set_notes(self, banner: Text | None, fates: dict[str, Text]) -> None:
        """Show ``banner`` first and ``fates`` after the memories' labels (only the rows whose
        words changed are drawn again; cursor and expanded nodes kept)."""
        old_banner, old_fates = self.banner, self.fates
        self.banner, self.fates = banner, fates
        if not self._filled:
            return
        if (old_banner is None) != (banner is None):
            self._filled = False
            self.set_stores(self.stores)
            return
        if banner is not None and self._banner_node is not None and (
            old_banner is None or old_banner.plain != banner.plain
            or old_banner.spans != banner.spans
        ):
            self._banner_node.set_label(banner)
        changed = {path for path in old_fates.keys() | fates.keys()
                   if (old_fates.get(path), fates.get(path)) != (None, None)
                   and not _same_text(old_fates.get(path), fates.get(path))}
        self._stale_files(changed)

    def set_conflicts(self, paths: frozenset[str]) -> None:
        """Mark the memories in ``paths`` with ``≠`` (the rows that change are drawn again)."""
        if paths == self.conflicts:
            return
        changed = set(paths ^ self.conflicts)
        self.conflicts = paths
        self._stale_files(changed)

    def set_unrecalled(self, paths: frozenset[str]) -> None:
        """Mark the memories in ``paths`` with ``⊘``: invisible to recall (the rows that
        change are drawn again)."""
        if paths == self.unrecalled:
            return
        changed = set(paths ^ self.unrecalled)
        self.unrecalled = paths
        self._stale_files(changed)

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
        """The label's own width (cheap: a tree of thousands asks it of every node; a label
        not made yet is not made for it: its name and a few marks)."""
        if isinstance(node, _Node) and node._stale:
            memory = node.data.memory if node.data is not None else None
            return (len(memory.file_name) if memory is not None else 1) + 6
        return node._label.cell_len + 2

    def on_focus(self) -> None:
        """Entering a pane puts the cursor on its first item, so Enter and the detail work."""
        if self.cursor_line < 0 and self.last_line >= 0:
            self.cursor_line = 0

    # content -----------------------------------------------------------------------------

    def set_stores(
        self,
        stores: Iterable[Store],
        *,
        empty_text: str | None = None,
        labeler: StoreLabeler | None = None,
    ) -> None:
        """Show ``stores``, keeping the expanded nodes and the cursor where they were;
        ``empty_text`` (shown when there is no store) and ``labeler`` (a store's label)
        replace the tree's own when given.

        The same store objects as last time leave the tree untouched. The same stores (by
        path, in the same order) as new objects change only the nodes of the memories that
        came, went or changed (:meth:`_update`); anything else is built anew. The cursor is
        never announced for it, so the detail pane stays on what the user chose even when
        this tree is not the one in focus."""
        if empty_text is not None:
            self._empty_text = empty_text
        if labeler is not None:
            self._labeler = labeler
        new_stores = list(stores)
        if self._filled and len(new_stores) == len(self.stores) and all(
            new is old for new, old in zip(new_stores, self.stores, strict=True)
        ):
            return
        if self._filled and self._can_update(new_stores):
            self._update(new_stores)
            return
        self._rebuild(new_stores)

    def _can_update(self, stores: list[Store]) -> bool:
        if [s.path for s in stores] != [s.path for s in self.stores] or not stores:
            return False
        return not self._single or (
            len(stores) == 1 and _shape(stores[0]) == _shape(self.stores[0]))

    def _rebuild(self, stores: list[Store]) -> None:
        """Clear and fill the tree, the expanded nodes and the cursor restored by key."""
        self._filled = True
        expanded = {n.data.key for n in self._all_nodes() if n.is_expanded and n.data}
        cursor = self.cursor_node.data.key if self.cursor_node and self.cursor_node.data else None
        self.stores = stores
        self.clear()
        self._tails.clear()
        self._slots = {}
        self._banner_node = None
        self._badges = {}
        if self.banner is not None and self.stores:
            self._banner_node = self.root.add_leaf(self.banner, data=NodeRef(self.stores[0]))
        if not self.stores:
            self.root.add_leaf(Text(self._empty_text, style="dim italic"))
        for store in self.stores:
            if self._single:
                slot = _Slot(store, self.root)
            else:
                ref = NodeRef(store)
                label = self._store_label(store)
                node = self._new_node(self.root, ref, label.text(), leaf=False)
                self._tails[node.id] = label.kept
                node._expanded = ref.key in expanded
                self.root._children.append(node)
                slot = _Slot(store, node, node)
            self._slots.setdefault(store.path, slot)
            self._fill_slot(slot, expanded)
        self.root.expand()
        self._invalidate()
        if cursor is not None:
            self.call_after_refresh(self._restore_cursor, cursor)

    def _store_label(self, store: Store) -> Label:
        return self._labeler(store) if self._labeler else Label(text(store.title))

    def _fill_slot(self, slot: _Slot, expanded: set[str]) -> None:
        """A store's notices and memory nodes (its folders expanded as ``expanded`` says)."""
        store, parent = slot.store, slot.parent
        if not store.location.enabled:
            slot.notices.append(parent.add_leaf(
                Text(f"disabled: {line(store.location.enabled_rule)}", style="dim italic"),
                data=NodeRef(store),
            ))
        if not store.exists:
            slot.notices.append(parent.add_leaf(
                Text("(no directory yet)", style="dim italic"), data=NodeRef(store)))
            return
        if not store.memories:
            slot.notices.append(parent.add_leaf(
                Text("(empty)", style="dim italic"), data=NodeRef(store)))
            return
        self._arrange(slot, store, expanded)

    def _new_node(
        self, parent: TreeNode[NodeRef], ref: NodeRef, label: Text, *, leaf: bool
    ) -> TreeNode[NodeRef]:
        """A node not yet placed among ``parent``'s children (:meth:`_arrange` places it)."""
        node = _Node(self, parent, self._new_id(), label, ref, expanded=False,
                     allow_expand=not leaf)
        self._tree_nodes[node._id] = node
        return node

    def _arrange(self, slot: _Slot, store: Store, expanded: set[str]) -> None:
        """Give the store's folders their children in the order :func:`_layout` says,
        keeping the nodes already there, making the missing ones (folders expanded when in
        ``expanded``) and dropping the ones gone; ``store``'s objects in every node."""
        layout = _layout(store.memories)
        by_rel = {m.rel_path: m for m in store.memories}
        items: dict[str, TreeNode[NodeRef]] = {}
        folders: dict[str, TreeNode[NodeRef]] = {"": slot.parent}
        for folder, children in layout.items():  # parents come before their subfolders
            container = folders[folder]
            placed: list[TreeNode[NodeRef]] = []
            for is_folder, rel in children:
                if is_folder:
                    node = slot.folders.get(rel)
                    ref = NodeRef(store, folder=rel)
                    if node is None:
                        tail = rel.rsplit("/", 1)[-1]
                        node = self._new_node(container, ref,
                                              Text(f"{line(tail)}/", style="bold blue"),
                                              leaf=False)
                        node._expanded = ref.key in expanded
                    else:
                        node.data = ref
                    folders[rel] = node
                else:
                    node = slot.items.get(rel)
                    ref = NodeRef(store, by_rel[rel])
                    if node is None:
                        node = self._new_node(container, ref, PLACEHOLDER, leaf=True)
                    else:
                        node.data = ref
                    items[rel] = node
                placed.append(node)
            if folder == "":
                # a single-store tree's root holds the banner and the notices before them
                ours = set(map(id, slot.items.values())) | set(map(id, slot.folders.values()))
                lead = [n for n in container._children if id(n) not in ours]
                placed = lead + placed
            container._children = placed
            container._updates += 1
        for old in (slot.items, slot.folders):
            kept = items if old is slot.items else folders
            for rel, node in old.items():
                if kept.get(rel) is not node:
                    self._tree_nodes.pop(node._id, None)
                    self._tails.pop(node._id, None)
        slot.items = items
        del folders[""]
        slot.folders = folders

    def _place(self, slot: _Slot, old: Store, store: Store) -> bool:
        """Files of the store's top level came or went (nothing below a folder): their nodes
        are added where their names sort among the top-level memories, or removed, and every
        other node keeps its place and gets ``store``'s objects; no layout of the whole store
        is made. False (nothing done) for anything else: :meth:`_arrange` does it."""
        now = {m.rel_path: m for m in store.memories}
        gone = [rel for rel in slot.items if rel not in now]
        came = [m for rel, m in now.items() if rel not in slot.items]
        if any("/" in rel for rel in gone) or any("/" in m.rel_path for m in came):
            return False
        container = slot.parent
        edits = self._line_edits
        if container is not self.root or self.show_root:
            edits = self._line_edits = None  # rows below a store's node: built again
        for rel in gone:
            node = slot.items.pop(rel)
            container._children.remove(node)
            if edits is not None:
                edits.append((False, node))
            self._tree_nodes.pop(node._id, None)
            self._tails.pop(node._id, None)
        for rel, node in slot.items.items():
            node.data = NodeRef(store, now[rel])
        for rel, node in slot.folders.items():
            node.data = NodeRef(store, folder=rel)
        if came:
            folders = {id(n) for n in slot.folders.values()}
            items = {id(n): n for n in slot.items.values()}

            def key(node: TreeNode[NodeRef]) -> tuple[int, int, int, str]:
                """Lead rows (a banner, notices) first, then memories, then folders."""
                if id(node) in items:
                    assert node.data is not None and node.data.memory is not None
                    return (1, *sort_key(node.data.memory))
                return (2, 0, 0, "") if id(node) in folders else (0, 0, 0, "")

            children = container._children
            for memory in sorted(came, key=sort_key):
                node = self._new_node(container, NodeRef(store, memory), PLACEHOLDER, leaf=True)
                at = bisect.bisect_left(children, (1, *sort_key(memory)), key=key)
                children.insert(at, node)
                items[id(node)] = node
                slot.items[memory.rel_path] = node
                if edits is not None:
                    edits.append((True, node))
        container._updates += 1
        return True

    def _update(self, stores: list[Store]) -> None:
        """The same stores as new objects: each changed store's nodes get its objects, the
        memories that changed or whose badges did are drawn again, new ones are added in
        place and gone ones removed; the cursor stays on its item (on the row now there when
        its item went)."""
        cursor = self.cursor_node
        cursor_line = self.cursor_line
        stale: list[TreeNode[NodeRef]] = []
        structure = False
        self._line_edits = []
        for store in stores:
            slot = self._slots[store.path]
            old = slot.store
            if old is store:
                continue
            if slot.node is not None:
                slot.node.data = NodeRef(store)
                self.relabel(slot.node, self._store_label(store))
            if _shape(old) != _shape(store):  # notices come or go: the store anew
                for node in list(slot.parent._children):
                    node._remove()
                slot.folders, slot.items, slot.notices = {}, {}, []
                slot.store = store
                expanded = {n.data.key for n in self._all_nodes() if n.is_expanded and n.data}
                self._fill_slot(slot, expanded)
                structure = True
                self._line_edits = None
                continue
            for notice in slot.notices:
                notice.data = NodeRef(store)
            stale.extend(self._changed_nodes(slot, old, store))
            if [m.rel_path for m in old.memories] != [m.rel_path for m in store.memories]:
                if not self._place(slot, old, store):
                    self._arrange(slot, store, set())
                    self._line_edits = None
                structure = True
            else:
                by_rel = {m.rel_path: m for m in store.memories}
                for rel, node in slot.items.items():
                    node.data = NodeRef(store, by_rel[rel])
                for rel, node in slot.folders.items():
                    node.data = NodeRef(store, folder=rel)
            slot.store = store
            self._badges.pop(id(old), None)
        self.stores = stores
        self._stale(stale)
        edits, self._line_edits = self._line_edits, None
        if structure:
            spliced = edits is not None and self._splice_lines(edits, stale)
            if not spliced:
                self._invalidate()
            gone = cursor is not None and self._tree_nodes.get(cursor.id) is not cursor
            with self.prevent(Tree.NodeHighlighted):
                lines = self._tree_lines  # the cursor follows its node (not announced)
                if spliced and self.cursor_line != -1:  # as Tree._build leaves it
                    if self.cursor_node is not None:
                        self.cursor_line = self.cursor_node._line
                    if self.cursor_line >= len(lines):
                        self.cursor_line = -1
                if gone:
                    self._cursor_node = None
                    self.cursor_line = -1
                    self.cursor_line = min(cursor_line, len(lines) - 1)
            if gone and self.has_focus and self.cursor_node is not None:
                # the item went away: the detail follows the node now under the cursor
                self.post_message(Tree.NodeHighlighted(self.cursor_node))

    def _splice_lines(
        self, edits: list[tuple[bool, TreeNode[NodeRef]]], stale: list[TreeNode[NodeRef]]
    ) -> bool:
        """Textual's lines of the tree (``Tree._build`` makes them: a row per shown node,
        each with its path from the top) changed in place for a few top-level rows that came
        (already among the root's children) or went, as building them again would make them;
        its virtual width grown to the new and redrawn rows (never narrowed: a row that went
        as wide as the widest builds them again). A tree of 3,000 rows was built again for
        one new file: a path list and a label width per row. False (nothing done) when they
        are not there to edit or the edits are too many."""
        lines = self._tree_lines_cached
        if not lines or not edits or len(edits) > FEW_LINE_EDITS or self.show_root:
            return False
        line_type = type(lines[0])
        width = self.virtual_size.width
        came = [node for added, node in edits if added]
        went = [node for added, node in edits if not added]
        for node in went:
            at = node._line
            if (not 0 <= at < len(lines) or lines[at].path != [node] or node._children
                    or self.get_label_width(node) >= width):
                return False
        children = self.root._children
        places: list[tuple[int, TreeNode[NodeRef]]] = []
        for node in came:
            try:
                places.append((children.index(node), node))
            except ValueError:
                return False
        for node in came:  # a row already shown may not be added again
            if 0 <= node._line < len(lines) and lines[node._line].node is node:
                return False
        start = len(lines)
        for at in sorted((node._line for node in went), reverse=True):
            del lines[at]
            start = min(start, at)
        for node in went:
            node._line = -1
        for i in range(start, len(lines)):
            lines[i].path[-1]._line = i
        came_ids = {id(node) for node in came}
        for position, node in sorted(places, key=lambda p: p[0], reverse=True):
            after = children[position + 1] if position + 1 < len(children) else None
            if after is None:
                at = len(lines)
            elif id(after) in came_ids or (0 <= after._line < len(lines)
                                           and lines[after._line].node is after):
                at = after._line
            else:
                return False  # half edited: the caller builds them again whole
            lines.insert(at, line_type([node], True))  # a top-level row: last, as _build
            node._line = at
            start = min(start, at)
        for i in range(start, len(lines)):
            lines[i].path[-1]._line = i
        grown = [self.get_label_width(node) + lines[node._line]._get_guide_width(
                    self.guide_depth, self.show_root)
                 for node in (*came, *stale) if 0 <= node._line < len(lines)
                 and lines[node._line].node is node]
        self._line_cache.clear()
        self._updates += 1
        self.virtual_size = Size(max([width, *grown]), len(lines))
        self.refresh(layout=True)
        return True

    def _changed_nodes(
        self, slot: _Slot, old: Store, store: Store
    ) -> Iterator[TreeNode[NodeRef]]:
        """The memory nodes of ``slot`` whose labels ``store`` changes: another memory
        object, other badges (the index changed), or MEMORY.md (its line count)."""
        before = {m.rel_path: m for m in old.memories}
        same_index = old.index is store.index
        old_badges = new_badges = None
        if not same_index:
            old_badges = self._badges_for(old)
            new_badges = badges_updated(old, old_badges, store)
            if new_badges is None:
                new_badges = self._badges_for(store)
            else:
                self._badges[id(store)] = (store, new_badges)
        for memory in store.memories:
            node = slot.items.get(memory.rel_path)
            if node is None:
                continue
            replaced = before.get(memory.rel_path) is not memory
            if replaced or (old_badges is not None and new_badges is not None and (
                memory.is_index or _other_badge(old_badges.get(memory.rel_path),
                                                new_badges.get(memory.rel_path))
            )):
                yield node

    # finding nodes -----------------------------------------------------------------------

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
        store_path, _, inner = key.partition("::")
        slot = self._slots.get(Path(store_path))
        if slot is not None:
            found = slot.items.get(inner) or slot.folders.get(inner)
            if found is not None:
                return found
            if not inner and slot.node is not None:
                return slot.node
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
            stack.extend(node._children)
        return out

    def select_key(self, key: str) -> bool:
        """Move the cursor to the node with ``key``; False when it is gone."""
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


def _other_badge(a: MemoryBadges | None, b: MemoryBadges | None) -> bool:
    return a is not b and a != b


def _same_text(a: Text | None, b: Text | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.plain == b.plain and a.spans == b.spans


def sort_key(memory: Memory) -> tuple[int, int, str]:
    """MEMORY.md first, then top-level files before subfolders, then by path."""
    depth = memory.rel_path.count("/")
    return (0 if memory.is_index and depth == 0 else 1, depth, memory.rel_path)
