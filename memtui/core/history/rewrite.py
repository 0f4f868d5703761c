"""Rewriting the history's chain of versions (``history gc`` and ``history purge``): the
commits are written again, oldest first, without the ones left out (and, for a purge, with a
file taken out of every tree), each keeping its author, dates and message (its attribution's
trailers); then the branch is moved and git drops every object no commit reaches any more
(reflogs expired, ``git gc --prune=now``), so the space (or a secret's bytes) is really gone.

Only memtui's own repository (:class:`HistoryRepo`, under memtui's data dir) is ever
rewritten; the caller holds its lock.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from memtui.core.history.paths import MANIFEST_DIR, HistoryError
from memtui.core.history.repo import BRANCH, TREE_MODE, HistoryRepo, tree_bytes
from memtui.core.history.state import load_state, save_state

PRUNED_TRAILER = "Memtui-Pruned"
"""On a kept version whose older neighbours were pruned: how many versions before it are gone
(its diff against the version before it then holds their changes too)."""
_PRUNED_LINE = re.compile(rb"^Memtui-Pruned: (\d+)$", re.MULTILINE)


@dataclass
class ChainCommit:
    """One version of the chain (oldest first), as git stores it."""

    sha: str
    tree: str
    time: float
    summary: str


def read_chain(repo: HistoryRepo) -> list[ChainCommit]:
    """The versions of the branch, oldest first (the chain is linear: one parent each)."""
    if repo.head() is None:
        return []
    out = repo.git("log", "--first-parent", "--reverse", "-z",
                   "--format=%H%x1f%T%x1f%at%x1f%s", "main")
    chain: list[ChainCommit] = []
    for record in out.split("\0"):
        parts = record.strip("\n").split("\x1f")
        if len(parts) == 4 and len(parts[0]) == 40:
            chain.append(ChainCommit(parts[0], parts[1], float(parts[2] or 0), parts[3]))
    return chain


def pruned_of(message: str) -> int:
    """How many versions were pruned right before a version (its ``Memtui-Pruned`` trailer)."""
    found = _PRUNED_LINE.search(message.encode("utf-8", "replace"))
    return int(found.group(1)) if found else 0


def _pruned_in(message: bytes) -> int:
    found = _PRUNED_LINE.search(message)
    return int(found.group(1)) if found else 0


def _with_pruned(message: bytes, pruned: int) -> bytes:
    """The message with its ``Memtui-Pruned`` trailer raised by ``pruned``."""
    found = _PRUNED_LINE.search(message)
    if found is not None:
        total = int(found.group(1)) + pruned
        return message[:found.start()] + b"Memtui-Pruned: %d" % total + message[found.end():]
    if not message.endswith(b"\n"):
        message += b"\n"
    return message + b"Memtui-Pruned: %d\n" % pruned


def _split_commit(raw: bytes) -> tuple[list[bytes], bytes]:
    """A commit object's header lines but ``tree`` / ``parent``, and its message."""
    header, _sep, message = raw.partition(b"\n\n")
    kept = [line for line in header.split(b"\n")
            if not line.startswith((b"tree ", b"parent "))]
    return kept, message


def rewrite_chain(
    repo: HistoryRepo,
    chain: list[ChainCommit],
    keep: Callable[[ChainCommit], bool],
    tree_of: Callable[[ChainCommit], str] | None = None,
    *,
    drop_empty: bool = False,
    count_pruned: bool = True,
) -> tuple[str | None, dict[str, str]]:
    """Write the chain again with only the versions ``keep`` keeps (``tree_of``: each one's
    new tree; ``drop_empty``: a version whose new tree is its new parent's goes too) and move
    the branch to it. Returns the new head (None: nothing kept) and old → new id of each kept
    version. ``count_pruned``: a kept version after left-out ones says how many in its
    ``Memtui-Pruned`` trailer."""
    parent: str | None = None
    parent_tree: str | None = None
    mapping: dict[str, str] = {}
    carry = 0
    """Versions left out since the last kept one, with those they had folded in."""
    for commit in chain:
        if not keep(commit):
            if count_pruned:
                carry += 1 + _pruned_in(_split_commit(repo.read_object(commit.sha))[1])
            continue
        tree = tree_of(commit) if tree_of is not None else commit.tree
        header, message = _split_commit(repo.read_object(commit.sha))
        if drop_empty and parent is not None and tree == parent_tree:
            carry += _pruned_in(message)  # what it had folded in passes to the next one
            continue
        if carry:
            message = _with_pruned(message, carry)
        lines = [b"tree " + tree.encode("ascii")]
        if parent is not None:
            lines.append(b"parent " + parent.encode("ascii"))
        data = b"\n".join(lines + header) + b"\n\n" + message
        new = repo.store_object(b"commit", data)
        mapping[commit.sha] = new
        parent, parent_tree, carry = new, tree, 0
    old_head = chain[-1].sha if chain else None
    if parent is not None and parent != old_head:
        args = ["update-ref", "-m", "memtui history rewrite", BRANCH, parent]
        repo.git(*args, *([old_head] if old_head else []))
    return parent, mapping


