"""The classes hold for every way a call is made: `tooldeck call`, the agent loop (scripted
model), `tooldeck serve` (a real MCP client), `tooldeck batch` (a real worker against a loopback
model server) and `execute_code`'s nested calls; an ordinary file lands through each."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import mcp_types as types
from mcp import Client, StdioServerParameters

from support.batch_kit import by_prompt, run_batch_cli, write_items
from support.cli import tooldeck_command
from support.scripted_server import ScriptedServer
from tooldeck import Deck, load_config
from tooldeck.agent import ScriptedModel, call, reply

BIN = str(Path(sys.executable).with_name("tooldeck"))
CONFIG = (
    "home: .tooldeck\nsandbox: {kind: bwrap}\nplatform_toolsets: {cli: [file, terminal, code_execution]}\n"
)
HOOK = {"path": "sub/.git/config", "content": '[core]\n\tfsmonitor = "touch /tmp/PWN; false"\n'}
PTH = {"path": ".venv/lib/python3.11/site-packages/zz.pth", "content": "import os\n"}
PLAIN = {"path": "notes.txt", "content": "ok\n"}


def nested_project(root: Path) -> Path:
    """A repository with a nested one in `sub` and a virtualenv's layout in `.venv`."""
    subprocess.run(["git", "init", "-q", str(root / "sub")], check=True)
    (root / "tooldeck.yaml").write_text(CONFIG)
    (root / ".venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return root


def untouched(root: Path) -> bool:
    config = (root / "sub" / ".git" / "config").read_text() if (root / "sub").exists() else ""
    return "fsmonitor" not in config and not (root / PTH["path"]).exists()


def test_tooldeck_call_holds_the_classes(tmp_path: Path) -> None:
    root = nested_project(tmp_path / "p")
    for args in (HOOK, PTH):
        done = subprocess.run(
            [*tooldeck_command(), "call", "write_file", "--args", json.dumps(args), "--json", "--config", str(root / "tooldeck.yaml")],
            capture_output=True, text=True, cwd=root, timeout=120,
        )  # fmt: skip
        assert done.returncode == 1 and json.loads(done.stdout)["error"]["type"] == "denied", done.stdout
    assert untouched(root)


def test_the_agent_loop_holds_the_classes(tmp_path: Path) -> None:
    root = nested_project(tmp_path / "p")
    model = ScriptedModel(
        [
            reply(calls=[call("write_file", HOOK), call("write_file", PTH), call("write_file", PLAIN)]),
            reply("done"),
        ]
    )
    agent = Deck(load_config(root / "tooldeck.yaml")).agent(model, store=False)
    assert asyncio.run(agent.run(agent.new_conversation(), "go")).text == "done"
    contents = [m.content for m in model.requests[-1].messages if m.role == "tool"]
    assert (
        "core.fsmonitor" in contents[0] and "start-up" in contents[1] and "created notes.txt" in contents[2]
    )
    assert untouched(root)


def test_serve_holds_the_classes(tmp_path: Path) -> None:
    root = nested_project(tmp_path / "p")

    async def session() -> list[str]:
        params = StdioServerParameters(command=BIN, args=["serve", "--config", str(root / "tooldeck.yaml")])
        async with Client(params) as client:
            return [_text(await client.call_tool("write_file", args)) for args in (HOOK, PTH, PLAIN)]

    hook, pth, plain = asyncio.run(session())
    assert "core.fsmonitor" in hook and "start-up" in pth and "created notes.txt" in plain
    assert untouched(root)


def _text(result: types.CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_batch_items_meet_the_classes_in_their_own_workspace(tmp_path: Path) -> None:
    root = nested_project(tmp_path / "p")
    write_items(root / "in.jsonl", [{"id": "a", "prompt": "evil"}])
    steps = {"evil": [("write_file", HOOK), ("write_file", {**HOOK, "path": "tooldeck.yaml"})]}
    with ScriptedServer(responder=by_prompt(steps)) as server:
        done = run_batch_cli(server, root, "in.jsonl", "--out", "out.jsonl")
        assert done.returncode == 0, done.stderr
        results = [content for _, content in server.requests[-1].tool_results()]
    assert len(results) == 2 and "core.fsmonitor" in results[0] and "tooldeck config" in results[1], results


def test_execute_code_and_its_nested_calls_hold_the_classes(tmp_path: Path) -> None:
    root = nested_project(tmp_path / "p")
    deck = Deck(load_config(root / "tooldeck.yaml"))
    code = (
        "from tooldeck_tools import write_file\n"
        f"for args in ({HOOK!r}, {PTH!r}, {PLAIN!r}):\n"
        "    try:\n        print(write_file(**args))\n    except Exception as e:\n        print('nested', e)\n"
    )
    out = deck.call_sync("execute_code", {"code": code}).content
    assert "core.fsmonitor" in out and "start-up" in out and "created notes.txt" in out, out
    assert untouched(root) and (root / "notes.txt").read_text() == "ok\n"


def test_explain_names_each_class_and_why(tmp_path: Path) -> None:
    root = nested_project(tmp_path / "p")
    shown = subprocess.run(
        [*tooldeck_command(), "explain", "--config", str(root / "tooldeck.yaml")],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    text = " ".join(shown.stdout.split())
    for name in ("git", "interpreter start-up", "tooldeck configuration", "the user's home"):
        assert f"protected by class, {name}:" in text, text
    assert "a config without such keys lands" in text
