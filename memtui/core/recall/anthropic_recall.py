"""Recall's own selector, asked through the real anthropic SDK: the side query Claude Code sends
before a prompt ([the rule](../../../docs/claude-code-rules.md#the-recall-preview)), with the
manifest and the prompt through the core's redaction first, its tokens counted and priced
before anything is sent, and the offline ranking in its place when it cannot run (no key, a 429
or 529, an answer that is no JSON)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memtui.core.config import JudgeConfig
from memtui.core.judge.anthropic_judge import cost, response_cost
from memtui.core.judge.providers import ProviderError
from memtui.core.recall.manifest import Manifest
from memtui.core.recall.preview import RecallPreview, attach, preview_local, runs_recall
from memtui.core.secrets.outbound import Redacted, outbound

NAME = "anthropic"
MODEL_ENV = "ANTHROPIC_DEFAULT_SONNET_MODEL"
DEFAULT_MODEL = "claude-sonnet-4-6"
"""The model CC's recall asks when ``$ANTHROPIC_DEFAULT_SONNET_MODEL`` is not set (its default
Sonnet model)."""
MAX_TOKENS = 256
TIMEOUT_SECONDS = 30.0
MAX_RETRIES = 0
"""No retry: a 429 or 529 falls back to the offline ranking at once, and says so."""

SYSTEM = """You are selecting memories that will be useful to Claude Code as it processes a \
user's query. You will be given the user's query and a list of available memory files with \
their filenames and descriptions.

Return a list of filenames for the memories that will clearly be useful to Claude Code as it \
processes the user's query (up to 5). Only include memories that you are certain will be \
helpful based on their name and description.
- If you are unsure if a memory will be useful in processing the user's query, then do not \
include it in your list. Be selective and discerning.
- If there are no memories in the list that would clearly be useful, feel free to return an \
empty list.
- If a list of recently-used tools is provided, do not select memories that are usage \
reference or API documentation for those tools (Claude Code is already exercising them). DO \
still select memories containing warnings, gotchas, or known issues about those tools — \
active use is exactly when those matter.
"""
"""Claude Code's system prompt of the selector, word for word."""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
    "required": ["selected_memories"],
    "additionalProperties": False,
}

http_client_factory: Callable[[], Any] | None = None
"""Builds the HTTP client the SDK sends through (tests: one on a mock transport)."""


@dataclass(frozen=True)
class RecallEstimate:
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    redactions: int
    exact_tokens: bool

    def describe(self) -> str:
        tokens = "" if self.exact_tokens else " (estimated from length)"
        secrets = f", {self.redactions} secrets redacted" if self.redactions else ""
        return (f"anthropic ({self.model}): 1 request, {self.input_tokens:,} input tokens"
                f"{tokens} + at most {self.output_tokens} output, at most "
                f"${self.cost_usd:.4f}{secrets}")


def query_text(manifest: Manifest, prompt: str) -> Redacted:
    """The user message of the side query, redacted."""
    return outbound(f"Query: {prompt}\n\nAvailable memories:\n{manifest.text}")


def request_params(model: str, text: Redacted) -> dict[str, Any]:
    return {
        "model": model,
        "system": SYSTEM,
        "messages": [{"role": "user", "content": text.text}],
        "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
    }


