"""The messages memtui's screens, dialogs and jobs send each other.

A job posts its progress to the node that started it (a dialog may show it) and the message
bubbles up to the app, whose job runner keeps the header's text. A screen or a dialog that
changes something never calls into the main screen: the app hears "operation applied" and
rescans, the main screen hears "scan updated" and "select path".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from textual.message import Message

from memtui.core.contents import ScanResult, Store
from memtui.core.write.proposal import AppliedOp


@dataclass(repr=False)  # a scan result's repr would be every store and memory
class ScanUpdated(Message, bubble=False):
    """The scan has a result to show: partial (``complete`` False) after each store kind."""

    result: ScanResult
    shown: threading.Event = field(default_factory=threading.Event)
    """Set once handled: the scan waits for it before it reads on, so the first trees paint
    without the scan's thread competing for the interpreter."""


@dataclass
class JobProgress(Message):
    """A running job says how far it is; a newer message of the same job replaces an older
    one still queued (a fast job never floods the app)."""

    job_id: int
    group: str
    text: str
    done: int | None = None
    total: int | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JobProgress) and message.job_id == self.job_id


@dataclass(repr=False)
class OperationApplied(Message):
    """A change to the user's files was applied (and journaled): the app says so and
    rescans."""

    label: str
    summary: str
    """What it did, in words ("deleted x.md · u to undo")."""
    op: AppliedOp


@dataclass
class OperationFailed(Message):
    """A change was refused or failed; nothing changed (the job runner already said why)."""

    label: str
    reason: str


@dataclass(repr=False)
class SelectPath(Message, bubble=False):
    """Show a store, or a memory in it (``rel_path``), in its pane (palette, search)."""

    store: Store
    rel_path: str | None = None
