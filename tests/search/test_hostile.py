"""Whatever the query, and whatever the catalog says, search answers and never raises."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import ToolSearch

from .conftest import TOOLS

INDEX = ToolSearch(Catalog.from_json(TOOLS))
ODD = [
    "",
    " ",
    "\x00",
    "\ud800",
    "\udfff\ud800 weather",
    "select:",
    "select:,,,",
    "select:\x00",
    "/",
    "//",
    "/(/",
    "/[a-/",
    "/(?<=x*)y/",
    "/\\/",
    "+",
    "++",
    "+ +",
    "+\ud800",
    "😀" * 1000,
    "a" * 100_000,
    "weather " * 20_000,
    "/" + "(a*)*" * 200 + "/",
    "select:" + ",".join(f"t{i}" for i in range(10_000)),
]


def test_known_odd_queries() -> None:
    for query in ODD:
        for limit in (0, 1, 5, 10_000):
            result = INDEX.search(query, limit=limit)
            assert len(result.hits) <= max(limit, len(INDEX.catalog)) or result.form == "select"
            json.dumps([h.name for h in result.hits])


@settings(max_examples=300, deadline=None)
@given(st.text(), st.integers(min_value=-5, max_value=50))
def test_any_query(query: str, limit: int) -> None:
    for prefix in ("", "select:", "+", "/"):
        INDEX.search(prefix + query, limit=limit)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.fixed_dictionaries({"name": st.text(min_size=1), "description": st.text()}), max_size=8))
def test_any_catalog_text(tools: list[dict[str, str]]) -> None:
    unique = list({t["name"]: t for t in tools}.values())
    index = ToolSearch(Catalog.from_json(unique))
    names = {t["name"] for t in unique}
    for tool in unique:
        name = tool["name"]
        found = index.search(f"select:{name}").names
        assert set(found) <= names
        # select strips spaces around names, splits at commas and drops unprintable characters
        if name == name.strip() and name.isprintable() and "," not in name:
            assert found == [name]
        index.search(tool["description"] or "x")


def test_hostile_schemas_are_bounded() -> None:
    deep: dict[str, object] = {"type": "string", "description": "bottom"}
    for i in range(500):
        deep = {"type": "object", "properties": {f"p{i}": deep}}
    wide = {"type": "object", "properties": {f"p{i}": {"enum": list(range(1000))} for i in range(5000)}}
    odd = {"properties": {"a": None, "b": [1, 2], "c": {"items": "x", "anyOf": "y"}}, "enum": "nope"}
    catalog = Catalog.from_json(
        [
            {"name": "deep", "description": "d", "parameters": deep},
            {"name": "wide", "description": "w", "parameters": wide},
            {"name": "odd", "description": "o", "parameters": odd},
        ]
    )
    index = ToolSearch(catalog)
    assert index.search("p3").names[0] == "wide"
    assert index.search("select:deep").names == ["deep"]
