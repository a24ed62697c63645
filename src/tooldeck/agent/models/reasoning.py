"""`model.reasoning` mapped to each provider's own request fields, and the rule for what a
reply carried that may go back to the model.

Each wire format takes reasoning its own way, and OpenAI-compatible servers differ among
themselves; the families below are data (a name pattern and the fields it takes), so a new
server is one row of `CHAT_FAMILIES`, not a branch in a client. A combination the provider cannot
take is refused with a `ConfigError` naming the key, when the client is built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from tooldeck.agent.events import EventSink, ReasoningDropped
from tooldeck.agent.messages import Message
from tooldeck.errors import ConfigError

Effort = Literal["none", "low", "medium", "high", "max"]
EFFORTS: tuple[str, ...] = get_args(Effort)

# Anthropic's smallest thinking budget, and the budget each effort stands for when none is given.
ANTHROPIC_MIN_BUDGET = 1024
# "max" leaves room for a 4096-token answer within the 32000 output tokens every thinking Claude takes.
ANTHROPIC_BUDGETS = {"low": 2048, "medium": 8192, "high": 16384, "max": 27904}
# The beta header that lets Claude think between tool calls (interleaved thinking).
INTERLEAVED_THINKING = "interleaved-thinking-2025-05-14"


@dataclass(frozen=True, slots=True)
class Reasoning:
    """How much the model reasons: `effort` (none turns it off) and/or a token `budget_tokens`."""

    effort: Effort | None = None
    budget_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.effort is not None and self.effort not in EFFORTS:
            raise ConfigError(
                f"unknown effort {self.effort!r}; use one of {', '.join(EFFORTS)}", path=_EFFORT
            )
        if self.budget_tokens is not None and (
            isinstance(self.budget_tokens, bool)
            or not isinstance(self.budget_tokens, int)
            or self.budget_tokens < 1
        ):
            raise ConfigError(f"must be a whole number >= 1, got {self.budget_tokens!r}", path=_BUDGET)
        if self.effort == "none" and self.budget_tokens is not None:
            raise ConfigError("effort none turns reasoning off; a budget cannot go with it", path=_BUDGET)

    @property
    def on(self) -> bool:
        return self.effort != "none"


_EFFORT = "model.reasoning.effort"
_BUDGET = "model.reasoning.budget_tokens"


def _refuse(path: str, provider: str, takes: str) -> ConfigError:
    return ConfigError(f"{provider} cannot take this ({provider} takes {takes})", path=path)


# -- Chat Completions: one row per family of OpenAI-compatible servers ------------------------


@dataclass(frozen=True, slots=True)
class ChatFamily:
    """How one family of Chat Completions servers takes reasoning.

    `efforts` maps each effort the family takes to `reasoning_effort` (None: not sent); `switch`
    is the body field that turns thinking on and off, with its on and off values; `budget` the
    extra-body path a token budget goes to (empty: the family takes none)."""

    name: str
    pattern: re.Pattern[str]
    efforts: Mapping[str, str | None]
    switch: tuple[str, Any, Any] | None = None
    budget: tuple[str, ...] = ()
    budget_with_effort: bool = True

    def body(self, reasoning: Reasoning) -> dict[str, Any]:
        """Top-level fields (`reasoning_effort`) and `extra_body` fields for a request."""
        out: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        if reasoning.effort is not None:
            if reasoning.effort not in self.efforts:
                raise _refuse(_EFFORT, self.label, "effort " + "|".join(self.efforts))
            mapped = self.efforts[reasoning.effort]
            if mapped is not None:
                out["reasoning_effort"] = mapped
        if reasoning.budget_tokens is not None:
            if not self.budget:
                raise _refuse(_BUDGET, self.label, "no token budget; set model.reasoning.effort")
            if reasoning.effort is not None and not self.budget_with_effort:
                raise _refuse(_BUDGET, self.label, "a budget or an effort, not both")
            _put(extra, self.budget, reasoning.budget_tokens)
        if self.switch is not None:
            field, on, off = self.switch
            extra[field] = on if reasoning.on else off
        if extra:
            out["extra_body"] = extra
        return out

    @property
    def label(self) -> str:
        return f"{self.name} (Chat Completions)"


def _put(target: dict[str, Any], path: Sequence[str], value: Any) -> None:
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value


_OPENAI_EFFORTS = {"none": "none", "low": "low", "medium": "medium", "high": "high", "max": "xhigh"}

CHAT_FAMILIES: tuple[ChatFamily, ...] = (
    # DeepSeek: thinking on by default; `thinking.type` switches it, `reasoning_effort` sizes it.
    ChatFamily(
        "deepseek",
        re.compile(r"deepseek", re.I),
        {"none": None, "low": "low", "medium": "medium", "high": "high", "max": "max"},
        switch=("thinking", {"type": "enabled"}, {"type": "disabled"}),
    ),
    # Gemini's OpenAI-compatible endpoint: `reasoning_effort`, or a budget through its
    # `extra_body.google.thinking_config` (not both in one request).
    ChatFamily(
        "gemini",
        re.compile(r"gemini", re.I),
        {"none": "none", "low": "low", "medium": "medium", "high": "high"},
        budget=("google", "thinking_config", "thinking_budget"),
        budget_with_effort=False,
    ),
    # Qwen (DashScope, vLLM): thinking on or off, and a budget.
    ChatFamily(
        "qwen",
        re.compile(r"(^|[/.])(qwen|qwq|dashscope)", re.I),
        {"none": None, "high": None},
        switch=("enable_thinking", True, False),
        budget=("thinking_budget",),
    ),
    # Kimi (Moonshot): thinking on or off.
    ChatFamily(
        "kimi",
        re.compile(r"(^|[/.])(kimi|moonshot)", re.I),
        {"none": None, "high": None},
        switch=("thinking", {"type": "enabled"}, {"type": "disabled"}),
    ),
)
OPENAI_FAMILY = ChatFamily("openai", re.compile(""), _OPENAI_EFFORTS)


def chat_family(model: str, base_url: str | None = None) -> ChatFamily:
    """The family of a Chat Completions model: by its name, else by its endpoint's host."""
    for where in (model, base_url or ""):
        for family in CHAT_FAMILIES:
            if family.pattern.search(where):
                return family
    return OPENAI_FAMILY


