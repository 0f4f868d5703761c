"""The messages memtui's screens, dialogs and workers send each other.

A worker posts its progress to its node (a dialog may show it) and the message bubbles up to
the app, which keeps the header's text. A screen or a dialog that changes something never
calls into the main screen: the app hears "operation applied", says so and tells every screen
"the stores changed" (the main screen rescans); the main screen hears "select path".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.worker import Worker

from memtui.core.contents import Store
from memtui.core.write.proposal import AppliedOp


@dataclass
class JobProgress(Message):
    """A running worker says how far it is; a newer message of the same worker replaces an
    older one still queued (a fast worker never floods the app)."""

    worker: Worker[Any]
    text: str
    done: int | None = None
    total: int | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JobProgress) and message.worker is self.worker


@dataclass
class JobEnded(Message):
    """A worker ended (its failure, if any, was said): it leaves the header."""

    worker: Worker[Any]


@dataclass(repr=False)
class OperationApplied(Message):
    """A change to the user's files was applied (and journaled): the app says so and tells
    every screen (:class:`StoresChanged`)."""

    label: str
    summary: str
    """What it did, in words ("deleted x.md · u to undo")."""
    op: AppliedOp


class StoresChanged(Message, bubble=False):
    """Sent to every screen when memtui changed files: the main screen rescans."""


@dataclass(repr=False)
class SelectPath(Message, bubble=False):
    """Show a store, or a memory in it (``rel_path``), in its pane (palette, search)."""

    store: Store
    rel_path: str | None = None
