"""Running a tool the way the agent loop does (JSON text in, an envelope or content out), for the
parity tests with the peers' function-schema suites."""

from __future__ import annotations

import json
from typing import Any

from tests.execution.helpers import loadout, one

from tooldeck import Tool
from tooldeck._core.execution.executor import Executor


def run(t: Tool, arguments: Any) -> str:
    """The content of a successful call (arguments as a dict are sent as JSON text)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    result = one(Executor(loadout(t)), t.name, text)
    assert result.error is None, result.error
    return result.content


def refused(t: Tool, arguments: Any) -> str:
    """The message of a call refused before running."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    result = one(Executor(loadout(t)), t.name, text)
    assert result.error is not None and result.error.type == "invalid_arguments", result
    return result.error.message


def props(t: Tool) -> dict[str, Any]:
    return dict(t.parameters["properties"])
