"""A warm `tooldeck` for the tests that run the CLI as a plain subprocess: a fresh interpreter
spends ~0.5-1.3 s of CPU importing tooldeck's CLI, pydantic, openai, anthropic, the MCP client and
httpx before a command does anything, and the suite runs hundreds of commands.

`python warm_tooldeck.py --serve SOCKET` (one per pytest worker, see support.cli) imports them once
— imports only: nothing that reads the environment, starts a thread or opens a file a command
would share — and waits on a Unix socket. `python -S -E warm_tooldeck.py SOCKET ARGS...` is the
command a test runs instead of `tooldeck ARGS...`: this launcher hands the server its standard
input, output and error (the file descriptors themselves, SCM_RIGHTS), its arguments, environment
and folder, and waits. The server forks a manager; the manager forks the command, which takes the
descriptors as 0/1/2, the environment (os.environ replaced), the folder, `sys.argv` (argv[0] the
real `tooldeck` script), `sys.path` as the interpreter would build it from PYTHONPATH, fresh
standard streams and the start-up signal dispositions, then runs the console script as
`__main__`, its threads joined, atexit handlers run and stdio flushed as at interpreter exit.

The launcher ends as the command did: its exit code, or a death by signal N re-raised on itself
(`returncode == -N`). SIGINT, SIGTERM and SIGHUP it receives are passed to the command; if the
launcher dies (a test's timeout kills it), the manager sees the socket close and kills the
command.

What cannot be emulated falls back to exec'ing the real `tooldeck` with the same arguments,
environment, folder and descriptors: any `PYTHON*` variable other than PYTHONPATH, or a locale
variable (LC_ALL, LC_CTYPE, LANG), that differs from the server's (the interpreter reads them at
start-up: buffering, encodings, hash seed, warnings...); a PYTHONPATH folder holding a module of
the name of one the server already imported (or a sitecustomize); a server that cannot be reached.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from typing import Any

TOOLDECK = os.path.join(os.path.dirname(sys.executable), "tooldeck")
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_STARTUP_KEYS = ("LC_ALL", "LC_CTYPE", "LANG")
_MAX_MESSAGE = 1 << 20


def launch(path: str, args: list[str]) -> None:
    """The test's command: run `tooldeck ARGS` in a fork of the warm server, end as it ended."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        conn.connect(path)
        ignored = [int(s) for s in FORWARDED if signal.getsignal(s) == signal.SIG_IGN]
        request = {"args": args, "env": dict(os.environ), "cwd": os.getcwd(), "ignored": ignored}
        socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
    except OSError:
        answer = b"fallback"
    else:
        for signum in FORWARDED:
            if int(signum) not in ignored:
                signal.signal(signum, lambda n, _frame: conn.send(str(n).encode()))
        answer = conn.recv(64)
        if answer == b"started":
            answer = conn.recv(64)
    if answer == b"fallback":
        os.execv(TOOLDECK, [TOOLDECK, *args])
    if not answer.lstrip(b"-").isdigit():
        os.write(2, b"warm tooldeck: the server ended without the command's exit code\n")
        os._exit(1)
    code = int(answer)
    if code < 0:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        _die_by(-code)
    os._exit(code & 0xFF)


def serve(path: str) -> None:
    """Import once, then fork a manager per connection; ends when its standard input closes (the
    pytest worker that started it is gone)."""
    import select
    import threading

    base_path = sys.path[1:]  # [0] is this file's folder; a command's is the script's
    startup = _startup_env(os.environ)
    _import_commands()
    assert threading.active_count() == 1, "an import started a thread: forks would lose it"
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as server:
        server.bind(path)
        server.listen(64)
        print("ready", flush=True)
        while True:
            ready, _, _ = select.select([server, 0], [], [], 2.0)
            _reap(block=0 in ready)  # waited for, their CPU counts in the worker's (`time pytest`)
            if 0 in ready:
                return
            if not ready:
                continue
            conn, _ = server.accept()
            message, fds, _flags, _addr = socket.recv_fds(conn, _MAX_MESSAGE, 3)
            if os.fork() == 0:
                server.close()
                _manage(conn, json.loads(message), fds, startup, base_path)
            conn.close()
            for fd in fds:
                os.close(fd)


