"""Approvals as interrupts (`approvals.unattended: interrupt`): a call that needs consent when
nobody can be asked stops the turn, waits with the session, and any later `tooldeck run --resume`
decides it — each step a separate process, the model the official SDKs against the scripted
server."""

from __future__ import annotations

import json
import os
import pty
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.cli import TOOLDECK, run_tooldeck
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

TOOLS_MODULE = '''
from pathlib import Path
from tooldeck import tool

@tool(toolset="math")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@tool(toolset="danger", requires_approval=True)
def launch(target: str) -> str:
    """Launch something (needs approval); each launch leaves a line in launches.txt."""
    with open(Path(__file__).with_name("launches.txt"), "a") as fh:
        fh.write(target + "\\n")
    return f"launched {target}"
'''

CONFIG = """
tools:
  - {use: "interrupt_tools:add"}
  - {use: "interrupt_tools:launch"}
platform_toolsets:
  cli: [math, danger]
approvals:
  unattended: interrupt
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "interrupt_tools.py").write_text(TOOLS_MODULE)
    (tmp_path / "tooldeck.yaml").write_text(CONFIG)
    (tmp_path / "home").mkdir()
    return tmp_path


def tooldeck(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_tooldeck(project, *args, home=project / "home", timeout=120)


def launches(project: Path) -> list[str]:
    path = project / "launches.txt"
    return path.read_text().splitlines() if path.exists() else []


def audit(project: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (project / "home" / "approvals.jsonl").read_text().splitlines()]


def interrupted_run(project: Path, server: ScriptedServer, *model: str) -> tuple[str, str]:
    """A first process: `add` runs, `launch` waits; returns the session id and launch's call id."""
    first = tooldeck(project, "run", "add and launch", *model, "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["status"] == "interrupted"
    assert out["interrupt"]["kind"] == "approval"
    (pending,) = out["interrupt"]["pending"]
    assert pending["tool"] == "launch" and pending["arguments"] == {"target": "moon"}
    assert pending["rule"] == "requires_approval:launch" and "requires approval" in pending["reason"]
    assert "signature" not in pending
    assert len(server.requests) == 1 and launches(project) == []
    return out["session_id"], pending["call_id"]


def script(server: ScriptedServer, *after: Turn) -> None:
    server.add(Turn(calls=[("add", {"a": 1, "b": 2}), ("launch", {"target": "moon"})]), *after)


def waiting(project: Path, server: ScriptedServer, answer: str) -> tuple[tuple[str, ...], str, str]:
    """The model options, and the session and call id of a first run that stopped at `launch`."""
    script(server, Turn(text=answer))
    model = ("--model", "m", "--base-url", server.openai_url)
    sid, call_id = interrupted_run(project, server, *model)
    return model, sid, call_id


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_approve_in_another_process_runs_the_call_once_and_returns_results_in_call_order(
    scripted_server: ScriptedServer, project: Path, provider: str
) -> None:
    script(scripted_server, Turn(text="Added and launched."))
    model = ("--provider", provider, "--model", "m", "--base-url", scripted_server.openai_url)
    sid, call_id = interrupted_run(project, scripted_server, *model)
    shown = json.loads(tooldeck(project, "sessions", "show", sid, "--json").stdout)
    assert shown["status"] == "interrupted"
    assert (
        shown["interrupt"]["pending"][0]["call_id"] == call_id
        and "signature" not in shown["interrupt"]["pending"][0]
    )
    listed = json.loads(tooldeck(project, "sessions", "list", "--pending", "--json").stdout)
    assert [(s["id"], s["pending"]) for s in listed] == [(sid, 1)]
    text = tooldeck(project, "sessions", "show", sid).stdout
    assert "waiting for approval" in text and call_id in text and f"--resume {sid}" in text

    second = tooldeck(project, "run", "--resume", sid, "--approve", call_id, *model, "--json")
    assert second.returncode == 0, second.stderr
    done = json.loads(second.stdout)
    assert done["status"] == "done" and done["text"] == "Added and launched."
    assert launches(project) == ["moon"]
    answered_ids = scripted_server.requests[1].tool_call_ids()
    assert [c for _, c in scripted_server.requests[1].tool_results()] == ["3", "launched moon"]
    assert answered_ids[1] == call_id and len(answered_ids) == 2

    replay = tooldeck(project, "run", "--resume", sid, "--approve", call_id, *model)
    assert replay.returncode == 2 and "not waiting" in replay.stderr
    assert launches(project) == ["moon"] and len(scripted_server.requests) == 2

    assert json.loads(tooldeck(project, "sessions", "list", "--pending", "--json").stdout) == []
    outcomes = [(e["call_id"], e["outcome"], e["approver"]) for e in audit(project) if e["tool"] == "launch"]
    assert outcomes == [
        (call_id, "pending", "TerminalApprover"),
        (call_id, "approved", "cli (decided later)"),
    ]


def test_deny_reaches_the_model_with_the_reason_and_nothing_runs(
    scripted_server: ScriptedServer, project: Path
) -> None:
    model, sid, call_id = waiting(project, scripted_server, "Not launched.")
    denied = tooldeck(
        project,
        "run",
        "--resume",
        sid,
        "--deny",
        call_id,
        "--reason",
        "not on a Sunday",
        *model,
    )
    assert denied.returncode == 0, denied.stderr
    assert denied.stdout.strip() == "Not launched."
    assert launches(project) == []
    added, refused = scripted_server.requests[1].tool_results()
    assert added[1] == "3"
    body = json.loads(refused[1])["error"]
    assert body["type"] == "denied" and "not on a Sunday" in body["message"]
    assert [e["outcome"] for e in audit(project) if e["tool"] == "launch"] == ["pending", "refused"]


def test_edit_runs_the_call_with_the_new_arguments(scripted_server: ScriptedServer, project: Path) -> None:
    model, sid, call_id = waiting(project, scripted_server, "Launched elsewhere.")
    bad = tooldeck(project, "run", "--resume", sid, "--edit", call_id, "--args", "[1]", *model)
    assert bad.returncode == 2 and "must be a JSON object" in bad.stderr
    edited = tooldeck(
        project,
        "run",
        "--resume",
        sid,
        "--edit",
        call_id,
        "--args",
        '{"target": "mars"}',
        *model,
    )
    assert edited.returncode == 0, edited.stderr
    assert launches(project) == ["mars"]
    assert [c for _, c in scripted_server.requests[1].tool_results()] == ["3", "launched mars"]


def test_unknown_call_id_and_untrusted_pending_calls_are_refused_with_nothing_run(
    scripted_server: ScriptedServer, project: Path
) -> None:
    model, sid, call_id = waiting(project, scripted_server, "Done.")
    unknown = tooldeck(project, "run", "--resume", sid, "--approve", "call_nope", *model)
    assert unknown.returncode == 2 and "call_nope" in unknown.stderr and call_id in unknown.stderr
    no_decision = tooldeck(project, "run", "--resume", sid, *model)
    assert no_decision.returncode == 2 and "waiting for approval" in no_decision.stderr

    # Something other than tooldeck rewrites the stored call: its signature no longer holds.
    db = sqlite3.connect(project / "home" / "state.db")
    (text,) = db.execute("SELECT interrupt FROM sessions WHERE id = ?", (sid,)).fetchone()
    db.execute("UPDATE sessions SET interrupt = ? WHERE id = ?", (text.replace('"moon"', '"the sun"'), sid))
    db.commit()
    db.close()
    forged = tooldeck(project, "run", "--resume", sid, "--approve", call_id, *model)
    assert forged.returncode == 2 and "not one tooldeck signed" in forged.stderr
    assert launches(project) == [] and len(scripted_server.requests) == 1


def test_without_interrupt_the_call_is_refused_as_before(
    scripted_server: ScriptedServer, project: Path
) -> None:
    (project / "tooldeck.yaml").write_text(CONFIG.replace("unattended: interrupt", "unattended: deny"))
    script(scripted_server, Turn(text="Could not launch."))
    model = ("--model", "m", "--base-url", scripted_server.openai_url)
    ran = tooldeck(project, "run", "add and launch", *model, "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["status"] == "done"
    assert launches(project) == []
    assert "denied" in scripted_server.requests[1].tool_results()[1][1]


def test_a_batch_item_that_stops_at_approval_ends_awaiting_approval_with_its_pending_calls(
    scripted_server: ScriptedServer, project: Path
) -> None:
    script(scripted_server)
    (project / "in.jsonl").write_text('{"id": "a", "prompt": "add and launch"}\n')
    model = ("--model", "m", "--base-url", scripted_server.openai_url)
    ran = tooldeck(project, "batch", "in.jsonl", "--out", "out.jsonl", "--workers", "1", *model)
    assert ran.returncode == 0, ran.stderr
    (line,) = (project / "out.jsonl").read_text().splitlines()
    result = json.loads(line)
    assert result["status"] == "awaiting_approval" and result["error"] is None
    assert result["finish"] == "interrupted"
    assert [(p["tool"], p["arguments"]) for p in result["pending"]] == [("launch", {"target": "moon"})]
    assert result["tool_calls"] == [{"name": "add", "error": None}]
    assert launches(project) == [] and len(scripted_server.requests) == 1


def launch_per_prompt(recorded: Recorded) -> Turn:
    """Each item's model launches its prompt's target, then answers with what the call gave."""
    prompt = (recorded.text_of("user") or [""])[0]
    results = recorded.tool_results()
    if not results:
        return Turn(calls=[("launch", {"target": prompt})])
    return Turn(text=f"{prompt}: {results[-1][1]}")


def test_batch_items_awaiting_approval_resume_with_decisions_in_later_processes(project: Path) -> None:
    """Each item's session is kept with it; `batch --resume --approve/--deny ITEM:CALL_ID`
    continues only the decided items (new result lines appended), bad decisions run nothing."""
    (project / "in.jsonl").write_text('{"id": "a", "prompt": "mars"}\n{"id": 7, "prompt": "venus"}\n')
    with ScriptedServer(responder=launch_per_prompt) as server:
        base = (
            "in.jsonl",
            "--out",
            "out.jsonl",
            "--workers",
            "1",
            "--model",
            "m",
            "--base-url",
            server.openai_url,
        )

        def batch(*args: str) -> subprocess.CompletedProcess[str]:
            return tooldeck(project, "batch", *base, *args)

        def lines() -> list[dict[str, Any]]:
            return [json.loads(t) for t in (project / "out.jsonl").read_text().splitlines()]

        assert batch().returncode == 0
        first = {r["id"]: r for r in lines()}
        assert {r["status"] for r in first.values()} == {"awaiting_approval"} and launches(project) == []
        call = {i: r["pending"][0]["call_id"] for i, r in first.items()}
        asked = len(server.requests)

        refused = [
            batch("--approve", f"a:{call['a']}"),  # decisions without --resume
            batch("--resume", "--approve", "a:call_nope"),
            batch("--resume", "--approve", f"b:{call['a']}"),
            batch("--resume", "--approve", call["a"]),  # no item named
        ]
        assert [r.returncode for r in refused] == [2, 2, 2, 2]
        assert "--resume" in refused[0].stderr and call["a"] in refused[1].stderr
        assert "'b' is not awaiting approval" in refused[2].stderr and "ITEM:CALL_ID" in refused[3].stderr
        assert len(lines()) == 2 and len(server.requests) == asked and launches(project) == []

        approved = batch("--resume", "--approve", f"a:{call['a']}")
        assert approved.returncode == 0, approved.stderr
        assert launches(project) == ["mars"]  # only the decided item ran, its call once
        *_, a = lines()
        assert (a["id"], a["status"], a["text"]) == ("a", "ok", "mars: launched mars")
        assert a["session_id"] == first["a"]["session_id"] and "pending" not in a

        denied = batch("--resume", "--deny", f"7:{call[7]}", "--reason", "not this week")
        assert denied.returncode == 0, denied.stderr
        *_, seven = lines()
        assert (seven["id"], seven["status"]) == (7, "ok") and "not this week" in seven["text"]
        assert launches(project) == ["mars"] and len(lines()) == 4

        again = batch("--resume", "--approve", f"a:{call['a']}")  # decided already
        assert again.returncode == 2 and "not awaiting approval" in again.stderr
        assert launches(project) == ["mars"] and len(lines()) == 4


@pytest.mark.parametrize(("typed", "status", "ran"), [("l\n", "interrupted", []), ("\n", "done", [])])
def test_at_a_terminal_the_prompt_offers_later_and_enter_means_no(
    scripted_server: ScriptedServer, project: Path, typed: str, status: str, ran: list[str]
) -> None:
    script(scripted_server, Turn(text="Finished."))
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "TOOLDECK_"))}
    env["TOOLDECK_HOME"] = str(project / "home")
    argv = [
        TOOLDECK,
        "run",
        "add and launch",
        "--model",
        "m",
        "--base-url",
        scripted_server.openai_url,
        "--json",
    ]
    try:
        os.write(master, typed.encode())  # waits in the terminal until the prompt reads it
        proc = subprocess.run(
            argv, cwd=project, env=env, stdin=slave, capture_output=True, text=True, timeout=120, check=False
        )
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0, proc.stderr
    assert "[l]ater" in proc.stderr and "[D]eny" in proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == status and launches(project) == ran
    if status == "interrupted":
        assert [p["tool"] for p in out["interrupt"]["pending"]] == ["launch"]
    else:
        refused = json.loads(scripted_server.requests[1].tool_results()[1][1])["error"]
        assert refused["type"] == "denied" and "refused at the prompt" in refused["message"]


