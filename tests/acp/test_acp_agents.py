"""ACP agents as tools, against a real ACP agent process written with the same SDK (echo_agent.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.cli import tooldeck_command
from tooldeck import ConfigError, Deck, parse_config
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover, Grants
from tooldeck._core.execution.types import ToolCall, ToolResult

AGENT = Path(__file__).resolve().parent / "echo_agent.py"
BIN = Path(sys.executable).parent / "tooldeck"


def deck_for(tmp_path: Path, *, args: list[str] | None = None, **settings: Any) -> Deck:
    (tmp_path / "ws").mkdir(exist_ok=True)
    agent = {"command": sys.executable, "args": args or [str(AGENT)], "timeout_s": 60, **settings}
    approvals = settings.pop("approvals", None)
    agent.pop("approvals", None)
    data: dict[str, Any] = {
        "platform_toolsets": {"cli": ["acp"]},
        "acp_agents": {"echo": agent},
        "sandbox": {"workspace": "ws"},
        "home": "home",
    }
    if approvals:
        data["approvals"] = {"mode": approvals}
    return Deck(parse_config(data, base_dir=str(tmp_path)))


def call(deck: Deck, prompt: str, *, approver: Any = None, grants: Grants | None = None) -> ToolResult:
    executor = Executor(deck.loadout(), approver=approver, grants=grants)
    [result] = executor.execute_sync([ToolCall("c1", "echo", {"prompt": prompt})])
    return result


def answer(result: ToolResult) -> str:
    assert result.ok, result.content
    # An agent's answer is outside content for the model, framed as untrusted.
    assert result.content.startswith('<untrusted_content tool="echo">')
    return result.content.split("\n")[2]


def test_the_agent_answers_from_the_workspace(tmp_path: Path) -> None:
    deck = deck_for(tmp_path, description="An agent that echoes.")
    [fate] = deck.explain("echo").fates
    assert (fate.status, fate.tool.source, fate.tool.toolset) == ("exposed", "acp", "acp")
    [rendered] = deck.tools()
    assert rendered["function"]["description"] == "An agent that echoes."
    assert rendered["function"]["parameters"]["required"] == ["prompt"]
    assert answer(call(deck, "echo hello there")) == "echo: hello there (in ws)"


def test_permission_requests_go_through_the_approver(tmp_path: Path) -> None:
    deck = deck_for(tmp_path)
    asked: list[ApprovalRequest] = []

    def yes(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    assert answer(call(deck, "write a.txt", approver=CallbackApprover(yes))) == "wrote a.txt"
    assert (tmp_path / "ws" / "a.txt").read_text() == "written by the agent\n"
    [request] = asked
    assert request.rule == "acp:echo:edit:Write a.txt"
    assert request.reason == "ACP agent 'echo' asks permission (edit): Write a.txt"
    assert request.call.tool.name == "echo" and request.call.arguments["title"] == "Write a.txt"


def test_a_refused_permission_or_nobody_to_ask_means_no(tmp_path: Path) -> None:
    deck = deck_for(tmp_path)
    refused = call(deck, "write b.txt", approver=CallbackApprover(lambda r: False))
    assert answer(refused) == "not allowed to write b.txt"
    assert answer(call(deck, "write c.txt")) == "not allowed to write c.txt"  # non-interactive
    assert not (tmp_path / "ws" / "b.txt").exists() and not (tmp_path / "ws" / "c.txt").exists()


def test_approvals_mode_decides_without_asking(tmp_path: Path) -> None:
    allow = deck_for(tmp_path, approvals="allow")
    assert answer(call(allow, "write d.txt")) == "wrote d.txt"
    deny = deck_for(tmp_path, approvals="deny")
    never = CallbackApprover(lambda r: pytest.fail("approvals.mode deny must not ask"))
    assert answer(call(deny, "write e.txt", approver=never)) == "not allowed to write e.txt"


def test_a_session_grant_is_bound_to_the_exact_request(tmp_path: Path) -> None:
    deck = deck_for(tmp_path)
    grants = Grants()
    asked: list[str] = []

    def remember(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(str(request.rule))
        return ApprovalAnswer(True, "session")

    approver = CallbackApprover(remember)
    assert answer(call(deck, "write f.txt", approver=approver, grants=grants)) == "wrote f.txt"
    assert answer(call(deck, "write f.txt", approver=approver, grants=grants)) == "wrote f.txt"
    assert answer(call(deck, "write g.txt", approver=approver, grants=grants)) == "wrote g.txt"
    assert asked == ["acp:echo:edit:Write f.txt", "acp:echo:edit:Write g.txt"]


def process_gone(pid: int) -> bool:
    """True when `pid` has exited (a zombie waiting for a reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_the_timeout_cancels_the_session_and_kills_the_process_group(tmp_path: Path) -> None:
    deck = deck_for(tmp_path, timeout_s=8)
    result = call(deck, "sleep")  # the agent never answers: a result at all is the timeout
    assert result.error is not None and result.error.type == "timeout", result.content
    workspace = tmp_path / "ws"
    sleeper = int((workspace / "sleeper.pid").read_text())
    deadline = time.monotonic() + 30
    while not process_gone(sleeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_gone(sleeper), "the agent's grandchild outlived the call"
    assert (workspace / "cancelled.flag").read_text() == "yes"  # session/cancel reached the agent


def test_a_crash_is_a_tool_error_with_the_agents_stderr(tmp_path: Path) -> None:
    result = call(deck_for(tmp_path), "crash")
    assert result.error is not None and result.error.type == "tool_error"
    assert "ACP agent 'echo' failed: exited with code 7" in result.error.message
    assert "agent: something went badly wrong" in result.error.message


def test_an_agent_that_cannot_start_is_hidden_by_availability(tmp_path: Path) -> None:
    deck = deck_for(tmp_path, args=[str(AGENT), "--fail-start"])
    result = call(deck, "echo hi")
    assert result.error is not None and result.error.type == "tool_error"
    assert "could not start" in result.error.message and "missing credentials" in result.error.message
    [fate] = deck.explain("echo").fates
    assert (fate.status, fate.gate) == ("hidden", "availability")
    assert fate.reason is not None and "failed to start" in fate.reason and "code 3" in fate.reason


def test_a_missing_command_is_hidden_with_the_reason(tmp_path: Path) -> None:
    deck = deck_for(tmp_path, command="./no-such-agent")
    [fate] = deck.explain("echo").fates
    assert (fate.status, fate.gate) == ("hidden", "availability")
    assert fate.reason == "ACP agent command './no-such-agent' not found or not executable"


def test_acp_loses_to_every_other_source_on_a_name_clash(tmp_path: Path) -> None:
    from tooldeck import tool

    @tool(toolset="acp")
    def echo(prompt: str) -> str:
        """A user tool of the same name."""
        return prompt

    config = deck_for(tmp_path).config
    deck = Deck(config, tools=[echo])
    fates = {(f.tool.source, f.status, f.gate) for f in deck.explain("echo").fates}
    assert fates == {("user", "exposed", None), ("acp", "hidden", "dedup")}


@pytest.mark.parametrize(
    ("agents", "path"),
    [
        ({"bad name": {"command": "x"}}, "acp_agents.bad name"),
        ({"ok": {"comand": "x"}}, "acp_agents.ok.comand"),
        ({"ok": {"command": " "}}, "acp_agents.ok.command"),
        ({"ok": {"command": "x", "timeout_s": 0}}, "acp_agents.ok.timeout_s"),
    ],
)
def test_config_errors_name_the_key(agents: dict[str, Any], path: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"acp_agents": agents})
    assert f"{path}: " in str(caught.value), str(caught.value)


def test_tooldeck_call_runs_an_agent(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "tooldeck.yaml").write_text(
        "platform_toolsets: {cli: [acp]}\nsandbox: {workspace: ws}\nhome: home\n"
        f"acp_agents:\n  echo:\n    command: {sys.executable}\n    args: [{AGENT}]\n"
    )
    run = subprocess.run(
        [*tooldeck_command(), "call", "echo", "--json", "--args", '{"prompt": "echo from the cli"}'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["ok"] is True and "echo: from the cli (in ws)" in out["content"]


def test_outside_an_executor_nobody_can_approve(tmp_path: Path) -> None:
    deck = deck_for(tmp_path)
    tool = deck.loadout().get("echo")
    assert tool is not None
    text = asyncio.run(tool.call({"prompt": "write h.txt"}))
    assert text == "not allowed to write h.txt"
