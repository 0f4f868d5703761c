"""The one door for text that leaves the machine (a request to a model, any upload).

Every module that sends (it imports ``anthropic`` or an HTTP client) takes the text it puts in a
request body from :func:`outbound`, or as a :class:`~memtui.core.secrets.redact.Redacted`
parameter made by it: ``tests/core/secrets/test_outbound.py`` checks every such module's send
calls and fails when one gets text any other way.
"""

from __future__ import annotations

from memtui.core.secrets.redact import Redacted, redact

__all__ = ["Redacted", "outbound"]


def outbound(text: str, *, path: str = "") -> Redacted:
    """``text`` as it may leave the machine: each secret replaced with
    ``[REDACTED:<rule-id>]`` (:func:`~memtui.core.secrets.redact.redact`), with what was
    replaced (masked). ``path``: the file the text comes from, for the rules' path allowlists."""
    return redact(text, path=path)
