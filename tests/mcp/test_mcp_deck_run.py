"""`Deck.run`: async code on the loop the deck's MCP sessions live on, against our tiny stdio server
as a real child process: results, errors, timeouts, Ctrl-C, and the call from the loop itself."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Deck, parse_config, tool
from tooldeck._core.sources.mcp import McpSource

from .mcpkit import called, cancelled_while_running, deck_over, tiny, wait_for


def _source(deck: Deck) -> McpSource:
    return next(s for s in deck.sources if isinstance(s, McpSource))


def test_run_returns_the_result_and_calls_need_no_thread_hand_off(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        mcp = _source(deck).loop

        async def main() -> tuple[str, bool]:
            # The bridge to the MCP loop has nothing to do: the caller is on it.
            assert asyncio.get_running_loop() is mcp.loop
            results = [await deck.call("mcp__srv__echo", {"text": f"hi {i}"}) for i in range(3)]
            assert all(r.ok for r in results), results
            return results[-1].content, mcp.in_loop

        content, in_loop = deck.run(main())
        assert "hi 2" in content and in_loop


def test_exceptions_of_the_coroutine_propagate(tmp_path: Path) -> None:
    class Boom(Exception):
        pass

    with deck_over(tmp_path, {"srv": tiny()}) as deck:

        async def main() -> None:
            assert (await deck.call("mcp__srv__echo", {"text": "x"})).ok
            raise Boom("from the coroutine")

        with pytest.raises(Boom, match="from the coroutine"):
            deck.run(main())
        # The loop and the server are fine afterwards.
        assert deck.call_sync("mcp__srv__echo", {"text": "after"}).ok


def _slow_call(deck: Deck, stopped: list[bool]) -> Coroutine[Any, Any, None]:
    """A thirty-second MCP call that records, when it ends however it ends, that it stopped."""

    async def slow() -> None:
        try:
            await deck.call("mcp__srv__work", {"seconds": 30})
        finally:
            stopped.append(True)

    return slow()


def test_a_timeout_cancels_the_coroutine_and_waits_for_it_to_stop(tmp_path: Path) -> None:
    record = tmp_path / "calls.jsonl"
    with deck_over(tmp_path, {"srv": tiny("--record", str(record))}) as deck:
        # A first call readies the call path, so the slow request is on the wire well before the timeout.
        assert deck.call_sync("mcp__srv__echo", {"text": "ready"}).ok
        stopped: list[bool] = []
        with pytest.raises(TimeoutError):
            deck.run(_slow_call(deck, stopped), timeout=2)
        assert stopped == [True]  # cancelled, and its cleanup ran before run() raised
        # The cancelled request did not cost the session, and the server was told to stop it.
        assert deck.call_sync("mcp__srv__echo", {"text": "still up"}).ok
        assert cancelled_while_running(record) == ["work"]


def test_a_coroutine_cancelled_on_the_loop_raises_cancelled_error(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:

        async def cancelled() -> None:
            task = asyncio.current_task()
            assert task is not None
            asyncio.get_running_loop().call_later(0.1, task.cancel)
            await deck.call("mcp__srv__work", {"seconds": 5})

        with pytest.raises(asyncio.CancelledError):
            deck.run(cancelled())


def test_ctrl_c_while_waiting_cancels_the_coroutine(tmp_path: Path) -> None:
    # Python delivers SIGINT to the main thread: pytest runs tests there, and if it ever did not,
    # this must fail rather than quietly not test Ctrl-C.
    assert threading.current_thread() is threading.main_thread(), "run this test in the main thread"
    record = tmp_path / "calls.jsonl"
    with deck_over(tmp_path, {"srv": tiny("--record", str(record))}) as deck:
        stopped: list[bool] = []
        main = threading.main_thread().ident
        assert main is not None

        def interrupt_once_the_server_works() -> None:
            wait_for(lambda: "work" in called(record), what="the server's work call")
            signal.pthread_kill(main, signal.SIGINT)

        threading.Thread(target=interrupt_once_the_server_works, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            deck.run(_slow_call(deck, stopped))
        assert stopped == [True]
        assert deck.call_sync("mcp__srv__echo", {"text": "still up"}).ok
        assert cancelled_while_running(record) == ["work"]


def test_calling_it_from_the_loop_itself_is_an_error_not_a_deadlock(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:

        async def inner() -> int:
            return 1

        async def nested() -> list[str]:
            errors = []
            for attempt in (lambda: deck.run(inner()), lambda: deck.call_sync("mcp__srv__echo", {})):
                try:
                    attempt()
                except RuntimeError as exc:
                    errors.append(str(exc))
            return errors

        errors = deck.run(nested(), timeout=60)  # a deadlock would end in TimeoutError
        assert len(errors) == 2 and all("await the coroutine instead" in e for e in errors), errors


def test_sync_calls_of_a_deck_with_mcp_servers_run_on_its_loop(tmp_path: Path) -> None:
    seen: list[str] = []

    @tool(read_only=True)
    async def where() -> str:
        """The thread this async tool runs on."""
        seen.append(threading.current_thread().name)
        return "here"

    data = {
        "mcp_servers": {"srv": tiny()},
        "home": str(tmp_path / "home"),
        "plugins": {"enabled": False},
    }
    deck = Deck(parse_config(data, base_dir=str(tmp_path)), tools=[where], builtins=False)
    try:
        assert deck.call_sync("where", {}).ok
        assert seen == [_source(deck).loop.thread.name]
    finally:
        deck.close()


def test_run_works_for_a_deck_without_mcp_servers(tmp_path: Path) -> None:  # the same shared loop
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    config = parse_config(
        {"home": str(tmp_path / "home"), "plugins": {"enabled": False}}, base_dir=str(tmp_path)
    )
    deck = Deck(config, tools=[add], builtins=False)

    async def main() -> str:
        return (await deck.call("add", {"a": 2, "b": 3})).content

    assert deck.run(main()) == "5"
    assert deck.call_sync("add", {"a": 1, "b": 1}).content == "2"  # its own loop, as before
