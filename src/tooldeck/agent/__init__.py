"""The agent loop: model clients, the loop, sessions, agent-level tools.

    agent = Deck.load().agent()            # the model from config `model:` (or pass a client)

For tests, `ScriptedModel([reply(calls=[call("add", {"a": 1})]), reply("done")])` plays a script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

# Imported on first use: the built-in tools import `tooldeck.agent.builtins`, and loading a deck
# should not pay for the loop, the runtime and the executor.
if TYPE_CHECKING:
    from tooldeck.agent.events import Event, EventLog, EventSink
    from tooldeck.agent.interrupts import ApprovalDecision
    from tooldeck.agent.loop import AgentLoop, BatchRunner, Conversation, Recorder, TurnResult
    from tooldeck.agent.messages import Message, ModelReply, ProviderData, Usage
    from tooldeck.agent.models.base import ModelClient, ModelRequest, ModelSettings
    from tooldeck.agent.models.factory import make_model, resolve_model_settings
    from tooldeck.agent.models.reasoning import Reasoning
    from tooldeck.agent.models.scripted import ScriptedModel, call, reply
    from tooldeck.agent.runner import SessionRunner
    from tooldeck.agent.runtime import Agent
    from tooldeck.agent.sessions import SessionStore
    from tooldeck.agent.toolview import ToolView
    from tooldeck.errors import ModelError, ModelNotConfigured

__all__ = [
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
]

__getattr__ = lazy_exports(__name__, __file__, globals())
