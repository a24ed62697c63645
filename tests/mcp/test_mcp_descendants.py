"""Nothing a stdio MCP server starts outlives the deck: not the processes it leaves in its own
process group, nor those that left it (`setsid`), whether the deck is closed, the server exits
by itself, or the process that holds the deck is killed. A real server (the SDK's `MCPServer`)
starts real `sleep` processes; each test's sleeps take a duration no other process has, which
is how the test finds them."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from .mcpkit import ROOT, deck_over, process_alive, wait_for

SPAWNER = Path(__file__).resolve().parent / "servers" / "spawner_server.py"


def spawner() -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SPAWNER)]}


def unique_seconds() -> str:
    return f"{random.randint(600, 900)}.{random.randint(10**5, 10**6 - 1)}"


def sleepers(seconds: str) -> list[int]:
    """Live processes running `sleep SECONDS`."""
    wanted = f"sleep\0{seconds}\0".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if f.read() != wanted:
                    continue
        except OSError:
            continue
        if process_alive(int(entry)):
            found.append(int(entry))
    return found


def test_processes_that_left_the_servers_group_end_with_deck_close(tmp_path: Path) -> None:
    seconds = unique_seconds()
    with deck_over(tmp_path, {"sp": spawner()}) as deck:
        result = deck.call_sync("mcp__sp__spawn", {"seconds": seconds})
        assert result.ok, result.content
        started = wait_for(lambda: len(sleepers(seconds)) == 3 and sleepers(seconds), what="three sleepers")
        # They did leave the server's process group: killing the group would miss them.
        assert len({os.getpgid(p) for p in started}) == 3
    # deck.close() has returned: nothing is left, and nothing is left to wait for.
    assert sleepers(seconds) == []
    assert not [p for p in started if process_alive(p)]


def test_a_server_that_exits_takes_what_it_started_with_it(tmp_path: Path) -> None:
    seconds = unique_seconds()
    with deck_over(tmp_path, {"sp": spawner()}) as deck:
        assert deck.call_sync("mcp__sp__spawn", {"seconds": seconds}).ok
        started = wait_for(lambda: len(sleepers(seconds)) == 3 and sleepers(seconds), what="three sleepers")
        crashed = deck.call_sync("mcp__sp__crash", {})
        assert crashed.error is not None and crashed.error.type == "unavailable"
        assert "exited with code 3" in crashed.error.message, crashed.error.message
        wait_for(lambda: not [p for p in started if process_alive(p)], what="the sleepers gone")


SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from tooldeck import Deck
    from tooldeck import parse_config

    tmp, seconds, server = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    deck = Deck(parse_config({"mcp_servers": {"sp": server}, "home": tmp + "/home"}), builtins=False)
    result = deck.call_sync("mcp__sp__spawn", {"seconds": seconds})
    print(json.dumps(result.ok), flush=True)
    sys.stdin.readline()  # killed meanwhile
    """
)


def test_processes_that_left_the_servers_group_end_when_the_deck_process_is_killed(tmp_path: Path) -> None:
    seconds = unique_seconds()
    with subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(tmp_path), seconds, json.dumps(spawner())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    ) as run:
        assert run.stdout is not None
        assert run.stdout.readline().strip() == "true"
        started = wait_for(lambda: len(sleepers(seconds)) == 3 and sleepers(seconds), what="three sleepers")
        run.kill()  # SIGKILL: no clean-up of its own at all
        assert run.wait(30) == -signal.SIGKILL
    wait_for(lambda: not [p for p in started if process_alive(p)], timeout=120, what="the sleepers gone")


def test_a_relative_command_is_found_beside_the_config_and_a_missing_one_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    launcher = folder / "run-tiny"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'tests/mcp/servers/tiny_server.py'}\n")
    launcher.chmod(0o755)
    (folder / "not-executable").write_text("#!/bin/sh\n")
    servers = {
        "rel": {"command": "bin/run-tiny"},
        "missing": {"command": "bin/no-such-launcher"},
        "noexec": {"command": "bin/not-executable"},
        "unlisted": {"command": "no-such-mcp-command-on-path", "cwd": str(folder)},
    }
    with deck_over(tmp_path, servers) as deck:
        notes = {d.path: d.message for d in deck.diagnostics() if d.path}
        assert deck.call_sync("mcp__rel__echo", {"text": "from bin"}).ok, notes
        assert "command not found: " in notes["mcp_servers.missing"]
        assert "bin/no-such-launcher" in notes["mcp_servers.missing"]
        assert "Permission denied" in notes["mcp_servers.noexec"], notes["mcp_servers.noexec"]
        assert "command not found: no-such-mcp-command-on-path" in notes["mcp_servers.unlisted"]
