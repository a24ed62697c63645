"""The attacks of a command on the machine itself, through the deck, for `terminal` and
`execute_code`: reading root's files, keeping capabilities, a fork loop, a memory hog, a huge
file, a CPU spin. Each now fails, the call's error names the limit it ran into, and the next
call works. Run as root (as CI does), the sandbox is another uid; run as a user, it is that
user: the same assertions hold."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from support.cli import tooldeck_command
from tooldeck import Deck, parse_config
from tooldeck._core.execution.types import ErrorEnvelope, ToolResult
from tooldeck.errors import ConfigError

SANDBOX_UID = 4242
LIMITS = {"processes": 32, "memory_mb": 512, "file_size_mb": 1, "cpu_s": 1}


def make_deck(root: Path, **limits: int) -> Deck:
    (root / "ws").mkdir(exist_ok=True)
    data: dict[str, Any] = {
        "sandbox": {"kind": "bwrap", "workspace": "ws", "uid": SANDBOX_UID, "limits": {**LIMITS, **limits}},
        "home": "home",
        "platform_toolsets": {"cli": ["terminal", "code_execution"]},
        # The shell analysis blocks a fork bomb before it runs; here it is let through, as a
        # disguised one would be, to show that the sandbox holds on its own.
        "shell": {"approve": ["fork-bomb"]},
        "approvals": {"mode": "allow"},
    }
    return Deck(parse_config(data, base_dir=str(root)))


def call(deck: Deck, tool: str, text: str, timeout: int = 60) -> ToolResult:
    key = "command" if tool == "terminal" else "code"
    return deck.call_sync(tool, {key: text, "timeout": timeout})


def expected_uid() -> int:
    return SANDBOX_UID if os.geteuid() == 0 else os.getuid()


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                continue
    return found


def assert_gone(marker: str) -> None:
    for _ in range(100):
        if not _processes_with(marker):
            return
        threading.Event().wait(0.1)
    assert _processes_with(marker) == []


def assert_next_call_works(deck: Deck, tool: str) -> None:
    text = "echo still-fine" if tool == "terminal" else "print('still-fine')"
    after = call(deck, tool, text)
    assert after.ok and after.content.startswith("still-fine"), after


def stopped_by(deck: Deck, tool: str, program: str, limit: str, timeout: int = 60) -> ErrorEnvelope:
    """Run `program`: the call fails with an error naming `limit`, and the next call works."""
    result = call(deck, tool, program, timeout=timeout)
    assert result.error is not None, result.content
    assert limit in result.error.message, result.error.message
    assert_next_call_works(deck, tool)
    return result.error


STATUS_SH = "id -u; id -G; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status; cat /etc/shadow; echo w > made.txt"
STATUS_PY = """
import os
print(os.getuid()); print(os.getgroups() or os.getgid())
print(''.join(l for l in open('/proc/self/status') if l.split(':')[0] in ('CapEff', 'CapPrm', 'CapBnd', 'NoNewPrivs')))
try:
    open('/etc/shadow').read()
except PermissionError as exc:
    print('shadow:', exc.strerror)
open('made.txt', 'w').write('w')
"""


@pytest.mark.parametrize(("tool", "program"), [("terminal", STATUS_SH), ("execute_code", STATUS_PY)])
def test_no_root_no_capabilities_no_new_privileges(tmp_path: Path, tool: str, program: str) -> None:
    deck = make_deck(tmp_path)
    (tmp_path / "ws" / "made.txt").write_text("old")  # owned by whoever runs the test
    result = call(deck, tool, program)
    lines = result.content.splitlines()
    assert lines[0] == str(expected_uid()), result.content
    assert "0" not in lines[1].replace("[", " ").replace("]", " ").split(), result.content
    for cap in ("CapEff", "CapPrm", "CapBnd"):
        assert f"{cap}:\t0000000000000000" in result.content
    assert "NoNewPrivs:\t1" in result.content
    assert "Permission denied" in result.content
    # The workspace stays writable, and what the command wrote belongs to tooldeck's own user.
    made = tmp_path / "ws" / "made.txt"
    assert made.read_text().strip() == "w" and made.stat().st_uid == os.getuid()


FORK_LOOP_SH = (
    # A fork bomb with a bound: at most 2**12 processes, 32 allowed.
    'f(){{ [ "$1" -lt 12 ] && {{ f $(($1+1)) & f $(($1+1)) & sleep {marker}; wait; }}; }}; f 0'
)
FORK_LOOP_PY = """
import os, time
for i in range(300):
    if os.fork() == 0:
        os.execvp('sleep', ['sleep', '{marker}'])
