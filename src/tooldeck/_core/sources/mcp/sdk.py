"""Loading the `mcp` SDK, which nothing in tooldeck imports until a server connects.

A cold import of the client takes most of a second. The first connection has it done in a
helper thread, so that the MCP loop goes on starting the servers' processes meanwhile (they
start up while the SDK loads); every connection waits for the same import.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading


def load_sdk() -> None:
    """Import the parts of the `mcp` SDK a connection uses (a no-op once done)."""
    import anyio  # noqa: F401
    import mcp.client.session
    import mcp.shared.message  # noqa: F401
    import mcp_types  # noqa: F401


_SDK_LOCK = threading.Lock()
_SDK: concurrent.futures.Future[None] | None = None


async def sdk_loaded() -> None:
    """Wait for `load_sdk`, run once in a helper thread; raises what the import raised
    (ModuleNotFoundError when the SDK is not installed). Returns at once when it is done."""
    global _SDK
    with _SDK_LOCK:
        loading = _SDK
        if loading is None:
            loading = _SDK = concurrent.futures.Future()
            loading.set_running_or_notify_cancel()  # a waiter that is cancelled leaves it running
            threading.Thread(target=_load, args=(loading,), name="tooldeck-mcp-import", daemon=True).start()
    if not loading.done():
        await asyncio.wrap_future(loading)
    loading.result()


def _load(into: concurrent.futures.Future[None]) -> None:
    try:
        load_sdk()
    except BaseException as exc:  # boundary: handed to every connection that waits for the SDK
        into.set_exception(exc)
    else:
        into.set_result(None)
