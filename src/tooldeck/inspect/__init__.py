"""`tooldeck inspect`: the loadout, every gate's reason, each tool's schema per provider and
live calls, in a local web page (Starlette and uvicorn, the `serve` extra's stack).

    from tooldeck import Deck
    from tooldeck.inspect import InspectorApi, inspect_app

    app = inspect_app(InspectorApi(Deck.load("tooldeck.yaml")), token="a-token-of-16-chars-or-more")

The JSON records it serves are those the commands print (`tooldeck.inspect.records`, which
imports no web stack); the web modules are imported on first use of their names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

if TYPE_CHECKING:
    from tooldeck.inspect.api import InspectorApi
    from tooldeck.inspect.app import inspect_app, serve_app
    from tooldeck.inspect.approvals import PageApprover

__all__ = ["InspectorApi", "PageApprover", "inspect_app", "serve_app"]

__getattr__ = lazy_exports(__name__, __file__, globals())
