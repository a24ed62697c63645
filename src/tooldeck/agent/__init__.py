"""The agent loop (spec L): model clients, the loop, sessions, agent-level tools.

    from tooldeck.agent import Agent, make_model, resolve_model_settings
    agent = Agent.from_deck(Deck.load(), make_model(resolve_model_settings(config.model)))

For tests, `ScriptedModel([reply(calls=[call("add", {"a": 1})]), reply("done")])` plays a script.
"""

from tooldeck.agent.events import Event, EventLog, EventSink
from tooldeck.agent.loop import AgentLoop, BatchRunner, Conversation, LoopSettings, Recorder, TurnResult
from tooldeck.agent.messages import Message, ModelReply, Usage
from tooldeck.agent.models.base import ModelClient, ModelError, ModelRequest, ModelSettings
from tooldeck.agent.models.factory import ModelNotConfigured, make_model, resolve_model_settings
from tooldeck.agent.models.scripted import ScriptedModel, call, reply
from tooldeck.agent.runtime import Agent, AgentSettings
from tooldeck.agent.sessions import SessionStore
from tooldeck.agent.toolview import ToolView

__all__ = [
    "Agent",
    "AgentLoop",
    "AgentSettings",
    "BatchRunner",
    "Conversation",
    "Event",
    "EventLog",
    "EventSink",
    "LoopSettings",
    "Message",
    "ModelClient",
    "ModelError",
    "ModelNotConfigured",
    "ModelReply",
    "ModelRequest",
    "ModelSettings",
    "Recorder",
    "ScriptedModel",
    "SessionStore",
    "ToolView",
    "TurnResult",
    "Usage",
    "call",
    "make_model",
    "reply",
    "resolve_model_settings",
]
