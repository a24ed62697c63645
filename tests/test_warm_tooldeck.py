"""The warm `tooldeck` the CLI tests run (support.warm_tooldeck): what a test can observe of a
command — stdout, stderr, exit code, a death by signal — is what the real console script gives,
a launcher that dies takes its command with it, and what cannot be emulated runs the real script."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.cli import TOOLDECK, tooldeck_command

PROBE = '''
import os, signal, sys, time
from pathlib import Path
from tooldeck import tool

@tool
def probe(pid_file: str = "", size: int = 0, die_by: int = 0) -> str:
    """Report the process that runs the tool; wait, print a lot, or die as asked.

    Args:
        pid_file: Write the pid here, then wait for a signal.
        size: How many characters of output to return.
        die_by: A signal to kill the process with.
    """
    if die_by:
        sys.stdout.flush()
        os.kill(os.getpid(), die_by)
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()))
        time.sleep(600)
    return "x" * size if size else f"{os.getpid()} {sys.argv[0]}"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A config that calls `probe`, from a module only PYTHONPATH reaches (lib/, not the config's folder)."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "warm_probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "tooldeck.yaml").write_text('tools:\n  - {use: "warm_probe:probe"}\n', encoding="utf-8")
    return tmp_path


def _env(project: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLDECK_", "OPENAI_", "ANTHROPIC_"))}
    return {**env, "TOOLDECK_HOME": str(project / "home"), "PYTHONPATH": str(project / "lib"), **extra}


def _both(
    project: Path, *args: str, stdin: bytes = b"", **extra: str
) -> list[subprocess.CompletedProcess[bytes]]:
    return [
        subprocess.run(
            [*prefix, *args],
            cwd=project,
            env=_env(project, **extra),
            input=stdin,
            capture_output=True,
            timeout=120,
        )
        for prefix in (tooldeck_command(), [TOOLDECK])
    ]


def _same(warm: subprocess.CompletedProcess[bytes], real: subprocess.CompletedProcess[bytes]) -> None:
    assert (warm.returncode, warm.stdout, warm.stderr) == (real.returncode, real.stdout, real.stderr)


@pytest.fixture(autouse=True)
def _warm_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLDECK_TEST_WARM", raising=False)


def test_a_successful_command_gives_the_same_output(project: Path) -> None:
    warm, real = _both(project, "explain", "--json")
    assert warm.returncode == 0, warm.stderr
    assert json.loads(warm.stdout)
    _same(warm, real)


def test_a_usage_error_exits_2_with_the_same_message(project: Path) -> None:
    warm, real = _both(project, "call", "probe", "--no-such-option")
    assert warm.returncode == 2 and b"--no-such-option" in warm.stderr
    _same(warm, real)
    warm, real = _both(project, "no-such-command")
    assert warm.returncode == 2
    _same(warm, real)


def test_a_command_reads_its_stdin(project: Path) -> None:
    warm, real = _both(project, "call", "probe", "--args", "-", "--json", stdin=b'{"size": 3}')
    assert warm.returncode == 0, warm.stderr
    assert b"xxx" in warm.stdout
    _same(warm, real)


def test_pythonpath_reaches_the_tool_module_and_argv0_is_the_script(project: Path) -> None:
    warm, real = _both(project, "call", "probe")
    assert warm.returncode == 0, warm.stderr
    pid, argv0 = warm.stdout.decode().split()
    assert int(pid) != os.getpid() and argv0 == TOOLDECK
    assert real.stdout.decode().split()[1] == TOOLDECK


def test_large_and_non_utf8_output_is_passed_through(project: Path) -> None:
    warm, real = _both(project, "call", "probe", "--args", '{"size": 90000}')  # > a pipe's buffer
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.count(b"x") == 90_000
    _same(warm, real)
    warm, real = _both(project, "shell-check", "--json", stdin=b"ls \xff\n")
    assert b"0xff" in warm.stdout
    _same(warm, real)


def test_a_death_by_signal_is_reported_as_one(project: Path) -> None:
    args = json.dumps({"die_by": int(signal.SIGKILL)})
    warm, real = _both(project, "call", "probe", "--args", args)
    assert warm.returncode == real.returncode == -signal.SIGKILL


@pytest.mark.parametrize(
    ("extra", "shadow", "real"),
    [({}, False, False), ({"PYTHONHASHSEED": "7"}, False, True), ({}, True, True)],
    ids=["warm", "startup-variable", "pythonpath-shadows-an-imported-module"],
)
def test_what_cannot_be_emulated_runs_the_real_script(
    project: Path, extra: dict[str, str], shadow: bool, real: bool
) -> None:
    """PYTHONHASHSEED is read when the interpreter starts, and a PYTHONPATH module named like one
    the server imported (anthropic, which `call` does not use) would win in a fresh process: the launcher becomes the real command."""
    if shadow:
        (project / "lib" / "anthropic.py").write_text("", encoding="utf-8")
    proc = subprocess.Popen(
        [*tooldeck_command(), "call", "probe"],
        cwd=project,
        env=_env(project, **extra),
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    out, _ = proc.communicate(timeout=120)
    assert (int(out.split()[0]) == proc.pid) is real


def _started(project: Path, pid_file: Path) -> tuple[subprocess.Popen[bytes], int]:
    proc = subprocess.Popen(
        [*tooldeck_command(), "call", "probe", "--args", json.dumps({"pid_file": str(pid_file)})],
        cwd=project,
        env=_env(project),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    while not pid_file.exists() or not pid_file.read_text():
        assert proc.poll() is None, "the command ended before it started waiting"
        time.sleep(0.05)
    return proc, int(pid_file.read_text())


def _gone(pid: int) -> bool:
    """The process ended (a zombie waiting for its parent counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 60  # a liveness bound, not a speed check
    while not _gone(pid):
        assert time.monotonic() < deadline, f"the command {pid} outlived its launcher"
        time.sleep(0.05)


def test_a_killed_launcher_leaves_no_command(project: Path) -> None:
    proc, pid = _started(project, project / "pid")
    assert pid != proc.pid
    proc.kill()
    proc.wait(timeout=60)
    _wait_gone(pid)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_the_launcher_reaches_the_command(project: Path, signum: int) -> None:
    proc, pid = _started(project, project / "pid")
    proc.send_signal(signum)
    assert proc.wait(timeout=60) == -signum
    _wait_gone(pid)


def test_the_switch_runs_the_real_script(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLDECK_TEST_WARM", "0")
    assert tooldeck_command() == [TOOLDECK]
    monkeypatch.setenv("TOOLDECK_TEST_WARM", "1")
    assert tooldeck_command()[:3] == [sys.executable, "-S", "-E"]
