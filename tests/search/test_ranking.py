"""Ranking sanity on a small catalog: multi-word queries, identifier splitting, query forms."""

from __future__ import annotations

import time

import numpy as np

from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import ToolSearch, top_hits


def test_multi_word_queries_find_the_tool(small_catalog: Catalog) -> None:
    index = ToolSearch(small_catalog)
    assert index.search("what is the weather like in Paris today").names[0] == "get_current_weather"
    assert index.search("post a message to the team slack channel").names[0] == "sendSlackMessage"
    assert index.search("open an issue on github").names[0] == "mcp__github__create_issue"
    assert index.search("translate this sentence into French").names[0] == "translate_text"


def test_identifier_splitting_matches_name_parts(small_catalog: Catalog) -> None:
    index = ToolSearch(small_catalog)
    assert index.search("slack").names == ["sendSlackMessage"]
    assert index.search("factorial").names == ["math.factorial"]
    assert index.search("json request").names[0] == "HTTPRequest2JSON"
    assert index.search("find movies").names[0] == "Movies_1_FindMovies"


def test_parameter_names_and_enum_values_are_searched(small_catalog: Catalog) -> None:
    index = ToolSearch(small_catalog)
    assert index.search("fahrenheit").names == ["get_current_weather"]
    assert index.search("a comedy tonight").names == ["Movies_1_FindMovies"]
    assert index.search("repo title").names[0] == "mcp__github__create_issue"


def test_no_match_returns_nothing_and_limit_is_respected(small_catalog: Catalog) -> None:
    index = ToolSearch(small_catalog)
    assert index.search("zebra xylophone").hits == ()
    assert index.search("the of and").hits == ()
    assert len(index.search("text", limit=1).hits) == 1
    assert index.search("text", limit=0).hits == ()
    assert index.search("text", limit=-3).hits == ()


def test_select_returns_catalog_spelling_in_asked_order(small_catalog: Catalog) -> None:
    index = ToolSearch(small_catalog)
    result = index.search("select:search files,math.factorial,nope,HTTPREQUEST2JSON")
    assert result.form == "select"
    assert result.names == ["search files", "math.factorial", "HTTPRequest2JSON"]
    assert result.unknown == ("nope",)
    # any count: select ignores the limit
    assert len(index.search("select:" + ",".join(small_catalog.names), limit=1).hits) == len(small_catalog)


def test_required_term_filters_names(small_catalog: Catalog) -> None:
    index = ToolSearch(small_catalog)
    result = index.search("+github make a new ticket")
    assert result.form == "required"
    assert result.names == ["mcp__github__create_issue"]
    # every tool whose name holds the term, even without a match for the rest
    assert index.search("+e zebra", limit=20).names == [n for n in small_catalog.names if "e" in n.lower()]
    assert index.search("+nothere weather").hits == ()


def test_regex_form_ranks_name_matches_first(small_catalog: Catalog) -> None:
    index = ToolSearch(small_catalog)
    result = index.search("/weather|city/")
    assert result.form == "regex"
    assert result.names == ["get_current_weather"]
    assert index.search("/^mcp__/").names == ["mcp__github__create_issue"]
    names = index.search("/message|issue/").names
    assert names == ["sendSlackMessage", "mcp__github__create_issue"]


def test_invalid_regex_is_searched_literally(small_catalog: Catalog) -> None:
    result = ToolSearch(small_catalog).search("/stock.(/")
    assert result.note is not None and "literal" in result.note
    assert result.hits == ()


def test_pathological_regex_is_stopped() -> None:
    catalog = Catalog.from_json([{"name": f"t{i}", "description": "a" * 3000 + "!"} for i in range(50)])
    started = time.monotonic()
    result = ToolSearch(catalog).search("/(a|aa)+$/")
    elapsed = time.monotonic() - started
    assert result.note is not None and "stopped" in result.note
    assert elapsed < 10  # the budget is a quarter second; generous for a loaded machine


def test_ties_are_broken_by_catalog_order() -> None:
    catalog = Catalog.from_json(
        [{"name": n, "description": "same words here"} for n in ["zeta", "alpha", "mid"]]
    )
    index = ToolSearch(catalog)
    assert index.search("same words").names == ["zeta", "alpha", "mid"]
    hits = top_hits(("a", "b", "c", "d"), np.array([1.0, 2.0, 2.0, 2.0]), 2, positive_only=True)
    assert [h.name for h in hits] == ["b", "c"]
