"""Where the history repository lives, and the path in it that names each store.

The repository is memtui's own: ``$MEMTUI_DATA_DIR/history`` when that is an absolute path,
else ``$XDG_DATA_HOME/memtui/history``, else ``~/.local/share/memtui/history`` (mode 0700).
Never under the Claude Code home, whose cleanup deletes (a data dir there is refused).

Each store's files sit under a key naming the store: ``auto/<project>``, ``team/<project>``,
``agent/<scope>/<agent>`` (``/<project>`` for the project and local scopes),
``session/<project>/<session id>``, ``snapshot/<agent>/<project>``,
``agentmemory/<home>``; ``<project>`` is the project's directory name under the CC home
(its sanitized path). Two stores that would get one key keep it apart with ``~2``, ``~3``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memtui.core.model import StoreKind, StoreLocation
from memtui.core.stores.sanitize import sanitize_path

DATA_DIR_ENV = "MEMTUI_DATA_DIR"
HISTORY_DIR = "history"
MANIFEST_DIR = ".memtui"
"""The top-level tree of every version holding ``stores.json`` (no store key starts so)."""
MANIFEST_NAME = "stores.json"
KEY_PART_CAP = 120


class HistoryError(Exception):
    """The history repository cannot be used (corrupt, locked, not writable): the reason in
    words. The rest of memtui keeps working."""


def data_dir(env: Mapping[str, str], home: Path) -> Path:
    """memtui's data dir by the rule of the module docstring."""
    own = env.get(DATA_DIR_ENV, "")
    if own and os.path.isabs(own):
        return Path(own)
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "memtui"
    return home / ".local" / "share" / "memtui"


def history_dir(env: Mapping[str, str], home: Path, claude_home: Path | None = None) -> Path:
    """The history directory; HistoryError when it would lie inside ``claude_home``."""
    where = data_dir(env, home) / HISTORY_DIR
    if claude_home is not None:
        real = os.path.realpath(where)
        cc = os.path.realpath(claude_home)
        if real == cc or real.startswith(cc.rstrip(os.sep) + os.sep):
            raise HistoryError(
                f"the history directory {where} lies inside the Claude Code home {claude_home}, "
                f"whose cleanup deletes files; set ${DATA_DIR_ENV} elsewhere")
    return where


@dataclass(frozen=True)
class StoreRef:
    """A store as history names it: its key in the repository and what the key says."""

    key: str
    kind: str
    path: Path
    scope: str | None = None
    agent: str | None = None
    project: str | None = None
    session: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"path": str(self.path), "kind": self.kind, "scope": self.scope,
                "agent": self.agent, "project": self.project, "session": self.session}

    @classmethod
    def from_json(cls, key: str, data: object) -> StoreRef | None:
        """A manifest entry back (None when it is not one: the manifest is read from disk)."""
        if not isinstance(data, dict) or not isinstance(data.get("path"), str):
            return None
        if not isinstance(data.get("kind"), str):
            return None

        def text(name: str) -> str | None:
            value = data.get(name)
            return value if isinstance(value, str) else None

        return cls(key, data["kind"], Path(data["path"]), text("scope"), text("agent"),
                   text("project"), text("session"))


def key_part(text: str) -> str:
    """One component of a key: no ``/``, no NUL, never ``.`` or ``..``, not too long."""
    cleaned = text.replace("/", "-").replace("\0", "-").strip() or "-"
    if cleaned in (".", ".."):
        cleaned = cleaned.replace(".", "-")
    return cleaned[:KEY_PART_CAP]


def project_key(memory_root: Path, project: Path) -> str:
    """The project's name in keys: its directory under the CC home when the auto memory is
    the default ``<projects>/<name>/memory``, else its sanitized path."""
    if memory_root.name == "memory" and memory_root.parent.parent.name == "projects":
        return key_part(memory_root.parent.name)
    return key_part(sanitize_path(str(project)))


def base_key(location: StoreLocation, project: str) -> str:
    """The key a store gets before collisions are resolved."""
    kind = location.kind
    if kind in (StoreKind.AUTO, StoreKind.TEAM):
        return f"{kind.value}/{project}"
    if kind == StoreKind.AGENT:
        scope = location.scope.value if location.scope else "user"
        agent = key_part(location.agent or location.path.name)
        return f"agent/{scope}/{agent}" + ("" if scope == "user" else f"/{project}")
    if kind == StoreKind.SESSION:
        return f"session/{project}/{key_part(location.session or location.path.parent.name)}"
    if kind == StoreKind.SNAPSHOT:
        return f"snapshot/{key_part(location.agent or location.path.name)}/{project}"
    return f"agentmemory/{key_part(sanitize_path(str(location.path)))}"


def store_ref(
    location: StoreLocation,
    project: str,
    taken: Mapping[str, StoreRef],
    by_path: Mapping[tuple[str, str], StoreRef] | None = None,
) -> StoreRef:
    """The store's ref: the key ``taken`` (the manifest so far) gives its path, else a free
    one (``by_path``: ``taken`` by (path, kind), when the caller has it)."""
    path = Path(os.path.abspath(location.path))
    if by_path is None:
        by_path = {(str(r.path), r.kind): r for r in taken.values()}
    found = by_path.get((str(path), location.kind.value))
    if found is not None:
        return found
    key = base_key(location, project)
    n = 1
    candidate = key
    while candidate in taken or any(k.startswith(candidate + "/") for k in taken) or any(
            candidate.startswith(k + "/") for k in taken):
        n += 1
        candidate = f"{key}~{n}"
    return StoreRef(
        key=candidate,
        kind=location.kind.value,
        path=path,
        scope=location.scope.value if location.scope else None,
        agent=location.agent,
        project=project if location.kind != StoreKind.AGENTMEMORY else None,
        session=location.session,
    )
