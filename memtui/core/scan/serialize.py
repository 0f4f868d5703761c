"""The stable JSON contract of ``memtui scan --json`` and friends (documented in the README)."""

from __future__ import annotations

from memtui.core.cache import gc_paused

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:  # annotations only: ``scan --json`` on unchanged stores builds none
    from typing import Any

    from memtui.core.contents import IndexHealth, LoadReport, Memory, ScanResult, Store
    from memtui.core.model import ProjectRef, SessionInfo, SnapshotInfo


def health_json(health: IndexHealth) -> dict[str, Any]:
    return {
        "dangling": [
            {"line": e.line, "title": e.title, "target": e.target} for e in health.dangling
        ],
        "orphans": list(health.orphans),
        "listed": dict(sorted(health.listed.items())),
        "topic_dangling": [
            {"file": t.file, "line": t.line, "title": t.title, "target": t.target}
            for t in health.topic_dangling
        ],
        "long_entries": [
            {"line": e.line, "length": e.length, "limit": e.limit, "title": e.title}
            for e in health.long_entries
        ],
        "broken_wikilinks": [
            {"source": b.source, "link": b.link} for b in health.broken_wikilinks
        ],
        "wikilinks_checked": health.wikilinks_checked,
    }


def load_report_json(report: LoadReport) -> dict[str, Any]:
    return {
        "path": report.path,
        "lines": report.lines,
        "units": report.units,
        "bytes": report.bytes,
        "line_truncated": report.line_truncated,
        "byte_truncated": report.byte_truncated,
        "binds": report.binds,
        "cut_line": report.cut_line,
        "dropped": [{"line": d.line, "title": d.title, "target": d.target} for d in report.dropped],
        "warning": report.warning,
        "loaded": report.loaded,
        "health": health_json(report.health),
        "agent": report.agent,
        "entries": len(report.entries),
        "problems": list(report.problems),
    }


def snapshot_json(info: SnapshotInfo) -> dict[str, Any]:
    primary = info.primary
    return {
        "status": primary.status,
        "updatedAt": info.updated_at,
        "syncedFrom": primary.synced_from,
        "local": str(primary.local),
        "scope": info.acted_scope.value,
        "problem": info.problem,
        "files": list(info.files),
        "scopes": [
            {
                "scope": s.scope.value,
                "status": s.status,
                "syncedFrom": s.synced_from,
                "local": str(s.local),
                "cc_acts": s.cc_acts,
                "reason": s.reason,
            }
            for s in info.scopes
        ],
    }


def memory_json(memory: Memory) -> dict[str, Any]:
    return {
        "path": memory.rel_path,
        "name": memory.name,
        "description": memory.description,
        "type": memory.type,
        "mtime": memory.mtime,
        "size": memory.size,
        "problems": list(memory.problems),
        "secrets": [{"rule": mark.rule, "line": mark.line} for mark in memory.secrets],
    }


def session_json(info: SessionInfo) -> dict[str, Any]:
    return {
        "id": info.session_id,
        "transcript": str(info.transcript) if info.transcript else None,
        "cwd": info.cwd,
        "started": info.started,
        "gitBranch": info.git_branch,
        "title": info.title,
        "empty": info.empty,
    }


def store_json(store: Store) -> dict[str, Any]:
    loc = store.location
    return {
        "kind": loc.kind.value,
        "scope": loc.scope.value if loc.scope else None,
        "agent": loc.agent,
        "session": loc.session,
        "path": str(loc.path),
        "exists": store.exists,
        "enabled": loc.enabled,
        "rule": loc.rule,
        "enabled_rule": loc.enabled_rule,
        "index": load_report_json(store.index) if store.index else None,
        "snapshot": snapshot_json(store.snapshot) if store.snapshot else None,
        "session_info": session_json(store.session_info) if store.session_info else None,
        "problems": list(store.problems),
        "memories": [memory_json(m) for m in store.memories],
    }


def project_json(ref: ProjectRef) -> dict[str, Any]:
    return {"dir": ref.dir, "path": ref.path}


def scan_json(result: ScanResult) -> dict[str, Any]:
    """``memtui scan --json``'s document, every string with its secrets masked."""
    from memtui.core.secrets.mask import mask_data

    with gc_paused():  # thousands of small dicts: no collection walks them meanwhile
        return mask_data({
            "project": str(result.project),
            "claude_home": str(result.claude_home),
            "git_root": str(result.git_root) if result.git_root else None,
            "git_branch": result.git_branch,
            "claude_code_version": (result.claude_code_version.to_json()
                                    if result.claude_code_version else None),
            "stores": [store_json(s) for s in result.stores],
            "projects": [project_json(p) for p in result.projects],
        })
