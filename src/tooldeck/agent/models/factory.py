"""From config `model:` plus `--model/--base-url/--provider` and the usual env vars to a client."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from tooldeck.agent.models.base import ModelClient, ModelSettings, Provider
from tooldeck.agent.models.reasoning import Effort, Reasoning
from tooldeck.errors import ConfigError, ModelNotConfigured

if TYPE_CHECKING:
    from tooldeck.core import ModelConfig

PROVIDERS: tuple[Provider, ...] = ("openai", "responses", "anthropic")

NOT_CONFIGURED = """no model endpoint is configured. Point tooldeck at one:
  OpenAI-compatible (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp server):
    --model MODEL --base-url http://127.0.0.1:11434/v1       (the URL ends in /v1)
    or env OPENAI_BASE_URL (and OPENAI_API_KEY when the server needs a key)
  OpenAI Responses API:  --provider responses --model MODEL, with OPENAI_API_KEY set
  Anthropic:  --provider anthropic --model MODEL, with ANTHROPIC_API_KEY set
    (--base-url is the host root, e.g. https://api.anthropic.com)
  or in tooldeck.yaml:
    model: {provider: openai, name: MODEL, base_url: "http://127.0.0.1:8000/v1", api_key_env: MY_KEY}"""


def resolve_model_settings(
    config: ModelConfig,
    *,
    model: str | None = None,
    base_url: str | None = None,
    provider: str | None = None,
    env: Mapping[str, str] | None = None,
    strict_tools: bool = False,
    reasoning_effort: str | None = None,
    reasoning_budget: int | None = None,
) -> ModelSettings:
    """Flags win over the config, the config over env vars; raise `ModelNotConfigured` when
    nothing says where the model is. `reasoning_effort` / `reasoning_budget` (the `--reasoning`
    flags) replace config `model.reasoning`'s values."""
    env = os.environ if env is None else env
    chosen = provider or config.provider
    if chosen not in PROVIDERS:
        raise ConfigError(
            f"unknown model provider {chosen!r}; use one of {', '.join(PROVIDERS)}", path="model.provider"
        )
    prov: Provider = chosen
    family = "ANTHROPIC" if prov == "anthropic" else "OPENAI"
    key_env = config.api_key_env or f"{family}_API_KEY"
    api_key = env.get(key_env) or None
    url = base_url or config.base_url or env.get(f"{family}_BASE_URL") or None
    if url is None and api_key is None:
        if config.api_key_env:
            raise ModelNotConfigured(
                f"model.api_key_env names {config.api_key_env}, which is not set, and no base URL is given.\n"
                + NOT_CONFIGURED
            )
        raise ModelNotConfigured(NOT_CONFIGURED)
    name = model or config.name
    if not name:
        raise ModelNotConfigured(
            "no model name: pass --model NAME or set model.name in tooldeck.yaml "
            f"(endpoint: {url or 'the provider default'})"
        )
    return ModelSettings(
        provider=prov,
        model=name,
        base_url=url,
        api_key=api_key,
        api_key_env=key_env,
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        stream=config.stream,
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
        strict_tools=strict_tools,
        reasoning=_reasoning(config, reasoning_effort, reasoning_budget),
    )


def _reasoning(config: ModelConfig, effort: str | None, budget: int | None) -> Reasoning | None:
    section = config.reasoning
    effort = effort or (section.effort if section is not None else None)
    budget = budget or (section.budget_tokens if section is not None else None)
    if effort is None and budget is None:
        return None
    return Reasoning(
        effort=cast("Effort | None", effort), budget_tokens=budget
    )  # the effort is checked there


def make_model(settings: ModelSettings) -> ModelClient:
    """The client for `settings.provider`."""
    if settings.provider == "anthropic":
        from tooldeck.agent.models.anthropic import AnthropicModel

        return AnthropicModel(settings)
    if settings.provider == "responses":
        from tooldeck.agent.models.openai_responses import OpenAIResponsesModel

        return OpenAIResponsesModel(settings)
    from tooldeck.agent.models.openai_chat import OpenAIChatModel

    return OpenAIChatModel(settings)
