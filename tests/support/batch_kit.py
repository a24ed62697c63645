"""What the batch command tests share: a project folder with tools that can kill their own
worker process, input files, and the real `tooldeck batch` run as a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from support.cli import tooldeck_command
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

TOOLDECK = str(Path(sys.executable).with_name("tooldeck"))

TOOLS_MODULE = '''
import os
import signal
from pathlib import Path

from tooldeck import tool


@tool(toolset="math")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(toolset="crash")
def die_once(marker: str) -> str:
    """Kill this worker process the first time (leaving `marker`), succeed the second time."""
    path = Path(marker)
    if not path.exists():
        path.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return "survived"


@tool(toolset="crash")
def freeze() -> str:
    """Stop this worker process (SIGSTOP), as a hung machine or a partitioned node would: alive,
    holding its items, answering nothing."""
    os.kill(os.getpid(), signal.SIGSTOP)
    return "thawed"


@tool(toolset="crash")
def die_always() -> str:
    """Kill this worker process, every time."""
    os.kill(os.getpid(), signal.SIGKILL)
    return "unreachable"
'''

CONFIG = """
tools:
  - {use: "batch_test_tools:add"}
  - {use: "batch_test_tools:die_once"}
  - {use: "batch_test_tools:die_always"}
  - {use: "batch_test_tools:freeze"}
platform_toolsets:
  cli: [math, crash, file]
"""


def make_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "batch_test_tools.py").write_text(TOOLS_MODULE)
    (root / "tooldeck.yaml").write_text(CONFIG)
    (root / "home").mkdir(exist_ok=True)
    return root


def write_items(path: Path, items: Iterable[dict[str, Any] | str]) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for item in items:
            fh.write((item if isinstance(item, str) else json.dumps(item)) + "\n")
    return path


def read_results(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def env_for(project: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update({"TOOLDECK_HOME": str(project / "home"), "OPENAI_API_KEY": "test-key", **extra})
    return env


def batch_args(server: ScriptedServer, project: Path, *args: str) -> list[str]:
    return [
        TOOLDECK,
        "batch",
        *args,
        "--config",
        str(project / "tooldeck.yaml"),
        "--base-url",
        server.openai_url,
        "--model",
        "scripted-model",
    ]


def run_batch_cli(
    server: ScriptedServer, project: Path, *args: str, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tooldeck_command(), *batch_args(server, project, *args)[1:]],
        capture_output=True,
        text=True,
        cwd=project,
        env=env_for(project, **env),
        timeout=timeout,
        check=False,
    )


def batch_in_process(
    server: ScriptedServer, project: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """`tooldeck batch ARGS` in this process (see support.cli_in_process): for runs refused before
    any worker starts, where the process is not what the test proves."""
    from support.cli_in_process import tooldeck_in_process

    return tooldeck_in_process(project, *batch_args(server, project, *args)[1:], env=env_for(project, **env))


def by_prompt(steps: dict[str, list[tuple[str, dict[str, Any]]]]) -> Any:
    """A responder: the conversation's first user message picks its tool calls (default: none)."""

    def respond(recorded: Recorded) -> Turn:
        prompt = (recorded.text_of("user") or [""])[0]
        calls = steps.get(prompt, [])
        done = len(recorded.tool_results())
        if done < len(calls):
            return Turn(calls=[calls[done]])
        return Turn(text=f"answer: {prompt}")

    return respond


def pid_gone(pid: int) -> bool:
    """True when `pid` no longer runs (a zombie waiting for its reaper counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return "\nState:\tZ" in status


@contextlib.contextmanager
def ray_temp_dir() -> Iterator[Path]:
    """A fresh temp folder of its own for a Ray instance or cluster, removed afterwards. Ray puts
    unix sockets under it, whose paths must stay under 108 bytes: pytest's own folders (deeper
    still under xdist) are too long, so this one is made directly in the system temp folder."""
    folder = Path(tempfile.mkdtemp(prefix="tdray-"))
    if len(str(folder)) > 45:
        shutil.rmtree(folder)
        raise RuntimeError(f"the temp folder {folder} is too long for Ray's socket paths; set TMPDIR")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_with_a_stuck_worker(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A run of three items on one worker (concurrency 2, --timeout 4) whose worker process is
    stopped (SIGSTOP) 2.5 s into "frozen": the item's own timeout can never fire. "fast" ends
    before that; "late" starts when it ends, so it is still running, stuck, when the driver ends
    "frozen" as a timeout (timeout + grace after its start) and ends the worker; "late" is then
    retried on a new worker. See `check_stuck_worker_results`."""
    answer = by_prompt({"frozen": [("freeze", {})]})
    delays = {"frozen": 2.5, "fast": 1.0, "late": 2.0}

    def timed(recorded: Recorded) -> Turn:
        turn = answer(recorded)
        if not recorded.tool_results():
            turn.delay_s = delays[(recorded.text_of("user") or [""])[0]]
        return turn

    write_items(project / "in.jsonl", [{"id": p, "prompt": p} for p in delays])
    options = ("--out", "out.jsonl", "--workers", "1", "--concurrency", "2", "--timeout", "4")
    with ScriptedServer(responder=timed) as server:
        return run_batch_cli(server, project, "in.jsonl", *options, *args, timeout=180, **env)


def check_stuck_worker_results(out: Path) -> None:
    results = {r["id"]: r for r in read_results(out)}
    frozen = results["frozen"]
    assert frozen["status"] == "timeout" and frozen["attempts"] == 1
    assert "did not finish within its timeout and grace (9 s in all)" in frozen["error"]
    assert "the driver ended the worker" in frozen["error"]
    assert results["fast"]["status"] == "ok" and results["fast"]["attempts"] == 1
    late = results["late"]
    assert late["status"] == "ok" and late["attempts"] == 2 and late["text"] == "answer: late"
    assert late["retried_after"]["cause"] == "unresponsive"
    assert "stopped answering" in late["retried_after"]["detail"]
    assert late["worker"] != frozen["worker"]
