"""Approvals inside agent runs: grants last for the session (across batches), the approvals
timeout applies to the agent's approver, a refusal reaches the model as a denied result."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.safety.approval_kit import Answers, Recorder, shell_tool

from tooldeck import Deck, parse_config
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck.agent import ScriptedModel, call, reply


def make_deck(root: Path, rec: Recorder, **approvals: object) -> Deck:
    (root / "ws").mkdir(exist_ok=True)
    data = {
        "sandbox": {"allow_host_shell": True, "workspace": "ws"},
        "home": "home",
        "approvals": approvals,
        "platform_toolsets": {"cli": ["shell"]},
    }
    return Deck(
        parse_config(data, base_dir=str(root)), tools=[shell_tool(recorder=rec).with_options(toolset="shell")]
    )


def test_a_session_grant_covers_later_batches_of_the_same_conversation_only(tmp_path: Path) -> None:
    rec = Recorder()
    answers = Answers([ApprovalAnswer(True, "session")])
    flagged = {"command": "crontab -r"}
    model = ScriptedModel(
        [
            reply(calls=[call("run", flagged)]),
            reply(calls=[call("run", flagged)]),
            reply("done"),
            reply(calls=[call("run", flagged)]),
            reply("refused"),
        ]
    )
    agent = make_deck(tmp_path, rec).agent(model, approver=CallbackApprover(answers), store=False)
    first = agent.new_conversation()
    assert asyncio.run(agent.run(first, "go")).text == "done"
    assert len(answers.requests) == 1 and len(rec.ran) == 2
    second = agent.new_conversation()
    assert asyncio.run(agent.run(second, "again")).text == "refused"
    assert len(answers.requests) == 2 and len(rec.ran) == 2
    [(_, content)] = [(m.tool_call_id, m.content) for m in second.messages if m.role == "tool"]
    assert json.loads(content)["error"]["type"] == "denied"


def test_the_approvals_timeout_applies_to_the_agents_approver(tmp_path: Path) -> None:
    rec = Recorder()

    async def never(request: ApprovalRequest) -> bool:
        await asyncio.Event().wait()
        return True

    model = ScriptedModel([reply(calls=[call("run", {"command": "sudo reboot"})]), reply("ok")])
    agent = make_deck(tmp_path, rec, timeout_s=0.3).agent(
        model, approver=CallbackApprover(never), store=False
    )
    convo = agent.new_conversation()
    asyncio.run(agent.run(convo, "go"))  # the approver never answers: ending at all is the timeout
    assert rec.ran == []
    [content] = [m.content for m in convo.messages if m.role == "tool"]
    assert "no answer within 0.3 s" in json.loads(content)["error"]["message"]
