"""Rendering a loadout in a dialect: the payloads, the per-tool report and token counts (the
package's `__init__` re-exports them; the cost report in `report.py` builds on them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from tooldeck._core.dialects.anthropic import AnthropicDialect
from tooldeck._core.dialects.base import Dialect, RenderedTool
from tooldeck._core.dialects.frozen import freeze
from tooldeck._core.dialects.gemini import GeminiDialect
from tooldeck._core.dialects.openai_chat import OpenAIChatDialect
from tooldeck._core.dialects.openai_responses import OpenAIResponsesDialect
from tooldeck._core.dialects.profiles import DEFAULT_PROFILE, ModelProfile, profile_for_model
from tooldeck._core.dialects.tokens import EncodingName, count_tool
from tooldeck.errors import DialectError

if TYPE_CHECKING:
    from tooldeck._core.assembly.loadout import Loadout

DialectName = Literal["openai", "responses", "anthropic", "gemini"]

DIALECTS: dict[str, type[Dialect]] = {
    d.name: d for d in (OpenAIChatDialect, OpenAIResponsesDialect, AnthropicDialect, GeminiDialect)
}


def _profile(profile: ModelProfile | str | None) -> ModelProfile:
    if isinstance(profile, ModelProfile):
        return profile
    return profile_for_model(profile) if profile else DEFAULT_PROFILE


def _check(dialect: str) -> type[Dialect]:
    cls = DIALECTS.get(dialect)
    if cls is None:
        raise DialectError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    return cls


def get_dialect(
    dialect: str = "openai", *, strict: bool = False, profile: ModelProfile | str | None = None
) -> Dialect:
    """A renderer for `dialect`; `profile` is a ModelProfile or a model name (`"kimi-k2"`)."""
    return _check(dialect)(profile=_profile(profile), strict=strict)


def render_report(
    loadout: Loadout,
    dialect: str = "openai",
    *,
    strict: bool = False,
    profile: ModelProfile | str | None = None,
) -> tuple[RenderedTool, ...]:
    """Each exposed tool rendered, with what rendering changed and any strict-mode refusal (cached)."""
    cls = _check(dialect)
    prof = _profile(profile)
    key = ("dialect-report", dialect, strict and cls.supports_strict, prof.key)

    def build() -> tuple[RenderedTool, ...]:
        names = [t.name for t in loadout.exposed]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise DialectError(f"tool names must be unique in one request; repeated: {', '.join(twice)}")
        renderer = cls(profile=prof, strict=strict)
        return tuple(
            renderer.render(t.name, loadout.description(t.name), t.parameters, t.input_examples)
            for t in loadout.exposed
        )

    report: tuple[RenderedTool, ...] = loadout.cached_render(key, build)
    return report


def render_loadout(
    loadout: Loadout,
    dialect: str = "openai",
    *,
    strict: bool = False,
    profile: ModelProfile | str | None = None,
) -> list[dict[str, Any]]:
    """The exposed tools of `loadout` as the `tools` array of a request in `dialect` (cached).

    For Gemini the items are function declarations: send them as
    `tools=[{"function_declarations": render_loadout(loadout, "gemini")}]`.
    """
    # The loadout's cache lock is not re-entrant: render the report first, then cache the list.
    report = render_report(loadout, dialect, strict=strict, profile=profile)
    key = ("dialect", dialect, strict, profile.key if isinstance(profile, ModelProfile) else profile)
    shared: tuple[dict[str, Any], ...] = loadout.cached_render(
        key, lambda: tuple(freeze(r.payload) for r in report)
    )
    # A new list each time (a caller may add its own tools to it); the tools in it are read-only.
    return list(shared)


def token_costs(
    loadout: Loadout,
    dialect: str = "openai",
    *,
    strict: bool = False,
    profile: ModelProfile | str | None = None,
    encoding: EncodingName = "o200k_base",
) -> dict[str, int]:
    """Tokens of each exposed tool's rendered object, by tool name (cached)."""
    cls = _check(dialect)
    key = ("dialect-tokens", dialect, strict and cls.supports_strict, _profile(profile).key, encoding)

    report = render_report(loadout, dialect, strict=strict, profile=profile)
    costs: dict[str, int] = loadout.cached_render(
        key, lambda: {r.name: count_tool(r.payload, encoding) for r in report}
    )
    return costs
