"""What the CLI shows about rendering: token cost per dialect, each tool's share, strict refusals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tooldeck._core.dialects.profiles import ModelProfile
from tooldeck._core.dialects.tokens import ENCODINGS, EncodingName

if TYPE_CHECKING:
    from tooldeck._core.assembly.loadout import Loadout

ALL_DIALECTS = ("openai", "responses", "anthropic", "gemini")


@dataclass(frozen=True, slots=True)
class ToolCost:
    """One exposed tool in one dialect: its tokens, its share of the total, what rendering did."""

    name: str
    tokens: int
    share: float  # of all exposed tools' tokens in this dialect, 0..1
    strict: bool
    strict_reason: str | None
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "tokens": self.tokens,
            "share": round(self.share, 4),
            "strict": self.strict,
            "strict_reason": self.strict_reason,
            "schema_notes": list(self.notes),
        }


def tool_costs(
    loadout: Loadout,
    dialect: str = "openai",
    *,
    strict: bool = False,
    profile: ModelProfile | str | None = None,
    encoding: EncodingName = "o200k_base",
) -> dict[str, ToolCost]:
    """Each exposed tool's token cost and share in `dialect`, with its strict-mode outcome."""
    from tooldeck._core.dialects.render import render_report, token_costs

    costs = token_costs(loadout, dialect, strict=strict, profile=profile, encoding=encoding)
    total = sum(costs.values()) or 1
    return {
        r.name: ToolCost(r.name, costs[r.name], costs[r.name] / total, r.strict, r.strict_reason, r.notes)
        for r in render_report(loadout, dialect, strict=strict, profile=profile)
    }


def token_table(
    loadout: Loadout, *, strict: bool = False, profile: ModelProfile | str | None = None
) -> dict[str, dict[str, int]]:
    """Total tokens of the exposed tools: {dialect: {encoding: tokens}} for all four dialects."""
    from tooldeck._core.dialects.render import token_costs

    return {
        dialect: {
            enc: sum(token_costs(loadout, dialect, strict=strict, profile=profile, encoding=enc).values())
            for enc in ENCODINGS
        }
        for dialect in ALL_DIALECTS
    }