def test_chat_offers_later_and_decides_with_approve_at_its_prompt(
    scripted_server: ScriptedServer, project: Path
) -> None:
    script(scripted_server, Turn(text="Added and launched."))
    model = ("--model", "m", "--base-url", scripted_server.openai_url)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "TOOLDECK_"))}
    env["TOOLDECK_HOME"] = str(project / "home")
    # With one call waiting, /approve needs no id.
    proc = subprocess.run(
        [TOOLDECK, "chat", *model],
        cwd=project,
        env=env,
        input="add and launch\nl\n/approve call_nope\n/approve\n/exit\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "[l]ater" in out and re.search(r"waiting for approval: \S+ launch", out)
    assert "'call_nope' is not waiting" in out
    assert out.index("waiting for approval") < out.index("Added and launched.")
    assert launches(project) == ["moon"]
    assert [c for _, c in scripted_server.requests[1].tool_results()] == ["3", "launched moon"]


def test_tooldeck_call_cannot_wait_so_it_still_refuses(project: Path) -> None:
    called = tooldeck(project, "call", "launch", "--args", '{"target": "moon"}', "--json")
    assert called.returncode == 1, called.stderr
    error = json.loads(called.stdout)["error"]
    assert error["type"] == "denied" and "stdin is not a terminal" in error["message"], error
    assert launches(project) == []
