"""An exception whose `str()` raises is still a tool_error result for its own call only: the
batch, `tooldeck call`, `tooldeck run` and `tooldeck serve` keep every other result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from support.cli import tooldeck_command
from support.mcp_text import text_of
from tooldeck import Config, Deck, ToolCall, ToolError, tool
from tooldeck._core.execution.policy import Decision
from tooldeck._utils.text import describe_exception
from tooldeck.testing.scripted_server import ScriptedServer, Turn

BIN = str(Path(sys.executable).with_name("tooldeck"))
EXPECTED = "tool 'boom' failed: Unprintable: <str() failed: RuntimeError: nope>"


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("nope")


class UnprintableToolError(ToolError):
    def __str__(self) -> str:
        raise RuntimeError("nope")


@tool(toolset="x")
def boom() -> str:
    """Raise an exception that cannot be printed."""
    raise Unprintable()


@tool(toolset="x")
def refuse() -> str:
    """Raise a ToolError that cannot be printed."""
    raise UnprintableToolError("hidden")


@tool(toolset="x")
def ok() -> str:
    """Succeed."""
    return "fine"


@tool(toolset="x", isolation="process")
def boom_isolated() -> str:
    """Raise in a child process."""
    raise Unprintable()


def deck(tmp_path: Path) -> Deck:
    config = Config(platform_toolsets={"cli": ["x"]}, home=str(tmp_path / "home"))
    return Deck(config, tools=[boom, refuse, ok, boom_isolated])


def test_describe_exception_never_raises() -> None:
    class Worse(Exception):
        def __str__(self) -> str:
            raise Unprintable()

    assert describe_exception(Unprintable()) == "Unprintable: <str() failed: RuntimeError: nope>"
    assert describe_exception(Worse()) == "Worse: <str() failed: Unprintable>"
    assert describe_exception(ValueError()) == "ValueError"


def test_every_call_of_a_batch_gets_its_own_result(tmp_path: Path) -> None:
    calls = [ToolCall("a", "ok", "{}"), ToolCall("b", "boom", "{}"), ToolCall("c", "refuse", "{}")]
    results = deck(tmp_path).call_batch_sync(calls)
    assert [r.call_id for r in results] == ["a", "b", "c"]
    assert results[0].content == "fine" and results[0].error is None
    assert results[1].error is not None and results[1].error.message == EXPECTED
    assert results[2].error is not None
    assert results[2].error.message == "<str() failed: RuntimeError: nope>"


def test_an_isolated_handler_and_a_failing_policy_are_described_safely(tmp_path: Path) -> None:
    d = deck(tmp_path)
    isolated = d.call_sync("boom_isolated", {})
    assert isolated.error is not None and "<str() failed: RuntimeError: nope>" in isolated.error.message

    class BrokenPolicy:
        def decide(self, call: object) -> Decision:
            raise Unprintable()

    [result] = (
        d.session(policy=BrokenPolicy(), direct=False).executor().execute_sync([ToolCall("p", "ok", "{}")])
    )
    assert result.error is not None and result.error.type == "denied"
    assert "Unprintable: <str() failed: RuntimeError: nope>" in result.error.message


MODULE = """
    from tooldeck import tool

    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("nope")

    @tool(toolset="x")
    def boom() -> str:
        '''Raise an exception that cannot be printed.'''
        raise Unprintable()
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "bad_tools.py").write_text(textwrap.dedent(MODULE))
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        f'tools: [{{use: "bad_tools:boom"}}]\nplatform_toolsets: {{cli: [x]}}\nhome: {tmp_path / "home"}\n'
    )
    return config


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tooldeck_command(), *args], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_tooldeck_call_prints_the_error_result(tmp_path: Path) -> None:
    config = project(tmp_path)
    proc = cli(tmp_path, "call", "boom", "--args", "{}", "--json", "--config", str(config))
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["error"]["message"] == EXPECTED
    assert "Traceback" not in proc.stderr


def test_tooldeck_run_answers_the_call_and_finishes_the_turn(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    config = project(tmp_path)
    scripted_server.add(Turn(calls=[("boom", {})]), Turn(text="it broke"))
    url = scripted_server.openai_url
    proc = cli(tmp_path, "run", "go", "--model", "m", "--base-url", url, "--config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "it broke"
    [(_, content)] = scripted_server.requests[1].tool_results()
    assert json.loads(content)["error"]["message"] == EXPECTED


def test_tooldeck_serve_returns_an_is_error_result(tmp_path: Path) -> None:
    config = project(tmp_path)
    params = StdioServerParameters(
        command=BIN, args=["serve", "--config", str(config)], cwd=str(tmp_path), env=dict(os.environ)
    )

    async def session() -> types.CallToolResult:
        async with Client(params) as client:
            return await client.call_tool("boom", {})

    result = anyio.run(session)
    assert result.is_error is True
    assert json.loads(text_of(result))["error"]["message"] == EXPECTED
