"""Tokenisation: identifier splitting, stopwords, stemming, CJK pairs, hostile strings."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tooldeck.search.text import Analyzer, bigrams, split_identifier, words


def test_identifier_styles_split_into_words() -> None:
    assert words("get_current_weather") == ["get", "current", "weather"]
    assert words("sendSlackMessage") == ["send", "slack", "message"]
    assert words("HTTPRequest2JSON") == ["http", "request", "2", "json"]
    assert words("mcp__github__create-issue") == ["mcp", "github", "create", "issue"]
    assert words("math.factorial") == ["math", "factorial"]
    assert words("ipv4Address") == ["ipv", "4", "address"]
    assert split_identifier("parseXMLFile") == "parse XML File"


def test_analyzer_drops_stopwords_and_stems() -> None:
    analyzer = Analyzer()
    assert analyzer.terms("Could you please get the forecasts for Paris?") == ["get", "forecast", "pari"]
    # the same stem whatever the inflection, so "movies" finds "movie"
    assert analyzer.terms("movies") == analyzer.terms("movie")
    assert analyzer.terms("getWeatherForecasts") == ["get", "weather", "forecast"]


def test_analyzer_without_stemming_keeps_words() -> None:
    assert Analyzer(stem=False).terms("running forecasts") == ["running", "forecasts"]


def test_cjk_runs_become_character_pairs() -> None:
    terms = Analyzer().terms("北京天气 weather")
    assert terms == ["北京", "京天", "天气", "weather"]
    assert Analyzer().terms("中") == ["中"]


def test_bigrams_join_adjacent_terms() -> None:
    assert bigrams(["air", "qualiti", "forecast"]) == ["air qualiti", "qualiti forecast"]
    assert bigrams(["one"]) == []


@given(st.text())
def test_any_string_is_tokenised_without_error(text: str) -> None:
    terms = Analyzer().terms(text)
    assert all(isinstance(t, str) and t for t in terms)


def test_hostile_strings() -> None:
    analyzer = Analyzer()
    assert analyzer.terms("") == []
    assert analyzer.terms("\x00\x01\x1b[31m red") == ["31", "m", "red"]
    assert analyzer.terms("lone \ud800 surrogate") == ["lone", "surrog"]
    huge = "weather " * 200_000
    assert len(analyzer.terms(huge)) == 200_000
