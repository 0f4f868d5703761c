"""An ``httpx2.MockTransport`` that answers like the Messages API, for the real anthropic SDK.

``script`` is a list of what to do for each ``/v1/messages`` call in turn (the last one
repeats): ``"ok"`` (a verdict for every pair the request lists, as ``<pair a="m1" b="m2"/>``),
``"partial"`` (verdicts for the first pair only), ``"flipped"`` (every pair, its memories named
b first), ``"extra"`` (every pair, and one the request did not ask for), ``"malformed"`` (text,
no tool call), ``"bad-json"`` (a tool call whose input breaks the schema), ``"not-json"`` (a
200 whose body is no JSON), ``"not-a-message"`` (JSON that is no message), or an HTTP status
code (``429``, ``529``, ``500``) with a ``retry-after-ms`` of 1 so the SDK's backoff stays
short. Every request body is kept in ``bodies``.
``winner`` names the memory each verdict keeps: ``"a"`` or ``"b"`` of the pair as listed,
``"newer"`` (the one whose ``modified`` or ``mtime`` in the request is later) or ``"none"``.

The Message Batches API too: a created batch is ``in_progress`` for ``polls`` retrievals, then
``ended``; its results (JSONL) answer each request in turn as ``batch_script`` says (the last
one repeats): ``"ok"``, ``"partial"``, ``"malformed"`` as above, or ``"errored"`` /
``"expired"``. ``batch_status`` (an HTTP status code) makes creating a batch fail instead;
``cancelled`` counts the batches cancelled."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx2

MODEL = "claude-haiku-5-5"
_PAIR = re.compile(r'<pair a="(m\d+)" b="(m\d+)"/>')
_MEMORY = re.compile(r'<memory id="(m\d+)"([^>]*)>')
_DATE = re.compile(r'(?:modified|mtime)="([^"]*)"')


def asked(content: str) -> list[tuple[str, str]]:
    """The pairs a request's content lists, as memory ids."""
    return _PAIR.findall(content)


def dates(content: str) -> dict[str, str]:
    """The date each memory of a request's content carries (``modified``, else ``mtime``)."""
    found: dict[str, str] = {}
    for memory_id, attrs in _MEMORY.findall(content):
        date = _DATE.search(attrs)
        if date:
            found[memory_id] = date.group(1)
    return found


