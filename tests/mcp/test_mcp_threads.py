"""Thread-scoped sessions: one server process per (user, thread) in that thread's workspace, paths
in results made virtual, LRU and idle eviction, and no child left behind at close or at exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from tooldeck import Deck
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck._core.sources.mcp import McpSource, McpThread

from .mcpkit import ROOT, children_of, deck_over, filesystem_js, process_alive, tiny, wait_for


def fs_server(**options: Any) -> dict[str, Any]:
    # "." is the session's working directory: the thread's workspace.
    return {
        "command": "node",
        "args": [filesystem_js(), "."],
        "scope": "thread",
        "approval": "never",
        **options,
    }


def call_in(deck: Deck, thread: str, workspace: Path, name: str, args: dict[str, Any]) -> ToolResult:
    services = {McpThread: McpThread(user="ann", thread=thread, workspace=workspace)}
    executor = Executor(deck.loadout(), session_id=thread, services=services)
    [result] = executor.execute_sync([ToolCall("c1", name, json.dumps(args))])
    return result


def pool_of(deck: Deck, server: str) -> Any:
    source = next(s for s in deck.sources if s.name == f"mcp-{server}")
    assert isinstance(source, McpSource) and source.pool is not None
    return source.pool


def test_each_thread_gets_its_own_server_in_its_own_workspace(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    with deck_over(tmp_path, {"fs": fs_server()}) as deck:
        wrote = call_in(deck, "t1", one, "mcp__fs__write_file", {"path": "notes.txt", "content": "first"})
        assert wrote.ok, wrote.content
        assert call_in(deck, "t2", two, "mcp__fs__write_file", {"path": "notes.txt", "content": "second"}).ok
        assert (one / "notes.txt").read_text() == "first" and (two / "notes.txt").read_text() == "second"
        allowed = call_in(deck, "t1", one, "mcp__fs__list_allowed_directories", {})
        # The local path of the workspace is shown to the model as the virtual /workspace.
        assert "/workspace" in allowed.content and str(one) not in allowed.content, allowed.content
        pool = pool_of(deck, "fs")
        assert sorted(pool.keys()) == [("ann", "t1"), ("ann", "t2")]
        assert len(set(pool.pids())) == 2


def test_working_and_temp_directories_are_pinned(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with deck_over(tmp_path, {"tiny": tiny(scope="thread")}) as deck:
        result = call_in(deck, "t1", workspace, "mcp__tiny__where", {})
        assert result.ok, result.content
        # The tool does not say it is closed-world: its output is framed as untrusted.
        assert result.content.startswith('<untrusted_content tool="mcp__tiny__where">')
        where = json.loads(result.content.splitlines()[2])
        assert where == {"cwd": "/workspace", "tmp": "/workspace/.tmp"}
        assert (workspace / ".tmp").is_dir()


def test_least_recently_used_session_is_evicted_and_its_process_stopped(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"tiny": tiny(scope="thread", max_sessions=2)}) as deck:
        pool = pool_of(deck, "tiny")
        call_in(deck, "a", tmp_path / "a", "mcp__tiny__echo", {"text": "1"})
        [first_pid] = pool.pids()
        call_in(deck, "b", tmp_path / "b", "mcp__tiny__echo", {"text": "2"})
        call_in(deck, "a", tmp_path / "a", "mcp__tiny__echo", {"text": "3"})  # a is now the most recent
        call_in(deck, "c", tmp_path / "c", "mcp__tiny__echo", {"text": "4"})
        assert sorted(pool.keys()) == [("ann", "a"), ("ann", "c")]
        assert process_alive(first_pid)  # a's session survived; b's was the least recently used
        assert len(pool.pids()) == 2


def test_idle_sessions_are_closed(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"tiny": tiny(scope="thread", idle_timeout=0.6)}) as deck:
        pool = pool_of(deck, "tiny")
        call_in(deck, "a", tmp_path / "a", "mcp__tiny__echo", {"text": "1"})
        [pid] = pool.pids()
        wait_for(lambda: not pool.keys(), timeout=60, what="idle eviction")
        wait_for(lambda: not process_alive(pid), timeout=60, what="process stopped")


def test_close_stops_every_thread_session(tmp_path: Path) -> None:
    before = set(children_of(os.getpid()))  # the worker's own (a session fixture's warm client) stay
    with deck_over(tmp_path, {"fs": fs_server()}) as deck:
        for thread in ("a", "b", "c"):
            assert call_in(deck, thread, tmp_path / thread, "mcp__fs__list_allowed_directories", {}).ok
        pids = pool_of(deck, "fs").pids()
        assert len(pids) == 3
    assert not [p for p in pids if process_alive(p)]
    assert [p for p in children_of(os.getpid()) if p not in before] == []


SCRIPT = textwrap.dedent(
    """
    import json, os, signal, sys
    from tooldeck import Deck
    from tooldeck import parse_config
    from tooldeck._core.execution.executor import Executor
    from tooldeck._core.execution.types import ToolCall
    from tooldeck._core.sources.mcp import McpThread

    tmp, how = sys.argv[1], sys.argv[2]
    servers = json.loads(sys.argv[3])
    deck = Deck(parse_config({"mcp_servers": servers, "home": tmp + "/home"}), builtins=False)
    for thread in ("a", "b"):
        services = {McpThread: McpThread(thread=thread, workspace=__import__("pathlib").Path(tmp) / thread)}
        [r] = Executor(deck.loadout(), services=services).execute_sync([ToolCall("c", "mcp__t__echo", "{}")])
        assert r.ok, r.content
    print(json.dumps(os.getpid()), flush=True)
    sys.stdin.readline()  # the test looks at our children first
    if how == "exit":
        sys.exit(0)  # no deck.close(): the interpreter's exit closes the servers
    if how == "os_exit":
        os._exit(0)  # no clean-up at all, as `tooldeck` does when threads are still busy
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_no_orphaned_children_whatever_way_the_process_ends(tmp_path: Path) -> None:
    servers = json.dumps({"t": tiny(scope="thread"), "shared": tiny()})
    for how in ("exit", "os_exit", "sigkill"):
        with subprocess.Popen(
            [sys.executable, "-c", SCRIPT, str(tmp_path), how, servers],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        ) as run:
            assert run.stdout is not None and run.stdin is not None
            line = run.stdout.readline()
            kids = children_of(run.pid)
            run.stdin.write("go\n")
            run.stdin.flush()
            code = run.wait(30)
        assert line.strip(), f"{how}: the script did not get as far as its calls"
        assert len(kids) >= 3, kids  # the shared server and two thread sessions
        assert code == (-signal.SIGKILL if how == "sigkill" else 0)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(process_alive(k) for k in kids):
            time.sleep(0.05)
        assert not [k for k in kids if process_alive(k)], f"{how}: children outlived their parent"
