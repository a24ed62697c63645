"""Hermes 0.19.0's side of `tooldeck bench dialects`; run with the Hermes venv's python.

    python dialects_hermes.py SCHEMAS.json ROUNDS

Times Hermes's own functions on the same tools, one dialect at a time over the whole list:
`tools.schema_sanitizer.sanitize_tool_schemas` (what every request goes through), then
`agent.codex_responses_adapter._responses_tools`, `agent.anthropic_adapter.
convert_tools_to_anthropic` and `agent.gemini_native_adapter._translate_tools_to_gemini`.
Prints one JSON object: median seconds per round for each dialect, and how many tools had a
list/object `default` changed by the conversion. Standard library + Hermes only.
"""

from __future__ import annotations

import json
import logging
import statistics
import sys
import time
from typing import Any


def _defaults(schema: Any, out: dict[str, Any]) -> dict[str, Any]:
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            if isinstance(prop, dict) and isinstance(prop.get("default"), list | dict) and prop["default"]:
                out[name] = prop["default"]
    return out


def main() -> None:
    logging.disable(logging.CRITICAL)
    from agent.anthropic_adapter import convert_tools_to_anthropic  # type: ignore[import-not-found]
    from agent.codex_responses_adapter import _responses_tools  # type: ignore[import-not-found]
    from agent.gemini_native_adapter import _translate_tools_to_gemini  # type: ignore[import-not-found]
    from tools.schema_sanitizer import sanitize_tool_schemas  # type: ignore[import-not-found]

    with open(sys.argv[1], encoding="utf-8") as f:
        entries: list[dict[str, Any]] = json.load(f)
    rounds = int(sys.argv[2])
    tools: list[dict[str, Any]] = [
        {
            "type": "function",
            "function": {
                "name": e["name"],
                "description": e["description"] or "",
                "parameters": e["inputSchema"],
            },
        }
        for e in entries
    ]
    pipelines: dict[str, Any] = {
        "openai": sanitize_tool_schemas,
        "responses": lambda ts: _responses_tools(sanitize_tool_schemas(ts)),
        "anthropic": lambda ts: convert_tools_to_anthropic(sanitize_tool_schemas(ts)),
        "gemini": lambda ts: _translate_tools_to_gemini(sanitize_tool_schemas(ts)),
    }
    times: dict[str, float] = {}
    for name, run in pipelines.items():
        run(tools)  # warm-up: imports, caches
        samples = []
        for _ in range(rounds):
            start = time.perf_counter()
            run(tools)
            samples.append(time.perf_counter() - start)
        times[name] = statistics.median(samples)
    sanitized = sanitize_tool_schemas(tools)
    changed = 0
    for before, after in zip(tools, sanitized, strict=True):
        if _defaults(before["function"]["parameters"], {}) != _defaults(after["function"]["parameters"], {}):
            changed += 1
    print(json.dumps({"seconds": times, "tools": len(tools), "defaults_changed": changed}))


if __name__ == "__main__":
    main()
