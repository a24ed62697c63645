"""One pytest param per scenario the conformance suite lists, for the serve and client tests:
a scenario the suite adds appears by itself, those in the expected failures are strict xfails,
and a suite that is not installed is one param that fails saying so."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import pytest
from benchmarks.conformance import SuiteMissing

Leg = TypeVar("Leg")


def scenario_params(
    legs: Iterable[Leg],
    names_of: Callable[[Leg], list[str]],
    expected_failures: Mapping[str, str] | frozenset[str],
    *,
    label: Callable[[Leg], str],
) -> tuple[list[Any], set[str], dict[str, str]]:
    """(params of (leg, scenario), the "leg/scenario" keys listed, the legs' missing suites)."""
    params: list[Any] = []
    listed: set[str] = set()
    missing: dict[str, str] = {}
    for leg in legs:
        try:
            names = names_of(leg)
        except SuiteMissing as exc:
            missing[label(leg)] = str(exc)
            params.append(pytest.param(leg, "", id=f"{label(leg)}/suite-not-installed"))
            continue
        for name in names:
            key = f"{label(leg)}/{name}"
            listed.add(key)
            marks = []
            if key in expected_failures:
                reason = (
                    expected_failures[key] if isinstance(expected_failures, Mapping) else "EXPECTED_FAILURES"
                )
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            params.append(pytest.param(leg, name, id=key, marks=marks))
    return params, listed, missing