def _reap(block: bool) -> None:
    """Wait for the managers that ended (all of them when `block`)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


# Imported lazily by the commands the tests run (the modules a warm command still imported).
_LAZY = (
    "ctypes",
    "yaml",
    "tooldeck._core.config_yaml",
    "tooldeck._core.mcp_sessions",
    "tooldeck._utils.jsonl",
)
_LAZY_PACKAGES = (
    "tooldeck._core.execution",
    "tooldeck._core.schemas",
    "tooldeck._core.sources",
    "tooldeck.agent",
    "tooldeck.agent.builtins",
    "tooldeck.agent.models",
    "tooldeck.batch",
    "tooldeck.cli",
    "tooldeck.inspect",
    "tooldeck.tools",
    "tooldeck.tools.browser",
    "tooldeck.tools.web",
)


def _import_commands() -> None:
    """What the commands import, lazily or not (`python -X importtime .venv/bin/tooldeck CMD`)."""
    import importlib
    import pkgutil

    import anthropic  # noqa: F401
    import httpx  # noqa: F401
    import mcp.client.session
    import mcp.client.sse
    import mcp.client.stdio
    import mcp.client.streamable_http  # noqa: F401
    import openai  # noqa: F401

    import tooldeck

    for name in tooldeck.__all__:  # the lazy public names: the core, loaders, renderers
        getattr(tooldeck, name)
    for name in _LAZY:
        importlib.import_module(name)
    for package in _LAZY_PACKAGES:
        path = importlib.import_module(package).__path__
        for module in pkgutil.iter_modules(path):
            importlib.import_module(f"{package}.{module.name}")


def _startup_env(env: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """What the interpreter reads from the environment when it starts (PYTHONPATH is emulated)."""
    return {
        k: v for k, v in env.items() if (k.startswith("PYTHON") and k != "PYTHONPATH") or k in _STARTUP_KEYS
    }


def _cannot_emulate(request: dict[str, Any], startup: dict[str, str]) -> bool:
    env: dict[str, str] = request["env"]
    if _startup_env(env) != startup:
        return True
    imported = {name.partition(".")[0] for name in sys.modules} | {"sitecustomize", "usercustomize"}
    for folder in _pythonpath(env, request["cwd"]):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        if any(name.partition(".")[0] in imported for name in names if not name.startswith("__")):
            return True
    return False


def _pythonpath(env: dict[str, str], cwd: str) -> list[str]:
    if not env.get("PYTHONPATH"):
        return []
    return [os.path.normpath(os.path.join(cwd, p)) for p in env["PYTHONPATH"].split(os.pathsep)]


def _manage(
    conn: socket.socket, request: dict[str, Any], fds: list[int], startup: dict[str, str], base: list[str]
) -> None:
    """Between the launcher and the command: starts it, passes signals on, reports how it ended,
    kills it when the launcher is gone."""
    import select

    if _cannot_emulate(request, startup):
        conn.send(b"fallback")
        os._exit(0)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _command(request, fds, base)
    for fd in fds:
        os.close(fd)
    conn.send(b"started")
    pidfd = os.pidfd_open(pid)
    while True:
        ready, _, _ = select.select([conn, pidfd], [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            conn.send(str(os.waitstatus_to_exitcode(status)).encode())
            os._exit(0)
        try:
            message = conn.recv(64)
        except OSError:
            message = b""
        if not message:  # the launcher is gone: so is its command
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os._exit(0)
        os.kill(pid, int(message))


def _command(request: dict[str, Any], fds: list[int], base: list[str]) -> None:
    """The forked command: become the process `tooldeck ARGS` would have been, run it, exit."""
    import importlib

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    paths = [os.path.dirname(TOOLDECK), *_pythonpath(request["env"], request["cwd"]), *base]
    sys.path[:] = list(dict.fromkeys(paths))
    importlib.invalidate_caches()
    sys.argv = [TOOLDECK, *request["args"]]
    sys.orig_argv = [sys.executable, *sys.argv]
    for signum in FORWARDED:
        if int(signum) in request["ignored"]:
            signal.signal(signum, signal.SIG_IGN)
        elif signum == signal.SIGINT:
            signal.signal(signum, signal.default_int_handler)
        else:
            signal.signal(signum, signal.SIG_DFL)
    _fresh_stdio()
    _exit(_run_script())


def _fresh_stdio() -> None:
    """sys.stdin/stdout/stderr as the interpreter makes them (buffering by -u and isatty, the
    server's encoding and buffering: the start-up variables are the same)."""
    import io

    assert sys.__stdout__ is not None
    buffered = not sys.__stdout__.write_through
    streams = []
    for fd, like in enumerate((sys.__stdin__, sys.__stdout__, sys.__stderr__)):
        assert like is not None
        mode = "r" if fd == 0 else "w"
        raw = io.FileIO(fd, mode, closefd=False)
        # The names and modes the interpreter gives its standard streams (typeshed has them read-only).
        raw.name = f"<{('stdin', 'stdout', 'stderr')[fd]}>"  # type: ignore[misc]
        buffer: Any = raw
        if buffered or fd == 0:
            buffer = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(
            buffer,
            encoding=like.encoding,
            errors=like.errors,
            newline="\n",
            line_buffering=buffered and fd > 0 and (fd == 2 or raw.isatty()),
            write_through=not buffered,
        )
        stream.mode = mode  # type: ignore[misc]
        streams.append(stream)
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams


def _run_script() -> int:
    """The console script as `__main__`; the exit code the interpreter would give it (an uncaught
    KeyboardInterrupt: -SIGINT, a death by that signal)."""
    import types

    main = types.ModuleType("__main__")
    main.__file__ = TOOLDECK
    sys.modules["__main__"] = main
    try:
        with open(TOOLDECK, encoding="utf-8") as script:
            source = script.read()
        exec(compile(source, TOOLDECK, "exec"), main.__dict__)
    except SystemExit as end:
        if end.code is None or isinstance(end.code, int):
            return end.code or 0
        print(end.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
        return -signal.SIGINT
    except BaseException:
        sys.excepthook(*sys.exc_info())
        return 1
    return 0


def _exit(code: int) -> None:
    """Interpreter exit: join the threads, run atexit handlers, flush stdio, end."""
    import atexit
    import threading

    # What the interpreter does at exit: join the non-daemon threads (no public API does it).
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = 120 if code == 0 else code
    if code < 0:
        _die_by(-code)
    os._exit(code & 0xFF)


def _die_by(signum: int) -> None:
    if signum not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
    os.kill(os.getpid(), signum)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        launch(sys.argv[1], sys.argv[2:])
