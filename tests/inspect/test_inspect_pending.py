"""Calls that wait for approval in stored sessions, decided in the inspector's page in a real
Chromium: approve, deny and edit resume each run from the page (the model: the official SDK
against the scripted server); a decision for a call no longer pending is refused, and a request
that makes no decision is refused naming the field, before anything runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from support.cli import run_tooldeck
from tooldeck.errors import DecisionError
from tooldeck.inspect.pending import decision_of
from tooldeck.testing.scripted_server import ScriptedServer, Turn

from .inspector import running, write_workspace

CHROMIUM = "/usr/bin/chromium"


def launches(folder: Path) -> list[str]:
    path = folder / "launches.txt"
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def config(tmp_path: Path, scripted_server: ScriptedServer) -> Path:
    extra = (
        "approvals: {unattended: interrupt}\n"
        f"model: {{provider: openai, name: m, base_url: '{scripted_server.openai_url}'}}\n"
    )
    path = write_workspace(tmp_path, extra=extra)
    # Each launch leaves a line beside the config: what ran, and with which arguments.
    tools = tmp_path / "td_inspect_tools.py"
    tools.write_text(
        tools.read_text().replace(
            '    return f"launched {target}"',
            '    Path(__file__).with_name("launches.txt").open("a").write(target + "\\n")\n'
            '    return f"launched {target}"',
        )
    )
    return path


def interrupted(config: Path, prompt: str) -> str:
    """`tooldeck run --json` in a process of its own, stopped at approval; its session id."""
    proc = run_tooldeck(config.parent, "run", prompt, "--json", "--config", str(config), timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "interrupted", out
    return str(out["session_id"])


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context()
        yield context.new_page()
        context.close()
        browser.close()


# A decision resumes a whole run (model and tools) in the inspector: on a loaded machine that
# may take longer than Playwright's 5 s default.
RESUMED = 60_000


def test_the_page_lists_pending_calls_and_approve_deny_edit_resume_the_runs(
    config: Path, scripted_server: ScriptedServer, page: Page
) -> None:
    scripted_server.add(
        Turn(calls=[("echo", {"text": "hi"}), ("launch", {"target": "moon"})]),
        Turn(calls=[("launch", {"target": "venus"})]),
        Turn(calls=[("launch", {"target": "pluto"})]),
        Turn(text="Launched the moon."),
        Turn(text="Launched mars instead."),
        Turn(text="Pluto stays."),
    )
    first = interrupted(config, "echo and launch")
    second = interrupted(config, "launch venus")
    third = interrupted(config, "launch pluto")
    assert launches(config.parent) == []
    with running(config) as inspector:
        listed = inspector.get("/api/pending")
        assert [(p["session_id"], p["arguments"]["target"]) for p in listed] == [
            (third, "pluto"),
            (second, "venus"),
            (first, "moon"),
        ]
        with inspector.client() as client:
            wrong = client.post(
                f"/api/sessions/{first}/decide", json={"call_id": listed[2]["call_id"], "decision": "yes"}
            )
        assert wrong.status_code == 400 and '"decision" must be' in wrong.json()["error"]
        assert inspector.get("/api/pending") == listed and launches(config.parent) == []
        page.goto(inspector.url + "#/sessions")
        moon = page.get_by_role("region", name=f"Pending call {listed[2]['call_id']}")
        expect(moon).to_contain_text('"target": "moon"')
        moon.get_by_role("button", name="Approve").click()
        expect(page.get_by_role("status")).to_contain_text(
            f"Session {first} resumed: done — Launched the moon.", timeout=RESUMED
        )
        assert launches(config.parent) == ["moon"]
        assert [c for _, c in scripted_server.requests[3].tool_results()] == ["hi", "launched moon"]

        venus = page.get_by_role("region", name=f"Pending call {listed[1]['call_id']}")
        venus.get_by_text("Edit the arguments").click()
        venus.get_by_label("Edited arguments (JSON)").fill('{"target": "mars"}')
        venus.get_by_role("button", name="Run with these arguments").click()
        expect(page.get_by_role("status")).to_contain_text("Launched mars instead.", timeout=RESUMED)
        assert launches(config.parent) == ["moon", "mars"]

        pluto = page.get_by_role("region", name=f"Pending call {listed[0]['call_id']}")
        pluto.get_by_label("Reason for a denial").fill("too far")
        pluto.get_by_role("button", name="Deny").click()
        expect(page.get_by_role("status")).to_contain_text("Pluto stays.", timeout=RESUMED)
        assert launches(config.parent) == ["moon", "mars"]
        assert "too far" in scripted_server.requests[5].tool_results()[0][1]
        expect(page.get_by_text("Waiting for approval")).to_have_count(0)
        assert inspector.get("/api/pending") == []

        with inspector.client() as client:
            again = client.post(
                f"/api/sessions/{first}/decide", json={"call_id": listed[2]["call_id"], "decision": "approve"}
            )
        assert again.status_code == 409 and "not waiting" in again.json()["error"]
        audit = [
            json.loads(line) for line in (config.parent / "home" / "approvals.jsonl").read_text().splitlines()
        ]
        decided = [
            (e["outcome"], e["approver"])
            for e in audit
            if e["tool"] == "launch" and e["outcome"] != "pending"
        ]
        assert decided == [("approved", "inspector (decided later)")] * 2 + [
            ("refused", "inspector (decided later)")
        ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (["approve"], "the body must be a JSON object"),
        ({"decision": "approve"}, '"call_id"'),
        ({"call_id": "", "decision": "approve"}, '"call_id"'),
        ({"call_id": "c1", "decision": "approve", "scope": "forever"}, '"scope"'),
        ({"call_id": "c1", "decision": "edit", "arguments": "mars"}, '"arguments"'),
        ({"call_id": "c1"}, '"decision"'),
    ],
)
def test_a_request_that_makes_no_decision_is_a_decision_error_naming_the_field(
    body: object, field: str
) -> None:
    with pytest.raises(DecisionError, match=field):
        decision_of(body)


def test_a_well_formed_request_gives_the_call_and_its_decision() -> None:
    call_id, decision = decision_of({"call_id": "c1", "decision": "approve", "scope": "session"})
    assert (call_id, decision.kind, decision.scope) == ("c1", "approve", "session")
    call_id, decision = decision_of({"call_id": "c2", "decision": "edit", "arguments": {"target": "mars"}})
    assert (call_id, decision.kind, dict(decision.arguments or {})) == ("c2", "edit", {"target": "mars"})
