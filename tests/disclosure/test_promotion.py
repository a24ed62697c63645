"""Promotion records: scoped by the deferred catalog's hash (same hash: union; changed hash or a
malformed record: replaced), carried over when the catalog changes under a live run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tooldeck._core.disclosure import (
    PromotedView,
    carry_over,
    catalog_hash,
    deferred_catalog,
    promote,
    promoted_names,
)
from tooldeck._core.run_state import RunState

from .kit import DEFERRED, TOOLS, make_deck


def test_the_catalog_hash_is_the_search_catalogs_and_ignores_promotions(tmp_path: Path) -> None:
    base = make_deck(tmp_path).loadout()
    catalog = deferred_catalog(base)
    assert catalog.names == DEFERRED and catalog_hash(base) == catalog.content_hash
    view = base.with_exposed(frozenset({"createIssue"}))
    assert "createIssue" in view.exposed_names and "createIssue" not in view.deferred_names
    assert catalog_hash(view) == catalog_hash(base)  # the catalog is the same whatever is promoted
    # Descriptions count: the same names with another text are another catalog.
    changed = [
        t.with_options(description="Something else.") if t.name == "get_forecast" else t for t in TOOLS
    ]
    assert catalog_hash(make_deck(tmp_path, changed).loadout()) != catalog_hash(base)


def test_same_catalog_promotions_add_up_and_only_deferred_names_count(tmp_path: Path) -> None:
    loadout = make_deck(tmp_path).loadout()
    state = RunState()
    promote(state, loadout, ["createIssue", "add", "not_a_tool"])
    promote(state, loadout, ["get_forecast"])
    assert state.to_json()["promoted"] == {
        "catalog": catalog_hash(loadout),
        "names": ["createIssue", "get_forecast"],
    }
    assert promoted_names(state, loadout) == {"createIssue", "get_forecast"}


def test_a_changed_catalog_resets_the_promotions(tmp_path: Path) -> None:
    first = make_deck(tmp_path).loadout()
    other = make_deck(tmp_path / "b", defer=["github", "weather"]).loadout()  # slack no longer deferred
    state = RunState()
    promote(state, first, ["createIssue", "send_slack_message"])
    assert promoted_names(state, other) == frozenset()  # recorded for another catalog
    promote(state, other, ["get_forecast"])
    assert state.to_json()["promoted"] == {"catalog": catalog_hash(other), "names": ["get_forecast"]}


@pytest.mark.parametrize(
    "record",
    [
        ["createIssue"],  # a bare list: no catalog hash
        {"names": ["createIssue"]},
        {"catalog": "", "names": ["createIssue"]},
        {"catalog": None, "names": ["createIssue"]},
        {"catalog": "HASH", "names": "createIssue"},
        {"catalog": "HASH", "names": ["createIssue", 7]},
        {"catalog": "HASH"},
        "createIssue",
        None,
    ],
)
def test_a_hashless_or_malformed_record_is_a_mismatch_and_is_replaced(tmp_path: Path, record: Any) -> None:
    loadout = make_deck(tmp_path).loadout()
    if isinstance(record, dict) and record.get("catalog") == "HASH":
        record = {**record, "catalog": catalog_hash(loadout)}  # the right hash, a broken record
    state = RunState.from_json({"promoted": record})
    assert state.promoted is None
    assert promoted_names(state, loadout) == frozenset()
    assert PromotedView().view(loadout, state) is loadout
    promote(state, loadout, ["get_forecast"])
    assert state.to_json()["promoted"] == {"catalog": catalog_hash(loadout), "names": ["get_forecast"]}


def test_carry_over_keeps_the_tools_still_deferred_and_drops_the_vanished(tmp_path: Path) -> None:
    before = make_deck(tmp_path).loadout()
    shrunk = [t for t in TOOLS if t.name != "get_forecast"]
    after = make_deck(tmp_path, shrunk).loadout()
    state = RunState()
    promote(state, before, ["createIssue", "get_forecast"])
    assert carry_over(state, catalog_hash(before), after)
    assert state.to_json()["promoted"] == {"catalog": catalog_hash(after), "names": ["createIssue"]}
    # Only a record of the catalog the run saw last carries over; another is left to be replaced.
    foreign = RunState.from_json({"promoted": {"catalog": "0" * 16, "names": ["createIssue"]}})
    assert not carry_over(foreign, catalog_hash(before), after)
    assert promoted_names(foreign, after) == frozenset()


def test_a_view_exposes_the_promoted_tools_and_follows_its_catalog(tmp_path: Path) -> None:
    first = make_deck(tmp_path).loadout()
    view = PromotedView()
    state = RunState()
    assert view.view(first, state) is first
    promote(state, first, ["send_slack_message", "get_forecast"])
    seen = view.view(first, state)
    assert set(seen.exposed_names) >= {"send_slack_message", "get_forecast", "add", "tool_search"}
    assert seen.deferred_names == ("createIssue", "list_pull_requests")
    assert view.view(first, state) is seen  # cached while nothing changes
    # The catalog changes under the live run (a tool vanished, another appeared): carried over.
    changed = [t for t in TOOLS if t.name != "get_forecast"]
    changed.append(TOOLS[0].with_options(name="closeIssue", description="Close an issue."))
    second = make_deck(tmp_path, changed).loadout()
    now = view.view(second, state)
    assert "send_slack_message" in now.exposed_names and now.get("get_forecast") is None
    assert state.to_json()["promoted"] == {"catalog": catalog_hash(second), "names": ["send_slack_message"]}
    # A fresh view (a resumed run) has seen no catalog: a record of another catalog is not carried.
    stale = RunState.from_json(
        {"promoted": {"catalog": catalog_hash(first), "names": ["send_slack_message"]}}
    )
    assert PromotedView().view(second, stale) is second
