"""The curated public API is pinned: adding or removing a name is a deliberate change."""

from __future__ import annotations

import tooldeck


def test_all_is_pinned() -> None:
    assert sorted(tooldeck.__all__) == sorted(
        [
            "Availability",
            "ConfigError",
            "DescriptionContext",
            "Diagnostic",
            "Fate",
            "Loadout",
            "Registry",
            "SourceError",
            "Tool",
            "ToolConflictError",
            "ToolContext",
            "ToolDefinitionError",
            "TooldeckError",
            "TooldeckSignal",
            "ToolsetError",
            "function_tool",
            "tool",
        ]
    )
    for name in tooldeck.__all__:
        assert getattr(tooldeck, name) is not None
