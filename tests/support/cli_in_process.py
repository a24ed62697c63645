"""A `tooldeck` command line run in the test's own process: `tooldeck.cli.main.run`, the console
script's parsing, output and exit codes, without a new interpreter importing tooldeck again
(~0.5 s CPU a command). For tests whose point is what a command does, not that it is a process;
exit codes through the console script, signals and Ctrl-C stay with real subprocesses.

The command sees what a subprocess would: the given folder as its working directory, the given
environment, stdin from the given text (else empty), stdout and stderr as strict UTF-8 streams
that are not terminals. All of it is put back afterwards, with `sys.path` and the user modules
the command imported from that folder or from a folder it added to `sys.path` (a config file's):
the next command imports them again, as a process would.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path


def _text_stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)


def _written(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


@contextlib.contextmanager
def _as_a_process(cwd: Path, env: Mapping[str, str], stdin: str) -> Iterator[tuple[io.TextIOWrapper, ...]]:
    saved_env, saved_cwd, saved_path = dict(os.environ), os.getcwd(), list(sys.path)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    modules = set(sys.modules)
    out, err = _text_stream(), _text_stream()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        added = [p for p in sys.path if p and p not in saved_path]  # a config's folder, say
        sys.path[:] = saved_path
        _forget_user_modules(set(sys.modules) - modules, (cwd, *added))


def _forget_user_modules(names: set[str], folders: tuple[str | Path, ...]) -> None:
    """Unload the modules among `names` loaded from `folders`, not the installed packages or
    tooldeck itself (a checkout holding its venv is such a folder: those stay loaded)."""
    import tooldeck

    user = tuple(str(Path(f).resolve()) + os.sep for f in folders)
    kept = tuple(
        str(Path(f).resolve()) + os.sep for f in (sys.prefix, sys.base_prefix, Path(tooldeck.__file__).parent)
    )
    for name in names:
        origin = str(Path(getattr(sys.modules[name], "__file__", None) or "").resolve())
        if origin.startswith(user) and not origin.startswith(kept):
            del sys.modules[name]


def tooldeck_in_process(
    cwd: Path, *args: str, env: Mapping[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` in `cwd` with `env`, in this process: its exit code, stdout and stderr."""
    from tooldeck.cli.main import run

    with _as_a_process(cwd, env, stdin or "") as (out, err):
        code = run(list(args))
    return subprocess.CompletedProcess(["tooldeck", *args], code, _written(out), _written(err))