def tree_without(repo: HistoryRepo, tree: str, path: str,
                 memo: dict[tuple[str, str], str]) -> str:
    """``tree`` with the file ``path`` (``/`` separated) taken out (a directory left empty
    goes too; an empty top tree stays); the same id when it is not there."""
    key = (tree, path)
    if key in memo:
        return memo[key]
    first, sep, rest = path.partition("/")
    name = os.fsencode(first)
    entries = parse_tree(repo.read_object(tree))
    out: list[tuple[bytes, int, bytes]] = []
    changed = False
    for entry_name, mode, sha in entries:
        if entry_name != name:
            out.append((entry_name, mode, sha))
            continue
        if not sep:
            if mode != TREE_MODE:
                changed = True
                continue
            out.append((entry_name, mode, sha))
            continue
        if mode != TREE_MODE:
            out.append((entry_name, mode, sha))
            continue
        below = tree_without(repo, sha.hex(), rest, memo)
        if below != sha.hex():
            changed = True
            if parse_tree(repo.read_object(below)):
                out.append((entry_name, mode, bytes.fromhex(below)))
            continue
        out.append((entry_name, mode, sha))
    result = repo.store_object(b"tree", tree_bytes(out)) if changed else tree
    memo[key] = result
    return result


def parse_tree(data: bytes) -> list[tuple[bytes, int, bytes]]:
    """A tree object's entries: (name, mode, binary id)."""
    out: list[tuple[bytes, int, bytes]] = []
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        out.append((data[space + 1:nul], int(data[at:space], 8), data[nul + 1:nul + 21]))
        at = nul + 21
    return out


def objects_of_trees(repo: HistoryRepo, trees: Iterable[str], seen: set[str]) -> list[str]:
    """Every tree and blob id below ``trees`` not in ``seen`` (added to it), trees walked once."""
    found: list[str] = []
    stack = [t for t in trees if t not in seen]
    seen.update(stack)
    found.extend(stack)
    while stack:
        tree = stack.pop()
        for _name, mode, binsha in parse_tree(repo.read_object(tree)):
            sha = binsha.hex()
            if sha in seen:
                continue
            seen.add(sha)
            found.append(sha)
            if mode == TREE_MODE:
                stack.append(sha)
    return found


def drop_unreachable(repo: HistoryRepo) -> None:
    """Expire every reflog and let git delete every object no commit of the branch reaches
    (packed again, unreachable ones pruned now, not in two weeks)."""
    repo.git("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    repo.git("-c", "gc.auto=0", "-c", "gc.reflogExpire=now",
             "-c", "gc.reflogExpireUnreachable=now",
             "gc", "--quiet", "--prune=now")
    repo.forget_objects()


def repo_bytes(git_dir: Path) -> int:
    """The space the repository's objects take on disk (loose objects and packs)."""
    total = 0
    stack = [str(git_dir / "objects")]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as it:
                for entry in it:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def move_state(repo: HistoryRepo, old_head: str | None, new_head: str | None,
               forget: Callable[[str, str], bool] | None = None) -> None:
    """The saved state follows the rewritten head (``forget(key, rel)``: files to drop from it,
    their stores listed and read again next time); a state of another head (or none) is left
    alone: the next recording rebuilds it from the head."""
    state = load_state(repo.directory)
    if state is None or state.head != old_head:
        return
    state.head = new_head
    if forget is not None:
        for key, store in state.stores.items():
            gone = [rel for rel in store.files if forget(key, rel)]
            for rel in gone:
                del store.files[rel]
            if gone:
                store.tree = None
                store.dirs = {}
    try:
        save_state(repo.directory, state)
    except OSError as exc:
        raise HistoryError(f"cannot save the history's state in {repo.directory}: "
                           f"{exc.strerror or exc}") from exc


def is_store_path(path: str) -> bool:
    return not path.startswith(MANIFEST_DIR + "/")
