"""What the MCP tests share: where the real servers are, our tiny fault server, decks over them.

The real servers are installed by scripts/setup.sh: the PyPI ones into the project venv, the
npm ones into .node/. A missing one is a failure, not a skip: CI must have them all.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Deck, parse_config

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / ".node" / "node_modules" / "@modelcontextprotocol"
TINY = Path(__file__).resolve().parent / "servers" / "tiny_server.py"
BIN = Path(sys.executable).parent


def installed(path: Path) -> Path:
    if not path.exists():
        pytest.fail(
            f"{path} is missing: run scripts/setup.sh (it installs the MCP test servers)", pytrace=False
        )
    return path


def everything_js() -> str:
    return str(installed(NODE_MODULES / "server-everything" / "dist" / "index.js"))


def filesystem_js() -> str:
    return str(installed(NODE_MODULES / "server-filesystem" / "dist" / "index.js"))


def venv_command(name: str) -> str:
    return str(installed(BIN / name))


def tiny(*args: str, **options: Any) -> dict[str, Any]:
    """A config entry running the tiny fault server with `args`."""
    return {"command": sys.executable, "args": [str(TINY), *args], **options}


def _recorded(record: Path) -> list[dict[str, Any]]:
    """What the tiny server started with `--record PATH` wrote there: its calls and cancellations."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def called(record: Path) -> list[str]:
    """The tools the tiny server was asked to call (`--record PATH`), in order."""
    return [e["tool"] for e in _recorded(record) if e["event"] == "call"]


def cancelled_while_running(record: Path) -> list[str]:
    """The tools whose calls the tiny server was sent MCP's `notifications/cancelled` for (naming
    the request id of the call) while they ran, in order."""
    return [e["tool"] for e in _recorded(record) if e["event"] == "cancelled" and e["running"]]


def everything(**options: Any) -> dict[str, Any]:
    return {"command": "node", "args": [everything_js()], **options}


def make_deck(tmp_path: Path, servers: Mapping[str, Any], **config: Any) -> Deck:
    """A deck with only these MCP servers (no built-in tools), its workspace and home in tmp_path,
    assembled once, so every server's first connection attempt is over."""
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    data = {
        "mcp_servers": dict(servers),
        "sandbox": {"workspace": str(workspace)},
        "home": str(tmp_path / "home"),
        "plugins": {"enabled": False},
        **config,
    }
    deck = Deck(parse_config(data, base_dir=str(tmp_path)), builtins=False)
    deck.loadout()
    return deck


@contextmanager
def deck_over(tmp_path: Path, servers: Mapping[str, Any], **config: Any) -> Iterator[Deck]:
    deck = make_deck(tmp_path, servers, **config)
    try:
        yield deck
    finally:
        deck.close()


def wait_for(condition: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} not reached within {timeout} s")


def process_alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie awaiting its parent's wait counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def children_of(pid: int) -> list[int]:
    """Every live descendant of `pid`."""
    out = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True, check=True).stdout
    parents: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = (int(x) for x in line.split())
        parents.setdefault(parent, []).append(child)
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if process_alive(child):
                found.append(child)
                todo.append(child)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def node_http_server(mode: str) -> Iterator[int]:
    """server-everything over `streamableHttp` or `sse` on a free port; yields the port once it listens."""
    port = free_port()
    proc = subprocess.Popen(
        ["node", everything_js(), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(lambda: _listening(port), 30.0, f"server-everything {mode} on port {port}")
        yield port
    finally:
        stop_process(proc, grace=5)


def stop_process(proc: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """Stop a server process: SIGTERM, and SIGKILL when it is still there after `grace` seconds
    (one waiting for a client's open stream to end)."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0
