"""Servers that fail: at start, in initialize, with garbage, mid-call; reconnection, the breaker,
list_changed and paginated listings — against our tiny stdio server, as real child processes."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tooldeck._core.execution.types import ToolCall

from .mcpkit import cancelled_while_running, deck_over, process_alive, tiny, wait_for


def test_failed_servers_are_reported_and_never_delay_the_others(tmp_path: Path) -> None:
    servers = {
        "exits": tiny("--exit-at-start", "3"),
        "hangs": tiny("--hang", connect_timeout=3),
        "garbage": tiny("--garbage"),
        "missing": {"command": "no-such-mcp-server-binary"},
        "good": tiny(),
    }
    started = time.monotonic()
    with deck_over(tmp_path, servers) as deck:
        elapsed = time.monotonic() - started
        # All connect at once: the hung server costs its own connect timeout, once, not more.
        assert elapsed < 3 + 4.0, elapsed
        explanation = deck.explain()
        notes = {d.path: d.message for d in explanation.diagnostics if d.path}
        assert "exited with code 3: cannot start: missing configuration" in notes["mcp_servers.exits"]
        # Normally "while initializing"; on a loaded machine the start itself may be what ran out.
        assert "no answer while " in notes["mcp_servers.hangs"] and "within 3 s" in notes["mcp_servers.hangs"]
        assert "not MCP: 'Starting tiny server v1 ...'" in notes["mcp_servers.garbage"]
        assert "command not found: no-such-mcp-server-binary" in notes["mcp_servers.missing"]
        exposed = {f.name for f in explanation.fates if f.status == "exposed"}
        assert "mcp__good__echo" in exposed
        assert not any(n.startswith(("mcp__exits", "mcp__hangs", "mcp__garbage")) for n in exposed)
        result = deck.call_sync("mcp__good__echo", {"text": "still fine"})
        assert result.ok and "still fine" in result.content


def test_crash_mid_call_is_unavailable_then_the_server_comes_back(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        source = next(s for s in deck.sources if s.name == "mcp-srv")
        first_pid = source.supervisor._current.child.pid
        crashed = deck.call_sync("mcp__srv__crash", {})
        assert crashed.error is not None and crashed.error.type == "unavailable"
        assert "exited with code 7: crashing on purpose" in crashed.error.message
        assert crashed.error.retryable
        # The supervisor reconnects (a new process) and the tools work again.
        wait_for(lambda: source.supervisor.state == "ready", what="reconnected")
        assert not process_alive(first_pid)
        again = deck.call_sync("mcp__srv__echo", {"text": "back"})
        assert again.ok and "back" in again.content


def test_during_an_outage_tools_stay_listed_as_unavailable_with_the_reason(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with deck_over(tmp_path, {"srv": tiny("--pid-file", str(pid_file))}) as deck:
        source = next(s for s in deck.sources if s.name == "mcp-srv")
        # Keep it down: every reconnect attempt is refused for now.
        source.supervisor.spec = source.supervisor.spec.__class__(
            **{
                **_fields(source.supervisor.spec),
                "args": (*source.supervisor.spec.args, "--exit-at-start", "5"),
            }
        )
        deck.call_sync("mcp__srv__crash", {})
        wait_for(lambda: source.supervisor.state in ("reconnecting", "failed"), what="outage")
        fate = deck.explain("mcp__srv__echo").fates[0]
        assert fate.status == "hidden" and fate.gate == "availability"
        assert "MCP server 'srv' is" in (fate.reason or "") and "exited with code 7" in (fate.reason or "")
        # A model that still calls it learns the server is down, not that the tool does not exist.
        down = deck.call_sync("mcp__srv__echo", {"text": "x"})
        assert down.error is not None and down.error.type == "unavailable", down.content
        assert "MCP server 'srv'" in down.error.message


def test_breaker_counts_transport_failures_only(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        source = next(s for s in deck.sources if s.name == "mcp-srv")
        for _ in range(5):  # tool errors and protocol errors: the transport is fine
            failed = deck.call_sync("mcp__srv__fail", {})
            assert failed.error is not None and failed.error.type == "tool_error"
            assert "does not exist" in failed.error.message
            rpc = deck.call_sync("mcp__srv__rpc_error", {})
            assert rpc.error is not None and rpc.error.type == "tool_error"
            assert "error -32602" in rpc.error.message
        assert source.supervisor.failures == 0 and source.supervisor.state == "ready"


def test_a_stray_line_once_running_is_skipped_and_the_session_stays(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        source = next(s for s in deck.sources if s.name == "mcp-srv")
        pid = source.supervisor._current.child.pid
        noisy = deck.call_sync("mcp__srv__noisy", {})
        assert noisy.ok and "answered after the noise" in noisy.content
        assert deck.call_sync("mcp__srv__echo", {"text": "still here"}).ok
        assert source.supervisor.state == "ready" and source.supervisor._current.child.pid == pid


def test_breaker_opens_after_repeated_transport_failures(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        source = next(s for s in deck.sources if s.name == "mcp-srv")
        sup = source.supervisor
        spec = sup.spec
        sup.spec = spec.__class__(**{**_fields(spec), "args": (*spec.args, "--exit-at-start", "4")})
        deck.call_sync("mcp__srv__crash", {})
        wait_for(lambda: sup.state == "failed", timeout=120, what="circuit open")
        assert "circuit open after" in (sup.error or "")
        assert sup.failures >= sup.breaker.threshold
        sup.spec = spec  # the server is fixed: the next attempt closes the circuit
        sup.retry_now()
        wait_for(lambda: sup.state == "ready", timeout=120, what="recovered")
        assert deck.call_sync("mcp__srv__echo", {"text": "ok"}).ok


def test_list_changed_refreshes_the_tools_and_bumps_the_generation(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        before = deck.registry.generation
        assert "mcp__srv__fresh" not in deck.registry.snapshot().names()
        assert deck.call_sync("mcp__srv__add_tool", {"name": "fresh"}).ok
        wait_for(lambda: "mcp__srv__fresh" in deck.registry.snapshot().names(), what="new tool listed")
        assert deck.registry.generation > before
        assert "mcp__srv__fresh" in {t.name for t in deck.loadout().exposed}
        assert "fresh ran" in deck.call_sync("mcp__srv__fresh", {}).content


def test_a_failed_relisting_degrades_the_server_until_a_request_succeeds(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny("--fail-relist")}) as deck:
        source = next(s for s in deck.sources if s.name == "mcp-srv")
        assert deck.call_sync("mcp__srv__add_tool", {"name": "fresh"}).ok
        wait_for(lambda: source.supervisor.state == "degraded", what="degraded")
        assert "listing is broken today" in (source.supervisor.error or "")
        # Degraded is still usable: the known tools stay available, and a good request heals it.
        assert deck.explain("mcp__srv__echo").fates[0].status == "exposed"
        assert deck.call_sync("mcp__srv__echo", {"text": "ok"}).ok
        assert source.supervisor.state == "ready" and source.supervisor.error is None


def test_paginated_listing_is_followed_to_the_end(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"many": tiny("--tools", "300", "--page", "7")}) as deck:
        names = {t.name for t in deck.loadout().exposed}
        assert len([n for n in names if n.startswith("mcp__many__t")]) == 300
        assert "mcp__many__t299" in names and "mcp__many__where" in names


def test_call_timeout_stops_the_request_and_the_server_stays_usable(tmp_path: Path) -> None:
    record = tmp_path / "calls.jsonl"
    with deck_over(tmp_path, {"srv": tiny("--record", str(record), timeout=2)}) as deck:
        # A first call readies the call path, so the slow request is on the wire well before the timeout.
        assert deck.call_sync("mcp__srv__echo", {"text": "ready"}).ok
        slow = deck.call_sync("mcp__srv__work", {"seconds": 30})
        assert slow.error is not None and slow.error.type == "timeout"
        # The server was told to stop the request (MCP's notifications/cancelled), so it answers now.
        assert deck.call_sync("mcp__srv__echo", {"text": "after"}).ok
        assert cancelled_while_running(record) == ["work"]
        # A timeout is not a transport failure: the server is still ready.
        source = next(s for s in deck.sources if s.name == "mcp-srv")
        assert source.supervisor.state == "ready" and source.supervisor.failures == 0


def test_batch_of_one_server_calls_all_get_results(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        calls = [ToolCall(f"c{i}", "mcp__srv__echo", json.dumps({"text": f"n{i}"})) for i in range(20)]
        calls.append(ToolCall("x", "mcp__srv__crash", "{}"))
        results = deck.call_batch_sync(calls)
        assert [r.call_id for r in results] == [c.id for c in calls]
        assert all(r.ok and f"n{i}" in r.content for i, r in enumerate(results[:20]))
        assert results[-1].error is not None and results[-1].error.type == "unavailable"


def _fields(spec: object) -> dict[str, object]:
    import dataclasses

    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}


def test_a_servers_exact_tool_name_is_kept_when_others_change_to_it(tmp_path: Path) -> None:
    with deck_over(tmp_path, {"srv": tiny()}) as deck:
        for name in ("a.b", "a b", "a_b"):
            assert deck.call_sync("mcp__srv__add_tool", {"name": name}).ok
        mine = lambda: sorted(n for n in deck.registry.snapshot().names() if n.startswith("mcp__srv__a_b"))  # noqa: E731
        names = wait_for(lambda: len(mine()) == 3 and mine(), what="three tools listed")
        assert "mcp__srv__a_b" in names
        # Each deck name reaches its own server tool; the exact one keeps its name.
        ran = {deck.call_sync(n, {}).content.strip() for n in names}
        assert any("a_b ran" in r for r in ran) and any("a.b ran" in r for r in ran)
        assert any("a b ran" in r for r in ran)
        assert "a_b ran" in deck.call_sync("mcp__srv__a_b", {}).content
