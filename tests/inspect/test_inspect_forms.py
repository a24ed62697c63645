"""Forms (elicitation) asked during a call made from `tooldeck inspect`: they wait in the API
beside the approvals, are answered there (accept / decline / cancel), are checked against their
schema before the tool sees them, and time out to cancel. Through the real console script, with
a Python tool's `ctx.elicit` and a real MCP server that asks (tests/mcp/servers/asking_server.py)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .inspector import ASKING, Inspector, running, wait_for, write_workspace


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    with running(write_workspace(tmp_path_factory.mktemp("inspect-forms"))) as found:
        yield found


class Calling:
    """A call made through the API on a thread of its own (it waits while its form does)."""

    def __init__(self, inspector: Inspector, name: str, arguments: dict[str, Any]) -> None:
        self.results: list[Any] = []
        self.thread = threading.Thread(
            target=lambda: self.results.append(
                inspector.post("/api/call", {"name": name, "arguments": arguments})
            )
        )
        self.thread.start()

    def result(self) -> Any:
        self.thread.join(90)
        [result] = self.results
        return result


def pending_form(inspector: Inspector) -> dict[str, Any]:
    forms = wait_for(
        lambda: [p for p in inspector.get("/api/approvals") if p["kind"] == "form"], "the waiting form"
    )
    [form] = forms
    return dict(form)


def returned(result: Any) -> Any:
    """The JSON a tool returned (an MCP server's inside the untrusted-content frame)."""
    assert result["ok"], result
    text = result["content"]
    start = min(i for i in (text.find("{"), text.find("[")) if i >= 0)
    return json.JSONDecoder().raw_decode(text[start:])[0]


def post(inspector: Inspector, path: str, body: Any, *, authorized: bool = True) -> tuple[int, Any]:
    with inspector.client(authorized=authorized) as c:
        response = c.post(path, json=body)
    return response.status_code, response.json()


def test_a_tools_form_waits_in_the_api_and_accept_hands_it_the_checked_values(inspector: Inspector) -> None:
    calling = Calling(inspector, "survey", {"message": "Who are you?"})
    form = pending_form(inspector)
    assert form["tool"] == "survey" and form["message"] == "Who are you?"
    assert form["schema"]["properties"]["age"] == {
        "type": "integer",
        "title": "Age",
        "minimum": 0,
        "maximum": 150,
        "default": 36,
    }
    assert form["schema"]["required"] == ["name", "age"]
    assert len(form["id"]) >= 20  # unguessable
    path = f"/api/forms/{form['id']}"

    # Refused, each naming what is wrong; the form goes on waiting.
    status, body = post(inspector, path, {"action": "maybe"})
    assert status == 400 and "action must be one of accept, decline, cancel" in body["error"]
    status, body = post(inspector, path, {"action": "accept", "content": ["Bo"]})
    assert status == 400 and '"content" must be an object' in body["error"]
    status, body = post(inspector, path, {"action": "accept", "content": {"age": 500}})
    assert status == 400 and "field 'age'" in body["error"] and "150" in body["error"]
    status, body = post(inspector, path, {"action": "accept", "content": {"colour": "purple"}})
    assert status == 400 and "field 'colour'" in body["error"]
    status, body = post(inspector, path, {"action": "accept", "content": {"nickname": "B"}})
    assert status == 400 and "nickname" in body["error"]
    # Only the token's holder answers; an approval's answer does not answer a form.
    status, _ = post(inspector, path, {"action": "decline"}, authorized=False)
    assert status == 401
    status, _ = post(inspector, f"/api/approvals/{form['id']}", {"decision": "approve"})
    assert status == 404
    assert pending_form(inspector)["id"] == form["id"]

    status, body = post(inspector, path, {"action": "accept", "content": {"name": "Cy", "news": False}})
    assert (status, body) == (200, {"answered": True})
    status, body = post(inspector, path, {"action": "accept", "content": {"name": "Cy"}})
    assert status == 404 and "answered already" in body["error"]  # answering twice is refused
    assert returned(calling.result()) == {
        "action": "accept",
        "content": {"name": "Cy", "age": 36, "colour": "g", "news": False},
        "reason": "",
    }
    assert inspector.get("/api/approvals") == []


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_reach_the_tool_without_content(inspector: Inspector, action: str) -> None:
    calling = Calling(inspector, "survey", {})
    form = pending_form(inspector)
    assert post(inspector, f"/api/forms/{form['id']}", {"action": action, "content": {"age": 1}})[0] == 200
    got = returned(calling.result())
    assert got["action"] == action and got["content"] is None


def test_an_unanswered_form_is_cancelled_after_the_approvals_timeout(tmp_path: Path) -> None:
    config = write_workspace(tmp_path, extra="approvals: {timeout_s: 1}\n")
    with running(config) as inspector:
        got = returned(inspector.post("/api/call", {"name": "survey", "arguments": {}}))
        assert got == {"action": "cancel", "content": None, "reason": "no answer within 1 s"}
        assert inspector.get("/api/approvals") == []


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_an_mcp_servers_form_is_answered_through_the_api(tmp_path: Path, protocol: str) -> None:
    servers = {
        "ask": {
            "command": sys.executable,
            "args": [str(ASKING)],
            "protocol": protocol,
            "connect_timeout": 30,
        }
    }
    with running(write_workspace(tmp_path, mcp=servers)) as inspector:
        calling = Calling(inspector, "mcp__ask__ask_profile", {})
        form = pending_form(inspector)
        assert form["tool"] == "mcp__ask__ask_profile" and form["message"] == "Tell me about you"
        color = form["schema"]["properties"]["color"]
        assert color["enum"] == ["red", "green", "blue"] and color["default"] == "green"
        path = f"/api/forms/{form['id']}"
        status, body = post(inspector, path, {"action": "accept", "content": {"color": "purple"}})
        assert status == 400 and "field 'color'" in body["error"]
        status, _ = post(inspector, path, {"action": "accept", "content": {"name": "Bo", "color": "red"}})
        assert status == 200
        assert returned(calling.result()) == {
            "action": "accept",
            "content": {"name": "Bo", "color": "red", "age": 36},
        }
        # Declined in the page: the server hears so.
        calling = Calling(inspector, "mcp__ask__ask_profile", {})
        form = pending_form(inspector)
        assert post(inspector, f"/api/forms/{form['id']}", {"action": "decline"})[0] == 200
        assert returned(calling.result())["action"] == "decline"
