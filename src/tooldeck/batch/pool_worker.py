"""A local engine worker process: `python -m tooldeck.batch.pool_worker FD`.

FD is this process's end of a socket pair whose other end the driver holds. Messages are
pickled tuples (a `multiprocessing.connection.Connection`). Driver to worker: first ("init",
WorkerSpec, label, sys.path), then ("item", BatchItem, attempt) and finally ("stop",). Worker to
driver: ("ready",) once the deck is loaded, ("fatal", message) when it cannot start,
("result", ItemResult) per item. When the driver goes away (even by SIGKILL) the socket closes,
and the worker abandons its items and exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

from tooldeck._utils.user_code import importable_from
from tooldeck.batch.items import BatchItem
from tooldeck.batch.worker import ItemRunner, WorkerSpec
from tooldeck.tracing.export import configure_cli_exporter


def main(argv: list[str]) -> int:
    # Ctrl-C reaches the whole process group; the driver decides what happens to the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    configure_cli_exporter()  # each item's run is a trace of its own, exported as the CLI's are
    conn = Connection(int(argv[0]))
    try:
        _init, spec, label, path = conn.recv()
    except (EOFError, OSError):
        return 1
    # What the driver could import, this worker can (tools named by `use:` next to a script).
    importable_from(path)
    asyncio.run(serve(conn, spec, label))
    return 0


async def serve(conn: Connection, spec: WorkerSpec, label: str) -> None:
    """Run the items the driver sends until it says stop or goes away."""
    try:
        runner = ItemRunner(spec, worker=label)
    except Exception as exc:  # the start-up boundary: the driver must hear why, not just see a death
        _send(conn, ("fatal", f"worker {label} could not start: {type(exc).__name__}: {exc}"))
        return
    _send(conn, ("ready",))
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[tuple[Any, ...] | None] = asyncio.Queue()

    def readable() -> None:
        try:
            inbox.put_nowait(conn.recv())
        except (EOFError, OSError):  # the driver is gone
            loop.remove_reader(conn.fileno())
            inbox.put_nowait(None)

    loop.add_reader(conn.fileno(), readable)
    tasks: set[asyncio.Task[None]] = set()
    try:
        while (message := await inbox.get()) is not None:
            if message[0] == "stop":
                await asyncio.gather(*tasks)
                break
            task = asyncio.create_task(_run_one(runner, conn, message[1], message[2]))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    finally:
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(conn.fileno())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await runner.aclose()


async def _run_one(runner: ItemRunner, conn: Connection, item: BatchItem, attempt: int) -> None:
    result = await runner.run(item, attempt)
    _send(conn, ("result", result))


def _send(conn: Connection, message: tuple[Any, ...]) -> None:
    with contextlib.suppress(OSError):  # the driver is gone; the reader will notice and stop
        conn.send(message)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
