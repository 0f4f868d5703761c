"""A recall preview: for a prompt, the memories Claude Code would attach (at most five) and
exactly what it would attach of each, with the files that came close.

Claude Code's selector is a Sonnet side query over the manifest; offline memtui ranks the
manifest with BM25 (:mod:`memtui.core.recall.rank`), an approximation (``exact`` False). A
prompt of one word gets no recall at all, as in Claude Code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memtui.core.recall.attach import MAX_SELECTED, Attachment, read_attachment
from memtui.core.recall.manifest import Manifest, ManifestFile
from memtui.core.recall.rank import bm25

SELECT_SHARE = 0.5
"""Offline, a file is chosen when it scores at least this share of the best score (recall
attaches only memories that are clearly useful, not always five)."""
NEAR = 5
"""Files that came close, listed after the chosen ones."""
OFFLINE = ("offline approximation: memtui's BM25 ranking of the manifest stands in for Claude "
           "Code's Sonnet selector; what is attached of each memory is exact")
ONE_WORD = "Claude Code runs no recall for a prompt of one word"


@dataclass
class Chosen:
    """A memory recall attaches: its manifest entry and the attachment (None: it could not be
    read, so Claude Code drops it)."""

    file: ManifestFile
    attachment: Attachment | None


@dataclass
class RecallPreview:
    prompt: str
    provider: str
    exact: bool
    """True when the selection is Claude Code's own (the anthropic side query); offline it is
    memtui's ranking."""
    chosen: list[Chosen] = field(default_factory=list)
    near: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def runs_recall(prompt: str) -> bool:
    """Claude Code skips recall for an empty prompt or one without a space inside."""
    return bool(re.search(r"\s", prompt.strip()))


def manifest_text_of(file: ManifestFile) -> str:
    """What the selector sees of a file, for the offline ranking."""
    return f"{file.rel_path} {file.type or ''} {file.description or ''}"


def attach(manifest: Manifest, files: list[ManifestFile], now_ms: float) -> list[Chosen]:
    return [Chosen(f, read_attachment(manifest.root, f.rel_path, f.mtime_ms, now_ms))
            for f in files[:MAX_SELECTED]]


def preview_local(manifest: Manifest, prompt: str, now_ms: float) -> RecallPreview:
    """The offline recall preview of ``prompt`` over ``manifest``."""
    preview = RecallPreview(prompt, "local", exact=False)
    preview.notes.append(OFFLINE)
    if not runs_recall(prompt):
        preview.notes.append(ONE_WORD)
        return preview
    scores = bm25(prompt, [manifest_text_of(f) for f in manifest.files])
    ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])
    if not ranked:
        preview.notes.append("no memory of the manifest shares a word with the prompt")
        return preview
    best = scores[ranked[0]]
    picked = [i for i in ranked if scores[i] >= SELECT_SHARE * best][:MAX_SELECTED]
    preview.chosen = attach(manifest, [manifest.files[i] for i in picked], now_ms)
    rest = [i for i in ranked if i not in picked][:NEAR]
    preview.near = [manifest.files[i].rel_path for i in rest]
    return preview
