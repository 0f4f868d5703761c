"""Where the link target of an index entry points: a file or a folder of the store, outside
the store, or nowhere (dangling) (docs/claude-code-rules.md#index-health)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Set
from urllib.parse import unquote

from memtui.core.parse.lazyre import lazy_re

_SCHEME = lazy_re(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def is_external_target(target: str) -> bool:
    """True for link targets outside the store: URLs, ``//host``, absolute paths, ``#anchors``."""
    return bool(_SCHEME.match(target) or target.startswith(("/", "\\", "~", "#")))


def resolve_target(target: str, index_dir: str = "") -> str:
    """A relative link target as a posix path from the store root (fragment and query dropped)."""
    path = target.split("#", 1)[0].split("?", 1)[0]
    return posixpath.normpath(posixpath.join(index_dir, path)) if path else ""


_PLAIN_NAME = lazy_re(r"[\w\-][\w\- .]*")  # no ``:/\\~#?%``: never external, never rewritten


def _target_in_store(target: str, index_dir: str, store_files: Set[str]) -> str | None:
    for candidate in (target, unquote(target)):
        resolved = resolve_target(candidate, index_dir)
        if resolved in store_files:
            return resolved
    return None


def _folder_in_store(
    target: str, index_dir: str, exists: Callable[[str], bool]
) -> str | None:
    """The store folder (posix, from the root; ``.`` for the root) a link names, when it
    exists; None for a file-like target (``….md``), a path that leaves the store, or a folder
    that does not exist."""
    for candidate in (target, unquote(target)):
        resolved = resolve_target(candidate, index_dir)
        if (
            resolved
            and not resolved.lower().endswith(".md")
            and resolved != ".."
            and not resolved.startswith(("../", "/"))
            and exists(resolved)
        ):
            return resolved
    return None


def folders_with_files(store_files: Set[str]) -> Callable[[str], bool]:
    """A folder exists when a store file lies below it (built on the first call)."""
    folders: set[str] = set()

    def exists(folder: str) -> bool:
        if not folders:
            folders.add(".")
            for rel in store_files:
                parts = rel.split("/")[:-1]
                for end in range(1, len(parts) + 1):
                    folders.add("/".join(parts[:end]))
        return folder in folders

    return exists


def link_of(
    target: str | None, index_dir: str, store_files: Set[str], exists: Callable[[str], bool]
) -> tuple[str, str] | None:
    """What an entry's target points to: ``("file", path)`` or ``("folder", folder)`` in the
    store, ``("none", "")`` for no target or one outside the store, ``None``: dangling."""
    if target is None:
        return "none", ""
    if not index_dir and _PLAIN_NAME.fullmatch(target):
        # a bare file name: no URL, and resolve_target and unquote leave it as it is
        found = target if target in store_files else None
    elif is_external_target(target):
        return "none", ""
    else:
        found = _target_in_store(target, index_dir, store_files)
    if found is not None:
        return "file", found
    if (
        not target.endswith(".md")  # the common dangling entry: no folder to look for
        and (folder := _folder_in_store(target, index_dir, exists)) is not None
    ):
        return "folder", folder
    return None
