"""The query forms: select, regex, required name terms, free text; parsing never fails."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tooldeck.search.query import FreeText, Pattern, Required, Select, parse_query


def test_select_keeps_names_verbatim_and_in_order() -> None:
    assert parse_query("select:b_tool, Math.Factorial ,a") == Select(("b_tool", "Math.Factorial", "a"))
    assert parse_query("SELECT:x,,x,y") == Select(("x", "y"))
    assert parse_query("select:") == Select(())


def test_regex_form_is_slash_delimited() -> None:
    assert parse_query("/^mcp__github__/") == Pattern("^mcp__github__")
    assert parse_query("  /a|b/  ") == Pattern("a|b")
    # a lone slash or an unclosed one is free text
    assert parse_query("/") == FreeText("/")
    assert parse_query("/etc/passwd reader") == FreeText("/etc/passwd reader")


def test_required_terms_and_rest() -> None:
    assert parse_query("+slack send a message") == Required(("slack",), "send a message")
    assert parse_query("+Slack +POST") == Required(("slack", "post"), "")
    assert parse_query("+ weather") == FreeText("+ weather")


def test_free_text_is_cleaned() -> None:
    assert parse_query("  weather\x00 in\u200b Paris ") == FreeText("weather in Paris")
    assert parse_query("x\ud800y") == FreeText("xy")
    assert parse_query("") == FreeText("")


@given(st.text())
def test_any_string_parses(text: str) -> None:
    form = parse_query(text)
    assert isinstance(form, FreeText | Select | Pattern | Required)
