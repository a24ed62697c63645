"""Bounds on the whole call, not only on each process: four processes under a per-process limit
cannot hold more memory together than `sandbox.limits.memory_mb` (in-memory folders counted),
and one call cannot write more into the workspace than `sandbox.limits.disk_mb`, whichever tool
writes. Real bubblewrap, real cgroups, real overlayfs.

The memory and process bounds need a cgroup: CI runs as root with the cgroup v1 memory and pids
controllers mounted read-write, and a host without them fails these tests, naming why, rather
than skipping them. Each call's cgroup has a name of its own, so the tests run in parallel."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from support.workspace_deck import workspace_deck
from tooldeck import Deck
from tooldeck._core.execution.types import ToolResult
from tooldeck.safety.sandbox.cgroups import support

from ..cli.clirun import tooldeck

# Four processes, each allocating 210 MiB and holding it until all four hold theirs (or one of
# them was killed): 840 MiB together, each far under a 256 MiB address space.
HOLD = """import glob, os, sys, time
data = b"x" * (210 << 20)
open(f"/tmp/ready-{sys.argv[1]}", "w").close()
while len(glob.glob("/tmp/ready-*")) < 4 and not os.path.exists("/tmp/dead"):
    time.sleep(0.05)
print("held", sys.argv[1], flush=True)
"""
FOUR = "for i in 1 2 3 4; do python3 hold.py $i & done; for j in 1 2 3 4; do wait -n || touch /tmp/dead; done"
THIRTY = "for i in $(seq 1 30); do head -c 2000000 /dev/urandom > f$i.bin; done"


def make_deck(tmp_path: Path, **limits: int) -> Deck:
    (tmp_path / "ws").mkdir(exist_ok=True)
    return workspace_deck(
        tmp_path,
        ("terminal", "file", "code_execution"),
        sandbox={"kind": "bwrap", "workspace": "ws", "limits": limits},
    )


def term(deck: Deck, command: str) -> ToolResult:
    return deck.call_sync("terminal", {"command": command, "timeout": 120})


def test_this_host_offers_a_cgroup_for_each_call() -> None:
    found = support()
    assert found.kind in ("v1", "v2"), f"no cgroup bounds a whole call here: {found.why}"
    assert set(found.parents) == {"memory", "pids"}


def test_four_processes_cannot_hold_more_than_memory_mb_together(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, memory_mb=256)
    (tmp_path / "ws" / "hold.py").write_text(HOLD)
    result = term(deck, FOUR)
    assert result.error is not None, result.content
    assert "sandbox.limits.memory_mb = 256" in result.error.message
    assert "the kernel killed" in result.error.message
    # Each process alone stays within the per-process limit: it is the total that is bounded.
    alone = term(deck, 'python3 -c \'data = b"x" * (210 << 20); print("alone")\'')
    assert alone.ok and "alone" in alone.content, alone.content


def test_the_same_processes_run_within_a_larger_bound(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, memory_mb=2048)
    (tmp_path / "ws" / "hold.py").write_text(HOLD)
    result = term(deck, FOUR)
    assert result.ok, result.content
    assert sorted(line for line in result.content.splitlines() if line.startswith("held")) == [
        "held 1",
        "held 2",
        "held 3",
        "held 4",
    ]


def test_in_memory_folders_count_in_the_memory_bound(tmp_path: Path) -> None:
    # /tmp and /dev/shm may each hold 1 GiB, but what is written there is the call's memory.
    deck = make_deck(tmp_path, memory_mb=128, tmp_mb=1024)
    for folder in ("/tmp", "/dev/shm"):
        result = term(deck, f"head -c 300000000 /dev/zero > {folder}/fill && echo filled")
        assert result.error is not None and "filled" not in result.content, result.content
        assert "sandbox.limits.memory_mb = 128" in result.error.message
    assert term(deck, "head -c 20000000 /dev/zero > /tmp/fill && echo filled").ok


def test_no_call_group_is_left_behind(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, memory_mb=256)
    (tmp_path / "ws" / "hold.py").write_text(HOLD)
    term(deck, FOUR)
    term(deck, "true")
    mine = f"tooldeck-{os.getpid()}-"
    for parent in set(support().parents.values()):
        assert [n for n in os.listdir(parent) if n.startswith(mine)] == []


def test_thirty_files_under_the_file_size_limit_cannot_pass_disk_mb(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, file_size_mb=2, disk_mb=16)
    result = term(deck, THIRTY)
    assert result.error is not None, result.content
    assert "sandbox.limits.disk_mb = 16 MiB" in result.error.message
    assert "nothing of the command's changes reached the workspace" in result.error.message
    assert os.listdir(tmp_path / "ws") == []
    assert deck.checkpoints() == []
    # The control: a few small files land, checkpointed.
    small = term(deck, "for i in 1 2 3; do head -c 1000000 /dev/urandom > ok$i.bin; done")
    assert small.ok, small.content
    assert sorted(os.listdir(tmp_path / "ws")) == ["ok1.bin", "ok2.bin", "ok3.bin"]


def test_the_bound_holds_through_tooldeck_call_too(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        "sandbox:\n  kind: bwrap\n  workspace: ws\n  limits:\n    file_size_mb: 2\n    disk_mb: 16\n"
        "home: home\nplatform_toolsets:\n  cli: [terminal]\n"
    )
    done = tooldeck("call", "terminal", "--args", json.dumps({"command": THIRTY}), "-c", str(config))
    assert done.returncode != 0 and "sandbox.limits.disk_mb = 16 MiB" in done.stdout + done.stderr
    assert os.listdir(tmp_path / "ws") == []


def test_a_program_cannot_write_more_than_disk_mb_either(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, file_size_mb=2, disk_mb=16)
    code = "for i in range(30):\n    open(f'f{i}.bin', 'wb').write(bytes(2_000_000))\nprint('wrote')"
    result = deck.call_sync("execute_code", {"code": code})
    assert result.error is not None, result.content
    assert "sandbox.limits.disk_mb = 16 MiB" in result.error.message
    assert "reverted" in result.error.message and os.listdir(tmp_path / "ws") == []
    small = deck.call_sync("execute_code", {"code": "open('ok.bin', 'wb').write(bytes(1_000_000))"})
    assert small.ok, small.content
    assert os.listdir(tmp_path / "ws") == ["ok.bin"]


def test_the_file_tools_count_the_bytes_of_one_call(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, disk_mb=1)
    big = "x" * 600_000
    patch = (
        "*** Begin Patch\n*** Add File: one.txt\n+"
        + big
        + "\n*** Add File: two.txt\n+"
        + big
        + "\n*** End Patch"
    )
    result = deck.call_sync("patch", {"mode": "patch", "patch": patch})
    assert result.error is not None, result.content
    assert "sandbox.limits.disk_mb = 1 MiB" in result.error.message
    assert not (tmp_path / "ws" / "two.txt").exists()
    # Each call has a budget of its own: the same bytes in two calls land.
    for name in ("a.txt", "b.txt"):
        assert deck.call_sync("write_file", {"path": name, "content": big}).ok


def test_explain_terminal_says_which_bounds_hold_here(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    config = tmp_path / "tooldeck.yaml"
    config.write_text(
        "sandbox:\n  kind: bwrap\n  workspace: ws\n  limits:\n    memory_mb: 300\n    disk_mb: 40\nhome: home\n"
    )
    done = tooldeck("explain", "terminal", "--json", "-c", str(config))
    assert done.returncode == 0, done.stderr
    [record] = json.loads(done.stdout)
    said: dict[str, Any] = {line.split(":", 1)[0]: line for line in record["bounds"]}
    assert "holds for the whole call" in said["memory"] and "memory_mb = 300 MiB" in said["memory"]
    assert "holds for the whole call" in said["processes"]
    assert "disk_mb = 40 MiB" in said["writes"]
    text = tooldeck("explain", "terminal", "-c", str(config))
    assert "Bounds on each call on this machine" in text.stdout


def test_as_an_ordinary_user_explain_says_why_no_cgroup_holds_and_disk_mb_still_does() -> None:
    """Dropped to nobody (as root) the cgroups here are not writable: explain says so and why,
    the per-process limits remain, and what a command would land is still counted."""
    import shutil
    import tempfile

    from support.as_user import cli_as_user
    from support.readable_packages import readable_packages

    root = Path(tempfile.mkdtemp(prefix="tooldeck-bounds-user-"))
    site = readable_packages()  # the checkout may be private: nobody gets its own copy
    try:
        (root / "ws").mkdir()
        (root / "tooldeck.yaml").write_text(
            "sandbox:\n  kind: bwrap\n  workspace: ws\n  limits:\n    file_size_mb: 2\n    disk_mb: 16\nhome: home\n"
        )
        run = cli_as_user(root, site)
        explained = run("explain", "terminal", "--json")
        assert explained.returncode == 0, explained.stderr
        [record] = json.loads(explained.stdout)
        said = {line.split(":", 1)[0]: line for line in record["bounds"]}
        if os.geteuid() == 0:  # the v1 hierarchies here belong to root
            assert "per process only" in said["memory"] and "not writable by uid 65534" in said["memory"]
            assert "no cgroup holds it" in said["processes"]
            assert "bounded only by its free space" in said["writes"]
        done = run("call", "terminal", "--args", json.dumps({"command": THIRTY}))
        assert done.returncode != 0 and "sandbox.limits.disk_mb = 16 MiB" in done.stdout + done.stderr
        assert os.listdir(root / "ws") == []
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)
