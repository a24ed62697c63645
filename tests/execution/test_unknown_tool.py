"""The unknown-tool error lists only what the caller can call, closest names first, kept short."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from support.cli import tooldeck_command
from tooldeck import Tool
from tooldeck._core.execution.executor import Executor, every_deferred
from tooldeck._core.execution.lookup import unknown_tool_message

from .helpers import loadout, one

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "tooldeck.yaml"
BIN = Path(sys.executable).parent / "tooldeck"


def make(name: str) -> Tool:
    return Tool(name=name, description="d", parameters={"type": "object"}, handler=lambda a: name)


def listed(message: str) -> list[str]:
    found = re.search(r"the tools you can call are: (.*?)(?: and \d+ more)?(?: \(.*\))?\. The call", message)
    assert found is not None, message
    return found.group(1).split(", ")


def test_the_model_is_offered_exposed_tools_and_pointed_at_deferred_ones() -> None:
    ex = Executor(loadout(make("read_file"), make("write_file"), deferred=[make("web_extract")]))
    far = one(ex, "launch_rockets").error
    assert far is not None and far.type == "unknown_tool"
    assert listed(far.message) == ["read_file", "write_file"]
    assert "1 more is deferred: find them with tool_search" in far.message
    near = one(ex, "web_extrct").error
    assert near is not None and near.type == "unknown_tool"
    assert "deferred tool web_extract" in near.message and "select:web_extract" in near.message
    assert "read_result" not in far.message + near.message  # reachable for markers, never offered


def test_a_direct_caller_is_offered_the_deferred_tools_too() -> None:
    lo = loadout(make("read_file"), deferred=[make("web_extract")])
    ex = Executor(lo, promoted=every_deferred(lo))
    far = one(ex, "launch_rockets").error
    assert far is not None and listed(far.message) == ["read_file", "web_extract"]
    assert "deferred" not in far.message
    near = one(ex, "web_extrct").error
    assert near is not None and "did you mean: web_extract?" in near.message


def test_a_long_list_shows_the_closest_names_first_and_a_count() -> None:
    names = [f"tool_{i:02d}" for i in range(40)] + [
        "get_weather_report_for_city",
        "weather_alerts_by_region_code",
    ]
    message = unknown_tool_message("weather", names)
    shown = listed(message)
    assert (
        set(shown[:2]) == {"get_weather_report_for_city", "weather_alerts_by_region_code"} and len(shown) == 8
    )
    assert message.endswith(f"and {len(names) - 8} more. The call was not run.")
    short = unknown_tool_message("zzzz", ["b", "a"])
    assert listed(short) == ["a", "b"] and "more" not in short


def call_example(name: str, home: Path) -> str:
    """The error message of `tooldeck call NAME --config examples/tooldeck.yaml --json`."""
    proc = subprocess.run(
        [*tooldeck_command(), "call", name, "--args", "{}", "--json", "--config", str(EXAMPLE)],
        capture_output=True,
        text=True,
        cwd=home,
        timeout=60,
        check=False,
        env={**os.environ, "HOME": str(home)},
    )
    assert proc.returncode == 1, proc.stderr
    message: str = json.loads(proc.stdout)["error"]["message"]
    return message


def test_tooldeck_call_with_the_example_config_lists_only_callable_tools(tmp_path: Path) -> None:
    message = call_example("zzzz", tmp_path)
    assert "read_result" not in message  # hidden by the toolset gate in this config
    assert len(listed(message)) == 8 and re.search(r"and \d+ more\. The call was not run\.$", message)
    # web_extract is deferred in this config, and callable from the command line.
    assert "did you mean: web_extract?" in call_example("web_extrct", tmp_path)