def chat_reasoning(reasoning: Reasoning | None, model: str, base_url: str | None) -> dict[str, Any]:
    return {} if reasoning is None else chat_family(model, base_url).body(reasoning)


# -- Responses and Anthropic ------------------------------------------------------------------


def responses_reasoning(reasoning: Reasoning | None) -> dict[str, Any]:
    """`reasoning: {effort, summary}` and, with reasoning on, the encrypted reasoning items a
    stateless (`store: false`) conversation needs to send back."""
    if reasoning is None:
        return {}
    if reasoning.budget_tokens is not None:
        raise _refuse(_BUDGET, "OpenAI Responses", "no token budget; set model.reasoning.effort")
    if reasoning.effort is None:
        return {}
    if not reasoning.on:
        return {"reasoning": {"effort": "none"}}
    return {
        "reasoning": {"effort": _OPENAI_EFFORTS[reasoning.effort], "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
    }


def anthropic_thinking(
    reasoning: Reasoning | None, *, max_tokens: int | None, temperature: float | None
) -> dict[str, Any]:
    """`thinking` (with a budget: the one given, or the effort's), and the `max_tokens` that
    leaves room for it; Anthropic takes no temperature but 1 while thinking."""
    if reasoning is None or (reasoning.effort is None and reasoning.budget_tokens is None):
        return {}
    if not reasoning.on:
        return {"thinking": {"type": "disabled"}}
    budget = reasoning.budget_tokens or ANTHROPIC_BUDGETS[reasoning.effort or "medium"]
    if budget < ANTHROPIC_MIN_BUDGET:
        raise ConfigError(f"Anthropic's smallest thinking budget is {ANTHROPIC_MIN_BUDGET}", path=_BUDGET)
    if max_tokens is not None and max_tokens <= budget:
        raise ConfigError(
            f"model.max_tokens ({max_tokens}) must be larger than the thinking budget ({budget})",
            path=_BUDGET,
        )
    if temperature is not None and temperature != 1:
        raise ConfigError("Anthropic takes no temperature but 1 while thinking", path="model.temperature")
    return {"thinking": {"type": "enabled", "budget_tokens": budget}, "max_tokens": max_tokens}


# -- what goes back -------------------------------------------------------------------------


def carried(
    messages: Sequence[Message], api: str, model: str, events: EventSink | None
) -> tuple[Message, ...]:
    """The history as one client may send it: what another wire format or model produced (its
    signed or encrypted reasoning, provider fields) is stripped, with a `ReasoningDropped` note;
    that provider's data would be rejected or misread here. The stored history keeps it."""
    out: list[Message] = []
    dropped: set[str] = set()
    for m in messages:
        data = m.provider_data
        if data is not None and (data.api != api or data.model != model):
            dropped.add(f"{data.api}:{data.model}")
            m = replace(m, provider_data=None)
        out.append(m)
    if dropped and events is not None:
        events(ReasoningDropped(tuple(sorted(dropped)), f"{api}:{model}"))
    return tuple(out)