print('started them all')
"""


@pytest.mark.parametrize(("tool", "program"), [("terminal", FORK_LOOP_SH), ("execute_code", FORK_LOOP_PY)])
def test_a_fork_loop_stops_at_the_process_limit(tmp_path: Path, tool: str, program: str) -> None:
    marker = f"{uuid.uuid4().int % 10**6 + 100}.25"
    limit = "process limit (sandbox.limits.processes = 32"
    error = stopped_by(make_deck(tmp_path), tool, program.format(marker=marker), limit, timeout=10)
    assert "started them all" not in (error.output or "") + error.message
    assert_gone(f"sleep\x00{marker}")


@pytest.mark.parametrize(
    ("tool", "program"),
    [
        ("terminal", "python3 -c 'x = bytearray(10 * 1024**3)'"),
        ("execute_code", "x = bytearray(10 * 1024**3)"),
    ],
)
def test_a_memory_hog_stops_at_the_address_space_limit(tmp_path: Path, tool: str, program: str) -> None:
    error = stopped_by(
        make_deck(tmp_path), tool, program, "address space limit (sandbox.limits.memory_mb = 512)"
    )
    assert "MemoryError" in (error.output or "")  # the command's own output comes with it


@pytest.mark.parametrize(
    ("tool", "program"),
    [
        ("terminal", "head -c 3000000 /dev/zero > big.bin"),
        ("execute_code", "open('big.bin', 'wb').write(bytes(3_000_000))"),
    ],
)
def test_a_huge_file_stops_at_the_file_size_limit(tmp_path: Path, tool: str, program: str) -> None:
    stopped_by(make_deck(tmp_path), tool, program, "file size limit (sandbox.limits.file_size_mb = 1)")
    assert (tmp_path / "ws" / "big.bin").stat().st_size <= 1024 * 1024


@pytest.mark.parametrize(
    ("tool", "program"), [("terminal", "python3 -c 'while True: pass'"), ("execute_code", "while True: pass")]
)
def test_a_cpu_spin_stops_at_the_cpu_limit(tmp_path: Path, tool: str, program: str) -> None:
    stopped_by(make_deck(tmp_path), tool, program, "CPU time limit (sandbox.limits.cpu_s = 1)")


@pytest.mark.parametrize(
    ("tool", "program"),
    [
        ("terminal", "for i in 1 2 3 4; do head -c 900000 /dev/zero > /tmp/fill$i || exit 1; done"),
        ("execute_code", "for i in range(4):\n    open(f'/tmp/fill{i}', 'wb').write(bytes(900_000))"),
    ],
)
def test_filling_the_private_tmp_stops_at_its_size(tmp_path: Path, tool: str, program: str) -> None:
    # Files under the file size limit, together over the size of /tmp (in the host's memory).
    stopped_by(make_deck(tmp_path, tmp_mb=2), tool, program, "sandbox.limits.tmp_mb = 2 MiB")


@pytest.mark.parametrize(
    ("tool", "program"),
    [
        ("terminal", "for i in 1 2 3 4; do head -c 900000 /dev/zero > /dev/shm/fill$i || exit 1; done"),
        ("execute_code", "for i in range(4):\n    open(f'/dev/shm/fill{i}', 'wb').write(bytes(900_000))"),
    ],
)
def test_filling_dev_shm_stops_at_the_tmp_size(tmp_path: Path, tool: str, program: str) -> None:
    # bwrap's /dev is an in-memory folder of half the host's memory: files under the file size
    # limit, many of them, would fill the host's memory through /dev/shm.
    deck = make_deck(tmp_path, tmp_mb=2)
    result = call(deck, tool, program)
    assert result.error is not None, result.content
    assert "sandbox.limits.tmp_mb = 2 MiB" in result.error.message
    assert_next_call_works(deck, tool)


def test_dev_is_read_only_and_its_devices_and_shared_memory_work(tmp_path: Path) -> None:
    program = (
        "echo x > /dev/made; echo out > /dev/null && echo null-ok; "
        "python3 -c 'from multiprocessing import shared_memory as s; m = s.SharedMemory(create=True, size=64); "
        'm.buf[0] = 7; o = s.SharedMemory(m.name); print("shm", o.buf[0]); o.close(); m.close(); m.unlink()\''
    )
    result = call(make_deck(tmp_path), "terminal", program)
    assert "/dev/made: Read-only file system" in result.content, result.content
    assert "null-ok" in result.content and "shm 7" in result.content


UNSIZED_TMPFS_SH = "unshare -rm sh -c 'mount -t tmpfs none /mnt && echo mounted'; unshare -r id -u; echo done"
UNSIZED_TMPFS_PY = """
import subprocess
for argv in (['unshare', '-rm', 'sh', '-c', 'mount -t tmpfs none /mnt && echo mounted'], ['unshare', '-r', 'id', '-u']):
    done = subprocess.run(argv, capture_output=True, text=True)
    print(done.stdout + done.stderr)
