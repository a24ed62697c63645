"""The warm client server the conformance scenarios' client command connects to (warm_client.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

WARM = Path(__file__).resolve().parent / "warm_client.py"


@pytest.fixture(scope="session")
def client_command() -> Iterator[str]:
    """`python -S -E warm_client.py SOCKET`: client_script.py run by a fork of one warm server per
    pytest worker, so the scenarios stay spread over the workers. The socket lies in a short
    folder of its own: a Unix socket's path is limited to 107 bytes."""
    folder = tempfile.mkdtemp(prefix="tooldeck-warm-")
    socket_path = os.path.join(folder, "s")
    errors = Path(folder) / "stderr.txt"
    with (
        errors.open("w") as stderr,
        subprocess.Popen(
            [sys.executable, str(WARM), "--serve", socket_path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,  # its children too are ended with it
        ) as server,
    ):
        try:
            assert server.stdout is not None
            if server.stdout.readline().strip() != "ready":
                server.wait(timeout=30)
                pytest.fail(f"the warm client server did not start:\n{errors.read_text()[-3000:]}")
            yield f"{sys.executable} -S -E {WARM} {socket_path}"
        finally:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
            shutil.rmtree(folder, ignore_errors=True)
