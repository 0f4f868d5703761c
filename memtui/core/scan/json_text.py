"""The text of ``memtui scan --json``, reusing the rendered JSON of every unchanged store.

A warm ``scan --json`` should cost little more than stat-ing the stores' files
(``bench/bench_scan.py``). So next to each store's rendered content (its memories, its MEMORY.md
report, a session summary's title) the scan keeps a fingerprint: the stat key (mtime, ctime,
inode) of every directory its walk listed, and the relative path and stat key (size, mtime,
ctime, inode; for a symlink also its target's) of every file the content was read from. While
every one of those stats is unchanged, the stored text is reused as it is, without listing a
directory or opening a file: adding, removing or renaming an entry changes its directory's
mtime, and every write changes a file's ctime. When a directory changed, the store is walked
again, and its text is still reused if the walk finds the same files with the same stats; any
other difference reads the store again from its files. Nothing written in the last few seconds
is stored (a second write in the same clock tick could leave a stat equal: git's "racily clean"
rule). What depends on other places (the store's location, rule, problems and snapshot status,
the transcript beside a session) is worked out on every run.

The text is byte for byte ``json_safe(json.dumps(scan_json(scan(ctx)), ensure_ascii=False))``
(a test pins it on the demo home, after every kind of change and on a home of hostile names):
every piece is made JSON-safe as it is rendered (no raw C1 / DEL / bidi control, see
:func:`memtui.core.plaintext.json_safe`) and has its secrets masked
(:func:`memtui.core.secrets.mask.mask_data`, as ``scan_json`` has), so the stored pieces are
safe already.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from json.encoder import encode_basestring

from memtui.core.cache import ScanCache, cache_enabled, gc_paused
from memtui.core.claude_version import ClaudeCodeVersion
from memtui.core.model import StoreKind, StoreLocation
from memtui.core.plaintext import json_safe
from memtui.core.scan.serialize import (
    load_report_json,
    memory_json,
    project_json,
    snapshot_json,
)
from memtui.core.secrets.mask import mask_data, mask_secrets, may_hold_secret
from memtui.core.stores.gitroot import current_branch
from memtui.core.stores.locations import Context, Locations, locate
from memtui.core.stores.projects import discover_projects
from memtui.core.stores.sessions import (
    TRANSCRIPT_SUFFIX,
    TranscriptHead,
    session_template,
    transcript_head,
    transcript_of,
)
from memtui.core.stores.snapshot import snapshot_info
from memtui.core.stores.walk import NOT_A_DIRECTORY, StoreWalk, store_skip, walk_store

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    Fingerprint: TypeAlias = tuple[Any, ...]

FRAGMENT_KIND = "store-json"
FRAGMENT_VERSION = 10  # 5: bold index entries, folder links, health.wikilinks_checked; 6: secrets
# 7: health.listed; 8: health.topic_dangling; 9: DEL and undecodable bytes of names escaped;
# 10: secrets masked in every string

Fragment = tuple[str, str, tuple[str | None, bool] | None]
"""A store's rendered ``index`` and ``memories`` JSON, and a session summary's (title, empty)."""
EMPTY: Fragment = ("null", "[]", None)


def dumps(value: Any) -> str:
    """``json_safe(json.dumps(mask_data(value)))``. The JSON text holds every string of
    ``value`` unchanged (no keyword of the rules holds a character JSON escapes), so when it
    holds no keyword none of them does and ``mask_data`` would return ``value`` itself: its
    strings are then not gathered one by one."""
    text = json.dumps(value, ensure_ascii=False)
    if may_hold_secret(text):
        text = json.dumps(mask_data(value), ensure_ascii=False)
    return json_safe(text)


def target_key(path: str) -> tuple[int, int, int, int, int] | None:
    """The stat key of what a link points to (None when it points nowhere)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def walk_fingerprint(walk: StoreWalk) -> tuple[Fingerprint, float] | None:
    """The stat key of every directory listed and the path and stat key of every file of a
    walk (a symlink's also with its target's), and the newest mtime or ctime among them."""
    dirs: list[tuple[str, int, int, int]] = []
    files: list[tuple[str, int, int, int, int]] = []
    others: list[tuple[str, int, int, int, int, int, tuple[int, ...] | None]] = []
    newest = 0.0
    for directory in walk.dirs:
        try:
            st = os.stat(directory)
        except OSError:
            return None
        dirs.append((directory, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        newest = max(newest, st.st_mtime, st.st_ctime)
    for entry in walk.entries:
        try:
            st = os.lstat(entry.path)
        except OSError:
            return None
        newest = max(newest, st.st_mtime, st.st_ctime)
        if stat.S_ISREG(st.st_mode):
            files.append((entry.rel_path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
            continue
        target = target_key(entry.path) if stat.S_ISLNK(st.st_mode) else None
        if target is not None:
            newest = max(newest, target[2] / 1e9, target[3] / 1e9)
        others.append((entry.rel_path, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                       st.st_ino, target))
    return (dirs, files, others), newest


def unchanged(root: str, fingerprint: Fingerprint) -> bool:
    """Whether a store's directories and files all have the stat ``fingerprint`` recorded.

    Adding, removing or renaming an entry changes its directory's mtime, so while no
    directory changed the walk would list the same files, and while no file's stat changed
    their contents are the same: no directory is listed and no file opened."""
    dirs, files, others = fingerprint
    for directory, mtime, ctime, ino in dirs:
        try:
            st = os.stat(directory)
        except OSError:
            return False
        if st.st_mtime_ns != mtime or st.st_ctime_ns != ctime or st.st_ino != ino:
            return False
    prefix = root + os.sep
    for rel, size, mtime, ctime, ino in files:
        try:
            st = os.lstat(prefix + rel)
        except OSError:
            return False
        if (
            st.st_mtime_ns != mtime or st.st_ctime_ns != ctime or st.st_size != size
            or st.st_ino != ino
        ):
            return False
    for rel, mode, size, mtime, ctime, ino, target in others:
        path = prefix + rel
        try:
            st = os.lstat(path)
        except OSError:
            return False
        if (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino) != (
            mode, size, mtime, ctime, ino
        ):
            return False
        if stat.S_ISLNK(mode) and target_key(path) != (tuple(target) if target else None):
            return False
    return True


class StoreRenderer:
    """Renders stores to JSON text, from ``fragments`` while their files are unchanged and
    from a scan of their files (``files``: the per-file scan cache) otherwise."""

    def __init__(self, locations: Locations, fragments: ScanCache, files: ScanCache) -> None:
        self.locations = locations
        self.fragments = fragments
        self.files = files
        self.template = session_template(locations.context.claude_home)
        self.read_roots: list[str] = []
        """The roots of the stores read from their files in this run."""

    def render(self, location: StoreLocation) -> str | None:
        """The store's JSON text; None for a session directory without session memory."""
        problems: list[str] = []
        content = self.cached(location)
        exists = content is not None
        if content is None:
            if location.kind == StoreKind.SESSION and not os.path.isdir(location.path):
                return None  # located unconfirmed: what session_locations would leave out
            walk = walk_store(location, store_skip(location))
            exists = walk.exists
            problems.extend(walk.problems)
            if walk.exists:
                content = self.fragment(location, walk)
            elif not walk.problems and os.path.exists(location.path):
                problems.append(NOT_A_DIRECTORY)
        if location.kind == StoreKind.AUTO:
            problems.extend(self.locations.problems)
        snapshot = session = None
        if exists and location.kind == StoreKind.SNAPSHOT:
            info = snapshot_info(location, self.locations)
            location.scope = info.acted_scope
            snapshot = dumps(snapshot_json(info))
        if exists and location.kind == StoreKind.SESSION:
            title, empty = content[2] if content and content[2] else (None, False)
            transcript = transcript_of(location)
            head = transcript_head(transcript, self.fragments)
            session = session_text(transcript, head, title, empty)
        return store_text(location, exists, problems, snapshot, session, content or EMPTY)

    def key_name(self, location: StoreLocation) -> str:
        return f"{location.kind.value}\0{location.path}"

    def context_key(self, location: StoreLocation) -> tuple[int, str | None, bool]:
        """What a fragment depends on besides the store's files: the session template, and
        whether the index's 25,000-unit cut applies (the Claude Code version's rule)."""
        template = self.template if location.kind == StoreKind.SESSION else None
        return FRAGMENT_VERSION, template, location.unit_cap

    def cached(self, location: StoreLocation) -> Fragment | None:
        """The fragment stored for the store while none of its directories and files changed."""
        root, context = str(location.path), self.context_key(location)

        def valid(key: Any) -> bool:
            return key[0] == context and unchanged(root, key[2])

        found = self.fragments.get_checked(FRAGMENT_KIND, self.key_name(location), valid)
        return tuple(found) if found is not None else None

    def fragment(self, location: StoreLocation, walk: StoreWalk) -> Fragment:
        """The store's content JSON after a walk: the stored one while the walk found the same
        files with the same stats (a directory changed, not what it holds), else rendered."""
        name, context = self.key_name(location), self.context_key(location)
        # a walk's problems are not part of the fragment: such a store is never stored; nor
        # is anything without a cache (MEMTUI_NO_CACHE): no file is stat-ed for it
        stored = not walk.problems and self.fragments.path is not None
        found = walk_fingerprint(walk) if stored else None
        old = self.fragments.peek(FRAGMENT_KIND, name)
        if found is not None and old is not None and old[0][0] == context:
            (dirs, files, others), newest = found
            old_context, old_listed, (_old_dirs, *old_files) = old[0]
            if (old_context, old_listed, old_files) == (context, walk.listed, [files, others]):
                fragment: Fragment = tuple(old[1])
                key = (context, walk.listed, (dirs, files, others))
                self.fragments.put_keyed(FRAGMENT_KIND, name, key, fragment, newest=newest)
                return fragment
        # The per-file scan is imported only when a store changed: a warm run never needs it.
        from memtui.core.scan.scanner import scan_store, session_summary_facts

        self.read_roots.append(str(location.path))
        store = scan_store(location, store_skip(location), self.files, walked=walk)
        facts = None
        if location.kind == StoreKind.SESSION:
            facts = session_summary_facts(store, self.template)
        fragment = (
            dumps(load_report_json(store.index)) if store.index else "null",
            dumps([memory_json(m) for m in store.memories]),
            facts,
        )
        if found is not None:
            key = (context, walk.listed, found[0])
            self.fragments.put_keyed(FRAGMENT_KIND, name, key, fragment, newest=found[1])
        return fragment


def version_text_json(version: ClaudeCodeVersion) -> str:
    """``claude_code_version``'s object as ``serialize.scan_json`` gives it."""
    fields = version.to_json()
    return "{" + ", ".join(f"{dumps(k)}: {string(v)}" for k, v in fields.items()) + "}"


def string(value: str | None) -> str:
    return "null" if value is None else json_safe(encode_basestring(mask_secrets(value)))


def flag(value: bool) -> str:
    return "true" if value else "false"


def strings(*values: str | None) -> list[str]:
    """Each value as :func:`string` gives it (its secrets masked, JSON-safe), the keywords of
    the secret rules looked for once in all of them: when the values, each on a line of its
    own, hold none (no keyword holds a newline), none of them holds a secret and each is
    only quoted (a large home's warm run quotes thousands)."""
    if may_hold_secret("\n".join(v for v in values if v is not None)):
        return [string(v) for v in values]
    return ["null" if v is None else json_safe(encode_basestring(v)) for v in values]


def store_text(
    location: StoreLocation,
    exists: bool,
    problems: list[str],
    snapshot: str | None,
    session: str | None,
    content: Fragment,
) -> str:
    """``serialize.store_json`` of the store as text, its parts rendered already."""
    kind, scope, agent, name, path, rule, enabled_rule = strings(
        location.kind.value, location.scope.value if location.scope else None, location.agent,
        location.session, str(location.path), location.rule, location.enabled_rule,
    )
    return "".join((
        '{"kind": ', kind,
        ', "scope": ', scope,
        ', "agent": ', agent,
        ', "session": ', name,
        ', "path": ', path,
        ', "exists": ', flag(exists),
        ', "enabled": ', flag(location.enabled),
        ', "rule": ', rule,
        ', "enabled_rule": ', enabled_rule,
        ', "index": ', content[0],
        ', "snapshot": ', snapshot or "null",
        ', "session_info": ', session or "null",
        ', "problems": ', dumps(problems) if problems else "[]",
        ', "memories": ', content[1],
        "}",
    ))


def session_text(
    transcript: str, head: TranscriptHead | None, title: str | None, empty: bool
) -> str:
    """``serialize.session_json`` of a session store as text."""
    session_id, path, cwd, started, branch, quoted_title = strings(
        os.path.basename(transcript)[: -len(TRANSCRIPT_SUFFIX)],
        transcript if head is not None else None,
        head.cwd if head else None,
        head.started if head else None,
        head.git_branch if head else None,
        title,
    )
    return "".join((
        '{"id": ', session_id,
        ', "transcript": ', path,
        ', "cwd": ', cwd,
        ', "started": ', started,
        ', "gitBranch": ', branch,
        ', "title": ', quoted_title,
        ', "empty": ', flag(empty),
        "}",
    ))


@dataclass
class ScanText:
    """``memtui scan --json``'s document and how it was made."""

    text: str
    """The JSON document (without a final newline)."""
    stores: int
    rescanned: int
    """How many stores were read from their files (the others came from the cache)."""


def scan_json_text(ctx: Context) -> ScanText:
    """``memtui scan --json``'s document for the project in ``ctx``."""
    identity = (ctx.claude_home, ctx.project)
    fragments = ScanCache.for_scan(ctx.env, ctx.home, *identity, prefix="json")
    files = ScanCache.for_scan(ctx.env, ctx.home, *identity)
    with gc_paused():
        locations = locate(ctx, confirm_sessions=False, cache=fragments)
        renderer = StoreRenderer(locations, fragments, files)
        order = list(StoreKind)
        in_scan_order = [
            locations.auto, locations.team, *locations.agents, *locations.snapshots,
            locations.agentmemory, *locations.sessions,
        ]
        in_scan_order.sort(key=lambda loc: order.index(loc.kind))
        rendered = [renderer.render(location) for location in in_scan_order]
        stores = [text for text in rendered if text is not None]
        projects = discover_projects(ctx, fragments)
        git = locations.git
        # ``serialize.scan_json`` as text, in one join: each concatenation of a document of
        # megabytes would copy it again.
        parts = [
            '{"project": ', string(str(ctx.project)),
            ', "claude_home": ', string(str(ctx.claude_home)),
            ', "git_root": ', string(str(git.root) if git else None),
            ', "git_branch": ', string(current_branch(git.checkout, fragments) if git else None),
            ', "claude_code_version": ', version_text_json(locations.version),
            ', "stores": [',
        ]
        for i, store in enumerate(stores):
            parts += (", ", store) if i else (store,)
        parts += ('], "projects": ', dumps([project_json(p) for p in projects]), "}")
        text = "".join(parts)
    if cache_enabled(ctx.env):
        fragments.save()
        # per-file entries of the stores read again were all looked at: the unused ones are
        # of files gone; those of the other stores are still good
        read_again = tuple(root + os.sep for root in renderer.read_roots)
        files.save(keep_unused=lambda path: not path.startswith(read_again))
    return ScanText(text, len(stores), len(renderer.read_roots))

