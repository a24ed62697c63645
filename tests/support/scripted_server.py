"""The scripted model server now ships with the library (`tooldeck.testing.scripted_server`).

This name stays for tests written against it before the move (branches merged later may hold
some); new tests import the library's module.
"""

from __future__ import annotations

from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Step, Turn, free_port, tool_rounds

__all__ = ["Recorded", "ScriptedServer", "Step", "Turn", "free_port", "tool_rounds"]
