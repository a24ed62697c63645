"""`tooldeck call` as SPEC section C says, through the real console script in a subprocess."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from support.cli import tooldeck_text

BIN = Path(sys.executable).parent / "tooldeck"

MODULE = """
    import threading
    import time
    from tooldeck import tool

    @tool(toolset="demo")
    def echo(text: str, times: int = 1) -> str:
        '''Echo a text back.'''
        return text * times

    @tool(toolset="demo", timeout=1)
    def sleepy() -> str:
        '''Sleeps forever in a sync handler.'''
        threading.Event().wait()
        return "never"

    @tool(toolset="demo")
    def forever() -> str:
        '''Sleeps forever, with no timeout of its own.'''
        open("forever.started", "w").close()  # the test interrupts the call once it runs
        threading.Event().wait()
        return "never"

    @tool(toolset="demo", requires_approval=True)
    def launch(target: str) -> str:
        '''Needs approval.'''
        return f"launched {target}"

    @tool(toolset="demo")
    def big() -> str:
        '''A long result.'''
        return "".join(f"row {i}\\n" for i in range(100))

    @tool(toolset="demo")
    def crash() -> str:
        '''Raises.'''
        raise RuntimeError("kaput")
"""


def setup(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "td_call_tools.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    tools = ", ".join(
        f'{{use: "td_call_tools:{n}"}}' for n in ("echo", "sleepy", "launch", "crash", "big", "forever")
    )
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text(f"tools: [{tools}]\n{extra}", encoding="utf-8")
    return cfg


def tooldeck(
    *args: str, cwd: Path, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return tooldeck_text(list(args), cwd, stdin=stdin, timeout=timeout)


def test_a_successful_call_exits_0_with_the_json_shape(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    proc = tooldeck(
        "call", "echo", "--args", '{"text": "ab", "times": "2"}', "--json", "--config", str(cfg), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"ok": True, "content": "abab", "error": None, "meta": {}}
    plain = tooldeck("call", "echo", "--args", '{"text": "hi"}', "--config", str(cfg), cwd=tmp_path)
    assert (plain.returncode, plain.stdout) == (0, "hi\n")


def test_tool_call_errors_are_envelopes_with_exit_1(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    cases = {
        '{"text": ': "invalid_arguments",  # truncated JSON is a tool-call error, not a usage error
        '{"times": 2}': "invalid_arguments",
        "[1]": "invalid_arguments",
    }
    for args, kind in cases.items():
        proc = tooldeck("call", "echo", "--args", args, "--json", "--config", str(cfg), cwd=tmp_path)
        assert proc.returncode == 1, (args, proc.stderr)
        out = json.loads(proc.stdout)
        assert out["ok"] is False and out["error"]["type"] == kind
        assert json.loads(out["content"]) == {"error": out["error"]}
    unknown = tooldeck("call", "ecko", "--json", "--config", str(cfg), cwd=tmp_path)
    assert unknown.returncode == 1
    assert json.loads(unknown.stdout)["error"]["type"] == "unknown_tool"
    assert "echo" in json.loads(unknown.stdout)["error"]["message"]
    crash = tooldeck("call", "crash", "--config", str(cfg), cwd=tmp_path)
    assert crash.returncode == 1
    assert "kaput" in crash.stdout and "Traceback" not in crash.stdout


def test_a_sync_tool_that_sleeps_forever_times_out_and_the_process_exits_promptly(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    # The handler never returns: a process that exits at all (within the runner's generous
    # timeout) did not wait for the hung thread.
    proc = tooldeck("call", "sleepy", "--json", "--config", str(cfg), cwd=tmp_path, timeout=60)
    assert proc.returncode == 1
    error = json.loads(proc.stdout)["error"]
    assert error["type"] == "timeout" and "1 s" in error["message"]
    capped = tooldeck("call", "sleepy", "--timeout", "0.3", "--json", "--config", str(cfg), cwd=tmp_path)
    error = json.loads(capped.stdout)["error"]
    assert error["type"] == "timeout" and "0.3 s" in error["message"]


def test_approval_modes_and_yes(tmp_path: Path) -> None:
    ask = setup(tmp_path)
    refused = tooldeck(
        "call",
        "launch",
        "--args",
        '{"target": "moon"}',
        "--json",
        "--config",
        str(ask),
        cwd=tmp_path,
        stdin="y\n",
    )
    assert refused.returncode == 1  # stdin is not a terminal: nobody to ask, fail closed
    assert json.loads(refused.stdout)["error"]["type"] == "denied"
    approved = tooldeck(
        "call",
        "launch",
        "--args",
        '{"target": "moon"}',
        "--yes",
        "--json",
        "--config",
        str(ask),
        cwd=tmp_path,
    )
    assert approved.returncode == 0, approved.stdout
    assert json.loads(approved.stdout)["content"] == "launched moon"
    deny = setup(tmp_path, "approvals: {mode: deny}\n")
    denied = tooldeck(
        "call",
        "launch",
        "--args",
        '{"target": "moon"}',
        "--yes",
        "--json",
        "--config",
        str(deny),
        cwd=tmp_path,
    )
    assert (
        denied.returncode == 1 and "approvals.mode is 'deny'" in json.loads(denied.stdout)["error"]["message"]
    )
    allow = setup(tmp_path, "approvals: {mode: allow}\n")
    allowed = tooldeck("call", "launch", "--args", '{"target": "x"}', "--config", str(allow), cwd=tmp_path)
    assert allowed.returncode == 0 and allowed.stdout == "launched x\n"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    assert tooldeck("call", "--config", str(cfg), cwd=tmp_path).returncode == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("execution: {max_concurrency: 0}\n")
    proc = tooldeck("call", "echo", "--config", str(bad), cwd=tmp_path)
    assert proc.returncode == 2 and "execution.max_concurrency" in proc.stderr
    assert tooldeck("call", "echo", "--config", str(tmp_path / "missing.yaml"), cwd=tmp_path).returncode == 2


def test_file_tools_are_confined_to_the_configured_workspace(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("inside\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    cfg = setup(tmp_path, "sandbox: {workspace: work}\n")
    ok = tooldeck("call", "read_file", "--args", '{"path": "a.txt"}', "--config", str(cfg), cwd=tmp_path)
    assert (ok.returncode, ok.stdout) == (0, "1|inside\n")
    out = tooldeck(
        "call",
        "read_file",
        "--args",
        '{"path": "../secret.txt"}',
        "--json",
        "--config",
        str(cfg),
        cwd=tmp_path,
    )
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["type"] == "denied"


def test_a_cut_result_can_be_paged_by_a_later_call(tmp_path: Path) -> None:
    cfg = setup(tmp_path, "home: state\nexecution: {max_result_chars: 50}\n")
    first = tooldeck("call", "big", "--config", str(cfg), cwd=tmp_path)
    assert first.returncode == 0
    assert first.stdout.startswith("row 0\nrow 1\n") and "result truncated" in first.stdout
    # The head and the tail of the text are shown (at most 50 characters, cut at line ends).
    assert first.stdout.rstrip().endswith("\nrow 99") and "\nrow 5\n\n[result truncated" in first.stdout
    assert "\n\n\n" not in first.stdout
    result_id = re.search(r"read_result\(id='([^']+)', offset=36\)", first.stdout)
    assert result_id is not None, first.stdout
    args = json.dumps({"id": result_id.group(1), "offset": 50, "limit": 14})
    page = tooldeck("call", "read_result", "--args", args, "--config", str(cfg), cwd=tmp_path)
    assert page.returncode == 0, page.stdout
    full = "".join(f"row {i}\n" for i in range(100))
    assert page.stdout.startswith(full[50:64] + "\n\n[characters 50-64 of 690"), page.stdout
    assert "result truncated" not in page.stdout  # pages are never cut again
    kept = list((tmp_path / "state" / "spill" / "cli").glob("*.txt"))
    assert kept
    # A day later, the next call removes what the earlier ones kept: nothing else ever would.
    day_old = time.time() - 25 * 3600
    for path in kept:
        os.utime(path, (day_old, day_old))
    later = tooldeck("call", "big", "--config", str(cfg), cwd=tmp_path)
    assert later.returncode == 0
    remaining = list((tmp_path / "state" / "spill" / "cli").glob("*.txt"))
    assert len(remaining) == 1 and remaining[0] not in kept


def test_ctrl_c_cancels_the_call_and_exits_130_at_once(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    proc = subprocess.Popen(
        [str(BIN), "call", "forever", "--config", str(cfg)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "forever.started").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the call never started"
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    # The handler never returns: exiting at all means the call was abandoned, not waited for.
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
