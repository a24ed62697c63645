"""Model profiles: which sanitizers a model's endpoint needs (chosen by model name).

`profile_for_model("kimi-k2")` -> the Moonshot profile. A profile is data (a name and a tuple
of sanitizer instances), so adding a provider quirk is one class in `sanitize.py` and one row
in `_RULES`, never a new branch in a renderer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tooldeck._core.dialects.sanitize import Moonshot, NoPatternFormat, Sanitizer, TopLevelCombinators


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """How to adapt schemas for one family of models."""

    name: str
    sanitizers: tuple[Sanitizer, ...] = ()

    @property
    def key(self) -> str:
        """Cache key part: the profile name fixes the sanitizers."""
        return self.name


DEFAULT_PROFILE = ModelProfile("default")
MOONSHOT_PROFILE = ModelProfile("moonshot", (Moonshot(),))
XAI_PROFILE = ModelProfile("xai", (NoPatternFormat(),))
CODEX_PROFILE = ModelProfile("codex", (TopLevelCombinators(),))

PROFILES: dict[str, ModelProfile] = {
    p.name: p for p in (DEFAULT_PROFILE, MOONSHOT_PROFILE, XAI_PROFILE, CODEX_PROFILE)
}

# Matched against the model name's last path segment and the whole slug (aggregators prefix
# vendors: "openrouter/moonshotai/kimi-k2").
_RULES: tuple[tuple[re.Pattern[str], ModelProfile], ...] = (
    (re.compile(r"(^|/)(moonshot|kimi)", re.I), MOONSHOT_PROFILE),
    (re.compile(r"(^|/)(x-ai/|xai/|grok)", re.I), XAI_PROFILE),
    (re.compile(r"codex", re.I), CODEX_PROFILE),
)


def profile_for_model(model: str | None) -> ModelProfile:
    """The profile for a model name (`kimi-k2`, `x-ai/grok-4`, `gpt-5-codex`); default otherwise."""
    if not model:
        return DEFAULT_PROFILE
    if model in PROFILES:
        return PROFILES[model]
    for pattern, profile in _RULES:
        if pattern.search(model):
            return profile
    return DEFAULT_PROFILE
