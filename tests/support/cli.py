"""`tooldeck` as a separate process, the way a user or a script runs it: no real model's keys,
no tracing endpoint of the machine, no terminal on stdin (nobody to answer a prompt), the
tooldeck home the test chooses.

`tooldeck_command()` is the command line that runs `tooldeck` for a test that only gives it
input and reads its output, exit code and files: a fork of this worker's warm server
(support.warm_tooldeck, started on first use, ended with the worker), or the real console script
when TOOLDECK_TEST_WARM=0. Tests of the process itself (signals, its process group, a terminal,
its imports, its cold start) run `TOOLDECK`, the real script."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TOOLDECK = str(Path(sys.executable).with_name("tooldeck"))
WARM = Path(__file__).resolve().with_name("warm_tooldeck.py")
_server: list[tuple[subprocess.Popen[str], str]] = []


def tooldeck_command() -> list[str]:
    """The argv prefix that runs `tooldeck` (append its arguments): warm unless
    TOOLDECK_TEST_WARM=0."""
    if os.environ.get("TOOLDECK_TEST_WARM", "1") == "0":
        return [TOOLDECK]
    if not _server:
        _server.append(_start_server())
        atexit.register(stop_warm_server)
    return [sys.executable, "-S", "-E", str(WARM), _server[0][1]]


def _start_server() -> tuple[subprocess.Popen[str], str]:
    """One per worker process, in a short private folder (a Unix socket's path is limited to 107
    bytes); its stdin is a pipe from this process: it ends when this process is gone."""
    folder = tempfile.mkdtemp(prefix="tooldeck-warm-")
    socket_path = os.path.join(folder, "s")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with open(os.path.join(folder, "stderr.txt"), "w", encoding="utf-8") as errors:
        server = subprocess.Popen(
            [sys.executable, str(WARM), "--serve", socket_path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
            cwd=folder,
            text=True,
        )
    assert server.stdout is not None
    if server.stdout.readline().strip() != "ready":
        server.kill()
        server.wait()
        message = Path(folder, "stderr.txt").read_text(encoding="utf-8")[-3000:]
        raise RuntimeError(f"the warm tooldeck server did not start:\n{message}")
    return server, socket_path


def stop_warm_server() -> None:
    """End this worker's warm server (if started) and remove its folder."""
    while _server:
        server, socket_path = _server.pop()
        assert server.stdin is not None and server.stdout is not None
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()
        shutil.rmtree(os.path.dirname(socket_path), ignore_errors=True)


def tooldeck_text(
    args: list[str],
    cwd: Path | None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 180,
) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` (tooldeck_command()) in `cwd` with `env` (None: this process's), `stdin` as
    its input (None: no input, not this process's terminal): its exit code and text output."""
    feed: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        [*tooldeck_command(), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **feed,
    )


def run_tooldeck(
    cwd: Path, *args: str, home: Path | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` in `cwd`; `home`: its TOOLDECK_HOME (None: the config's `home:`)."""
    return tooldeck_text(list(args), cwd, tooldeck_env(home), timeout=timeout)


def tooldeck_env(home: Path | None = None) -> dict[str, str]:
    """The environment `tooldeck` runs with here (for a process the test keeps running too):
    this one without model keys, tooldeck's own variables or an OpenTelemetry exporter, but with
    the test process's private cache (conftest.py), never the user's; `home`: its TOOLDECK_HOME."""
    unset = ("OPENAI_", "ANTHROPIC_", "TOOLDECK_", "OTEL_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(unset) or k == "TOOLDECK_CACHE_DIR"}
    if home is not None:
        env["TOOLDECK_HOME"] = str(home)
    return env
