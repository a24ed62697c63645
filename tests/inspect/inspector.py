"""Run the real `tooldeck inspect` in a subprocess and talk to it over loopback."""

from __future__ import annotations

import json
import signal
import subprocess
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from support.cli import TOOLDECK, tooldeck_env

TINY = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "tiny_server.py"
ASKING = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "asking_server.py"

TOOLS_MODULE = '''
import json
from pathlib import Path
from tooldeck import ToolContext, tool

FLAG = Path(__file__).with_name("flag.txt")


def flag_set() -> bool:
    return FLAG.exists()


@tool(toolset="demo")
def echo(text: str, times: int = 1, loud: bool = False) -> str:
    """Echo a text back. <script>window.hacked = 1</script><b>not bold</b>"""
    out = " ".join([text] * times)
    return out.upper() if loud else out


@tool(toolset="demo", requires_approval=True)
def launch(target: str) -> str:
    """Launch something: needs approval."""
    return f"launched {target}"


@tool(toolset="demo", check=flag_set)
def flagged() -> str:
    """Available only while flag.txt exists."""
    return "flag is up"


@tool(toolset="extra")
def other() -> str:
    """A tool of a disabled toolset."""
    return "x"


SURVEY = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "default": "Ada", "minLength": 1},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150, "default": 36},
        "colour": {
            "type": "string",
            "title": "Colour",
            "description": "<i>pick one</i>",
            "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}],
            "default": "g",
        },
        "size": {"type": "string", "title": "Size", "enum": ["s", "m", "l"]},
        "news": {"type": "boolean", "title": "Send news", "default": True},
    },
    "required": ["name", "age"],
}


@tool(toolset="demo")
async def survey(ctx: ToolContext, message: str = "Tell me about you") -> str:
    """Ask the user to fill in a form; answers what came back, as JSON."""
    answer = await ctx.elicit(message, SURVEY)
    content = dict(answer.content) if answer.content is not None else None
    return json.dumps({"action": answer.action, "content": content, "reason": answer.reason})
'''

CONFIG = """
home: ./home
plugins: {enabled: false}
tools:
  - {use: "td_inspect_tools:echo"}
  - {use: "td_inspect_tools:launch"}
  - {use: "td_inspect_tools:flagged"}
  - {use: "td_inspect_tools:other"}
  - {use: "td_inspect_tools:survey"}
platform_toolsets:
  cli: [demo, extra, file{mcp}]
  gateway: [demo]
disabled_toolsets: [extra]
sandbox: {workspace: .}
"""


def write_workspace(folder: Path, *, mcp: dict[str, Any] | None = None, extra: str = "") -> Path:
    """A config with the demo tools above (and `mcp` servers, and the YAML `extra`) in `folder`;
    returns its path."""
    (folder / "td_inspect_tools.py").write_text(textwrap.dedent(TOOLS_MODULE), encoding="utf-8")
    toolsets = "".join(f", mcp-{name}" for name in mcp or {})
    text = textwrap.dedent(CONFIG).replace("{mcp}", toolsets)
    if mcp is not None:
        text += "mcp_servers: " + json.dumps(mcp) + "\n"
    text += extra
    path = folder / "tooldeck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@dataclass
class Inspector:
    proc: subprocess.Popen[str]
    url: str  # as printed: http://127.0.0.1:N/?token=T
    base: str
    token: str
    stderr: list[str]

    def client(self, *, authorized: bool = True) -> httpx.Client:
        params = {"token": self.token} if authorized else {}
        return httpx.Client(base_url=self.base, params=params, timeout=60)

    def get(self, path: str, **params: str) -> Any:
        with self.client() as c:
            response = c.get(path, params={"token": self.token, **params})
        assert response.status_code == 200, response.text
        return response.json()

    def post(self, path: str, body: Any) -> Any:
        with self.client() as c:
            response = c.post(path, json=body)
        assert response.status_code == 200, response.text
        return response.json()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise AssertionError("tooldeck inspect did not stop within 30 s of the signal") from None


@contextmanager
def running(config: Path, *args: str) -> Iterator[Inspector]:
    """`tooldeck inspect --no-open --config CONFIG ARGS`, until the block ends (then SIGTERM)."""
    proc = subprocess.Popen(
        [TOOLDECK, "inspect", "--no-open", "--config", str(config), *args],
        cwd=config.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=tooldeck_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    stderr: list[str] = []
    errors = proc.stderr
    reader = threading.Thread(target=lambda: stderr.extend(errors), daemon=True)
    reader.start()
    line = proc.stdout.readline().strip()  # the URL, flushed as soon as it listens
    if not line.startswith("http://127.0.0.1:"):
        proc.kill()
        proc.wait()
        reader.join(10)
        proc.stdout.close()
        errors.close()
        raise AssertionError(f"no URL on stdout: {line!r}; stderr: {''.join(stderr)}")
    base, _, token = line.partition("/?token=")
    inspector = Inspector(proc, line, base, token, stderr)
    try:
        yield inspector
    finally:
        inspector.stop()
        reader.join(10)
        proc.stdout.close()
        errors.close()


def wait_for(find: Callable[[], Any], what: str, seconds: float = 30) -> Any:
    """What `find` returns once it is truthy; an AssertionError naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = find()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{what}: not seen within {seconds} s")
