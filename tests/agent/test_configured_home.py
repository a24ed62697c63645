"""`memory` and `session_search` use the configured `home:` on every path, not `~/.tooldeck`:
`deck.call`, the real `tooldeck call`, `tooldeck serve` (official MCP client) and
`execute_code`'s nested calls; the command line's log too. `$HOME` is a decoy user home, whose
`.tooldeck` must stay untouched."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from cli.clirun import BIN, tooldeck
from support.mcp_text import text_of
from tooldeck import Deck, load_config
from tooldeck.agent.messages import Message
from tooldeck.agent.sessions import SessionStore
from tooldeck.agent.tools import memory, session_search
from tooldeck.errors import ToolError

CONFIG = """\
home: project-home
sandbox: {kind: bwrap, workspace: ws}
platform_toolsets: {cli: [memory, session_search, code_execution]}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder with its config and a past session in its home; `$HOME` is a decoy
    whose default tooldeck home holds a session of another project."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "tooldeck.yaml").write_text(CONFIG, encoding="utf-8")
    user = tmp_path / "user"
    (user / ".tooldeck").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("TOOLDECK_HOME", raising=False)
    for db, text in ((tmp_path / "project-home" / "state.db", "zebra migration plan"),
                     (user / ".tooldeck" / "state.db", "zebra of another project")):  # fmt: skip
        db.parent.mkdir(exist_ok=True)
        with SessionStore(db) as store:
            store.append_message(store.create(title="past"), Message("user", text))
    return tmp_path


def untouched_default(project: Path) -> None:
    assert sorted(p.name for p in (project / "user" / ".tooldeck").iterdir()) == ["state.db"]


def test_deck_call_uses_the_configured_home(project: Path) -> None:
    deck = Deck(load_config(project / "tooldeck.yaml"))
    added = deck.call_sync("memory", {"action": "add", "content": "prefers tabs"})
    assert added.ok, added.content
    assert "prefers tabs" in (project / "project-home" / "MEMORY.md").read_text()
    found = deck.call_sync("session_search", {"query": "zebra"})
    assert found.ok and "migration plan" in found.content and "another project" not in found.content
    untouched_default(project)


def test_tooldeck_call_uses_the_configured_home(project: Path) -> None:
    cfg = str(project / "tooldeck.yaml")
    env = {"HOME": str(project / "user")}
    args = '{"action": "add", "target": "user", "content": "lives in Oslo"}'
    added = tooldeck("call", "memory", "--args", args, "--config", cfg, cwd=project, env=env)
    assert added.returncode == 0, added.stderr
    assert "lives in Oslo" in (project / "project-home" / "USER.md").read_text()
    found = tooldeck(
        "call",
        "session_search",
        "--args",
        '{"query": "zebra"}',
        "--json",
        "--config",
        cfg,
        cwd=project,
        env=env,
    )
    out = json.loads(found.stdout)
    assert out["ok"] and "migration plan" in out["content"] and "another project" not in out["content"]
    untouched_default(project)


def test_serve_uses_the_configured_home(project: Path) -> None:
    params = StdioServerParameters(
        command=str(BIN),
        args=["serve", "--config", str(project / "tooldeck.yaml")],
        env={**os.environ, "HOME": str(project / "user")},
        cwd=str(project),
    )

    async def session() -> tuple[str, str]:
        async with Client(params, mode="legacy") as client:
            added = await client.call_tool("memory", {"action": "add", "content": "served note"})
            found = await client.call_tool("session_search", {"query": "zebra"})
            return text_of(added), text_of(found)

    added, found = asyncio.run(session())
    assert "Added to MEMORY.md" in added
    assert "served note" in (project / "project-home" / "MEMORY.md").read_text()
    assert "migration plan" in found and "another project" not in found
    untouched_default(project)


def test_execute_codes_nested_calls_use_the_configured_home(project: Path) -> None:
    deck = Deck(load_config(project / "tooldeck.yaml"))
    code = (
        "from tooldeck_tools import memory, session_search\n"
        "print(memory(action='add', content='nested note'))\n"
        "print(session_search(query='zebra'))\n"
    )
    result = deck.call_sync("execute_code", {"code": code})
    assert result.ok and result.meta["exit_code"] == 0, result.content
    assert "nested note" in (project / "project-home" / "MEMORY.md").read_text()
    assert "migration plan" in result.content and "another project" not in result.content
    untouched_default(project)


CRASHING_TOOL = '''
from tooldeck import tool


@tool(toolset="demo")
def crash() -> str:
    """Raises."""
    raise RuntimeError("kaput-in-the-log")
'''


def test_the_command_lines_log_is_kept_in_the_configured_home(project: Path) -> None:
    (project / "td_crash.py").write_text(CRASHING_TOOL, encoding="utf-8")
    cfg = project / "crash.yaml"
    cfg.write_text("home: project-home\ntools: [{use: 'td_crash:crash'}]\n", encoding="utf-8")
    proc = tooldeck("call", "crash", "--config", str(cfg), cwd=project, env={"HOME": str(project / "user")})
    assert proc.returncode == 1
    assert "kaput-in-the-log" in (project / "project-home" / "logs" / "tooldeck.log").read_text()
    untouched_default(project)


def test_a_handler_called_without_an_executor_is_an_error_not_the_default_home(project: Path) -> None:
    with pytest.raises(ToolError, match="memory needs the agent services of the call"):
        memory.call({"action": "add", "content": "lost"})
    with pytest.raises(ToolError, match="session_search needs the agent services of the call"):
        session_search.call({"query": "zebra"})
    untouched_default(project)
