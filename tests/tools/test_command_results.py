"""What `terminal` and `execute_code` results claim: a killed command is a `timeout` error that
keeps its output and names the limit that was asked; an exit code is in the result's `meta` -
through the API, the real `tooldeck call` console script and the agent loop."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from cli.clirun import BIN, tooldeck
from support.agent_kit import make_agent
from support.mcp_text import text_of
from support.scripted_server import ScriptedServer, Turn
from tooldeck import Deck, parse_config
from tooldeck.errors import ToolError
from tooldeck.tools.terminal import terminal


def make_deck(root: Path, **sections: Any) -> Deck:
    (root / "ws").mkdir(exist_ok=True)
    data: dict[str, Any] = {
        "sandbox": {"kind": "bwrap", "workspace": "ws"},
        "home": "home",
        "platform_toolsets": {"cli": ["terminal", "code_execution"]},
        **sections,
    }
    return Deck(parse_config(data, base_dir=str(root)))


def write_config(root: Path) -> Path:
    (root / "ws").mkdir(exist_ok=True)
    cfg = root / "tooldeck.yaml"
    cfg.write_text(
        "home: home\nsandbox: {kind: bwrap, workspace: ws}\n"
        "platform_toolsets: {cli: [terminal, code_execution]}\n",
        encoding="utf-8",
    )
    return cfg


def test_a_command_killed_at_its_timeout_argument_is_a_timeout_error_with_its_output(
    tmp_path: Path,
) -> None:
    result = make_deck(tmp_path).call_sync("terminal", {"command": "echo begun; sleep 30", "timeout": 1})
    assert result.error is not None and result.error.type == "timeout", result.content
    assert "its timeout of 1 s" in result.error.message and "killed" in result.error.message
    assert "larger timeout (up to 1800)" in result.error.message and result.error.retryable
    assert result.error.output is not None and result.error.output.startswith("begun\n")
    envelope = json.loads(result.content)["error"]
    assert envelope["type"] == "timeout" and envelope["output"].startswith("begun\n")
    assert "exit_code" not in result.meta


def test_a_command_killed_at_the_calls_time_limit_names_that_limit(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, execution={"max_timeout_s": 2})
    result = deck.call_sync("terminal", {"command": "echo begun; sleep 30"})
    assert result.error is not None and result.error.type == "timeout", result.content
    # What was asked (2 s) is named, not the slightly shorter time the command was given.
    assert "the call's time limit of 2 s" in result.error.message
    assert "execution.max_timeout_s" in result.error.message and not result.error.retryable
    assert result.error.output is not None and "begun" in result.error.output


def test_exit_codes_are_in_the_results_meta(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    failed = deck.call_sync("terminal", {"command": "exit 7"})
    assert failed.ok and failed.meta["exit_code"] == 7
    good = deck.call_sync("terminal", {"command": "true"})
    assert good.ok and good.meta["exit_code"] == 0
    program = deck.call_sync("execute_code", {"code": "import sys\nsys.exit(5)"})
    assert program.ok and program.meta["exit_code"] == 5


def test_a_program_killed_at_its_timeout_is_a_timeout_error(tmp_path: Path) -> None:
    code = "import time\nprint('begun', flush=True)\ntime.sleep(60)"
    result = make_deck(tmp_path).call_sync("execute_code", {"code": code, "timeout": 1})
    assert result.error is not None and result.error.type == "timeout", result.content
    assert "the program did not finish within its timeout of 1 s" in result.error.message
    assert result.error.output is not None and "begun" in result.error.output


def test_tooldeck_call_reports_a_timeout_as_an_error_and_exit_codes_in_meta(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    args = '{"command": "echo begun; sleep 30"}'
    proc = tooldeck(
        "call", "terminal", "--args", args, "--timeout", "2", "--json", "--config", str(cfg), cwd=tmp_path
    )
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    out = json.loads(proc.stdout)
    assert out["ok"] is False and out["error"]["type"] == "timeout"
    assert "2 s" in out["error"]["message"] and "--timeout" in out["error"]["message"]
    assert out["error"]["output"].startswith("begun\n")
    failed = tooldeck(
        "call", "terminal", "--args", '{"command": "exit 3"}', "--json", "--config", str(cfg), cwd=tmp_path
    )
    assert failed.returncode == 0, failed.stderr
    shown = json.loads(failed.stdout)
    assert shown["ok"] is True and shown["meta"] == {"exit_code": 3}


def test_the_model_reads_the_timeout_envelope_with_the_output_kept(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    deck = make_deck(tmp_path)
    scripted_server.add(
        Turn(calls=[("terminal", {"command": "echo begun; sleep 30", "timeout": 1})]), Turn(text="it hung")
    )
    agent, _ = make_agent(scripted_server, "openai", home, deck=deck)

    async def main() -> str:
        try:
            return (await agent.run(agent.new_conversation(), "run it")).text
        finally:
            await agent.aclose()

    assert asyncio.run(main()) == "it hung"
    [(_, content)] = scripted_server.requests[-1].tool_results()
    error = json.loads(content)["error"]
    assert error["type"] == "timeout" and error["output"].startswith("begun\n")


def test_an_mcp_client_of_serve_reads_the_timeout_envelope_with_the_output_kept(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    params = StdioServerParameters(
        command=str(BIN), args=["serve", "--config", str(cfg)], env=dict(os.environ)
    )

    async def session() -> tuple[bool, str]:
        async with Client(params, mode="legacy") as client:
            args = {"command": "echo begun; sleep 30", "timeout": 1}
            result = await client.call_tool("terminal", args)
            return bool(result.is_error), text_of(result)

    is_error, text = asyncio.run(session())
    error = json.loads(text)["error"]
    assert is_error and error["type"] == "timeout" and error["output"].startswith("begun\n")


def test_a_handler_called_without_an_executor_is_an_error_not_a_default_sandbox() -> None:
    with pytest.raises(ToolError, match="needs the ExecutionConfig of the call"):
        terminal.call({"command": "echo hi"})
