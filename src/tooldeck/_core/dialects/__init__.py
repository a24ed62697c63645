"""Provider dialects: render a loadout's exposed tools as a provider expects them.

    render_loadout(loadout, "anthropic")          -> the `tools` array of a request
    render_report(loadout, "openai", strict=True) -> per tool: payload, notes, strict reason
    token_costs(loadout, "gemini")                -> per tool token counts (offline BPE)

Four dialects (`openai` Chat Completions, `responses`, `anthropic`, `gemini`), each a
`Dialect` subclass over one schema walker; provider quirks are sanitizers chosen by a model
profile (`profile_for_model("kimi-k2")`). Renders are cached on the loadout under a key of
everything they depend on (dialect, strict, profile); `render_loadout` returns a new list of
read-only tool objects each time.
"""

from __future__ import annotations

from tooldeck._core.dialects.base import Dialect, RenderedTool
from tooldeck._core.dialects.profiles import ModelProfile, profile_for_model
from tooldeck._core.dialects.render import (
    DIALECTS,
    DialectName,
    get_dialect,
    render_loadout,
    render_report,
    token_costs,
)
from tooldeck._core.dialects.report import ToolCost, token_table, tool_costs
from tooldeck._core.dialects.tokens import ENCODINGS
from tooldeck._core.schemas.normalize import NormalizedSchema, normalize_parameters
from tooldeck.errors import DialectError

__all__ = [
    "DIALECTS",
    "ENCODINGS",
    "Dialect",
    "DialectError",
    "DialectName",
    "ModelProfile",
    "NormalizedSchema",
    "RenderedTool",
    "ToolCost",
    "get_dialect",
    "normalize_parameters",
    "profile_for_model",
    "render_loadout",
    "render_report",
    "token_costs",
    "token_table",
    "tool_costs",
]
