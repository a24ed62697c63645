"""A1/A2: reasons, TTL cache, flap grace, invalidation, concurrent checks under a budget."""

from __future__ import annotations

import threading
import time

import pytest

from tooldeck._core.availability import AvailabilityChecker
from tooldeck._core.availability_types import Availability


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_reasons_for_env_binaries_and_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TD_NOPE", raising=False)
    checker = AvailabilityChecker()
    env, binary, module, present = checker.evaluate(
        [
            ("env", "TD_NOPE"),
            ("bin", "td-no-such-binary"),
            ("module", "td_no_such_module"),
            ("module", "json"),
        ]
    )
    assert env.reason == "env TD_NOPE not set"
    assert binary.reason == "binary td-no-such-binary not found on PATH"
    assert module.reason == "Python module td_no_such_module not installed"
    assert present.ok


def test_env_vars_are_always_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    checker = AvailabilityChecker(ttl_s=3600)
    monkeypatch.delenv("TD_FLAG", raising=False)
    assert not checker.evaluate([("env", "TD_FLAG")])[0].ok
    monkeypatch.setenv("TD_FLAG", "1")
    assert checker.evaluate([("env", "TD_FLAG")])[0].ok


def test_ttl_cache_and_invalidation() -> None:
    clock = Clock()
    state = {"ok": False, "calls": 0}

    def check() -> bool:
        state["calls"] += 1
        return bool(state["ok"])

    checker = AvailabilityChecker(ttl_s=30, clock=clock)
    key = ("check", check)
    first = checker.evaluate([key])[0]
    assert not first.ok and "returned False" in (first.reason or "")
    state["ok"] = True
    assert not checker.evaluate([key])[0].ok and state["calls"] == 1  # cached within the TTL
    clock.now += 31
    assert checker.evaluate([key])[0].ok and state["calls"] == 2  # expired: checked again
    state["ok"] = False
    checker.invalidate()
    assert not checker.evaluate([key])[0].ok and state["calls"] == 3


def test_flap_grace_keeps_the_last_good_answer_only_for_failures_to_answer() -> None:
    clock = Clock()
    mode = {"value": "ok"}

    def check() -> Availability:
        if mode["value"] == "raise":
            raise ConnectionError("daemon restarting")
        return Availability.yes() if mode["value"] == "ok" else Availability.no("service says no")

    checker = AvailabilityChecker(ttl_s=1, flap_grace_s=10, clock=clock)
    key = ("check", check)
    assert checker.evaluate([key])[0].ok
    clock.now += 2
    mode["value"] = "raise"
    kept = checker.evaluate([key])[0]
    assert (
        kept.ok
        and "kept last good answer" in (kept.reason or "")
        and "ConnectionError" in (kept.reason or "")
    )
    clock.now += 20  # past the grace period: the failure shows
    failed = checker.evaluate([key])[0]
    assert not failed.ok and "raised ConnectionError: daemon restarting" in (failed.reason or "")
    clock.now += 2
    mode["value"] = "no"  # an explicit "no" is believed at once, grace or not
    assert checker.evaluate([key])[0].reason == "service says no"


def test_a_grace_answer_ends_with_the_grace_window_not_with_the_ttl() -> None:
    clock = Clock()
    mode = {"raise": False}
    calls = []

    def check() -> bool:
        calls.append(clock.now)
        if mode["raise"]:
            raise ConnectionError("daemon restarting")
        return True

    checker = AvailabilityChecker(ttl_s=5, flap_grace_s=10, clock=clock)
    key = ("check", check)
    assert checker.evaluate([key])[0].ok  # good at 1000: the grace window ends at 1010
    mode["raise"] = True
    clock.now += 8
    assert "kept last good answer" in (checker.evaluate([key])[0].reason or "")
    clock.now += 1.5
    assert checker.evaluate([key])[0].ok and len(calls) == 2  # cached inside the window
    clock.now += 1  # past 1010, though the grace answer's TTL would last until 1013
    failed = checker.evaluate([key])[0]
    assert not failed.ok and "raised ConnectionError: daemon restarting" in (failed.reason or "")
    assert len(calls) == 3  # the check was probed again when the window ended


def test_no_grace_when_flap_grace_is_zero() -> None:
    clock = Clock()
    mode = {"raise": False}

    def check() -> bool:
        if mode["raise"]:
            raise ConnectionError("down")
        return True

    checker = AvailabilityChecker(ttl_s=0, flap_grace_s=0, clock=clock)
    assert checker.evaluate([("check", check)])[0].ok
    mode["raise"] = True
    assert not checker.evaluate([("check", check)])[0].ok  # same instant: still no grace


def test_checks_run_concurrently_and_a_hung_check_costs_only_the_budget() -> None:
    release = threading.Event()
    # Each of the two checks answers only once the other is running too: they pass only if they
    # ran at the same time (no clock involved; a check that waited alone would raise).
    both = threading.Barrier(2, timeout=30)

    def slow() -> bool:
        both.wait()
        return True

    def slow2() -> bool:
        both.wait()
        return True

    def hangs() -> bool:
        release.wait()
        return True

    # A budget generous enough for two threads to start on a loaded machine; the hung check
    # never answers within it, and evaluate returns at its end rather than waiting for it.
    checker = AvailabilityChecker(budget_ms=5_000)
    a, b, c = checker.evaluate([("check", slow), ("check", slow2), ("check", hangs)])
    assert a.ok and b.ok, (a.reason, b.reason)
    assert (
        not c.ok
        and c.reason
        == "check test_checks_run_concurrently_and_a_hung_check_costs_only_the_budget.<locals>.hangs timed out after 5000 ms"
    )
    # Still running: a second evaluation waits on the same thread instead of starting another.
    probes = checker.probe_calls
    checker.budget_s = 0.05  # this evaluation only needs to see the same job, not wait for it
    checker.evaluate([("check", hangs)])
    assert checker.probe_calls == probes
    release.set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not checker.evaluate([("check", hangs)])[0].ok:
        time.sleep(0.01)
    assert checker.evaluate([("check", hangs)])[0].ok  # its late answer was kept


def test_non_bool_results_are_explained() -> None:
    def weird() -> str:
        return "yes"

    (result,) = AvailabilityChecker().evaluate([("check", weird)])
    assert not result.ok and "returned str, not bool" in (result.reason or "")
