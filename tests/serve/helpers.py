"""What the serve tests share: a config over `deck_tools.py`, and `tooldeck serve` processes."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from mcp import StdioServerParameters

from support.cli import tooldeck_command

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent / "tooldeck"
REPO = HERE.parents[1]

CONFIG = """\
platform_toolsets: {cli: [demo]}
tools:
  - use: deck_tools:shout
  - use: deck_tools:explode
  - use: deck_tools:guarded
  - use: deck_tools:dawdle
  - use: deck_tools:flagged
checks: {ttl_s: 0.1}
home: home
"""


def make_config(folder: Path, extra: str = "") -> Path:
    """`tooldeck.yaml` in `folder`, next to a copy of `deck_tools.py` (its `flag` file flips a check)."""
    shutil.copy(HERE / "deck_tools.py", folder / "deck_tools.py")
    path = folder / "tooldeck.yaml"
    path.write_text(CONFIG + extra)
    return path


def tools_json_names(config: Path) -> list[str]:
    """What `tooldeck tools --json` shows, by name."""
    out = subprocess.run(
        [*tooldeck_command(), "tools", "--json", "--config", str(config)],
        capture_output=True,
        text=True,
        check=True,
    )
    return [t["function"]["name"] for t in json.loads(out.stdout)]


def stdio_params(config: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(BIN), args=["serve", "--config", str(config), "--interval", "0.2", *extra]
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_server(config: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`tooldeck serve --transport http` on a free port; yields its URL once it listens. A port
    another worker took between our probe and the server's bind is given up for a new one."""
    for _attempt in range(3):
        port = free_port()
        proc = subprocess.Popen(
            [str(BIN), "serve", "--transport", "http", "--port", str(port), "--config", str(config), *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        assert proc.stderr is not None
        said, line = "", ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "serving MCP at" not in line:
            line = proc.stderr.readline()
            said += line
            if not line and proc.poll() is not None:
                break
        if "serving MCP at" in line or "in use" not in said:
            break
        proc.stderr.close()
    try:
        if "serving MCP at" not in line:
            proc.poll()
            raise AssertionError(f"tooldeck serve exited with {proc.returncode}: {said[-2000:]}")
        url = line.strip().rsplit(" ", 1)[-1]
        assert url == f"http://127.0.0.1:{port}/mcp", line
        # Keep reading what the server logs, so a full pipe never blocks it.
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