@dataclass
class FakeMessagesAPI:
    script: list[Any] = field(default_factory=lambda: ["ok"])
    relation: str = "conflicts_with"
    winner: str = "b"
    bodies: list[str] = field(default_factory=list)
    calls: int = 0
    counted: int = 0
    batch_script: list[Any] = field(default_factory=lambda: ["ok"])
    batch_status: int | None = None
    polls: int = 1
    batches: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    retrieved: int = 0
    cancelled: int = 0

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handle))

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = request.content.decode("utf-8")
        self.bodies.append(body)
        if request.url.path.endswith("/count_tokens"):
            self.counted += 1
            return httpx2.Response(200, json={"input_tokens": 1000 + len(body) // 4})
        if "/v1/messages/batches" in request.url.path:
            return self.batch(request, body)
        assert request.url.path.endswith("/v1/messages"), request.url
        step = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        if isinstance(step, int):
            return self.error(step)
        if step == "not-json":  # a 200 whose body is no JSON (a proxy's page)
            return httpx2.Response(200, content=b"<html>\xff gateway</html>",
                                   headers={"content-type": "application/json"})
        if step == "not-a-message":  # JSON, but no message: no usage, no content
            return httpx2.Response(200, json=["surprise", {"usage": 3}])
        content = json.loads(body)["messages"][0]["content"]
        return httpx2.Response(200, json=self.message(step, content))

    @staticmethod
    def error(status: int) -> httpx2.Response:
        return httpx2.Response(
            status,
            headers={"retry-after-ms": "1"},
            json={
                "type": "error",
                "error": {
                    "type": "overloaded_error" if status == 529 else "rate_limit_error",
                    "message": "busy",
                },
            },
        )

    def batch(self, request: httpx2.Request, body: str) -> httpx2.Response:
        path = request.url.path
        if request.method == "POST" and path.endswith("/batches"):
            if self.batch_status is not None:
                return self.error(self.batch_status)
            batch_id = f"msgbatch_{len(self.batches) + 1}"
            self.batches[batch_id] = json.loads(body)["requests"]
            return httpx2.Response(200, json=self.batch_object(batch_id, "in_progress"))
        batch_id = path.split("/batches/", 1)[1].split("/", 1)[0]
        requests = self.batches[batch_id]
        if path.endswith("/cancel"):
            self.cancelled += 1
            return httpx2.Response(200, json=self.batch_object(batch_id, "canceling"))
        if path.endswith("/results"):
            lines = []
            for n, item in enumerate(requests):
                step = self.batch_script[min(n, len(self.batch_script) - 1)]
                content = item["params"]["messages"][0]["content"]
                if step in ("errored", "expired"):
                    error = {"type": "error", "error": {"type": "overloaded_error",
                                                        "message": "busy"}}
                    result = {"type": step, **({"error": error} if step == "errored" else {})}
                else:
                    result = {"type": "succeeded", "message": self.message(step, content)}
                lines.append(json.dumps({"custom_id": item["custom_id"], "result": result}))
            return httpx2.Response(200, content="\n".join(lines).encode())
        self.retrieved += 1
        status = "ended" if self.retrieved > self.polls else "in_progress"
        return httpx2.Response(200, json=self.batch_object(batch_id, status))

    def batch_object(self, batch_id: str, status: str) -> dict[str, Any]:
        count = len(self.batches[batch_id])
        ended = status == "ended"
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": {"processing": 0 if ended else count,
                               "succeeded": count if ended else 0,
                               "errored": 0, "canceled": 0, "expired": 0},
            "created_at": "2026-12-01T00:00:00Z",
            "expires_at": "2026-12-02T00:00:00Z",
            "ended_at": "2026-12-01T00:05:00Z" if ended else None,
            "results_url": (f"https://api.anthropic.com/v1/messages/batches/{batch_id}/results"
                            if ended else None),
        }

    def message(self, step: str, content: str) -> dict[str, Any]:
        pairs = asked(content)
        if step == "malformed":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": "I think they conflict."}]
        elif step == "bad-json":
            blocks = [self._tool([{"a": a, "b": b, "relation": "maybe", "confidence": 2}
                                  for a, b in pairs])]
        else:
            chosen = pairs[:1] if step == "partial" else pairs
            when = dates(content)
            verdicts = [self._verdict(a, b, when, flipped=step == "flipped") for a, b in chosen]
            if step == "extra":
                verdicts.append(self._verdict("m1", "m99", when))
            blocks = [self._tool(verdicts)]
        return {
            "id": f"msg_{self.calls}",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": blocks,
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 1200,
                "output_tokens": 80 * len(pairs),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 900,
            },
        }

    def _tool(self, verdicts: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "tool_use",
            "id": f"toolu_{self.calls}",
            "name": "record_verdicts",
            "input": {"verdicts": verdicts},
        }

    def _verdict(
        self, a: str, b: str, when: dict[str, str], flipped: bool = False
    ) -> dict[str, Any]:
        if self.winner == "newer":
            winner = a if when.get(a, "") > when.get(b, "") else b
        else:
            winner = {"a": a, "b": b}.get(self.winner, "none")
        evidence = {"evidence_a": "never SQLite", "evidence_b": "SQLite in memory"}
        if flipped:
            a, b = b, a
            evidence = {"evidence_a": "SQLite in memory", "evidence_b": "never SQLite"}
        return {
            "a": a,
            "b": b,
            "relation": self.relation,
            "winner": winner,
            "confidence": 0.9,
            "reason": "B replaced the database rule",
            **evidence,
        }