print('done')
"""


@pytest.mark.parametrize(
    ("tool", "program"), [("terminal", UNSIZED_TMPFS_SH), ("execute_code", UNSIZED_TMPFS_PY)]
)
def test_no_user_namespace_of_its_own_to_mount_an_unsized_tmpfs_in(
    tmp_path: Path, tool: str, program: str
) -> None:
    # As root of a user namespace of its own, a command could mount an in-memory folder of no
    # set size and fill the host's memory past tmp_mb, one file under file_size_mb at a time.
    result = call(make_deck(tmp_path), tool, program)
    assert "done" in result.content, result.content
    assert "mounted" not in result.content and "unshare failed" in result.content
    assert "\n0\n" not in f"\n{result.content}"  # never root, even in a namespace of its own


def test_the_limits_are_the_configured_ones_inside(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, processes=40, memory_mb=700, file_size_mb=3, cpu_s=9, open_files=99)
    result = call(deck, "terminal", "ulimit -u; ulimit -v; ulimit -f; ulimit -t; ulimit -n; ulimit -H -t")
    assert result.content.splitlines()[:6] == ["40", str(700 * 1024), str(3 * 1024), "9", "99", "14"]


@pytest.mark.parametrize(
    "program",
    ["echo 'MemoryError: fork: Resource temporarily unavailable'; exit 0", "exit 3", "ls /nonexistent"],
)
def test_no_limit_is_claimed_when_none_stopped_the_command(tmp_path: Path, program: str) -> None:
    result = call(make_deck(tmp_path), "terminal", program)
    assert result.ok and "sandbox.limits" not in result.content, result.content
    assert "[exit code" in result.content


def test_limits_are_validated_with_their_key_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"sandbox\.limits\.processes"):
        parse_config({"sandbox": {"limits": {"processes": 2}}})
    with pytest.raises(ConfigError, match=r"sandbox\.limits\.memroy_mb: unknown key"):
        parse_config({"sandbox": {"limits": {"memroy_mb": 100}}})
    with pytest.raises(ConfigError, match=r"sandbox\.uid"):
        parse_config({"sandbox": {"uid": 0}})


def test_the_descriptions_state_the_configured_limits(tmp_path: Path) -> None:
    tools = {t["function"]["name"]: t["function"]["description"] for t in make_deck(tmp_path).tools()}
    for name in ("terminal", "execute_code"):
        assert "up to 32 processes, each with 512 MiB of memory and 1 s of CPU" in tools[name]
        assert "files up to 1 MiB" in tools[name]


def test_tooldeck_call_runs_under_the_same_uid_and_limits(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "tooldeck.yaml").write_text(
        "sandbox: {kind: bwrap, workspace: ws, uid: 4242, limits: {processes: 32, memory_mb: 512}}\n"
        "home: home\nplatform_toolsets: {cli: [terminal]}\napprovals: {mode: allow}\n",
        encoding="utf-8",
    )

    def run(command: str) -> subprocess.CompletedProcess[str]:
        argv = [*tooldeck_command(), "call", "terminal", "--args", json.dumps({"command": command}), "--json"]
        return subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False)

    status = run("id -u; ulimit -u; ulimit -v")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["content"].splitlines()[:3] == [
        str(expected_uid()),
        "32",
        str(512 * 1024),
    ]
    hog = run("python3 -c 'x = bytearray(10 * 1024**3)'")
    error = json.loads(hog.stdout)["error"]
    assert hog.returncode == 1 and "sandbox.limits.memory_mb = 512" in error["message"]


SETID_SH = (
    "cp /bin/true t1; chmod u+s t1; chmod g+s t1; install -m 4755 /bin/true t2; chmod 0755 t1; "
    "mkdir -p d && chmod 1777 d; echo plain > p && chmod 600 p; echo ok"
)
SETID_PY = """
import os, shutil, stat
shutil.copy('/bin/true', 't1')
for mode in (0o4755, 0o2755):
    try:
        os.chmod('t1', mode)
    except PermissionError as exc:
        print('chmod refused:', exc.strerror)
