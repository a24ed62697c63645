"""`tooldeck run`, `chat` and `sessions` against the scripted server: the command lines run in the
test's process (`tooldeck.cli.main.run`), while what only a process shows (the console script's
exit code, a killed run, Ctrl-C) is proved with real subprocesses."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.cli import tooldeck_command
from support.cli_in_process import tooldeck_in_process
from tooldeck.testing.scripted_server import ScriptedServer, Turn

TOOLDECK = str(Path(sys.executable).with_name("tooldeck"))

TOOLS_MODULE = '''
import time
from tooldeck import tool

@tool(toolset="math")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@tool(toolset="slow")
def nap(seconds: float) -> str:
    """Sleep."""
    time.sleep(seconds)
    return "rested"

@tool(toolset="danger", requires_approval=True)
def launch(target: str) -> str:
    """Launch something (needs approval)."""
    return f"launched {target}"
'''

CONFIG = """
tools:
  - {use: "cli_agent_tools:add"}
  - {use: "cli_agent_tools:nap"}
  - {use: "cli_agent_tools:launch"}
platform_toolsets:
  cli: [math, slow, danger, clarify, todo]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cli_agent_tools.py").write_text(TOOLS_MODULE)
    (tmp_path / "tooldeck.yaml").write_text(CONFIG)
    (tmp_path / "home").mkdir()
    return tmp_path


def env_for(project: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_")) and k != "TOOLDECK_HOME"
    }
    env["TOOLDECK_HOME"] = str(project / "home")
    return env


