"""Token accounting: offline BPE counts of rendered tools, per dialect, cached on the loadout."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tooldeck import Tool
from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.dialects import DIALECTS, render_loadout, render_report, token_costs
from tooldeck._core.dialects.tokens import count_text, count_tool


def _loadout(*tools: Tool) -> Loadout:
    return Loadout(
        platform="test",
        exposed=tools,
        deferred=(),
        hidden=(),
        descriptions={t.name: str(t.description) for t in tools},
        reasons={},
    )


WEATHER = Tool(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris."},
            "units": {
                "anyOf": [{"type": "string", "enum": ["metric", "imperial"]}, {"type": "null"}],
                "default": None,
            },
        },
        "required": ["city"],
    },
)
PING = Tool(name="ping", description="Ping.", parameters={"type": "object", "properties": {}})


def test_known_token_counts_in_both_encodings() -> None:
    assert count_text("hello world", "cl100k_base") == 2
    assert count_text("hello world", "o200k_base") == 2
    assert count_text("", "o200k_base") == 0
    with pytest.raises(ValueError, match="unknown encoding 'p50k'"):
        count_text("x", "p50k")  # type: ignore[arg-type]


def test_counting_needs_no_network() -> None:
    """The vocabularies ship in the wheel: a process whose sockets all fail still counts."""
    code = (
        "import socket\n"
        "def no(*a, **k): raise OSError('network disabled for this test')\n"
        "socket.socket.connect = no; socket.create_connection = no; socket.getaddrinfo = no\n"
        "from tooldeck._core.dialects.tokens import count_text\n"
        "print(count_text('The quick brown fox', 'o200k_base'), count_text('The quick brown fox', 'cl100k_base'))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["4", "4"]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_token_costs_per_tool_match_the_rendered_objects(dialect: str) -> None:
    loadout = _loadout(WEATHER, PING)
    costs = token_costs(loadout, dialect)
    rendered = render_loadout(loadout, dialect)
    assert list(costs) == ["get_weather", "ping"]
    assert costs["get_weather"] == count_tool(rendered[0])
    assert costs["ping"] == count_tool(rendered[1])
    assert costs["get_weather"] > costs["ping"] > 0
    assert token_costs(loadout, dialect) is costs  # served from the loadout's cache
    cl100k = token_costs(loadout, dialect, encoding="cl100k_base")
    assert cl100k is not costs and set(cl100k) == set(costs)


def test_token_costs_follow_strict_mode_and_profile() -> None:
    loadout = _loadout(WEATHER)
    loose = token_costs(loadout, "openai")["get_weather"]
    strict = token_costs(loadout, "openai", strict=True)["get_weather"]
    assert strict != loose  # strict rewrites the schema: a different text, a different cost
    rendered: Any = render_loadout(loadout, "openai", strict=True)[0]
    assert rendered["function"]["strict"] is True
    assert strict == count_tool(rendered)
    kimi = render_report(loadout, "openai", profile="kimi-k2")[0]
    assert "anyOf" not in json.dumps(kimi.payload)  # Moonshot: null branches collapsed
