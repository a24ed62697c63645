"""`ToolRendering`: how the model reading a `tool_search` result expects tool schemas.

The agent offers one built from its model client (the provider's dialect, strict mode, the model
name that picks schema sanitizers); `tooldeck serve` offers the MCP shape; a call made outside
both renders for config `model:` (OpenAI Chat Completions by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.config import CoreConfig
from tooldeck._core.tool import MCP_EXAMPLES_KEY, Tool

RenderingDialect = Literal["openai", "responses", "anthropic", "gemini", "mcp"]


@dataclass(frozen=True, slots=True)
class ToolRendering:
    """A dialect (`mcp`: MCP's `{name, description, inputSchema}`), strict mode and model profile."""

    dialect: RenderingDialect = "openai"
    strict: bool = False
    profile: str | None = None

    @classmethod
    def for_config(cls, config: CoreConfig) -> ToolRendering:
        """What config `model:` and `dialects:` say the model receives."""
        return cls(config.model.provider, config.dialects.openai.strict, config.model.name)

    def render(self, tools: Sequence[Tool], loadout: Loadout) -> list[dict[str, Any]]:
        """The tools' full definitions, with the descriptions the loadout gives them."""
        if self.dialect == "mcp":
            return [
                {
                    "name": t.name,
                    "description": loadout.description(t.name),
                    "inputSchema": dict(t.parameters),
                    **({"_meta": {MCP_EXAMPLES_KEY: list(t.input_examples)}} if t.input_examples else {}),
                }
                for t in tools
            ]
        from tooldeck._core.dialects import get_dialect

        renderer = get_dialect(self.dialect, strict=self.strict, profile=self.profile)
        return [
            renderer.render(t.name, loadout.description(t.name), t.parameters, t.input_examples).payload
            for t in tools
        ]
