"""The text of ``memtui scan --json``, reusing the rendered JSON of every unchanged store.

A warm ``scan --json`` should cost little more than listing the stores and stat-ing their files
(``bench/bench_scan.py``). So next to each store's rendered content (its memories, its MEMORY.md
report, a session summary's title) the scan keeps a fingerprint: the relative path and stat key
(size, mtime, ctime, inode) of every file that content was read from, in walk order. While a
fresh walk gives the same fingerprint, the stored text is reused as it is; any difference (a
file added, removed, renamed or written: every write changes ctime) renders the store again from
its files. A fingerprint that could hide a change is never stored: one with a symlink (its
target may change unseen) or with a file written in the last few seconds (racily clean, as in
git). What depends on other places (the store's location, rule, problems and snapshot status,
the transcript beside a session) is rendered fresh every time.

The text is byte for byte ``json.dumps(scan_json(scan(ctx)), ensure_ascii=False)`` (a test pins
it on the demo home and after every kind of change).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import Any

from memtui.core.cache import ScanCache, cache_enabled, gc_paused
from memtui.core.gitroot import current_branch
from memtui.core.locations import Context, Locations, locate
from memtui.core.model import Store, StoreKind, StoreLocation
from memtui.core.projects import discover_projects
from memtui.core.serialize import load_report_json, memory_json, project_json, store_json
from memtui.core.sessions import session_info, session_template, transcript_head, transcript_of
from memtui.core.snapshot import snapshot_info
from memtui.core.walk import NOT_A_DIRECTORY, StoreWalk, store_skip, walk_store

FRAGMENT_KIND = "store-json"
FRAGMENT_VERSION = 1

Fingerprint = tuple[Any, ...]
Fragment = tuple[str, str, tuple[str | None, bool] | None]
"""A store's rendered ``index`` and ``memories`` JSON, and a session summary's (title, empty)."""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def scalar_json(value: Any) -> str:
    """``dumps(value)``, quicker for the strings, None, booleans and empty lists that make up
    most of a store's fields (the C string encoder ``json.dumps`` itself ends in)."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, list) and not value:
        return "[]"
    return dumps(value)


def json_object(pairs: Iterable[tuple[str, str]]) -> str:
    """A JSON object from keys and values that are JSON text already, as ``json.dumps``
    writes it."""
    return "{" + ", ".join(f"{encode_basestring(key)}: {value}" for key, value in pairs) + "}"


def walk_fingerprint(walk: StoreWalk) -> tuple[list[tuple[Any, ...]], float] | None:
    """The path and stat key of every file of a walk, and the newest mtime or ctime among them;
    None when a file is not a regular file (nothing about a symlink's target is in its stat)."""
    keys: list[tuple[Any, ...]] = []
    newest = 0.0
    for entry in walk.entries:
        if not entry.regular:
            return None
        try:
            st = os.lstat(entry.path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        keys.append((entry.rel_path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        newest = max(newest, st.st_mtime, st.st_ctime)
    return keys, newest


class StoreRenderer:
    """Renders stores to JSON text, from ``fragments`` while their files are unchanged and
    from a scan of their files (``files``: the per-file scan cache) otherwise."""

    def __init__(self, locations: Locations, fragments: ScanCache, files: ScanCache) -> None:
        self.locations = locations
        self.fragments = fragments
        self.files = files
        self.template = session_template(locations.context.claude_home)
        self.rescanned = 0

    def render(self, location: StoreLocation) -> str:
        walk = walk_store(location, store_skip(location))
        store = Store(location=location, exists=walk.exists)
        content: Fragment = ("null", "[]", None)
        if not walk.exists:
            if location.path.exists():
                store.problems.append(NOT_A_DIRECTORY)
        else:
            content = self.fragment(location, walk)
        if location.kind == StoreKind.AUTO:
            store.problems.extend(self.locations.problems)
        if walk.exists and location.kind == StoreKind.SNAPSHOT:
            store.snapshot = snapshot_info(location, self.locations)
            location.scope = store.snapshot.acted_scope
        if walk.exists and location.kind == StoreKind.SESSION:
            title, empty = content[2] or (None, False)
            head = transcript_head(transcript_of(location), self.fragments)
            store.session_info = session_info(location, head, title, empty)
        return store_text(store, content)

    def fragment(self, location: StoreLocation, walk: StoreWalk) -> Fragment:
        """The store's content JSON: reused while its fingerprint holds, else rendered."""
        found = walk_fingerprint(walk)
        key: Fingerprint | None = None
        name = f"{location.kind.value}\0{location.path}"
        if found is not None:
            files = found[0]
            template = self.template if location.kind == StoreKind.SESSION else None
            key = (FRAGMENT_VERSION, walk.listed, template, files)
            cached = self.fragments.get_keyed(FRAGMENT_KIND, name, key)
            if cached is not None:
                return tuple(cached)
        # The per-file scan is imported only when a store changed: a warm run never needs it.
        from memtui.core.scan import scan_store, session_summary_facts

        self.rescanned += 1
        store = scan_store(location, store_skip(location), self.files, walked=walk)
        facts = None
        if location.kind == StoreKind.SESSION:
            facts = session_summary_facts(store, self.template)
        fragment: Fragment = (
            dumps(load_report_json(store.index)) if store.index else "null",
            dumps([memory_json(m) for m in store.memories]),
            facts,
        )
        if key is not None and found is not None:
            self.fragments.put_keyed(FRAGMENT_KIND, name, key, fragment, newest=found[1])
        return fragment


def store_text(store: Store, content: Fragment) -> str:
    """``store_json(store)`` as text, with the ``index`` and ``memories`` rendered already."""
    pairs = []
    for key, value in store_json(store).items():
        if key == "index":
            pairs.append((key, content[0]))
        elif key == "memories":
            pairs.append((key, content[1]))
        elif key == "session_info" and value is not None:
            pairs.append((key, json_object((k, scalar_json(v)) for k, v in value.items())))
        else:
            pairs.append((key, scalar_json(value)))
    return json_object(pairs)


def scan_json_text(ctx: Context) -> str:
    """``memtui scan --json``'s document for the project in ``ctx`` (without the newline)."""
    identity = (ctx.claude_home, ctx.project)
    fragments = ScanCache.for_scan(ctx.env, ctx.home, *identity, prefix="json")
    files = ScanCache.for_scan(ctx.env, ctx.home, *identity)
    with gc_paused():
        locations = locate(ctx)
        renderer = StoreRenderer(locations, fragments, files)
        order = list(StoreKind)
        in_scan_order = [
            locations.auto, locations.team, *locations.agents, *locations.snapshots,
            locations.agentmemory, *locations.sessions,
        ]
        in_scan_order.sort(key=lambda loc: order.index(loc.kind))
        stores = [renderer.render(location) for location in in_scan_order]
        projects = discover_projects(ctx, fragments)
        git = locations.git
        text = json_object([
            ("project", scalar_json(str(ctx.project))),
            ("claude_home", scalar_json(str(ctx.claude_home))),
            ("git_root", scalar_json(str(git.root) if git else None)),
            ("git_branch", scalar_json(current_branch(git.checkout) if git else None)),
            ("stores", "[" + ", ".join(stores) + "]"),
            ("projects", dumps([project_json(p) for p in projects])),
        ])
    if cache_enabled(ctx.env):
        fragments.save()
        files.save(prune=False)
    return text

