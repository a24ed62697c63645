"""The sandbox for real: bubblewrap confines writes, /tmp and the network; timeouts kill the whole
process tree; output is cut head and tail. A machine without a working bwrap fails here loudly."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tooldeck.safety.sandbox.bubblewrap import BwrapRunner, HostRunner, SandboxLimits, SandboxSettings
from tooldeck.safety.sandbox.capture import RunResult, run_capped
from tooldeck.safety.sandbox.probe import probe_bwrap, runner_for


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
    # Time for a loaded machine to start the sandbox; the command itself never ends.
    result = chosen.run(f"sleep {marker} & sleep {marker} & echo started; sleep {marker}", timeout_s=3)
    assert result.timed_out and result.exit_code is None
    assert "started" in result.output
    assert result.duration_s >= 3
    for _ in range(600):
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
    limits = SandboxLimits(processes=48)
    argv = BwrapRunner(SandboxSettings(workspace, limits=limits)).argv(
        f"id -u; echo in > in.txt; echo out > {outside}/x.txt; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; "
        "ulimit -u"
    )
    as_nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    result = run_capped(
        as_nobody, cwd="/", env={"PATH": "/usr/bin:/bin"}, timeout_s=20, output_limit=10_000, sandboxed=True
    )
    assert result.output.splitlines()[0] == "65534", result.output
    assert (workspace / "in.txt").read_text() == "in\n"
    assert "Read-only file system" in result.output
    assert not (outside / "x.txt").exists()
    # Unprivileged, bwrap runs the command without capabilities, privileges or the host's limits.
    assert "CapEff:\t0000000000000000" in result.output and "NoNewPrivs:\t1" in result.output
    assert result.output.splitlines()[-1] == "48"


@pytest.fixture
def fake_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder outside /home and /root (so masking it is visible), set as $HOME."""
    path = Path("/var/tmp") / f"tooldeck-home-{uuid.uuid4().hex}"
    (path / ".aws").mkdir(parents=True)
    (path / ".aws" / "credentials").write_text("SECRET-KEY")
    monkeypatch.setenv("HOME", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_home_folders_are_empty_but_a_workspace_inside_one_is_bound_back(fake_home: Path) -> None:
    workspace = fake_home / "project"
    workspace.mkdir()
    (workspace / "code.py").write_text("print(1)")
    runner = BwrapRunner(SandboxSettings(workspace, timeout_s=20))
    result = runner.run(f"cat {fake_home}/.aws/credentials; ls -A {fake_home}; cat code.py; echo x > new.txt")
    assert "SECRET-KEY" not in result.output
    assert result.output.splitlines()[1:] == ["project", "print(1)"]
    assert (workspace / "new.txt").read_text() == "x\n"
    assert "SECRET-KEY" not in runner.run("ls -A /root /home; cat /root/.bash_history").output


def test_hidden_paths_stay_masked_inside_the_workspace(workspace: Path) -> None:
    home = workspace / ".tooldeck"
    home.mkdir()
    (home / "grants.jsonl").write_text("real grants\n")
    log = workspace / "audit.jsonl"
    log.write_text("real log\n")
    runner = BwrapRunner(SandboxSettings(workspace, hidden=(home, log), timeout_s=20))
    result = runner.run("ls -A .tooldeck; cat audit.jsonl; echo forged >> .tooldeck/grants.jsonl; echo done")
    assert "grants.jsonl" not in result.output and "real log" not in result.output and "done" in result.output
    assert (home / "grants.jsonl").read_text() == "real grants\n"
    assert log.read_text() == "real log\n"


def test_read_only_paths_are_seen_under_masked_folders_only(workspace: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "lib.py").write_text("VALUE = 7")
    runner = BwrapRunner(SandboxSettings(workspace, read_only=(shared, workspace), timeout_s=20))
    result = runner.run(f"cat {shared}/lib.py; echo; echo x > {shared}/w.txt; echo ok > in.txt")
    assert result.output.startswith("VALUE = 7") and "Read-only file system" in result.output
    assert (workspace / "in.txt").read_text() == "ok\n"  # the workspace stays writable


def test_inherited_descriptors_cross_the_sandbox(runner: BwrapRunner) -> None:
    read_end, write_end = os.pipe()
    try:
        result = runner.run_argv(["/bin/bash", "-c", f"echo through >&{write_end}"], pass_fds=(write_end,))
        os.close(write_end)
        assert result.exit_code == 0, result.output
        assert os.read(read_end, 100) == b"through\n"
    finally:
        os.close(read_end)


@pytest.mark.parametrize("sandboxed", [True, False], ids=["bwrap", "host"])
def test_the_cancel_event_stops_a_command_at_once(
    sandboxed: bool, runner: BwrapRunner, workspace: Path
) -> None:
    chosen = runner if sandboxed else HostRunner(SandboxSettings(workspace))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    result = chosen.run("sleep 600", timeout_s=600, cancel=cancel)  # only the cancel can end it now
    assert result.exit_code is not None and result.exit_code < 0
    assert not result.timed_out


def test_background_children_on_the_host_end_with_the_command(workspace: Path) -> None:
    marker = f"{uuid.uuid4().int % 10**8}.5"
    result = HostRunner(SandboxSettings(workspace)).run(f"sleep {marker} & echo bg")
    assert result.output == "bg\n" and result.exit_code == 0  # not waiting for the child's long sleep
    for _ in range(600):
        if not _processes_with(f"sleep\x00{marker}"):
            break
        threading.Event().wait(0.05)
    assert _processes_with(f"sleep\x00{marker}") == []


def test_the_root_folder_is_not_a_workspace() -> None:
    from tooldeck.safety.sandbox.bubblewrap import SandboxUnavailable

    with pytest.raises(SandboxUnavailable, match="root folder"):
        BwrapRunner(SandboxSettings(Path("/")))


def test_the_probe_is_remembered_on_disk_under_its_key(tmp_path: Path) -> None:
    from tooldeck.safety.sandbox import probe as probe_module

    cache = tmp_path / "cache"
    assert probe_module.probe_bwrap_cached(cache).works
    file = cache / probe_module.CACHE_FILE
    assert file.stat().st_mode & 0o777 == 0o600
    record = json.loads(file.read_text())
    # A record for another machine state is not believed; a fresh one for this state is.
    file.write_text(json.dumps({**record, "works": False, "reason": "stale"}))
    assert not probe_module.probe_bwrap_cached(cache).works
    file.write_text(json.dumps({**record, "key": "other", "works": False, "reason": "stale"}))
    assert probe_module.probe_bwrap_cached(cache).works
    file.write_text(json.dumps({**record, "works": False, "at": record["at"] - 7200}))
    assert probe_module.probe_bwrap_cached(cache).works
    file.write_text(json.dumps({**record, "works": False}))
    file.chmod(0o666)  # anyone could have written it: probed again
    assert probe_module.probe_bwrap_cached(cache).works


def test_offline_the_sockets_under_run_are_out_of_reach(workspace: Path) -> None:
    path = Path("/run") / f"tooldeck-test-{uuid.uuid4().hex[:8]}.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        offline = BwrapRunner(SandboxSettings(workspace, timeout_s=20)).run(
            f"test -S {path} && echo reachable"
        )
        assert "reachable" not in offline.output
        online = BwrapRunner(SandboxSettings(workspace, network=True, timeout_s=20)).run(
            f"test -S {path} && echo reachable"
        )
        assert "reachable" in online.output
    finally:
        server.close()
        path.unlink()


def test_each_command_has_its_own_process_budget(workspace: Path) -> None:
    # The limit is counted in each sandbox's own user namespace: three commands of 28 processes
    # run at once under a limit of 32, and a fourth wanting 40 is stopped.
    runner = BwrapRunner(SandboxSettings(workspace, limits=SandboxLimits(processes=32), timeout_s=60))
    many = "for i in $(seq 24); do sleep 3 & done; sleep 1; ps -e --no-headers | wc -l; wait"
    results: dict[int, RunResult] = {}
    threads = [threading.Thread(target=lambda i=i: results.update({i: runner.run(many)})) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results.values():
        assert result.exit_code == 0 and result.limit is None, result.output
        assert int(result.output.split()[-1]) >= 28
    python = (
        "import os, time\nfor i in range(40):\n    if os.fork() == 0:\n        time.sleep(2); os._exit(0)\n"
    )
    over = runner.run_argv(["python3", "-c", python])
    assert over.limit is not None and "sandbox.limits.processes = 32" in over.limit, over.output