try:
    os.close(os.open('t2', os.O_CREAT | os.O_WRONLY, 0o4755))
except PermissionError as exc:
    print('create refused:', exc.strerror)
os.chmod('t1', 0o755)
os.mkdir('d'); os.chmod('d', 0o1777)
open('p', 'w').write('plain'); os.chmod('p', 0o600)
print('ok')
"""


@pytest.mark.parametrize(("tool", "program"), [("terminal", SETID_SH), ("execute_code", SETID_PY)])
def test_no_set_id_file_can_be_made_in_the_workspace(tmp_path: Path, tool: str, program: str) -> None:
    # As root the workspace's files are root's on disk: a set-user-ID copy of a program would
    # be a way to root for every local user.
    result = call(make_deck(tmp_path), tool, program)
    assert "Operation not permitted" in result.content and "ok" in result.content, result.content
    ws = tmp_path / "ws"
    for path in ws.rglob("*"):
        assert not path.stat().st_mode & 0o6000, (path, oct(path.stat().st_mode))
    # Other modes still change: the sticky bit, private files, ordinary executables.
    assert (ws / "d").stat().st_mode & 0o7777 == 0o1777
    assert (ws / "p").stat().st_mode & 0o777 == 0o600 and (ws / "t1").stat().st_mode & 0o777 == 0o755


def test_system_v_shared_memory_is_refused_so_memory_stays_bounded(tmp_path: Path) -> None:
    # shmget segments are charged to no process: they would hold memory past memory_mb.
    program = (
        "import ctypes, ctypes.util, os\n"
        "libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)\n"
        "made = libc.shmget(0, ctypes.c_size_t(64 << 20), 0o1600)\n"
        "print('shmget', made, os.strerror(ctypes.get_errno()))\n"
    )
    result = call(make_deck(tmp_path), "execute_code", program)
    assert "shmget -1 Function not implemented" in result.content, result.content
