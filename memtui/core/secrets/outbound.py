"""The one door for text that leaves the machine (a request to a model, any upload).

Every module that sends (it imports ``anthropic`` or an HTTP client) takes the text it puts in a
request body from :func:`outbound`, or as a :class:`~memtui.core.secrets.redact.Redacted`
parameter made by it: ``tests/core/secrets/test_outbound.py`` checks every such module's send
calls and fails when one gets text any other way.
"""

from __future__ import annotations

from memtui.core.secrets.mask import output_findings, replace_findings
from memtui.core.secrets.redact import Redacted, placeholder

__all__ = ["Redacted", "outbound"]


def outbound(text: str, *, path: str = "") -> Redacted:
    """``text`` as it may leave the machine: each secret replaced with
    ``[REDACTED:<rule-id>]``, with what was replaced (masked). The secrets are those an output
    masks (:func:`~memtui.core.secrets.mask.output_findings`: one right before ``.md``, ``/``
    or ``)`` too, as in a file name or a path), except on a line the user marked
    ``gitleaks:allow``. ``path``: the file the text comes from, for the rules' path
    allowlists."""
    findings = output_findings(text, path=path, allow_signature=True)
    if not findings:
        return Redacted(text, ())
    return Redacted(replace_findings(text, findings, placeholder("{rule}")), tuple(findings))
