"""The judge providers: one interface, each provider's module imported only when it is used
(``memtui judge`` with the local judge never imports ``anthropic``).

A provider is a class with ``name``, ``sends_data`` (whether text leaves the machine),
``estimate(candidates)`` (what a run would send and cost, before anything is sent; None when
nothing is sent) and ``judge(candidates, cancelled=, progress=)`` → one verdict (or None when
cancelled before it) per candidate. :data:`PROVIDERS` names the module and class of each."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memtui.core.config import JudgeConfig
from memtui.core.judge.verdicts import Candidate, Verdict

PROVIDERS: dict[str, tuple[str, str]] = {
    "local": ("memtui.core.judge.local", "LocalJudge"),
    "anthropic": ("memtui.core.judge.anthropic_judge", "AnthropicJudge"),
}


@dataclass(frozen=True)
class Estimate:
    """What a run would send, before it is sent: counted with the provider's token counter."""

    provider: str
    model: str
    pairs: int
    memories: int
    requests: int
    input_tokens: int
    output_tokens: int
    """An upper bound: ``max_tokens`` of every request."""
    cost_usd: float
    """The upper bound of the cost at the model's list price (input + at most output)."""
    redactions: int = 0
    """Secrets replaced by ``[REDACTED:rule]`` in what would be sent."""
    notes: list[str] = field(default_factory=list)
    groups: int = 0
    """The groups of near memories the requests carry (a request carries one or more whole
    groups, or a piece of a large one); 0 when the provider does not group."""
    cache_read_tokens: int = 0
    """Of ``input_tokens``, those priced as read from the prompt cache."""
    cache_write_tokens: int = 0
    """Of ``input_tokens``, those priced as written to the prompt cache."""

    def describe(self) -> str:
        secrets = f", {self.redactions} secrets redacted" if self.redactions else ""
        groups = f" ({self.groups} groups)" if self.groups else ""
        cached = self.cache_read_tokens + self.cache_write_tokens
        cache = f" ({cached:,} of them cached)" if cached else ""
        return (
            f"{self.provider} ({self.model}): {self.pairs} pairs of {self.memories} memories "
            f"in {self.requests} requests{groups}, {self.input_tokens:,} input tokens{cache} + "
            f"at most {self.output_tokens:,} output, at most ${self.cost_usd:.4f}{secrets}"
        )


class Judge(Protocol):
    name: str
    sends_data: bool

    def estimate(self, candidates: Sequence[Candidate]) -> Estimate | None: ...

    def judge(
        self,
        candidates: Sequence[Candidate],
        *,
        cancelled: Callable[[], bool] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Verdict | None]: ...


class ProviderError(Exception):
    """The provider cannot run (unknown, no API key, not installed): said in words."""


def load_judge(name: str, config: JudgeConfig, **options: object) -> Judge:
    """The provider ``name`` built from ``config`` (its module imported now, not before)."""
    try:
        module_name, class_name = PROVIDERS[name]
    except KeyError:
        known = ", ".join(PROVIDERS)
        raise ProviderError(f"unknown judge provider {name!r} (known: {known})") from None
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ProviderError(f"the {name} judge cannot be loaded: {err}") from err
    judge: Judge = getattr(module, class_name).from_config(config, **options)
    return judge
