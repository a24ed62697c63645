"""The public API of `tooldeck.agent` is pinned, and every name resolves (the imports are lazy)."""

from __future__ import annotations

import subprocess
import sys

import tooldeck.agent

EXPECTED = {
    "Agent",
    "AgentLoop",
    "ApprovalDecision",
    "BatchRunner",
    "Conversation",
    "Event",
    "EventLog",
    "EventSink",
    "Message",
    "ModelClient",
    "ModelError",
    "ModelNotConfigured",
    "ModelReply",
    "ModelRequest",
    "ModelSettings",
    "ProviderData",
    "Reasoning",
    "Recorder",
    "ScriptedModel",
    "SessionRunner",
    "SessionStore",
    "ToolView",
    "TurnResult",
    "Usage",
    "call",
    "make_model",
    "reply",
    "resolve_model_settings",
}


def test_all_is_pinned_and_every_name_resolves() -> None:
    assert set(tooldeck.agent.__all__) == EXPECTED
    for name in tooldeck.agent.__all__:
        assert getattr(tooldeck.agent, name) is not None


def test_loading_the_builtin_agent_tools_does_not_import_the_loop_or_the_sdks() -> None:
    code = (
        "import sys; import tooldeck.agent.tools; "
        "print(sorted(m for m in ('tooldeck.agent.loop', 'tooldeck.agent.runtime', 'openai', 'anthropic') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
