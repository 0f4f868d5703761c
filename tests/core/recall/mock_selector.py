"""An ``httpx2.MockTransport`` that answers recall's side query like the Messages API."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx2


@dataclass
class FakeSelector:
    """Answers ``/v1/messages`` with ``answer`` (a JSON text, or an HTTP status code)."""

    answer: Any = field(default_factory=lambda: {"selected_memories": ["pgbouncer.md"]})
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handle))

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content.decode("utf-8"))
        self.bodies.append(body)
        if request.url.path.endswith("/count_tokens"):
            return httpx2.Response(200, json={"input_tokens": 812})
        if isinstance(self.answer, int):
            return httpx2.Response(self.answer, headers={"retry-after-ms": "1"}, json={
                "type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
        text = self.answer if isinstance(self.answer, str) else json.dumps(self.answer)
        return httpx2.Response(200, json={
            "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 812, "output_tokens": 20}})
