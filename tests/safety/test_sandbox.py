"""The sandbox for real: bubblewrap confines writes, /tmp and the network; timeouts kill the whole
process tree; output is cut head and tail. A machine without a working bwrap fails here loudly."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tooldeck.safety.capture import run_capped
from tooldeck.safety.sandbox import BwrapRunner, HostRunner, SandboxSettings, probe_bwrap, runner_for


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def runner(workspace: Path) -> BwrapRunner:
    probe = probe_bwrap()
    assert probe.works, f"bubblewrap must work on this machine (scripts/setup.sh installs it): {probe.reason}"
    return BwrapRunner(SandboxSettings(workspace, timeout_s=20))


@pytest.fixture
def outside() -> Iterator[Path]:
    # Not under /tmp (private inside the sandbox), so a write that escaped would be seen here.
    path = Path("/var/tmp") / f"tooldeck-outside-{uuid.uuid4().hex}"
    path.mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_bwrap_is_detected_and_runner_for_picks_it(workspace: Path) -> None:
    assert probe_bwrap().works
    chosen = runner_for(SandboxSettings(workspace))
    assert chosen.sandboxed and isinstance(chosen, BwrapRunner)


def test_a_missing_bwrap_is_reported_not_ignored(workspace: Path) -> None:
    probe = probe_bwrap("/nonexistent/bwrap")
    assert not probe.works and "could not start" in probe.reason


def test_writes_inside_the_workspace_work(runner: BwrapRunner, workspace: Path) -> None:
    result = runner.run("echo hello > inside.txt && cat inside.txt && pwd")
    assert result.exit_code == 0, result.output
    assert (workspace / "inside.txt").read_text() == "hello\n"
    assert result.output.splitlines() == ["hello", str(workspace.resolve())]
    assert result.sandboxed and not result.timed_out


def test_writes_outside_the_workspace_fail(runner: BwrapRunner, outside: Path) -> None:
    result = runner.run(f"echo escaped > {outside}/file.txt")
    assert result.exit_code != 0
    assert "Read-only file system" in result.output
    assert not (outside / "file.txt").exists()
    # The home folder is a throwaway tmpfs inside: a write there never reaches the real one.
    home = runner.run("touch ~/tooldeck-escape-test && ls -A ~")
    assert home.exit_code == 0 and home.output.split() == ["tooldeck-escape-test"]
    assert not (Path.home() / "tooldeck-escape-test").exists()


def test_tmp_is_private(runner: BwrapRunner, tmp_path: Path) -> None:
    host_file = tmp_path / "host-file.txt"
    host_file.write_text("only-on-the-host")
    marker = f"/tmp/tooldeck-private-{uuid.uuid4().hex}"
    result = runner.run(f"cat {host_file}; ls /tmp; echo made > {marker} && cat {marker}")
    assert "only-on-the-host" not in result.output
    assert "No such file or directory" in result.output
    assert "made" in result.output
    assert not Path(marker).exists()


@pytest.fixture
def server() -> Iterator[tuple[int, list[bytes]]]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                received.append(conn.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], received
    stop.set()
    thread.join(timeout=2)
    listener.close()


def test_loopback_is_unreachable_without_network(
    runner: BwrapRunner, server: tuple[int, list[bytes]]
) -> None:
    port, received = server
    result = runner.run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo ping >&3 && echo connected")
    assert result.exit_code != 0
    assert "connected" not in result.output
    assert received == []


def test_loopback_works_with_network(workspace: Path, server: tuple[int, list[bytes]]) -> None:
    port, received = server
    networked = BwrapRunner(SandboxSettings(workspace, network=True, timeout_s=20))
    result = networked.run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo ping >&3 && echo connected")
    assert result.exit_code == 0, result.output
    assert "connected" in result.output
    for _ in range(50):
        if received:
            break
        threading.Event().wait(0.05)
    assert received == [b"ping\n"]


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.mark.parametrize("sandboxed", [True, False], ids=["bwrap", "host"])
def test_a_command_that_never_ends_is_killed_with_its_children(
    sandboxed: bool, runner: BwrapRunner, workspace: Path
) -> None:
    marker = f"{uuid.uuid4().int % 10**8}.5"
    chosen = runner if sandboxed else HostRunner(SandboxSettings(workspace))
    result = chosen.run(f"sleep {marker} & sleep {marker} & echo started; sleep {marker}", timeout_s=1.5)
    assert result.timed_out and result.exit_code is None
    assert "started" in result.output
    assert 1.5 <= result.duration_s < 10
    for _ in range(40):
        if not _processes_with(f"sleep\x00{marker}"):
            break
        threading.Event().wait(0.05)
    assert _processes_with(f"sleep\x00{marker}") == []


@pytest.mark.parametrize("sandboxed", [True, False], ids=["bwrap", "host"])
def test_output_over_the_cap_is_cut_head_and_tail(sandboxed: bool, workspace: Path) -> None:
    settings = SandboxSettings(workspace, output_limit=1000, timeout_s=20)
    chosen = BwrapRunner(settings) if sandboxed else HostRunner(settings)
    result = chosen.run("echo BEGIN; head -c 200000 /dev/zero | tr '\\0' a; echo; echo END >&2")
    assert result.exit_code == 0
    assert result.output.startswith("BEGIN\naaa")
    assert result.output.endswith("aaa\nEND\n")
    assert result.cut_bytes == 6 + 200000 + 1 + 4 - 1000
    assert f"[... {result.cut_bytes} bytes of output cut ...]" in result.output
    assert len(result.output) < 1100


def test_small_output_is_kept_whole(workspace: Path) -> None:
    result = HostRunner(SandboxSettings(workspace)).run("printf 'a\\nb\\n'; exit 3")
    assert (result.exit_code, result.output, result.cut_bytes) == (3, "a\nb\n", 0)
    assert not result.sandboxed


def test_host_runner_is_not_confined(workspace: Path, outside: Path) -> None:
    result = HostRunner(SandboxSettings(workspace)).run(f"echo out > {outside}/file.txt")
    assert result.exit_code == 0
    assert (outside / "file.txt").read_text() == "out\n"


def test_the_environment_is_reduced(
    runner: BwrapRunner, monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    monkeypatch.setenv("TOOLDECK_TEST_SECRET", "hunter2")
    result = BwrapRunner(SandboxSettings(workspace, env={"EXTRA": "yes"})).run("env")
    assert "hunter2" not in result.output
    assert "EXTRA=yes" in result.output


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to an unprivileged user needs root")
def test_the_sandbox_also_confines_an_unprivileged_user(outside: Path) -> None:
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "setpriv (util-linux) is needed to run bwrap as an unprivileged user"
    workspace = outside / "nobody-workspace"
    workspace.mkdir()
    workspace.chmod(0o777)
    outside.chmod(0o777)
    argv = BwrapRunner(SandboxSettings(workspace)).argv(
        f"id -u; echo in > in.txt; echo out > {outside}/x.txt"
    )
    as_nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    result = run_capped(
        as_nobody, cwd="/", env={"PATH": "/usr/bin:/bin"}, timeout_s=20, output_limit=10_000, sandboxed=True
    )
    assert result.output.splitlines()[0] == "65534", result.output
    assert (workspace / "in.txt").read_text() == "in\n"
    assert "Read-only file system" in result.output
    assert not (outside / "x.txt").exists()