def tooldeck(project: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` in `project`, in this process (the console script's parsing, output and
    exit codes; see support.cli_in_process)."""
    return tooldeck_in_process(project, *args, env=env_for(project), stdin=stdin)


def console_script(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` as its own process, through the installed console script."""
    return subprocess.run(
        [*tooldeck_command(), *args],
        cwd=project,
        env=env_for(project),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_run_without_a_model_endpoint_exits_2_and_says_how_to_configure_one(project: Path) -> None:
    proc = console_script(project, "run", "hello")
    assert proc.returncode == 2
    assert "no model endpoint is configured" in proc.stderr
    for hint in ("--base-url", "/v1", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "--provider anthropic"):
        assert hint in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("provider", ["openai", "responses", "anthropic"])
def test_run_one_turn_end_to_end_with_transcript(
    scripted_server: ScriptedServer, project: Path, provider: str
) -> None:
    scripted_server.add(Turn(calls=[("add", {"a": 19, "b": 23})]), Turn(text="The answer is 42."))
    transcript = project / "t.json"
    proc = tooldeck(
        project,
        "run",
        "what is 19+23?",
        "--provider",
        provider,
        "--model",
        "m",
        "--base-url",
        scripted_server.openai_url,
        "--transcript",
        str(transcript),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The answer is 42."
    assert "tooldeck: session " in proc.stderr
    first, second = scripted_server.requests
    assert sorted(first.tool_names()) == ["add", "clarify", "launch", "nap", "todo"]
    assert [c for _, c in second.tool_results()] == ["42"]
    data = json.loads(transcript.read_text())
    roles = [m["role"] for m in data["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]
    call_id = data["messages"][1]["tool_calls"][0]["id"]
    assert data["messages"][2]["tool_call_id"] == call_id == second.tool_call_ids()[0]
    assert data["status"] == "done"


def test_clarify_exits_with_the_question_and_resume_continues(
    scripted_server: ScriptedServer, project: Path
) -> None:
    scripted_server.add(
        Turn(calls=[("clarify", {"question": "Which planet?", "choices": ["mars", "venus"]})]),
        Turn(text="Heading to mars."),
    )
    url = scripted_server.openai_url
    first = tooldeck(project, "run", "go to a planet", "--model", "m", "--base-url", url, "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["status"] == "interrupted" and out["question"] == "Which planet?"
    sid = out["session_id"]
    waiting = tooldeck(project, "run", "--resume", sid, "--model", "m", "--base-url", url)
    assert waiting.returncode == 2 and "Which planet?" in waiting.stderr
    second = tooldeck(project, "run", "mars", "--resume", sid[:12], "--model", "m", "--base-url", url)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "Heading to mars."
    assert scripted_server.requests[1].text_of("user") == ["go to a planet", "mars"]
    shown = json.loads(tooldeck(project, "sessions", "show", sid, "--json").stdout)
    assert shown["status"] == "done" and shown["interrupt"] is None
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant", "tool", "user", "assistant"]
    listed = json.loads(tooldeck(project, "sessions", "list", "--json").stdout)
    assert [s["id"] for s in listed] == [sid] and listed[0]["title"] == "go to a planet"
    found = json.loads(tooldeck(project, "sessions", "search", "planet", "--json").stdout)
    assert found and {h["session_id"] for h in found} == {sid} and "[planet]" in found[0]["snippet"]
    missing = tooldeck(project, "sessions", "show", "nope")
    assert missing.returncode == 2 and "no session 'nope'" in missing.stderr


def test_model_errors_exit_1_with_a_clear_message(scripted_server: ScriptedServer, project: Path) -> None:
    scripted_server.add(Turn(status=401, error="Incorrect API key provided"))
    proc = tooldeck(project, "run", "hi", "--model", "m", "--base-url", scripted_server.openai_url)
    assert proc.returncode == 1
    assert "authentication failed" in proc.stderr and "OPENAI_API_KEY" in proc.stderr
    assert "Incorrect API key provided" in proc.stderr
    # The turn is kept unfinished; resuming without a new message retries it.
    sid = proc.stderr.split("(session ")[1].split(")")[0]
    scripted_server.add(Turn(text="back"))
    again = tooldeck(
        project, "run", "--resume", sid, "--model", "m", "--base-url", scripted_server.openai_url
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "back"
    assert scripted_server.requests[1].text_of("user") == ["hi"]
    shown = json.loads(tooldeck(project, "sessions", "show", sid, "--json").stdout)
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"] and shown["status"] == "done"


def test_approval_needed_tools_are_refused_without_yes_and_run_with_it(
    scripted_server: ScriptedServer, project: Path
) -> None:
    url = scripted_server.openai_url
    scripted_server.add(Turn(calls=[("launch", {"target": "moon"})]), Turn(text="could not"))
    tooldeck(project, "run", "launch", "--model", "m", "--base-url", url)
    [(_, refused)] = scripted_server.requests[1].tool_results()
    assert json.loads(refused)["error"]["type"] == "denied"
    scripted_server.add(Turn(calls=[("launch", {"target": "moon"})]), Turn(text="done"))
    tooldeck(project, "run", "launch", "--yes", "--model", "m", "--base-url", url)
    assert scripted_server.requests[3].tool_results()[0][1] == "launched moon"


def test_a_killed_run_loses_nothing_and_resume_answers_the_orphaned_call(
    scripted_server: ScriptedServer, project: Path
) -> None:
    url = scripted_server.openai_url
    scripted_server.add(Turn(calls=[("nap", {"seconds": 60})]), Turn(text="recovered"))
    proc = subprocess.Popen(
        [TOOLDECK, "run", "take a nap", "--model", "m", "--base-url", url],
        cwd=project,
        env=env_for(project),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = project / "home" / "state.db"
    deadline = time.monotonic() + 60
    rows: list[tuple[str]] = []
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with sqlite3.connect(db) as conn:
                    rows = conn.execute("SELECT role FROM messages ORDER BY id").fetchall()
            except sqlite3.OperationalError:  # the run is still creating its tables
                rows = []
            if len(rows) >= 2:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert [r[0] for r in rows] == ["user", "assistant"]
    with sqlite3.connect(db) as conn:
        (sid,) = conn.execute("SELECT id FROM sessions").fetchone()
    resumed = tooldeck(project, "run", "are you there?", "--resume", sid, "--model", "m", "--base-url", url)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "recovered"
    [(call_id, content)] = scripted_server.requests[1].tool_results()
    assert call_id == scripted_server.requests[1].tool_call_ids()[0]
    assert json.loads(content)["error"]["type"] == "cancelled"


def test_ctrl_c_during_run_names_the_session_marks_it_cancelled_and_resume_finishes(
    scripted_server: ScriptedServer, project: Path
) -> None:
    url = scripted_server.openai_url
    # The model stalls far longer than the test waits: an exit at all means it was not waited for.
    scripted_server.add(Turn(text="too late", delay_s=600))
    proc = subprocess.Popen(
        [TOOLDECK, "run", "think hard", "--model", "m", "--base-url", url],
        cwd=project,
        env=env_for(project),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not scripted_server.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    assert scripted_server.requests, "the run never called the model"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    with sqlite3.connect(project / "home" / "state.db") as conn:
        (sid,) = conn.execute("SELECT id FROM sessions").fetchone()
    assert sid in err and f"tooldeck run --resume {sid}" in err
    shown = json.loads(tooldeck(project, "sessions", "show", sid, "--json").stdout)
    assert shown["status"] == "cancelled" and [m["role"] for m in shown["messages"]] == ["user"]
    listed = json.loads(tooldeck(project, "sessions", "list", "--json").stdout)
    assert listed[0]["status"] == "cancelled"
    assert f"tooldeck run --resume {sid}" in tooldeck(project, "sessions", "show", sid).stdout
    scripted_server.add(Turn(text="thought it through"))
    resumed = tooldeck(project, "run", "--resume", sid, "--model", "m", "--base-url", url)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "thought it through"
    assert scripted_server.requests[1].text_of("user") == ["think hard"]
    shown = json.loads(tooldeck(project, "sessions", "show", sid, "--json").stdout)
    assert shown["status"] == "done"


@pytest.mark.parametrize("provider", ["openai", "responses", "anthropic"])
def test_lone_surrogates_from_the_model_are_stored_exactly_and_shown_safely(
    scripted_server: ScriptedServer, project: Path, provider: str
) -> None:
    url = scripted_server.openai_url
    scripted_server.add(
        Turn(text="half\ud800 way", calls=[("add", '{"a": "\udc80", "b": 1}')]),
        Turn(text="done\ud800"),
    )
    model = ("--provider", provider, "--model", "m", "--base-url", url)
    transcript = project / "transcript.json"
    proc = tooldeck(project, "run", "go", *model, "--json", "--transcript", str(transcript))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["text"] == "done\ud800" and "Traceback" not in proc.stderr
    written = json.loads(transcript.read_text(encoding="utf-8"))  # valid UTF-8, read back the same
    assert written["messages"][-1]["content"] == "done\ud800"
    [(_, refused)] = scripted_server.requests[1].tool_results()
    assert json.loads(refused)["error"]["type"] == "invalid_arguments"
    shown = tooldeck(project, "sessions", "show", out["session_id"], "--json")
    assert shown.returncode == 0, shown.stderr
    messages = json.loads(shown.stdout)["messages"]
    assert messages[1]["content"] == "half\ud800 way"  # kept exactly, read back the same
    assert json.loads(messages[1]["tool_calls"][0]["arguments"]) == {"a": "\udc80", "b": 1}
    assert messages[3]["content"] == "done\ud800"
    human = tooldeck(project, "sessions", "show", out["session_id"])
    assert human.returncode == 0 and "done\ufffd" in human.stdout and "Traceback" not in human.stderr
    scripted_server.add(Turn(text="still\udfff here"))
    again = tooldeck(project, "run", "again", "--resume", out["session_id"], *model)
    assert again.returncode == 0, again.stderr  # the whole history goes back to the model...
    sent = json.dumps(scripted_server.requests[2].body, ensure_ascii=False)
    assert "half\ufffd way" in sent and "\ud800" not in sent  # ...with U+FFFD in their place
    assert again.stdout.strip() == "still\ufffd here"  # printed for a person: replaced


def test_chat_shows_calls_as_they_happen_and_asks_approval_inline(
    scripted_server: ScriptedServer, project: Path
) -> None:
    scripted_server.add(
        Turn(calls=[("add", {"a": 2, "b": 2}), ("launch", {"target": "moon"})]),
        Turn(text="Added and launched."),
        Turn(calls=[("launch", {"target": "sun"})]),
        Turn(text="The sun launch was refused."),
    )
    proc = tooldeck(
        project,
        "chat",
        "--model",
        "m",
        "--base-url",
        scripted_server.openai_url,
        stdin="add and launch\ny\nnow the sun\nn\n/exit\n",
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "→ add" in out and "← add: 4" in out
    assert "approval needed" in out and "launch" in out
    assert "← launch: launched moon" in out
    assert "Added and launched." in out
    assert "✗ launch" in out and "The sun launch was refused." in out
    assert out.index("→ add") < out.index("approval needed") < out.index("Added and launched.")
    refused = json.loads(scripted_server.requests[3].tool_results()[-1][1])
    assert refused["error"]["type"] == "denied"


def test_chat_answers_a_clarify_question_at_the_next_prompt(
    scripted_server: ScriptedServer, project: Path
) -> None:
    scripted_server.add(Turn(calls=[("clarify", {"question": "Tea or coffee?"})]), Turn(text="Tea it is."))
    proc = tooldeck(
        project, "chat", "--model", "m", "--base-url", scripted_server.openai_url, stdin="a drink\ntea\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "Tea or coffee?" in proc.stdout and "Tea it is." in proc.stdout
    assert scripted_server.requests[1].text_of("user") == ["a drink", "tea"]


def test_run_reads_the_prompt_from_stdin_and_verbose_shows_steps(
    scripted_server: ScriptedServer, project: Path
) -> None:
    scripted_server.add(Turn(calls=[("add", {"a": 1, "b": 2})]), Turn(text="3"))
    proc = tooldeck(
        project,
        "run",
        "-",
        "--verbose",
        "--model",
        "m",
        "--base-url",
        scripted_server.openai_url,
        stdin="what is 1+2?\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "3"
    assert "→ add" in proc.stderr and "← add: 3" in proc.stderr
    assert scripted_server.requests[0].text_of("user") == ["what is 1+2?"]


def test_chat_streams_text_once_when_the_model_streams(
    scripted_server: ScriptedServer, project: Path
) -> None:
    (project / "tooldeck.yaml").write_text(CONFIG + "model: {stream: true}\n")
    scripted_server.add(Turn(text="Streaming words arrive in pieces."))
    proc = tooldeck(
        project, "chat", "--model", "m", "--base-url", scripted_server.openai_url, stdin="hello\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Streaming words arrive in pieces.") == 1
    assert scripted_server.requests[0].body["stream"] is True


# -- a run that ends without an answer, and a damaged session database ----------------------


def test_a_run_without_an_answer_exits_1_and_says_why(scripted_server: ScriptedServer, project: Path) -> None:
    url = scripted_server.openai_url
    scripted_server.add(Turn(calls=[("add", {"a": 1, "b": 1})]), Turn(text=""))  # budget of 1, empty summary
    spent = tooldeck(project, "run", "go", "--model", "m", "--base-url", url, "--max-iterations", "1")
    assert spent.returncode == 1 and "iteration budget ran out" in spent.stderr
    scripted_server.add(Turn(text=""))
    empty = tooldeck(project, "run", "go", "--model", "m", "--base-url", url)
    assert empty.returncode == 1 and "without an answer" in empty.stderr and empty.stdout == ""
    session = empty.stderr.split("tooldeck: session ")[1].split()[0]
    listed = json.loads(tooldeck(project, "sessions", "list", "--json").stdout)
    assert [s["status"] for s in listed if s["id"] == session] == ["no_answer"]  # stored as it ended
    shown = tooldeck(project, "sessions", "show", session)
    assert f"ask again with: tooldeck run --resume {session}" in " ".join(shown.stdout.split())
    scripted_server.add(Turn(text="fine"))
    ok = tooldeck(project, "run", "go", "--model", "m", "--base-url", url)
    assert ok.returncode == 0 and ok.stdout.strip() == "fine"


def test_a_transcript_that_cannot_be_written_fails_before_any_model_call(
    scripted_server: ScriptedServer, project: Path
) -> None:
    proc = tooldeck(
        project,
        "run",
        "go",
        "--model",
        "m",
        "--base-url",
        scripted_server.openai_url,
        "--transcript",
        str(project),
    )
    assert proc.returncode == 2 and "is a folder" in proc.stderr
    assert scripted_server.requests == []


def _one_session(scripted_server: ScriptedServer, project: Path) -> tuple[Path, str]:
    scripted_server.add(Turn(text="kubernetes ingress pinned"))
    tooldeck(
        project,
        "run",
        "remember the kubernetes ingress",
        "--model",
        "m",
        "--base-url",
        scripted_server.openai_url,
    )
    db = project / "home" / "state.db"
    with sqlite3.connect(db) as conn:
        (sid,) = conn.execute("SELECT id FROM sessions").fetchone()
    return db, sid


def test_corrupt_rows_and_a_dropped_column_are_reported_with_the_way_out(
    scripted_server: ScriptedServer, project: Path
) -> None:
    db, sid = _one_session(scripted_server, project)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE messages SET data = '{not json' WHERE seq = 1")
    for args in (
        ("sessions", "show", sid),
        ("run", "again", "--resume", sid, "--model", "m", "--base-url", "http://127.0.0.1:9/v1"),
    ):
        proc = tooldeck(project, *args)
        assert proc.returncode == 2, proc.stderr
        assert "session error" in proc.stderr and "is damaged" in proc.stderr and str(db) in proc.stderr
        assert (
            "message 1 of session" in proc.stderr and "mv " in proc.stderr and "Traceback" not in proc.stderr
        )
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE messages DROP COLUMN data")
    proc = tooldeck(project, "sessions", "list")
    assert proc.returncode == 2 and "table messages has no column data" in proc.stderr


def test_a_dropped_search_index_is_rebuilt_not_silently_empty(
    scripted_server: ScriptedServer, project: Path
) -> None:
    db, _ = _one_session(scripted_server, project)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE messages_fts")
    proc = tooldeck(project, "sessions", "search", "kubernetes", "--json")
    assert proc.returncode == 0, proc.stderr
    assert any("kubernetes" in hit["snippet"] for hit in json.loads(proc.stdout))


def test_sessions_show_lists_the_checkpoints_of_each_turn_and_undo_restores_them(
    scripted_server: ScriptedServer, project: Path
) -> None:
    (project / "tooldeck.yaml").write_text(CONFIG.replace("[math,", "[file, math,"))
    (project / "notes.md").write_text("first draft\n")
    scripted_server.add(
        Turn(calls=[("write_file", {"path": "notes.md", "content": "rewritten by the model\n"})]),
        Turn(text="rewrote it"),
        Turn(calls=[("write_file", {"path": "extra/new.txt", "content": "new\n"})]),
        Turn(text="added one"),
    )
    base = ["--model", "m", "--base-url", scripted_server.openai_url, "--json"]
    first = tooldeck(project, "run", "rewrite the notes", *base)
    assert first.returncode == 0, first.stderr
    sid = json.loads(first.stdout)["session_id"]
    second = tooldeck(project, "run", "add a file", "--resume", sid, *base)
    assert second.returncode == 0, second.stderr
    shown = json.loads(tooldeck(project, "sessions", "show", sid, "--json").stdout)
    turns = [[(c["tool"], c["paths"]) for c in t["checkpoints"]] for t in shown["turns"]]
    assert turns == [[("write_file", ["notes.md"])], [("write_file", ["extra", "extra/new.txt"])]]
    text = tooldeck(project, "sessions", "show", sid).stdout
    oldest = shown["turns"][0]["checkpoints"][0]["id"]
    assert "checkpoint" in text and f"tooldeck undo {oldest}" in text
    undone = tooldeck(project, "undo", str(oldest))
    assert undone.returncode == 0, undone.stderr
    assert (project / "notes.md").read_text() == "first draft\n" and not (project / "extra").exists()
