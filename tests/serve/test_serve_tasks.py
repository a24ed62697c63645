"""MCP's tasks extension through `tooldeck serve` (2026-07-28 over streamable HTTP, spoken raw):
which calls become tasks, how they end, and what a client without the extension gets. The
conformance suite's tasks scenarios run in conformance/; these cover what it does not."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.helpers import BIN, HERE, http_server

TASKS = "io.modelcontextprotocol/tasks"
WITH_TASKS = {"elicitation": {}, "sampling": {}, "extensions": {TASKS: {}}}
CONFIG = """\
platform_toolsets: {cli: [tasks]}
tools:
  - use: task_tools:TOOLS
  - use: task_tools:plain
    task_support: required
checks: {ttl_s: 0.1}
home: home
"""


class Wire:
    """A 2026-07-28 client: every request carries its own capabilities and routing headers."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.Client(timeout=60)
        self.ids = 0

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, caps: Any = None, headers: Any = None
    ) -> dict[str, Any]:
        """The JSON-RPC response (its `result` or `error`)."""
        self.ids += 1
        params = dict(params or {})
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": WITH_TASKS if caps is None else caps,
            "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
        }
        sent = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": method,
        }
        name = params.get("name") if method == "tools/call" else params.get("taskId")
        if name is not None:
            sent["Mcp-Name"] = name
        sent.update(headers or {})
        sent = {k: v for k, v in sent.items() if v is not None}
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        reply = self.http.post(self.url, json=body, headers=sent)
        if reply.headers.get("content-type", "").startswith("text/event-stream"):
            for line in reply.text.splitlines():
                if line.startswith("data:") and line[5:].strip():
                    message = json.loads(line[5:])
                    if message.get("id") == self.ids:
                        return dict(message)
            raise AssertionError(f"no response in the stream: {reply.text}")
        return dict(reply.json())

    def result(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        reply = self.send(method, params, **kw)
        assert "result" in reply, reply
        return dict(reply["result"])

    def call(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        return self.result("tools/call", {"name": name, "arguments": arguments or {}}, **kw)

    def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        """Poll `tasks/get` until the task is in one of `statuses` (a liveness bound, not a timing test)."""
        deadline = time.monotonic() + 60
        while True:
            task = self.result("tasks/get", {"taskId": task_id})
            if task["status"] in statuses:
                return task
            assert time.monotonic() < deadline, task
            time.sleep(0.05)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Wire]:
    shutil.copy(HERE / "task_tools.py", tmp_path / "task_tools.py")
    config = tmp_path / "tooldeck.yaml"
    config.write_text(CONFIG + "serve: {task_after_s: 0.3}\n")
    with http_server(config, "--interval", "0.2") as url:
        wire = Wire(url)
        try:
            yield wire
        finally:
            wire.http.close()


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result["content"])


