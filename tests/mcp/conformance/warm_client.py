"""A warm Python for client_script.py: the conformance suite starts the client once per scenario,
and most of what a fresh interpreter costs there is importing tooldeck, the MCP SDK and httpx
again (about 1.5 s of CPU each time, a few minutes over both suites' scenarios).

`python warm_client.py --serve SOCKET` imports client_script.py (and what its commands import)
once and waits on a Unix socket. `python -S -E warm_client.py SOCKET ARGS...` is the client
command the suite runs: it hands the server its standard input, output and error (the file
descriptors themselves), its arguments, environment and folder, and waits. The server forks; the
child — a process of its own, with the scenario's environment, folder and standard streams — runs
`client_script.main(ARGS)` as the script's `__main__` would, reports its exit code, and exits with
it; the command exits with that code (1 when the child died without one), and writes it where
$TOOLDECK_CONFORMANCE_EXITS says when that is set (a batch of scenarios: leg_batch.py). The
commands the scenario runs are the same code as with a fresh interpreter; only the imports were
done before.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
from typing import Any

_MAX_MESSAGE = 1 << 20


def connect(path: str, argv: list[str]) -> int:
    """The suite's client command: forward this process to the warm server and wait for the end.
    A batch of scenarios (leg_batch.py) names those it runs in $TOOLDECK_CONFORMANCE_SCENARIOS:
    the suite's other scenarios end at once, their client exiting with 1."""
    wanted = os.environ.get("TOOLDECK_CONFORMANCE_SCENARIOS")
    if wanted is not None and os.environ.get("MCP_CONFORMANCE_SCENARIO") not in wanted.split():
        return 1
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
        conn.connect(path)
        request = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}
        socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
        answer = conn.recv(64)
    code = int(answer) if answer.strip().lstrip(b"-").isdigit() else 1
    exits = os.environ.get("TOOLDECK_CONFORMANCE_EXITS")  # a batch run's record (leg_batch.py)
    if exits:
        scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "").replace("/", "%")
        with open(os.path.join(exits, scenario), "w") as record:
            record.write(str(code))
    return code


def serve(path: str) -> None:
    """Import once, then fork a child per connection; never returns."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import client_script  # noqa: F401  (tooldeck's CLI)
    import httpx  # noqa: F401
    import mcp.client.session
    import mcp.client.streamable_http  # noqa: F401

    # `import tooldeck` imports none of the core until a name is used: the commands' modules too.
    import tooldeck._config
    import tooldeck._deck
    import tooldeck.cli.call_cmd
    import tooldeck.cli.mcp_cmd  # noqa: F401

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reap themselves; they report their code
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as server:
        server.bind(path)
        server.listen(64)
        print("ready", flush=True)
        while True:
            conn, _ = server.accept()
            message, fds, _flags, _addr = socket.recv_fds(conn, _MAX_MESSAGE, 3)
            if os.fork() == 0:
                server.close()
                _child(conn, json.loads(message), fds)
            conn.close()
            for fd in fds:
                os.close(fd)


def _child(conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in request["env"].items()})
    argv = [str(a) for a in request["argv"]]
    sys.argv = argv
    code = 1
    try:
        import atexit

        import client_script

        try:
            code = client_script.main(argv)
        except SystemExit as end:
            code = end.code if isinstance(end.code, int) else 1
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError):
                stream.flush()
        try:
            conn.sendall(str(code).encode())
        finally:
            os._exit(code)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        sys.exit(connect(sys.argv[1], [sys.argv[0], *sys.argv[2:]]))