@dataclass
class AnthropicRecall:
    """The selector through the SDK (``client`` an ``anthropic.Anthropic``)."""

    model: str
    client: Any

    @classmethod
    def from_config(cls, config: JudgeConfig, env: Mapping[str, str] | None = None,
                    http_client: Any = None) -> AnthropicRecall:
        environ = os.environ if env is None else env
        key = environ.get(config.api_key_env, "")
        if not key:
            raise ProviderError(f"no API key in ${config.api_key_env} (judge.api_key_env names "
                                "the variable); nothing was sent")
        import anthropic

        if http_client is None and http_client_factory is not None:
            http_client = http_client_factory()
        client = anthropic.Anthropic(api_key=key, max_retries=MAX_RETRIES,
                                     timeout=TIMEOUT_SECONDS, http_client=http_client)
        return cls(model=environ.get(MODEL_ENV) or DEFAULT_MODEL, client=client)

    def estimate(self, manifest: Manifest, prompt: str) -> RecallEstimate:
        """Counted with ``count_tokens`` (free; it sends the same redacted text)."""
        text = query_text(manifest, prompt)
        params = request_params(self.model, text)
        try:
            counted = self.client.messages.count_tokens(
                model=params["model"], system=params["system"], messages=params["messages"])
            tokens, exact = int(counted.input_tokens), True
        except Exception:
            tokens, exact = (len(SYSTEM) + len(text.text)) * 2 // 7, False
        return RecallEstimate(self.model, tokens, MAX_TOKENS,
                              cost(self.model, tokens, MAX_TOKENS), len(text.findings), exact)

    def select(self, manifest: Manifest, prompt: str) -> tuple[list[str], float]:
        """The filenames the selector chose (only names the manifest has) and the reply's
        cost; raises what the SDK raised, or ValueError for an answer that is no JSON."""
        params = request_params(self.model, query_text(manifest, prompt))
        response = self.client.messages.create(max_tokens=MAX_TOKENS, **params)
        spent = response_cost(self.model, response.usage)
        texts = [b.text for b in response.content if getattr(b, "type", "") == "text"]
        if not texts:
            return [], spent
        try:
            answer = json.loads(texts[0])
        except json.JSONDecodeError as err:
            raise ValueError(f"the answer is no JSON ({err.msg})") from err
        chosen = answer.get("selected_memories") if isinstance(answer, dict) else None
        if not isinstance(chosen, list):
            raise ValueError("the answer has no selected_memories list")
        return chosen_files(manifest, chosen), spent


def chosen_files(manifest: Manifest, chosen: list[Any]) -> list[str]:
    """The manifest's files the selector named, in its order: by name, or by the name as it
    was sent (a file named after a secret went as ``[REDACTED:<rule>].md``; every file sent
    under that name, when several were)."""
    names = {f.rel_path for f in manifest.files}
    by_sent: dict[str, list[str]] = {name: [name] for name in names}
    for file in manifest.files:
        sent = outbound(file.rel_path).text
        if sent not in names:
            by_sent.setdefault(sent, []).append(file.rel_path)
    found: list[str] = []
    for name in chosen:
        for rel in by_sent.get(name, []) if isinstance(name, str) else []:
            if rel not in found:
                found.append(rel)
    return found


def preview_anthropic(recall: AnthropicRecall, manifest: Manifest, prompt: str,
                      now_ms: float) -> RecallPreview:
    """The preview with Claude Code's own selector, or the offline one (said in its notes)
    when the request fails."""
    if not runs_recall(prompt):
        return preview_local(manifest, prompt, now_ms)
    try:
        names, spent = recall.select(manifest, prompt)
    except Exception as err:  # any failure of the request: the offline ranking instead
        fallback = preview_local(manifest, prompt, now_ms)
        fallback.notes.insert(0, f"anthropic failed ({why(err)}): the offline ranking instead")
        return fallback
    preview = RecallPreview(prompt, NAME, exact=True)
    by_name = {f.rel_path: f for f in manifest.files}
    preview.chosen = attach(manifest, [by_name[name] for name in names], now_ms)
    local = preview_local(manifest, prompt, now_ms)
    preview.near = [c.file.rel_path for c in local.chosen if c.file.rel_path not in names]
    preview.near += [p for p in local.near if p not in names and p not in preview.near]
    preview.near = preview.near[:5]
    preview.notes.append(f"asked {recall.model}: ${spent:.4f}")
    return preview


def why(err: BaseException) -> str:
    status = getattr(err, "status_code", None)
    if status is not None:
        return f"HTTP {status}"
    return f"{type(err).__name__}: {err}"


def token_counter(recall: AnthropicRecall) -> Callable[[str], int]:
    """Exact tokens of a text by the API's ``count_tokens`` (free), the text redacted first."""

    def count(text: str) -> int:
        safe = outbound(text)
        counted = recall.client.messages.count_tokens(
            model=recall.model, messages=[{"role": "user", "content": safe.text}])
        return int(counted.input_tokens)

    return count
