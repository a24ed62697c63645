"""The serve section of the config (`serve:`): how `tooldeck serve` answers long calls with
tasks. Owned here, beside the server that reads it, importing only the core's public face (so
`tooldeck.Config` composes it without importing the server); the core knows nothing of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from tooldeck.core import MAX_SECONDS, ConfigSection, config_section

if TYPE_CHECKING:
    # Bounds in the annotations stay strings until pydantic reads them (the validator puts these
    # names into this module first), so importing the config never imports them.
    from annotated_types import Ge, Gt, Le


@config_section
class ServeConfig(ConfigSection):
    """`tooldeck serve`: how calls become tasks for MCP clients of the tasks extension (SEP-2663).

    A call of a tool whose `task_support` is `optional` that is still running after `task_after_s`
    is answered with a task handle and goes on in the background; the client polls `tasks/get`.
    """

    # Seconds a call may run before a client that declared the tasks extension gets a task instead.
    task_after_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 2.0
    # Seconds a task (and its result) is kept from its creation; a task still running then is
    # cancelled.
    task_ttl_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 3600.0
    # Tasks kept at once; beyond it the oldest finished one is forgotten, and with none finished
    # an optional call is answered at once instead of as a task (a required one is refused).
    max_tasks: Annotated[int, Ge(1)] = 1000