def test_a_call_still_running_after_task_after_s_becomes_a_task_and_its_result_is_inlined(
    served: Wire, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    created = served.call("wait_for", {"gate": str(gate)})
    assert created["resultType"] == "task" and created["status"] == "working"
    assert len(created["taskId"]) >= 24 and isinstance(created["ttlMs"], int)
    assert "result" not in created and "content" not in created
    working = served.result("tasks/get", {"taskId": created["taskId"]})
    assert working["status"] == "working" and "result" not in working
    assert working["statusMessage"] == "waiting for the gate"  # the tool's progress message
    gate.write_text("by the test")
    done = served.until(created["taskId"], "completed")
    assert done["resultType"] == "complete"
    assert text_of(done["result"]) == "opened: by the test" and not done["result"].get("isError")


def test_without_the_extension_the_same_call_is_answered_at_once(served: Wire, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.write_text("already open")
    reply = served.call("wait_as_task", {"gate": str(gate)}, caps={"elicitation": {}})
    assert reply["resultType"] == "complete" and "taskId" not in reply
    assert text_of(reply) == "task=False"  # ctx.run_as_task() said no, and the call went on


def test_run_as_task_makes_a_task_at_once_and_a_forbidden_tool_never_is_one(
    served: Wire, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    created = served.call("wait_as_task", {"gate": str(gate)})
    assert created["resultType"] == "task" and created["statusMessage"] == "waiting as a task"
    gate.write_text("")
    assert text_of(served.until(created["taskId"], "completed")["result"]) == "task=True"
    other = tmp_path / "other"
    other.write_text("")
    reply = served.call("never_task", {"gate": str(other)})
    assert reply["resultType"] == "complete" and text_of(reply) == "task=False"


def test_cancel_stops_the_call_and_is_an_idempotent_empty_ack(served: Wire, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    created = served.call("wait_for", {"gate": str(gate)})
    ack = served.result("tasks/cancel", {"taskId": created["taskId"]})
    assert set(ack) - {"_meta"} == {"resultType"} and ack["resultType"] == "complete"
    assert served.result("tasks/get", {"taskId": created["taskId"]})["status"] == "cancelled"
    deadline = time.monotonic() + 60
    while not (tmp_path / "gate.cancelled").exists():  # the running tool was cancelled
        assert time.monotonic() < deadline
        time.sleep(0.05)
    again = served.result("tasks/cancel", {"taskId": created["taskId"]})
    assert again["resultType"] == "complete"
    gate.write_text("too late")
    assert served.result("tasks/get", {"taskId": created["taskId"]})["status"] == "cancelled"


def test_a_synchronous_tool_asks_in_the_task_and_goes_on_when_answered(served: Wire) -> None:
    created = served.call("ask_in_thread")
    assert created["resultType"] == "task"
    waiting = served.until(created["taskId"], "input_required")
    [(key, request)] = waiting["inputRequests"].items()
    assert request["method"] == "elicitation/create" and request["params"]["message"] == "Your name?"
    # A malformed answer is refused and the question stays; one to an unknown key is ignored.
    bad = served.send("tasks/update", {"taskId": created["taskId"], "inputResponses": {key: {"action": 5}}})
    assert bad["error"]["code"] == -32602 and key in bad["error"]["message"]
    assert key in served.result("tasks/get", {"taskId": created["taskId"]})["inputRequests"]
    answer = {"action": "accept", "content": {"name": "Ada"}}
    ack = served.result(
        "tasks/update", {"taskId": created["taskId"], "inputResponses": {key: answer, "nope": {"x": 1}}}
    )
    assert ack["resultType"] == "complete" and "status" not in ack
    done = served.until(created["taskId"], "completed")
    assert text_of(done["result"]) == "task=True action=accept name=Ada"


def test_a_task_asks_the_clients_model_through_input_requests(served: Wire) -> None:
    created = served.call("ask_model")
    waiting = served.until(created["taskId"], "input_required")
    [(key, request)] = waiting["inputRequests"].items()
    assert request["method"] == "sampling/createMessage"
    reply = {"role": "assistant", "content": {"type": "text", "text": "hi there"}, "model": "m"}
    served.result("tasks/update", {"taskId": created["taskId"], "inputResponses": {key: reply}})
    assert text_of(served.until(created["taskId"], "completed")["result"]) == "the model said: hi there"


def test_a_task_that_needs_an_undeclared_capability_fails_with_32021(served: Wire) -> None:
    created = served.call("ask_model", caps={"extensions": {TASKS: {}}})  # no sampling
    failed = served.until(created["taskId"], "failed")
    assert failed["error"]["code"] == -32021 and "result" not in failed


def test_required_tools_and_the_tasks_methods_need_the_extension(served: Wire, tmp_path: Path) -> None:
    refused = served.send("tools/call", {"name": "must_be_task", "arguments": {}}, caps={})
    assert refused["error"]["code"] == -32021
    assert refused["error"]["data"]["requiredCapabilities"]["extensions"] == {TASKS: {}}
    # A config entry makes a tool required too (`task_support` in `tools:`).
    refused = served.send("tools/call", {"name": "plain", "arguments": {"word": "x"}}, caps={})
    assert refused["error"]["code"] == -32021
    assert served.call("plain", {"word": "x"})["resultType"] == "task"
    created = served.call("must_be_task")  # finishes at once, still answered as a task
    assert created["resultType"] == "task"
    done = served.until(created["taskId"], "completed")
    assert text_of(done["result"]) == "done as a task"
    for method in ("tasks/get", "tasks/cancel"):
        reply = served.send(method, {"taskId": created["taskId"]}, caps={})
        assert reply["error"]["code"] == -32021, method


def test_unknown_ids_mismatched_headers_and_removed_methods_are_errors(served: Wire) -> None:
    assert served.send("tasks/get", {"taskId": "no-such-task"})["error"]["code"] == -32602
    created = served.call("must_be_task")
    task_id = created["taskId"]
    wrong = served.send("tasks/get", {"taskId": task_id}, headers={"Mcp-Name": "another"})
    assert wrong["error"]["code"] == -32020
    missing = served.send("tasks/get", {"taskId": task_id}, headers={"Mcp-Name": None})
    assert missing["error"]["code"] == -32020
    assert served.result("tasks/get", {"taskId": task_id})["taskId"] == task_id
    for method in ("tasks/result", "tasks/list"):
        assert served.send(method, {"taskId": task_id})["error"]["code"] == -32601, method


def test_a_protocol_error_is_the_calls_json_rpc_error(served: Wire) -> None:
    reply = served.send("tools/call", {"name": "breaks_protocol", "arguments": {}}, caps={})
    assert reply["error"] == {
        "code": -32602,
        "message": "the request cannot be served",
        "data": {"field": "gate"},
    }


def test_discover_advertises_the_extension(served: Wire) -> None:
    found = served.result("server/discover")
    assert found["capabilities"]["extensions"][TASKS] == {}
    assert "tasks" not in found["capabilities"]


def test_max_tasks_and_ttl_bound_what_is_kept(tmp_path: Path) -> None:
    shutil.copy(HERE / "task_tools.py", tmp_path / "task_tools.py")
    config = tmp_path / "tooldeck.yaml"
    config.write_text(CONFIG + "serve: {max_tasks: 1, task_ttl_s: 1}\n")
    gate = tmp_path / "gate"
    with http_server(config) as url, httpx.Client(timeout=60) as http:
        wire = Wire(url)
        wire.http.close()
        wire.http = http
        first = wire.call("wait_as_task", {"gate": str(gate)})
        assert first["resultType"] == "task" and first["ttlMs"] == 1000
        # No room for a second task while the first runs: an optional call goes on at once, a
        # required one is refused.
        (tmp_path / "open").write_text("")
        second = wire.call("wait_as_task", {"gate": str(tmp_path / "open")})
        assert second["resultType"] == "complete" and text_of(second) == "task=False"
        assert wire.send("tools/call", {"name": "must_be_task", "arguments": {}})["error"]["code"] == -32603
        # Past its time to live the task is gone (cancelled first).
        deadline = time.monotonic() + 60
        while "result" in (reply := wire.send("tasks/get", {"taskId": first["taskId"]})):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert reply["error"]["code"] == -32602


def test_outside_serve_run_as_task_is_false_and_a_protocol_error_an_error_result(tmp_path: Path) -> None:
    shutil.copy(HERE / "task_tools.py", tmp_path / "task_tools.py")
    config = tmp_path / "tooldeck.yaml"
    config.write_text(CONFIG)
    gate = tmp_path / "gate"
    gate.write_text("")
    out = subprocess.run(
        [
            str(BIN),
            "call",
            "wait_as_task",
            "--args",
            json.dumps({"gate": str(gate)}),
            "--json",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
    )
    assert json.loads(out.stdout)["content"] == "task=False", out.stderr
    out = subprocess.run(
        [str(BIN), "call", "breaks_protocol", "--json", "--config", str(config)],
        capture_output=True,
        text=True,
    )
    reply = json.loads(out.stdout)
    assert reply["ok"] is False and reply["error"]["message"] == "the request cannot be served"


@pytest.mark.parametrize(
    ("yaml", "where"),
    [
        ("serve: {task_after_s: 0}\n", "serve.task_after_s"),
        ("serve: {max_tasks: zero}\n", "serve.max_tasks"),
        ("serve: {tasks: true}\n", "serve"),
        ("tools: [{use: task_tools:TOOLS, task_support: sometimes}]\n", "tools[0].task_support"),
    ],
)
def test_bad_serve_and_task_keys_are_named(tmp_path: Path, yaml: str, where: str) -> None:
    shutil.copy(HERE / "task_tools.py", tmp_path / "task_tools.py")
    config = tmp_path / "tooldeck.yaml"
    config.write_text(yaml)
    out = subprocess.run([str(BIN), "tools", "--config", str(config)], capture_output=True, text=True)
    assert out.returncode == 2 and where in out.stderr, out.stderr
