"""An ``httpx2.MockTransport`` that answers like the Messages API, for the real anthropic SDK.

``script`` is a list of what to do for each ``/v1/messages`` call in turn (the last one
repeats): ``"ok"`` (a verdict for every pair of the request), ``"partial"`` (verdicts for the
first pair only), ``"malformed"`` (text, no tool call), ``"bad-json"`` (a tool call whose input
breaks the schema), or an HTTP status code (``429``, ``529``, ``500``) with a ``retry-after-ms``
of 1 so the SDK's backoff stays short. Every request body is kept in ``bodies``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx2

MODEL = "claude-haiku-5-5"
_PAIR = re.compile(r'<pair id="(p\d+)">')


@dataclass
class FakeMessagesAPI:
    script: list[Any] = field(default_factory=lambda: ["ok"])
    relation: str = "conflicts_with"
    winner: str = "b"
    bodies: list[str] = field(default_factory=list)
    calls: int = 0
    counted: int = 0

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handle))

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = request.content.decode("utf-8")
        self.bodies.append(body)
        if request.url.path.endswith("/count_tokens"):
            self.counted += 1
            return httpx2.Response(200, json={"input_tokens": 1000 + len(body) // 4})
        assert request.url.path.endswith("/v1/messages"), request.url
        step = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        if isinstance(step, int):
            return httpx2.Response(
                step,
                headers={"retry-after-ms": "1"},
                json={
                    "type": "error",
                    "error": {
                        "type": "overloaded_error" if step == 529 else "rate_limit_error",
                        "message": "busy",
                    },
                },
            )
        ids = _PAIR.findall(json.loads(body)["messages"][0]["content"])
        if step == "malformed":
            content: list[dict[str, Any]] = [{"type": "text", "text": "I think they conflict."}]
        elif step == "bad-json":
            content = [self._tool([{"pair": i, "relation": "maybe", "confidence": 2} for i in ids])]
        else:
            chosen = ids[:1] if step == "partial" else ids
            content = [self._tool([self._verdict(i) for i in chosen])]
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{self.calls}",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": content,
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 1200,
                    "output_tokens": 80 * len(ids),
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 900,
                },
            },
        )

    def _tool(self, verdicts: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "tool_use",
            "id": f"toolu_{self.calls}",
            "name": "record_verdicts",
            "input": {"verdicts": verdicts},
        }

    def _verdict(self, pair: str) -> dict[str, Any]:
        return {
            "pair": pair,
            "relation": self.relation,
            "winner": self.winner,
            "confidence": 0.9,
            "reason": "B replaced the database rule",
            "evidence_a": "never SQLite",
            "evidence_b": "SQLite in memory",
        }
