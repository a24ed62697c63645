"""Tools get the config one typed section at a time, offered by the executor, never the whole
`Config` at call time; a section that is missing is a clear error, not a silent default."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tooldeck import Config, Deck, ToolContext, parse_config
from tooldeck._core.config import ApprovalsConfig, ExecutionConfig, SandboxConfig, ToolSearchConfig
from tooldeck._core.disclosure import ToolRendering
from tooldeck._core.workspace import Workspace
from tooldeck.agent.services import AgentServices
from tooldeck.errors import ToolError
from tooldeck.safety.sandbox.bubblewrap import SandboxSettings
from tooldeck.tools.terminal import runner, sandbox_settings

SRC = Path(__file__).resolve().parents[2] / "src" / "tooldeck"


def _asks_for_config(tree: ast.AST) -> list[int]:
    """Lines of calls that name `Config` itself as an argument (`context.get(Config)`,
    `service(context, Config)`): a tool asking its context for the whole config."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == "Config" for a in node.args)
    ]


def test_no_tool_agent_or_disclosure_module_asks_its_context_for_the_whole_config() -> None:
    found = {
        str(path.relative_to(SRC)): lines
        for package in ("tools", "agent", "disclosure")
        for path in sorted((SRC / package).rglob("*.py"))
        if (lines := _asks_for_config(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert found == {}
    # The check sees what it is looking for.
    assert _asks_for_config(ast.parse("x = context.get(Config)\ny = service(context, Config)\n")) == [1, 2]


def test_the_executor_offers_the_sections_and_not_the_config(tmp_path: Path) -> None:
    config = parse_config(
        {
            "home": str(tmp_path / "home"),
            "sandbox": {"workspace": str(tmp_path), "network": True},
            "approvals": {"timeout_s": 42},
            "execution": {"default_timeout_s": 7},
        }
    )
    with Deck(config) as deck:
        services = deck.session(direct=False).executor().services
    assert Config not in services
    assert services[SandboxConfig] == config.sandbox and services[ApprovalsConfig] == config.approvals
    assert services[ExecutionConfig] == config.execution and services[ToolSearchConfig] == config.tool_search
    assert services[ToolRendering] == ToolRendering.for_config(config)
    offered = services[AgentServices]
    assert isinstance(offered, AgentServices) and offered.home == tmp_path / "home"


def test_a_context_without_the_sections_is_a_clear_error(tmp_path: Path) -> None:
    bare = ToolContext(workspace=tmp_path, services={Workspace: Workspace(tmp_path)})
    with pytest.raises(ToolError, match="needs the SandboxConfig of the call it serves; run it through"):
        sandbox_settings(bare, 5)
    sandboxed = ToolContext(
        workspace=tmp_path, services={SandboxConfig: SandboxConfig(), Workspace: Workspace(tmp_path)}
    )
    with pytest.raises(ToolError, match="has no protected and hidden sets"):
        sandbox_settings(sandboxed, 5)
    no_home = ToolContext(services={SandboxConfig: SandboxConfig()})
    with pytest.raises(ToolError, match="needs the tooldeck home of the call"):
        runner(no_home, SandboxSettings(tmp_path))


def test_terminal_runs_with_the_sections_the_executor_offers(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    config = parse_config(
        {
            "platform_toolsets": {"cli": ["terminal"]},
            "home": str(tmp_path / "home"),
            "sandbox": {"workspace": str(ws), "allow_host_shell": True},
            "approvals": {"mode": "allow"},
        }
    )
    with Deck(config) as deck:
        result = deck.call_sync("terminal", {"command": "pwd; echo made > out.txt"})
    assert result.ok, result.content
    assert str(ws) in result.content and (ws / "out.txt").read_text() == "made\n"
    assert result.meta["exit_code"] == 0


def test_memory_called_through_a_deck_writes_in_the_configured_home(tmp_path: Path) -> None:
    config = parse_config({"platform_toolsets": {"cli": ["memory"]}, "home": str(tmp_path / "home")})
    with Deck(config) as deck:
        result = deck.call_sync("memory", {"action": "add", "content": "the zebra plan"})
    assert result.ok, result.content
    assert "the zebra plan" in (tmp_path / "home" / "MEMORY.md").read_text()
