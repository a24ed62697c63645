"""The run state is typed: stored and loaded as JSON (older free-form records still load), and a
tool's update names only its fields, checked when the tool builds its output."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tooldeck import Config, Deck, ToolOutput, tool
from tooldeck._core.run_state import Promotions, RunState, RunStateUpdate, TodoItem
from tooldeck.agent.sessions import SessionStore


def test_the_json_form_round_trips() -> None:
    state = RunState(
        Promotions("abc123", frozenset({"b", "a"})),
        [TodoItem(1, "plan", "completed"), TodoItem(2, "build")],
        ["report.md"],
    )
    data = json.loads(json.dumps(state.to_json()))
    assert data == {
        "promoted": {"catalog": "abc123", "names": ["a", "b"]},
        "todo": [
            {"id": 1, "content": "plan", "status": "completed"},
            {"id": 2, "content": "build", "status": "pending"},
        ],
        "artifacts": ["report.md"],
    }
    assert RunState.from_json(data) == state


def test_a_session_stored_in_the_old_dict_form_still_loads(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    with SessionStore(db) as store:
        sid = store.create()
    old = {
        "todo": [{"id": 1, "content": "x", "status": "in_progress"}],
        "artifacts": ["out.csv"],
        "promoted": {"catalog": "f00d", "names": ["createIssue"]},
        "notes": ["a key of a tool long gone"],
    }
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE sessions SET state = ? WHERE id = ?", (json.dumps(old), sid))
    with SessionStore(db) as store:
        loaded = store.load(sid).state
    assert loaded == RunState(
        Promotions("f00d", frozenset({"createIssue"})), [TodoItem(1, "x", "in_progress")], ["out.csv"]
    )


@pytest.mark.parametrize(
    "raw",
    [
        {"todo": "not a list"},
        {"todo": [{"id": "one", "content": "x", "status": "pending"}]},
        {"todo": [{"id": 1, "content": "x", "status": "someday"}]},
        {"artifacts": [1, 2]},
        {"promoted": ["createIssue"]},
        {"promoted": {"names": ["createIssue"]}},
        "not a mapping",
        None,
    ],
)
def test_a_malformed_stored_field_loads_empty(raw: object) -> None:
    assert RunState.from_json(raw) == RunState()


def test_an_update_names_only_the_run_states_fields() -> None:
    assert ToolOutput("ok", update={"artifacts": ["a.txt"]}).update == RunStateUpdate(artifacts=("a.txt",))
    with pytest.raises(
        ValueError, match=r"unknown field\(s\) seen; the run state has promoted, todo, artifacts"
    ):
        ToolOutput("ok", update={"seen": 1, "artifacts": []})
    with pytest.raises(ValueError, match="artifacts is a list of path strings"):
        ToolOutput("ok", update={"artifacts": [7]})
    with pytest.raises(ValueError, match="status 'later' is not one of"):
        ToolOutput("ok", update={"todo": [{"id": 1, "content": "x", "status": "later"}]})


def test_a_tool_returning_an_unknown_field_gets_an_error_naming_it(tmp_path: Path) -> None:
    @tool
    def stamps() -> ToolOutput:
        """Tries to write a key the run state does not have."""
        return ToolOutput("stamped", update={"stamp": 1})

    @tool
    def presents() -> ToolOutput:
        """A typed update."""
        return ToolOutput("presented", update=RunStateUpdate(artifacts=("a.txt",)))

    deck = Deck(Config(home=str(tmp_path / "home")), tools=[stamps, presents])
    bad = deck.call_sync("stamps", {})
    assert bad.error is not None and "unknown field(s) stamp" in bad.error.message and bad.update is None
    good = deck.call_sync("presents", {})
    assert good.ok and good.update == RunStateUpdate(artifacts=("a.txt",))
    assert good.update is not None
    state = RunState(artifacts=["old.md"])
    state.apply(good.update)
    assert state.artifacts == ["a.txt"] and state.todo == [] and good.update.changed() == ("artifacts",)
