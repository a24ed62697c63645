"""`execute_code` through the deck: Python in the sandbox, tools called from the code through the
full execution path (approvals included), a description that lists exactly the callable tools."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

from tooldeck import Deck, parse_config
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck._core.execution.types import ToolResult


def make_deck(root: Path, toolsets: list[str] | None = None, **sections: Any) -> Deck:
    (root / "ws").mkdir(exist_ok=True)
    data: dict[str, Any] = {
        "sandbox": {"kind": "bwrap", "workspace": "ws"},
        "home": "home",
        "platform_toolsets": {"cli": toolsets or ["code_execution", "terminal", "file", "clarify"]},
    }
    data.update(sections)
    return Deck(parse_config(data, base_dir=str(root)))


def execute(deck: Deck, code: str, approver: Any = None, **args: Any) -> ToolResult:
    return deck.call_sync("execute_code", {"code": code, **args}, approver=approver)


def description(deck: Deck, *, agent: bool = False) -> str:
    tools = deck.tools(agent=agent)
    [found] = [t["function"]["description"] for t in tools if t["function"]["name"] == "execute_code"]
    return str(found)


def test_the_description_lists_exactly_the_tools_the_code_may_call(tmp_path: Path) -> None:
    text = description(make_deck(tmp_path), agent=True)
    listed = text.split("can call these tools: ")[1].split(".")[0].split(", ")
    # Exposed, minus execute_code itself and clarify (it needs the user).
    assert listed == ["patch", "present_files", "read_file", "search_files", "terminal", "write_file"]
    # Outside an agent run present_files is not exposed, so the program cannot call it either.
    outside = description(make_deck(tmp_path)).split("can call these tools: ")[1].split(".")[0]
    assert outside.split(", ") == ["patch", "read_file", "search_files", "terminal", "write_file"]
    narrower = description(make_deck(tmp_path, toolsets=["code_execution", "file"]))
    assert "terminal" not in narrower and "read_file" in narrower
    alone = description(make_deck(tmp_path, toolsets=["code_execution"]))
    assert "No other tools can be called" in alone


def test_a_program_runs_in_the_workspace_with_its_exit_code(tmp_path: Path) -> None:
    result = execute(
        make_deck(tmp_path), "import os, sys\nprint(os.getcwd())\nprint('err', file=sys.stderr)\nsys.exit(4)"
    )
    assert result.ok, result.content
    lines = result.content.splitlines()
    assert lines[0] == str((tmp_path / "ws").resolve()) and "err" in lines
    assert lines[-1].startswith("[exit code 4;") and lines[-1].endswith("sandboxed]")


def test_the_program_is_confined_like_a_command(tmp_path: Path) -> None:
    outside = Path("/var/tmp") / f"tooldeck-code-{uuid.uuid4().hex}"
    code = (
        "open('inside.txt', 'w').write('yes')\n"
        f"try:\n    open({str(outside)!r}, 'w').write('no')\nexcept OSError as e:\n    print('refused', e.errno)\n"
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 9), timeout=2)\n"
        "except OSError as e:\n    print('no network', type(e).__name__)\n"
    )
    result = execute(make_deck(tmp_path), code)
    assert "refused 30" in result.content and "no network" in result.content
    assert (tmp_path / "ws" / "inside.txt").read_text() == "yes"
    assert not outside.exists()


def test_tools_called_from_the_code_go_through_the_executor(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    (tmp_path / "ws" / "notes.txt").write_text("alpha\nbeta\n")
    code = (
        "from tooldeck_tools import read_file, write_file, terminal, call, ToolCallError\n"
        "print(read_file(path='notes.txt'))\n"
        "print(write_file(path='out/new.txt', content='made by code'))\n"
        "print(terminal(command='cat out/new.txt; echo'))\n"
        "for name, args in [('terminal', {'command': 'rm -rf /'}), ('execute_code', {'code': '1'}),\n"
        "                   ('clarify', {'question': 'q'}), ('read_file', {'path': '../../etc/passwd'}),\n"
        "                   ('read_file', {'nope': 1})]:\n"
        "    try:\n        call(name, **args)\n    except ToolCallError as e:\n        print('ERR', name, e.type)\n"
    )
    result = execute(deck, code)
    text = result.content
    assert "1|alpha" in text and "created out/new.txt" in text and "made by code" in text
    assert "ERR terminal denied" in text and "ERR execute_code unknown_tool" in text
    assert "ERR clarify unknown_tool" in text
    assert "ERR read_file denied" in text and "ERR read_file invalid_arguments" in text
    records = [json.loads(x) for x in (tmp_path / "home" / "approvals.jsonl").read_text().splitlines()]
    assert [(r["tool"], r["outcome"]) for r in records] == [
        ("execute_code", "allowed"),
        ("write_file", "allowed"),  # a destructive tool, allowed by the default for file edits
        ("terminal", "allowed"),
        ("terminal", "blocked"),
    ]
    assert "the tool's own approval setting" in records[1]["reason"]
    assert records[2]["call_id"].startswith("call_1.")  # nested calls carry the parent's id


def test_nested_calls_are_asked_about_through_the_same_approver(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    def session(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return ApprovalAnswer(True, "session")

    code = (
        "from tooldeck_tools import terminal\n"
        "print(terminal(command='history -c; echo one'))\n"
        "print(terminal(command='history -c;   echo one'))\n"
    )
    result = execute(make_deck(tmp_path), code, approver=CallbackApprover(session))
    assert result.content.count("one\n[exit code 0;") == 2
    [request] = asked  # the session grant answered the second, identical command
    assert request.call.tool.name == "terminal" and request.rule == "wipe-history"
    refused = execute(
        make_deck(tmp_path), "from tooldeck_tools import terminal\nterminal(command='history -c')"
    )
    assert "ToolCallError: denied" in refused.content  # no approver: the nested call fails closed


def test_dangerous_code_is_refused_before_it_runs(tmp_path: Path) -> None:
    result = execute(make_deck(tmp_path), "import os\nos.system('rm -rf / --no-preserve-root')")
    assert result.error is not None and "[delete-root]" in result.error.message


def test_a_program_that_runs_too_long_is_killed_with_its_children(tmp_path: Path) -> None:
    marker = f"{uuid.uuid4().int % 10**7}.75"
    code = f"import subprocess, time\nsubprocess.Popen(['sleep', '{marker}'])\nprint('started', flush=True)\ntime.sleep(60)"
    # A deadline a loaded machine can start the sandboxed program in; the program would sleep
    # a minute, so a timeout error proves it was stopped.
    result = execute(make_deck(tmp_path), code, timeout=5)
    assert result.error is not None and result.error.type == "timeout"
    assert "started" in (result.error.output or "") and "timeout of 5 s" in result.error.message
    deadline = time.monotonic() + 30
    while alive := [p for p in os.listdir("/proc") if p.isdigit() and _cmdline_has(p, f"sleep\x00{marker}")]:
        assert time.monotonic() < deadline, alive
        time.sleep(0.05)


def _cmdline_has(pid: str, marker: str) -> bool:
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_the_helper_module_without_a_channel_says_so(tmp_path: Path) -> None:
    from tooldeck.tools.execute_code_rpc import helper_source

    module = tmp_path / "tooldeck_tools.py"
    module.write_text(helper_source(["read_file", "odd-name", "class"]))
    source = module.read_text()
    assert "def read_file(" in source and "def odd-name" not in source and "def class(" not in source
    compile(source, str(module), "exec")


def test_calls_past_the_limit_fail_at_once_and_the_program_ends(tmp_path: Path) -> None:
    # After the call that passes the limit, the channel is closed both ways: a later call fails
    # at once (a broken pipe, or the closed channel), never waits for a reply nobody sends.
    deck = make_deck(tmp_path)
    (tmp_path / "ws" / "n.txt").write_text("x\n")
    code = (
        "from tooldeck_tools import read_file, ToolCallError\n"
        "seen = []\n"
        "for i in range(215):\n"
        "    try:\n        read_file(path='n.txt')\n        seen.append('ok')\n"
        "    except ToolCallError as e:\n        seen.append(e.type + ':' + e.message)\n"
        "    except OSError as e:\n        seen.append('closed')\n"
        "print(seen.count('ok'), [s for s in seen if s != 'ok'][:2], len(seen))\n"
    )
    result = execute(deck, code, timeout=120)
    assert result.error is None, result.content
    assert "200 [" in result.content and "more than 200 tool calls in one run" in result.content
    assert result.content.rstrip().split("\n")[0].endswith(" 215"), result.content


def test_tools_called_by_a_computed_name_need_no_approval(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    plan = "[('write_file', {'path': 'a.txt', 'content': 'x'}), ('terminal', {'command': 'cat a.txt'})]"
    dispatch = f"import tooldeck_tools\nfor n, a in {plan}:\n    print(getattr(tooldeck_tools, n)(**a))"
    result = execute(deck, dispatch)  # no approver: an approval would refuse it
    assert result.ok and "created a.txt" in result.content and "\nx" in result.content, result.content
    rebound = (
        "import tooldeck_tools\nimport os as tooldeck_tools\ngetattr(tooldeck_tools, 'sys' + 'tem')('id')"
    )
    refused = execute(deck, rebound)
    assert refused.error is not None and "interpreter-dynamic-code" in refused.error.message
